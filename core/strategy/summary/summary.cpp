// SPDX-License-Identifier: MIT
// The seed 001 digest of a message range and the rule-based summarizer's style dispatch.
#include "core/strategy/summary/summary.h"

#include "core/analysis/toolpaths.h"
#include "core/util/parallel.h"

#include <algorithm>
#include <unordered_set>

namespace cl::strategy {

namespace {

std::string firstLineOf(std::string_view s, std::size_t max = 200)
{
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string_view::npos)
        return {};
    s.remove_prefix(b);
    s = s.substr(0, s.find('\n'));
    if (s.size() > max) {
        std::size_t n = max;
        while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80)
            --n;
        return std::string(s.substr(0, n)) + "…";
    }
    return std::string(s);
}

class RuleSummarizer final : public Summarizer
{
public:
    std::string_view name() const override { return "rule-based"; }
    Summary summarize(const SummaryRequest &r) const override
    {
        static const Transcript empty;
        const Digest d = digest(r.transcript ? *r.transcript : empty, r.messages);
        Summary s;
        if (r.style == "seed003")
            s = summarizeSeed003(r, d);
        else if (r.style == "seed004")
            s = summarizeSeed004(r, d);
        else if (r.style == "claude-code")
            s = summarizeClaudeCode(r, d);
        else if (r.style == "gemini")
            s = summarizeGemini(r, d);
        else if (r.style == "codex")
            s = summarizeCodex(r, d);
        else if (r.style == "openhands")
            s = summarizeOpenHands(r, d);
        else
            s = summarizeSeed001(r, d);
        if (r.maxChars > 0 && s.text.size() > r.maxChars) {
            std::size_t n = r.maxChars;
            while (n > 0 && (static_cast<unsigned char>(s.text[n]) & 0xC0) == 0x80)
                --n;
            s.text.resize(n);
        }
        return s;
    }
};

// What one walk over a range of the messages keeps besides the digest: the sets behind its
// first-seen lists, to merge a second range's lists into them.
struct DigestSets {
    std::unordered_set<std::string_view> read, modified, commands;
};

void digestRange(const Transcript &t, const std::vector<std::size_t> &messages, std::size_t from, std::size_t to,
                 Digest &d, DigestSets &sets)
{
    // Sets of views: the strings they name live in the transcript or in d.storage.
    auto &[read, modified, commands] = sets;
    std::string built; // a command shellCommandView had to assemble
    auto prefetch = [&](std::size_t k) {
        // The walk is bound by cache misses on block arrays, texts and inputs allocated apart from
        // the message array: fetch the block array 8 messages ahead and the blocks' data 4 ahead.
        if (k + 8 < to && messages[k + 8] < t.messages.size())
            __builtin_prefetch(t.messages[messages[k + 8]].blocks.data());
        if (k + 4 < to && messages[k + 4] < t.messages.size())
            for (const Block &b : t.messages[messages[k + 4]].blocks) {
                __builtin_prefetch(b.text.data());
                if (b.type == BlockType::ToolUse && b.input.is_object() && !b.input.empty())
                    __builtin_prefetch(&*b.input.begin());
            }
    };
    for (std::size_t k = from; k < to; ++k) {
        prefetch(k);
        const std::size_t i = messages[k];
        if (i >= t.messages.size())
            continue;
        const Message &m = t.messages[i];
        if (m.timeMs != kNoTime) {
            if (d.firstTimeMs == kNoTime)
                d.firstTimeMs = m.timeMs;
            d.lastTimeMs = m.timeMs;
        }
        // One walk over the blocks: tool calls, errors and media are recorded as they come, the
        // text blocks and tool results counted for the request / response below.
        const Block *firstText = nullptr;
        std::size_t textBlocks = 0;
        bool results = false;
        for (const auto &b : m.blocks) {
            switch (b.type) {
            case BlockType::Text:
                if (textBlocks++ == 0)
                    firstText = &b;
                break;
            case BlockType::ToolUse: {
                const analysis::ToolKind kind = analysis::toolKind(b.toolName);
                const bool readish = kind == analysis::ToolKind::Read || kind == analysis::ToolKind::Other;
                auto &list = readish ? d.filesRead : d.filesModified;
                auto &seen = readish ? read : modified;
                analysis::forEachToolPath(b, [&](std::string_view p) {
                    if (!p.empty() && seen.insert(p).second)
                        list.push_back(p);
                });
                std::string_view cmd = analysis::shellCommandView(b, built);
                if (!cmd.empty() && !commands.count(cmd)) {
                    if (cmd.data() == built.data())
                        cmd = d.storage.emplace_back(std::move(built));
                    commands.insert(cmd);
                    d.commands.push_back(cmd);
                }
                d.toolCalls.push_back({i, b.toolId, b.toolName, kind, &b});
                break;
            }
            case BlockType::ToolResult:
                results = true;
                if (b.isError)
                    d.errors.push_back({i, b.toolId, b.toolName, firstLineOf(b.text)});
                break;
            case BlockType::Image: d.images.push_back({i, b.mediaType, b.dataSize}); break;
            case BlockType::Document: d.documents.push_back({i, b.mediaType, b.dataSize}); break;
            default: break;
            }
        }
        // Message::plainText() without a copy when there is a single text block (the usual case).
        const bool request = m.role == Role::User && !results; // analysis::isUserRequest
        if ((request || m.role == Role::Assistant) && textBlocks > 0) {
            const std::string_view v = textBlocks == 1 ? std::string_view(firstText->text)
                                                       : std::string_view(d.storage.emplace_back(m.plainText()));
            if (!v.empty())
                (request ? d.userInputs : d.assistantResponses).emplace_back(i, v);
        }
    }
}

