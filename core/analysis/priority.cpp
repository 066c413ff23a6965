// SPDX-License-Identifier: MIT
// Seed 003 priority classes and the seed 004 / seed 001 importance scores. Rules in analysis.h.
#include "core/analysis/analysis.h"
#include "core/analysis/internal.h"
#include "core/tokens/estimator.h"

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
    std::vector<PriorityInfo> out;
    const detail::PriorityPlan plan = detail::planPriorities(t, v, o, out);
    detail::assignPriorities(t, v, o, plan, 0, v.size(), out);
    return out;
}

detail::PriorityPlan detail::planPriorities(const Transcript &t, const ConversationView &v, const AnalysisOptions &o,
                                            std::vector<PriorityInfo> &out)
{
    PriorityPlan plan;
    out.assign(t.messages.size(), PriorityInfo{});
    for (std::size_t i = 0; i < t.messages.size(); ++i) {
        if (v.position[i] >= 0)
            continue; // conversation messages are filled by assignPriorities, once
        out[i].rule = "not_conversation";
        out[i].blocks.assign(t.messages[i].blocks.size(), Priority::Excluded);
        out[i].blockRules.assign(t.messages[i].blocks.size(), "not_conversation");
    }
    // The recent sets, counted from the end.
    plan.criticalUser.assign(v.size(), 0);
    int users = 0;
    for (std::size_t p = v.size(); p-- > 0 && (users < o.criticalUserMessages || plan.lastAssistant < 0);) {
        const Message &m = t.messages[v.index[p]];
        if (users < o.criticalUserMessages && isUserRequest(m)) {
            plan.criticalUser[p] = 1;
            ++users;
        }
        if (m.role == Role::Assistant && plan.lastAssistant < 0)
            plan.lastAssistant = std::int64_t(v.index[p]);
    }
    // Last N tool result blocks (blocks, so a Gemini message with several results counts each).
    for (std::size_t p = v.size(); p-- > 0 && std::int64_t(plan.recentResults.size()) < o.highToolResults;) {
        const std::size_t i = v.index[p];
        const Message &m = t.messages[i];
        for (std::size_t b = m.blocks.size(); b-- > 0 && std::int64_t(plan.recentResults.size()) < o.highToolResults;)
            if (m.blocks[b].type == BlockType::ToolResult)
                plan.recentResults.emplace_back(i, b);
    }
    return plan;
}

void detail::assignPriorities(const Transcript &t, const ConversationView &v, const AnalysisOptions &o,
                              const PriorityPlan &plan, std::size_t from, std::size_t to, std::vector<PriorityInfo> &out)
{
    const auto &recentResults = plan.recentResults;
    auto isRecent = [&recentResults](std::size_t i, std::size_t b) {
        return std::find(recentResults.begin(), recentResults.end(), std::pair(i, b)) != recentResults.end();
    };
    const std::int64_t lastAssistant = plan.lastAssistant;
    for (std::size_t p = from; p < to; ++p) {
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
        if (plan.criticalUser[p]) {
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
}

namespace {

int recencyBonus(const Importance &r)
{
    return r.minutesBeforeLast < 0 ? 0 : int(std::max<std::int64_t>(0, 30 - r.minutesBeforeLast));
}

} // namespace

Reasons reasonsFor(const Importance &r, const AnalysisOptions &o)
{
    Reasons out;
    out.push_back({"base", o.importanceBase, "base value", {}});
    if (r.userRequest)
        out.push_back({"user_message", 0.2, "user request", {}});
    if (r.keyword >= 0)
        out.push_back({"keyword", 0.2, "contains an important keyword",
                       std::size_t(r.keyword) < o.importantKeywords.size() ? o.importantKeywords[std::size_t(r.keyword)]
                                                                           : std::string()});
    if (r.codeOrCommand)
        out.push_back({"code_or_command", 0.1, "contains code or a command", {}});
    if (r.toolResult)
        out.push_back({"tool_result", -0.2, "tool result", {}});
    if (r.textBytes < o.shortChars)
        out.push_back({"too_short", -0.1, "too short", std::to_string(r.textBytes) + " chars"});
    if (r.media || r.textBytes >= o.richChars)
        out.push_back({"rich_content", 0.1, r.media ? "rich content: image or document" : "rich content: long text", {}});
    return out;
}

PointReasons pointReasonsFor(const Importance &r)
{
    PointReasons out;
    if (r.userRequest)
        out.push_back({"user_message", 30, "user request", {}});
    if (r.failedResult)
        out.push_back({"error", 50, "holds a failed tool result", {}});
    if (r.codeOrCommand)
        out.push_back({"code", 20, "contains code or a command", {}});
    if (const int bonus = recencyBonus(r); bonus > 0)
        out.push_back({"recency", double(bonus), "recent: max(0, 30 - age in minutes)",
                       std::to_string(r.minutesBeforeLast) + " min before the last message"});
    if (r.referencedLater)
        out.push_back({"referenced_later", 40, "a later tool result answers its call", {}});
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
        r.userRequest = m.has(detail::kUserRequest);
        r.codeOrCommand = m.has(detail::kCodeCall) || m.has(detail::kFence);
        r.failedResult = m.has(detail::kFailed);
        r.toolResult = m.has(detail::kToolResult);
        r.media = m.has(detail::kMedia);
        r.referencedLater = m.has(detail::kReferencedLater);
        r.keyword = m.keyword;
        r.textBytes = m.textLen;
        const bool shortText = m.textLen < o.shortChars, rich = r.media || m.textLen >= o.richChars;
        // Seed 004, summed in the order reasonsFor() lists the rules.
        double s = o.importanceBase;
        if (r.userRequest)
            s += 0.2;
        if (m.keyword >= 0)
            s += 0.2;
        if (r.codeOrCommand)
            s += 0.1;
        if (r.toolResult)
            s += -0.2;
        if (shortText)
            s += -0.1;
        if (rich)
            s += 0.1;
        r.score = std::clamp(s, 0.0, 1.0);
        // Rounding guards the threshold against 0.1 + 0.2 style float error.
        r.important = std::round(r.score * 1e9) >= std::round(o.importanceThreshold * 1e9);
        // Seed 001.
        if (last != kNoTime && m.timeMs != kNoTime)
            r.minutesBeforeLast = (last - m.timeMs) / 60000;
        r.points = (r.userRequest ? 30 : 0) + (r.failedResult ? 50 : 0) + (r.codeOrCommand ? 20 : 0)
                   + recencyBonus(r) + (r.referencedLater ? 40 : 0);
    }
    return out;
}

} // namespace cl::analysis
