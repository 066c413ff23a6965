// SPDX-License-Identifier: MIT
// Seed 003 priority classes and the seed 004 / seed 001 importance scores. Rules in analysis.h.
#include "core/analysis.h"
#include "core/analysis_internal.h"
#include "core/tokens.h"

#include <algorithm>
#include <cmath>

namespace cl::analysis {

std::string_view priorityName(Priority p)
{
    switch (p) {
    case Priority::Sacred: return "sacred";
    case Priority::Critical: return "critical";
    case Priority::High: return "high";
    case Priority::Medium: return "medium";
    case Priority::Low: return "low";
    case Priority::Lowest: return "lowest";
    case Priority::Excluded: break;
    }
    return "excluded";
}

namespace {

// A result's size: the cached message estimate (minus role and structure) when the message holds
// only this block, else ceil(bytes / 4) + overhead, so that no text is rescanned here.
std::int64_t resultTokens(const Message &m, const Block &b)
{
    if (m.blocks.size() == 1)
        return tokens::estimateMessage(m) - tokens::kRoleTokens - tokens::kStructureTokens;
    return std::int64_t((b.text.size() + 3) / 4) + tokens::kToolResultOverhead;
}

} // namespace

std::vector<PriorityInfo> priorities(const Transcript &t, const ConversationView &v, const AnalysisOptions &o)
{
    std::vector<PriorityInfo> out(t.messages.size());
    for (std::size_t i = 0; i < t.messages.size(); ++i) {
        out[i].blocks.assign(t.messages[i].blocks.size(), Priority::Excluded);
        out[i].blockRules.assign(t.messages[i].blocks.size(), "not_conversation");
        out[i].rule = "not_conversation";
    }
    // The recent sets, counted from the end.
    std::vector<char> criticalUser(t.messages.size(), 0);
    int users = 0;
    std::int64_t lastAssistant = -1;
    for (std::size_t p = v.size(); p-- > 0;) {
        const std::size_t i = v.index[p];
        const Message &m = t.messages[i];
        if (isUserRequest(m) && users < o.criticalUserMessages) {
            criticalUser[i] = 1;
            ++users;
        }
        if (m.role == Role::Assistant && lastAssistant < 0)
            lastAssistant = std::int64_t(i);
    }
    // Last N tool result blocks (blocks, so a Gemini message with several results counts each).
    std::vector<std::vector<char>> recentResult(t.messages.size());
    int results = 0;
    for (std::size_t p = v.size(); p-- > 0 && results < o.highToolResults;) {
        const std::size_t i = v.index[p];
        const Message &m = t.messages[i];
        for (std::size_t b = m.blocks.size(); b-- > 0 && results < o.highToolResults;)
            if (m.blocks[b].type == BlockType::ToolResult) {
                if (recentResult[i].empty())
                    recentResult[i].assign(m.blocks.size(), 0);
                recentResult[i][b] = 1;
                ++results;
            }
    }
    for (std::size_t p = 0; p < v.size(); ++p) {
        const std::size_t i = v.index[p];
        const Message &m = t.messages[i];
        PriorityInfo &info = out[i];
        auto whole = [&info](Priority pr, const char *rule) {
            info.priority = pr;
            info.rule = rule;
            std::fill(info.blocks.begin(), info.blocks.end(), pr);
            std::fill(info.blockRules.begin(), info.blockRules.end(), rule);
        };
        if (m.role == Role::System) {
            whole(Priority::Sacred, "system_prompt");
            continue;
        }
        if (criticalUser[i]) {
            whole(Priority::Critical, "last_user_messages");
            continue;
        }
        if (std::int64_t(i) == lastAssistant) {
            whole(Priority::Critical, "last_assistant_message");
            continue;
        }
        if (m.hasToolResult()) {
            Priority best = Priority::Excluded;
            std::string_view bestRule;
            for (std::size_t b = 0; b < m.blocks.size(); ++b) {
                const Block &blk = m.blocks[b];
                if (blk.type != BlockType::ToolResult)
                    continue;
                Priority pr;
                const char *rule;
                if (blk.isError) {
                    pr = Priority::Medium;
                    rule = "error_result";
                } else if (!recentResult[i].empty() && recentResult[i][b]) {
                    pr = Priority::High;
                    rule = "recent_tool_result";
                } else if (toolKind(blk.toolName) == ToolKind::Read && resultTokens(m, blk) > o.largeReadTokens) {
                    pr = Priority::Lowest;
                    rule = "large_read";
                } else {
                    pr = Priority::Low;
                    rule = "old_tool_result";
                }
                info.blocks[b] = pr;
                info.blockRules[b] = rule;
                if (pr < best) {
                    best = pr;
                    bestRule = rule;
                }
            }
            info.priority = best;
            info.rule = bestRule;
            // Other blocks (text next to results) follow the message.
            for (std::size_t b = 0; b < m.blocks.size(); ++b)
                if (m.blocks[b].type != BlockType::ToolResult) {
                    info.blocks[b] = best;
                    info.blockRules[b] = bestRule;
                }
            continue;
        }
        if (detail::hasFailedResult(m)) {
            whole(Priority::Medium, "error_message");
            continue;
        }
        if (m.role == Role::Assistant) {
            whole(Priority::Low, "old_assistant_message");
            continue;
        }
        whole(Priority::Medium, "old_user_request");
    }
    return out;
}

std::vector<Importance> importance(const Transcript &t, const ConversationView &v, const AnalysisOptions &o)
{
    std::int64_t last = kNoTime;
    for (std::size_t i : v.index)
        if (t.messages[i].timeMs != kNoTime && (last == kNoTime || t.messages[i].timeMs > last))
            last = t.messages[i].timeMs;
    std::vector<Importance> out(v.size());
    for (std::size_t p = 0; p < v.size(); ++p) {
        const std::size_t i = v.index[p];
        const Message &m = t.messages[i];
        Importance &r = out[p];
        r.index = i;
        const bool user = isUserRequest(m);
        const bool code = detail::hasCodeOrCommand(m, o.scanBytes);
        const bool failed = detail::hasFailedResult(m);
        // Seed 004.
        double s = o.importanceBase;
        r.reasons.reserve(4);
        r.reasons.push_back({"base", o.importanceBase, "base value", {}});
        auto add = [&](std::string_view rule, double d, std::string_view text, std::string detail = {}) {
            s += d;
            r.reasons.push_back({rule, d, text, std::move(detail)});
        };
        if (user)
            add("user_message", 0.2, "user request");
        if (const int k = detail::textContainsAny(m, o.importantKeywords, o.scanBytes); k >= 0)
            add("keyword", 0.2, "contains an important keyword", o.importantKeywords[std::size_t(k)]);
        if (code)
            add("code_or_command", 0.1, "contains code or a command");
        if (m.hasToolResult())
            add("tool_result", -0.2, "tool result");
        const std::size_t len = detail::textLength(m);
        if (len < o.shortChars)
            add("too_short", -0.1, "too short", std::to_string(len) + " chars");
        const bool media = std::any_of(m.blocks.begin(), m.blocks.end(), [](const Block &b) {
            return b.type == BlockType::Image || b.type == BlockType::Document;
        });
        if (media || len >= o.richChars)
            add("rich_content", 0.1, media ? "rich content: image or document" : "rich content: long text");
        r.score = std::clamp(s, 0.0, 1.0);
        // Rounding guards the threshold against 0.1 + 0.2 style float error.
        r.important = std::round(r.score * 1e9) >= std::round(o.importanceThreshold * 1e9);
        // Seed 001.
        auto pts = [&](std::string_view rule, int d, std::string_view text, std::string detail = {}) {
            r.points += d;
            r.pointReasons.push_back({rule, double(d), text, std::move(detail)});
        };
        if (user)
            pts("user_message", 30, "user request");
        if (failed)
            pts("error", 50, "holds a failed tool result");
        if (code)
            pts("code", 20, "contains code or a command");
        if (last != kNoTime && m.timeMs != kNoTime) {
            const std::int64_t minutes = (last - m.timeMs) / 60000;
            const int bonus = int(std::max<std::int64_t>(0, 30 - minutes));
            if (bonus > 0)
                pts("recency", bonus, "recent: max(0, 30 - age in minutes)", std::to_string(minutes) + " min before the last message");
        }
        bool referenced = false;
        for (const auto &b : m.blocks)
            if (b.type == BlockType::ToolUse && b.pairMessage > std::int32_t(i))
                referenced = true;
        if (referenced)
            pts("referenced_later", 40, "a later tool result answers its call");
    }
    return out;
}

} // namespace cl::analysis
