// SPDX-License-Identifier: MIT
#include "core/tokens/fixedpart.h"

#include "core/tokens/estimator.h"
#include "core/util/json.h"

#include <algorithm>
#include <unordered_set>

namespace cl::tokens {

namespace {

using Json = nlohmann::json;

std::int64_t estimateJsonText(const Json &j)
{
    if (j.is_string())
        return estimateText(j.get_ref<const std::string &>());
    if (j.is_array()) {
        std::int64_t n = 0;
        for (const auto &e : j)
            n += e.is_object() && e.contains("text") ? estimateJsonText(e["text"]) : estimateJsonText(e);
        return n;
    }
    return j.is_null() ? 0 : estimateText(json::dump(j));
}

void addToolDefs(const Json &tools, FixedPart &out)
{
    for (const auto &tool : tools) {
        // Gemini: one Tool holds a list of functionDeclarations, each a tool of its own.
        if (const Json *decls = json::array(tool, "functionDeclarations"); decls && !decls->empty()) {
            addToolDefs(*decls, out);
            continue;
        }
        FixedPart::ToolDef def;
        def.name = json::str(tool, "name");
        if (def.name.empty() && tool.is_object())
            if (const Json *fn = json::object(tool, "function")) // OpenAI Chat: {type, function: {name}}
                def.name = json::str(*fn, "name");
        def.tokens = estimateText(json::dump(tool));
        out.toolTokens += def.tokens;
        out.toolDefs.push_back(std::move(def));
    }
    out.tools = out.toolDefs.size();
}

// The text of an attachment: its string values, the type name aside.
std::int64_t attachmentText(const Json &j)
{
    if (j.is_string())
        return estimateText(j.get_ref<const std::string &>());
    std::int64_t n = 0;
    if (j.is_array())
        for (const auto &e : j)
            n += attachmentText(e);
    else if (j.is_object())
        for (auto it = j.begin(); it != j.end(); ++it)
            if (it.key() != "type")
                n += attachmentText(it.value());
    return n;
}

// Claude Code sends its attachments as reminders inside the user turns: the ones after the last
// compaction are part of every request from there on. A reminder repeated with the same text (the
// token budget, the date) is sent once.
void addAttachments(const Transcript &t, FixedPart &out)
{
    std::unordered_set<std::string> seen;
    for (std::size_t i = liveStart(t); i < t.messages.size(); ++i) {
        const Message &m = t.messages[i];
        if (m.kind != MessageKind::Event || m.sidechain || m.type.rfind("attachment/", 0) != 0 || m.blocks.empty())
            continue;
        const std::string kind = m.type.substr(11);
        const std::string_view category = attachmentCategory(kind);
        if (category.empty() || !seen.insert(m.blocks.front().text).second)
            continue;
        Json a;
        std::string err;
        if (json::parse(m.blocks.front().text, a, err) == json::ParseStatus::Failed)
            continue;
        FixedPart::Attachment att{std::string(category), kind, attachmentText(a), std::uint32_t(i)};
        out.attachmentTokens += att.tokens;
        out.attachments.push_back(std::move(att));
    }
}

// Claude Code 2.1.3xx writes the system prompt and tool definitions of its requests as
// api-request-shape lines ({shape: {system, tools}}); the last one is what the next request sends.
bool fromRequestShape(const Transcript &t, FixedPart &out)
{
    for (std::size_t r = t.records.size(); r-- > 0;) {
        if (t.records[r].type != "api-request-shape")
            continue;
        Json o;
        std::string err;
        if (json::parse(t.recordBytes(t.records[r]), o, err) == json::ParseStatus::Failed || !o.is_object())
            continue;
        const Json *shape = json::object(o, "shape");
        if (!shape)
            continue;
        const Json *system = json::child(*shape, "system");
        const Json *tools = json::array(*shape, "tools");
        out.systemTokens = system ? estimateJsonText(*system) : 0;
        if (tools)
            addToolDefs(*tools, out);
        addAttachments(t, out);
        out.tokens = out.systemTokens + out.toolTokens + out.attachmentTokens;
        out.source = FixedPart::Source::Recorded;
        out.how = "system prompt and " + std::to_string(out.tools) + " tool definitions recorded on line "
                  + std::to_string(t.records[r].line) + " (api-request-shape)"
                  + (out.attachments.empty() ? std::string()
                                             : ", " + std::to_string(out.attachments.size()) + " attachments of the live context")
                  + ", estimated";
        return true;
    }
    return false;
}

// An API request document carries its tool definitions (the system prompt is a message there).
bool fromDocumentTools(const Transcript &t, FixedPart &out)
{
    const Json *tools = t.header.is_object() ? json::array(t.header, "tools") : nullptr;
    if (!tools || tools->empty())
        return false;
    addToolDefs(*tools, out);
    out.tokens = out.toolTokens;
    out.source = FixedPart::Source::Recorded;
    out.how = std::to_string(out.tools) + " tool definitions in the request document, estimated";
    return true;
}

// Copilot CLI records its system prompt as a system.message (a conversation message here) and, with
// each model call, how many tokens its tool definitions took (session.usage_record toolTokenCount,
// its own count): the last such count is the fixed part.
bool fromCopilotToolCount(const Transcript &t, FixedPart &out)
{
    if (t.format != Format::CopilotCli)
        return false;
    for (std::size_t i = t.messages.size(); i-- > 0;) {
        const Message &m = t.messages[i];
        if (m.type != "session.usage_record" || !m.meta.is_object())
            continue;
        const std::int64_t tools = json::num(m.meta, "toolTokenCount", -1);
        if (tools < 0)
            continue;
        out.tokens = out.toolTokens = tools;
        out.source = FixedPart::Source::Recorded;
        out.how = "tool definitions as Copilot CLI counted them (toolTokenCount, line " + std::to_string(m.line)
                  + "); its system prompt is the system.message in the conversation";
        return true;
    }
    return false;
}

} // namespace

std::string_view fixedPartSourceName(FixedPart::Source s)
{
    switch (s) {
    case FixedPart::Source::None: return "none";
    case FixedPart::Source::Recorded: return "recorded";
    case FixedPart::Source::Measured: return "measured";
    case FixedPart::Source::Default: return "default";
    }
    return "none";
}

std::string_view attachmentCategory(std::string_view kind)
{
    // Kept by Claude Code for itself (a copy of the system prompt, UI state, hook bookkeeping).
    static constexpr std::string_view kNotSent[] = {"prompt_snapshot", "session_context", "remote_session_change",
                                                    "hook_success", "batching_reminder_sent", "queued_command",
                                                    "hook_non_blocking_error"};
    for (const auto k : kNotSent)
        if (kind == k)
            return {};
    if (kind.find("skill") != std::string_view::npos)
        return "skills";
    if (kind.find("agent_listing") != std::string_view::npos)
        return "agents";
    if (kind.find("memory") != std::string_view::npos)
        return "memory";
    if (kind.find("mcp") != std::string_view::npos || kind.find("deferred_tools") != std::string_view::npos)
        return "mcp";
    if (kind == "file" || kind.find("text_file") != std::string_view::npos || kind.find("file_reference") != std::string_view::npos)
        return "files";
    return "environment";
}

std::int64_t defaultFixedTokens(Format f)
{
    // Measured on the pinned agents' first requests with an empty conversation (docs/design/tokens.md).
    switch (f) {
    case Format::ClaudeCode: return 20000;
    case Format::Codex: return 9000;
    case Format::GeminiCli: return 11000;
    case Format::QwenCode: return 18000;
    case Format::CopilotCli: return 6000; // its 17 tool definitions; the system prompt is in the file
    default: return 0;
    }
}

// Codex records its system prompt in session_meta (base_instructions.text); the tool definitions
// it does not. The figure stays measured (or default); the system prompt is its recorded share.
void addRecordedSystem(const Transcript &t, FixedPart &out)
{
    const Json *base = t.header.is_object() ? json::child(t.header, "base_instructions") : nullptr;
    const Json *text = base && base->is_object() ? json::child(*base, "text") : base;
    if (!text || !text->is_string())
        return;
    out.systemTokens = std::min(out.tokens, estimateText(text->get_ref<const std::string &>()));
    out.how += "; its system prompt recorded (session_meta), estimated";
}

FixedPart fixedPart(const Transcript &t)
{
    FixedPart out;
    if (fromRequestShape(t, out) || fromDocumentTools(t, out) || fromCopilotToolCount(t, out))
        return out;
    for (const MeasuredPoint &p : measuredContext(t)) {
        if (p.measured <= p.estimated)
            break;
        out.tokens = p.measured - p.estimated;
        out.source = FixedPart::Source::Measured;
        out.how = "first measured usage (message " + std::to_string(p.message + 1) + ": "
                  + std::to_string(p.measured) + ") minus the conversation's estimate before it";
        addRecordedSystem(t, out);
        return out;
    }
    out.tokens = defaultFixedTokens(t.format);
    if (out.tokens > 0) {
        out.source = FixedPart::Source::Default;
        out.how = "the agent's default system prompt and tools (no usage recorded), approximate";
        addRecordedSystem(t, out);
    } else {
        out.how = "API document: nothing is sent besides its messages";
    }
    return out;
}

} // namespace cl::tokens