// Appends the items of `from` that `seen` does not hold yet (first-seen order across both ranges).
void mergeUnique(std::vector<std::string_view> &into, std::unordered_set<std::string_view> &seen,
                 const std::vector<std::string_view> &from)
{
    for (const std::string_view v : from)
        if (seen.insert(v).second)
            into.push_back(v);
}

template <class T> void append(std::vector<T> &into, std::vector<T> &from)
{
    into.insert(into.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

} // namespace

Digest digest(const Transcript &t, const std::vector<std::size_t> &messages)
{
    Digest d;
    DigestSets sets;
    // A walk bound by cache misses: long ranges (a compaction of most of a 100 000-message session)
    // are read in two halves on two threads and merged in order; the result is the same.
    constexpr std::size_t kSplit = 4096;
    if (messages.size() < kSplit) {
        digestRange(t, messages, 0, messages.size(), d, sets);
        return d;
    }
    const std::size_t half = messages.size() / 2;
    Digest second;
    DigestSets secondSets;
    onTwoThreads([&](std::size_t thread) {
        if (thread == 0)
            digestRange(t, messages, 0, half, d, sets);
        else
            digestRange(t, messages, half, messages.size(), second, secondSets);
    });
    append(d.userInputs, second.userInputs);
    append(d.assistantResponses, second.assistantResponses);
    append(d.toolCalls, second.toolCalls);
    append(d.errors, second.errors);
    append(d.images, second.images);
    append(d.documents, second.documents);
    mergeUnique(d.filesRead, sets.read, second.filesRead);
    mergeUnique(d.filesModified, sets.modified, second.filesModified);
    mergeUnique(d.commands, sets.commands, second.commands);
    if (d.firstTimeMs == kNoTime)
        d.firstTimeMs = second.firstTimeMs;
    if (second.lastTimeMs != kNoTime)
        d.lastTimeMs = second.lastTimeMs;
    d.storage.splice(d.storage.end(), second.storage); // the second half's views stay valid
    return d;
}

std::string_view clipFirstLineView(std::string_view s, std::size_t max, bool &clipped, std::string_view skip)
{
    clipped = false;
    const auto b = s.find_first_not_of(skip);
    if (b == std::string_view::npos)
        return {};
    s.remove_prefix(b);
    s = s.substr(0, s.find('\n'));
    while (!s.empty() && (s.back() == ' ' || s.back() == '\r'))
        s.remove_suffix(1);
    if (s.size() <= max)
        return s;
    std::size_t n = max; // never split a code point
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80)
        --n;
    clipped = true;
    return s.substr(0, n);
}

std::string clipFirstLine(std::string_view s, std::size_t max, std::string_view skip)
{
    bool clipped = false;
    const std::string_view v = clipFirstLineView(s, max, clipped, skip);
    return clipped ? std::string(v) + "…" : std::string(v);
}

const Summarizer &ruleSummarizer()
{
    static const RuleSummarizer s;
    return s;
}

std::vector<std::string> summaryStyles()
{
    return {"seed001", "seed003", "seed004", "claude-code", "gemini", "codex", "openhands"};
}

} // namespace cl::strategy
