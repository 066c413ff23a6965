// SPDX-License-Identifier: MIT
// markdownTranscript(): the conversation as Markdown for sharing. Each message is a level-3
// heading "### N · role · kind · timestamp"; texts as written (escaped where Markdown would render
// HTML), tool calls, results and thinking folded in <details> (an HTML block ended by a blank line,
// so that the fenced block inside it is Markdown again), compactions as a rule with a note.
#include "core/report/labels.h"
#include "core/report/report.h"
#include "core/report/textformat.h"
#include "core/tokens/estimator.h"
#include "core/util/json.h"
#include "core/workflow/composition.h"

namespace cl::report {

namespace {

struct Writer {
    const Transcript &t;
    const MarkdownOptions &o;
    std::string out;

    // A fenced block of at most maxResultChars characters, then a note when it was cut.
    void fencedCut(std::string_view text, std::string_view info)
    {
        const std::size_t chars = utf8Length(text);
        const std::string_view shown = utf8Prefix(text, o.maxResultChars);
        out += markdownFence(shown, info);
        if (shown.size() < text.size())
            out += "\n*Truncated: the first " + grouped(std::int64_t(o.maxResultChars)) + " of " + grouped(std::int64_t(chars))
                   + " characters are shown.*\n";
    }

    void details(const std::string &summary)
    {
        out += "<details><summary>" + htmlEscape(summary) + "</summary>\n\n";
    }
    void endDetails() { out += "\n</details>\n\n"; }

    void block(const Block &b)
    {
        switch (b.type) {
        case BlockType::Text:
            if (!b.text.empty())
                out += markdownText(b.text) + "\n";
            break;
        case BlockType::ToolUse: {
            details(callLabel(b));
            if (b.input.is_string())
                fencedCut(b.input.get_ref<const std::string &>(), "");
            else
                fencedCut(json::dump(b.input, 2), "json");
            endDetails();
            break;
        }
        case BlockType::ToolResult: {
            const std::size_t chars = utf8Length(b.text);
            std::string summary = std::string(b.isError ? "Error: " : "Result: ") + resultLabel(t, b) + " (" + grouped(std::int64_t(chars))
                                  + (chars == 1 ? " character" : " characters");
            if (b.cleared)
                summary += ", cleared by a microcompaction";
            details(summary + ")");
            if (b.cleared)
                out += "The agent sends `" + std::string(kClearedResult) + "` instead of this result.\n\n";
            fencedCut(b.text, "");
            endDetails();
            break;
        }
        case BlockType::Thinking:
            if (!o.thinking)
                break;
            details("Thinking (" + grouped(std::int64_t(utf8Length(b.text))) + " characters)");
            out += markdownText(b.text);
            endDetails();
            break;
        case BlockType::RedactedThinking:
            if (o.thinking)
                out += "*Redacted thinking.*\n\n";
            break;
        case BlockType::Image:
        case BlockType::Document:
            out += std::string("*[") + (b.type == BlockType::Image ? "image" : "document")
                   + (b.mediaType.empty() ? std::string() : ": " + markdownInline(b.mediaType)) + ", "
                   + grouped(std::int64_t(b.dataSize)) + " bytes of base64]*\n\n";
            break;
        case BlockType::Raw:
            details("Raw block");
            fencedCut(b.text, "json");
            endDetails();
            break;
        }
    }

    void message(std::size_t i)
    {
        const Message &m = t.messages[i];
        const bool boundary = m.kind == MessageKind::CompactBoundary || m.kind == MessageKind::MicrocompactBoundary;
        if (boundary)
            out += "\n---\n\n";
        std::string heading = "### " + std::to_string(i + 1) + " \u00b7 " + messageRoleAndKind(m);
        if (m.sidechain)
            heading += " \u00b7 sidechain";
        if (!m.timestamp.empty())
            heading += " \u00b7 " + markdownInline(m.timestamp);
        out += heading + "\n\n";
        if (boundary) {
            std::string note = m.kind == MessageKind::MicrocompactBoundary
                                   ? "> **Microcompaction.** The agent cleared old tool results here"
                                   : "> **Compaction.** The agent compacted its context here";
            if (const std::string trigger = json::str(m.meta, "trigger"); !trigger.empty())
                note += " (" + markdownInline(trigger) + ")";
            note += ".";
            if (const std::int64_t pre = json::num(m.meta, "preTokens"); pre > 0)
                note += " Context before: " + grouped(pre) + " tokens (recorded).";
            if (m.kind == MessageKind::CompactBoundary)
                note += " The model no longer sees the messages before this point.";
            out += note + "\n\n";
        }
        for (const Block &b : m.blocks)
            block(b);
    }
};

} // namespace

bool includedInMarkdown(const Message &m, const MarkdownOptions &o)
{
    if (m.kind == MessageKind::Meta && !o.metadata)
        return false;
    if (m.sidechain && !o.sidechains)
        return false;
    return o.history || !m.history;
}

std::string markdownTranscript(const Transcript &t, const MarkdownOptions &o)
{
    Writer w{t, o, {}};
    const std::string name = t.path.substr(t.path.find_last_of('/') + 1);
    w.out += "# Transcript: " + markdownInline(name.empty() ? std::string("session") : name) + "\n\n";
    std::size_t history = 0;
    for (const Message &m : t.messages)
        history += m.history && m.isTurn() && !m.sidechain;
    const composition::Composition live = composition::compose(t);
    w.out += "- Format: " + std::string(formatName(t.format)) + "\n";
    w.out += "- Messages: " + grouped(std::int64_t(t.messages.size()));
    if (history)
        w.out += " (" + grouped(std::int64_t(history)) + " before the last compaction)";
    w.out += "\n- Live context: " + grouped(live.total) + " tokens (estimated; fixed part " + markdownInline(live.fixedSource)
             + ")";
    if (live.window > 0)
        w.out += " of a " + grouped(live.window) + "-token window";
    w.out += "\n";
    if (const auto points = tokens::measuredContext(t); !points.empty())
        w.out += "- Measured context at the last response: " + grouped(points.back().measured) + " tokens\n";
    w.out += "\n";

    const std::size_t live0 = liveStart(t);
    bool historyOpen = false;
    for (std::size_t i = 0; i < t.messages.size(); ++i) {
        const Message &m = t.messages[i];
        if (!includedInMarkdown(m, o))
            continue;
        if (i < live0 && !historyOpen) {
            w.out += "## History (before the last compaction)\n\n"
                     "*The agent no longer sends these messages to the model.*\n\n";
            historyOpen = true;
        }
        if (i >= live0 && historyOpen) {
            w.out += "## Live context\n\n";
            historyOpen = false;
        }
        w.message(i);
    }
    return w.out;
}

} // namespace cl::report
