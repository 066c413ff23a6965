// SPDX-License-Identifier: MIT
// The seed 001 digest of a message range and the rule-based summarizer's style dispatch.
#include "core/summary.h"

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

void addUnique(std::vector<std::string> &list, std::unordered_set<std::string> &seen, std::string v)
{
    if (!v.empty() && seen.insert(v).second)
        list.push_back(std::move(v));
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

} // namespace

Digest digest(const Transcript &t, const std::vector<std::size_t> &messages)
{
    Digest d;
    std::unordered_set<std::string> read, modified, commands;
    for (const std::size_t i : messages) {
        if (i >= t.messages.size())
            continue;
        const Message &m = t.messages[i];
        if (m.timeMs != kNoTime) {
            if (d.firstTimeMs == kNoTime)
                d.firstTimeMs = m.timeMs;
            d.lastTimeMs = m.timeMs;
        }
        if (m.role == Role::User && analysis::isUserRequest(m)) {
            if (std::string text = m.plainText(); !text.empty())
                d.userInputs.emplace_back(i, std::move(text));
        } else if (m.role == Role::Assistant) {
            if (std::string text = m.plainText(); !text.empty())
                d.assistantResponses.emplace_back(i, std::move(text));
        }
        for (const auto &b : m.blocks) {
            switch (b.type) {
            case BlockType::ToolUse: {
                Digest::Call c{i, b.toolId, b.toolName, nlohmann::json(), analysis::toolKind(b.toolName), &b};
                for (auto &p : analysis::toolPaths(b))
                    addUnique(c.kind == analysis::ToolKind::Read || c.kind == analysis::ToolKind::Other ? d.filesRead
                                                                                                       : d.filesModified,
                              c.kind == analysis::ToolKind::Read || c.kind == analysis::ToolKind::Other ? read : modified,
                              std::move(p));
                addUnique(d.commands, commands, analysis::shellCommand(b));
                d.toolCalls.push_back(std::move(c));
                break;
            }
            case BlockType::ToolResult:
                if (b.isError)
                    d.errors.push_back({i, b.toolId, b.toolName, firstLineOf(b.text)});
                break;
            case BlockType::Image: d.images.push_back({i, b.mediaType, b.dataSize}); break;
            case BlockType::Document: d.documents.push_back({i, b.mediaType, b.dataSize}); break;
            default: break;
            }
        }
    }
    return d;
}

std::string clipFirstLine(std::string_view s, std::size_t max, std::string_view skip)
{
    const auto b = s.find_first_not_of(skip);
    if (b == std::string_view::npos)
        return {};
    s.remove_prefix(b);
    s = s.substr(0, s.find('\n'));
    while (!s.empty() && (s.back() == ' ' || s.back() == '\r'))
        s.remove_suffix(1);
    if (s.size() <= max)
        return std::string(s);
    std::size_t n = max; // never split a code point
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80)
        --n;
    return std::string(s.substr(0, n)) + "…";
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
