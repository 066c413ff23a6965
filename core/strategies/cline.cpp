// SPDX-License-Identifier: MIT
// docs/design/agents.md §12: Cline (legacy context truncation). Trigger: the conversation above the largest allowed
// size: window - 27K for a 64K window, - 30K for 128K, - 40K for 200K, else max(window - 40K,
// 0.8 x window) (Cline's getContextWindowInfo); bufferTokens > 0 overrides the buffer. The first
// user-assistant pair stays; of the rest, "half" removes half (floor(rest / 4) x 2 messages) and
// "quarter" keeps a quarter (floor(rest x 3 / 4 / 2) x 2 messages removed), as Cline's
// getNextTruncationRange counts them: an even number, and the last removed message must be an
// assistant message (else one fewer) so that a user turn follows the kept pair. Cline's messages
// are Anthropic-style (tool results ride in the next user turn); where the range would end between
// a call and its results, the results following the range go too (logged), so pairs leave together.
#include "core/strategies/factories.h"

#include "core/strategies/agent_common.h"

#include <algorithm>

namespace cl::strategy {

namespace {

std::int64_t clineMaxAllowed(std::int64_t window, std::int64_t buffer)
{
    if (buffer > 0)
        return window - buffer;
    switch (window) {
    case 64000: return window - 27000;
    case 128000: return window - 30000;
    case 200000: return window - 40000;
    default: return std::max<std::int64_t>(window - 40000, static_cast<std::int64_t>(double(window) * 0.8));
    }
}

class Cline final : public Strategy
{
public:
    std::string_view name() const override { return "cline"; }
    std::string_view title() const override { return "Cline context truncation"; }
    std::string_view source() const override { return "peer: Cline (legacy)"; }
    Group group() const override { return Group::Removal; }
    std::string_view follows() const override { return "Cline"; }
    std::string_view description() const override
    {
        return "What Cline's legacy truncation does near the window (window minus 27K-40K): keeps the first "
               "user-assistant pair and removes half (or three quarters) of the remaining messages, an even count "
               "ending on an assistant message.";
    }
    std::vector<ParamSpec> params() const override
    {
        return {{"bufferTokens", ParamSpec::Type::Int, 0, 100000000, 0, {}, "Tokens kept free (0: Cline's table: 27K for 64K, 30K for 128K, 40K for 200K windows, else "
                                                                            "max(window - 40K, 80 %))."},
                {"keep", ParamSpec::Type::Choice, 0, 0, "half", {"half", "quarter"}, "half: remove half of the rest; quarter: keep a quarter of it."},
                agents::forceParam()};
    }

    Result apply(const Input &in, const Params &p) const override
    {
        const std::int64_t total = in.liveTokens(); // the whole request, as the agent counts it
        const std::int64_t window = in.contextWindow();
        const std::int64_t allowed = clineMaxAllowed(window, p.integer("bufferTokens"));
        if (!p.flag("force") && total <= allowed)
            return agents::unchangedResult(in, "below trigger: " + std::to_string(total) + " <= "
                                                   + std::to_string(allowed) + " tokens (window " + std::to_string(window)
                                                   + ")");
        Editor e(in);
        const Transcript &t = e.transcript();
        // Cline's apiMessages: the conversation without the system prompt.
        const std::size_t first = leadingSystem(e).size();
        const std::size_t n = e.size() - first;
        const std::size_t startOfRest = 2;
        if (n <= startOfRest + 1)
            return agents::unchangedResult(in, "nothing to truncate: " + std::to_string(n) + " message(s)");
        const std::size_t rest = n - startOfRest;
        const bool half = p.string("keep") == "half";
        const std::size_t toRemove = half ? rest / 4 * 2 : rest * 3 / 4 / 2 * 2;
        if (toRemove == 0)
            return agents::unchangedResult(in, "nothing to truncate: " + std::to_string(rest) + " message(s) after the first pair");
        std::size_t end = startOfRest + toRemove - 1; // inclusive, in apiMessages numbering
        auto msgAt = [&](std::size_t k) -> const Message & { return t.messages[e.at(first + k)]; };
        if (msgAt(end).role != Role::Assistant)
            --end;
        // Results of calls inside [lo, hi] (apiMessages numbering) held by message k?
        auto answers = [&](std::size_t k, std::size_t lo, std::size_t hi) {
            for (const Block &b : msgAt(k).blocks)
                if (b.type == BlockType::ToolResult && b.pairMessage >= 0) {
                    const std::int32_t q = e.analysis().view.position[std::size_t(b.pairMessage)];
                    if (q >= std::int32_t(first + lo) && q <= std::int32_t(first + hi))
                        return true;
                }
            return false;
        };
        // The kept pair's own tool results stay with it: the range starts after them.
        std::size_t start = startOfRest;
        while (start <= end && answers(start, 0, start - 1))
            ++start;
        if (start > end)
            return agents::unchangedResult(in, "nothing to truncate: the range holds only results of the first pair's calls");
        if (start > startOfRest)
            e.log("range starts at " + std::to_string(start) + ": messages before it answer the first pair's calls");
        // Results of calls inside the range that sit just after it go with them.
        std::size_t extended = 0;
        while (end + 1 < n && answers(end + 1, start, end)) {
            ++end;
            ++extended;
        }
        std::size_t removed = 0;
        const std::string why = "Cline truncation: messages " + std::to_string(start) + "-" + std::to_string(end)
                                + " after the first user-assistant pair";
        for (std::size_t k = start; k <= end; ++k)
            removed += e.remove(e.at(first + k), why) ? 1 : 0;
        e.extra()["deletedRange"] = {start, end};
        e.extra()["maxAllowedSize"] = allowed;
        e.log("limit " + std::to_string(allowed) + " tokens, live context " + std::to_string(total) + "; removing "
              + std::to_string(end - start + 1) + " of " + std::to_string(rest) + " messages after the first pair ("
              + (half ? "half" : "keep a quarter") + ")");
        if (extended)
            e.log("range extended by " + std::to_string(extended) + " message(s) so that tool results leave with their calls");
        e.setNote("removed " + std::to_string(removed) + " of " + std::to_string(n) + " messages (range "
                  + std::to_string(start) + "-" + std::to_string(end) + ")");
        agents::closeRemovals(e);
        return e.finish();
    }
};

} // namespace

std::unique_ptr<Strategy> makeCline()
{
    return std::make_unique<Cline>();
}

} // namespace cl::strategy
