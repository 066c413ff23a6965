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
        if (v.position[i] >= 0)
            continue;    // conversation messages are filled below, once
        out[i].rule = "not_conversation";
        out[i].blocks.assign(t.messages[i].blocks.size(), Priority::Excluded);
        out[i].blockRules.assign(t.messages[i].blocks.size(), "not_conversation");
    }
    // The recent sets, counted from the end.
    std::vector<char> criticalUser(v.size(), 0);
    int users = 0;
    std::int64_t lastAssistant = -1;
    for (std::size_t p = v.size(); p-- > 0 && (users < o.criticalUserMessages || lastAssistant < 0);) {
        const Message &m = t.messages[v.index[p]];
        if (users < o.criticalUserMessages && isUserRequest(m)) {
            criticalUser[p] = 1;
            ++users;
        }
        if (m.role == Role::Assistant && lastAssistant < 0)
            lastAssistant = std::int64_t(v.index[p]);
    }
    // Last N tool result blocks (blocks, so a Gemini message with several results counts each).
    std::vector<std::pair<std::size_t, std::size_t>> recentResults; // (message, block)
    for (std::size_t p = v.size(); p-- > 0 && std::int64_t(recentResults.size()) < o.highToolResults;) {
        const std::size_t i = v.index[p];
        const Message &m = t.messages[i];
        for (std::size_t b = m.blocks.size(); b-- > 0 && std::int64_t(recentResults.size()) < o.highToolResults;)
            if (m.blocks[b].type == BlockType::ToolResult)
                recentResults.emplace_back(i, b);
    }
    auto isRecent = [&recentResults](std::size_t i, std::size_t b) {
        return std::find(recentResults.begin(), recentResults.end(), std::pair(i, b)) != recentResults.end();
    };
    for (std::size_t p = 0; p < v.size(); ++p) {
        detail::prefetchAhead(t, v, p);
        const std::size_t i = v.index[p];
        const Message &m = t.messages[i];
        PriorityInfo &info = out[i];
        auto whole = [&info, &m](Priority pr, std::string_view rule) {
            info.priority = pr;
            info.rule = rule;
            info.blocks.assign(m.blocks.size(), pr);
            info.blockRules.assign(m.blocks.size(), rule);
        };
        if (m.role == Role::System) {
            whole(Priority::Sacred, "system_prompt");
            continue;
        }
        if (criticalUser[p]) {
            whole(Priority::Critical, "last_user_messages");
            continue;
        }
        if (std::int64_t(i) == lastAssistant) {
            whole(Priority::Critical, "last_assistant_message");
            continue;
        }
        if (m.hasToolResult()) {
            info.blocks.assign(m.blocks.size(), Priority::Excluded);
            info.blockRules.assign(m.blocks.size(), std::string_view());
            Priority best = Priority::Excluded;
            std::string_view bestRule;
            for (std::size_t b = 0; b < m.blocks.size(); ++b) {
                const Block &blk = m.blocks[b];
                if (blk.type != BlockType::ToolResult)
                    continue;
                Priority pr;
                std::string_view rule;
                if (blk.isError) {
                    pr = Priority::Medium;
                    rule = "error_result";
                } else if (!recentResults.empty() && isRecent(i, b)) {
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
        // (A failed result needs a result block, so "error_message" cannot fire past the branch above.)
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
    return detail::importance(t, v, o, detail::summarize(t, v, o));
}

std::vector<Importance> detail::importance(const Transcript &, const ConversationView &v, const AnalysisOptions &o,
                                           const Summary &sum)
{
    std::int64_t last = kNoTime;
    for (const MsgInfo &m : sum.msgs)
        if (m.timeMs != kNoTime && (last == kNoTime || m.timeMs > last))
            last = m.timeMs;
    std::vector<Importance> out(v.size());
    for (std::size_t p = 0; p < v.size(); ++p) {
        const std::size_t i = v.index[p];
        const MsgInfo &m = sum.msgs[p];
        Importance &r = out[p];
        r.index = i;
        const bool user = m.has(detail::kUserRequest);
        const bool code = m.has(detail::kCodeCall) || m.has(detail::kFence);
        const bool failed = m.has(detail::kFailed);
        const bool result = m.has(detail::kToolResult);
        const std::size_t len = m.textLen;
        const bool media = m.has(detail::kMedia);
        const bool shortText = len < o.shortChars, rich = media || len >= o.richChars;
        // Seed 004.
        double s = o.importanceBase;
        r.reasons.reserve(1 + user + (m.keyword >= 0) + code + result + shortText + rich);
        r.reasons.push_back({"base", o.importanceBase, "base value", {}});
        auto add = [&](std::string_view rule, double d, std::string_view text, std::string detail = {}) {
            s += d;
            r.reasons.push_back({rule, d, text, std::move(detail)});
        };
        if (user)
            add("user_message", 0.2, "user request");
        if (m.keyword >= 0)
            add("keyword", 0.2, "contains an important keyword", o.importantKeywords[std::size_t(m.keyword)]);
        if (code)
            add("code_or_command", 0.1, "contains code or a command");
        if (result)
            add("tool_result", -0.2, "tool result");
        if (shortText)
            add("too_short", -0.1, "too short", std::to_string(len) + " chars");
        if (rich)
            add("rich_content", 0.1, media ? "rich content: image or document" : "rich content: long text");
        r.score = std::clamp(s, 0.0, 1.0);
        // Rounding guards the threshold against 0.1 + 0.2 style float error.
        r.important = std::round(r.score * 1e9) >= std::round(o.importanceThreshold * 1e9);
        // Seed 001.
        int bonus = 0;
        std::int64_t minutes = 0;
        if (last != kNoTime && m.timeMs != kNoTime) {
            minutes = (last - m.timeMs) / 60000;
            bonus = int(std::max<std::int64_t>(0, 30 - minutes));
        }
        const bool referenced = m.has(detail::kReferencedLater);
        const std::size_t npts = std::size_t(user) + failed + code + (bonus > 0) + referenced;
        if (npts == 0)
            continue;
        r.pointReasons.reserve(npts);
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
        if (bonus > 0)
            pts("recency", bonus, "recent: max(0, 30 - age in minutes)", std::to_string(minutes) + " min before the last message");
        if (referenced)
            pts("referenced_later", 40, "a later tool result answers its call");
    }
    return out;
}

} // namespace cl::analysis
