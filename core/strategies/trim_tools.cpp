// SPDX-License-Identifier: MIT
// Seed 000 §3: tool-message trimming. Keeps system and non-tool messages and the last
// keepLastToolRounds tool rounds; every other assistant message with tool calls and every message
// holding tool results goes. Rounds are removed whole (call and results together), so no pair is
// ever split.
#include "core/strategies/factories.h"

#include "core/strategy/editor.h"

namespace cl::strategy {

namespace {

class TrimTools final : public Strategy
{
public:
    std::string_view name() const override { return "trim-tools"; }
    std::string_view title() const override { return "Remove old tool rounds"; }
    std::string_view source() const override { return "seed 000 §3"; }
    Group group() const override { return Group::Removal; }
    std::string_view follows() const override { return ""; }
    std::string_view description() const override
    {
        return "Removes old tool rounds (the assistant message that called tools and the messages holding their "
               "results) and keeps the last keepLastToolRounds rounds; system, user and plain assistant messages stay.";
    }
    std::vector<ParamSpec> params() const override
    {
        return {{"keepLastToolRounds", ParamSpec::Type::Int, 0, 1000000, 1, {}, "Tool rounds kept at the end (0 removes every round)."}};
    }
    Result apply(const Input &in, const Params &p) const override
    {
        Editor e(in);
        const auto &rounds = e.analysis().rounds;
        const auto keep = static_cast<std::size_t>(std::max<std::int64_t>(0, p.integer("keepLastToolRounds")));
        const std::size_t drop = rounds.size() > keep ? rounds.size() - keep : 0;
        std::size_t removed = 0;
        for (std::size_t k = 0; k < drop; ++k) {
            const auto &round = rounds[k];
            const std::string why = "tool round " + std::to_string(k + 1) + " of " + std::to_string(rounds.size())
                                    + " (keeping the last " + std::to_string(keep) + ")";
            removed += e.remove(round.assistant, why) ? 1 : 0;
            for (const std::size_t r : round.results)
                removed += e.remove(r, why) ? 1 : 0;
        }
        // Seed 000 §3 statistics (conversation messages).
        const std::size_t before = e.size();
        e.extra()["rounds"] = rounds.size();
        e.extra()["roundsRemoved"] = drop;
        e.extra()["originalCount"] = before;
        e.extra()["compressedCount"] = before - removed;
        e.extra()["removedCount"] = removed;
        e.extra()["compressionRatio"] = before ? double(before - removed) / double(before) : 1.0;
        e.setNote(drop ? "removed " + std::to_string(drop) + " of " + std::to_string(rounds.size()) + " tool rounds ("
                             + std::to_string(removed) + " messages)"
                       : "nothing to trim: " + std::to_string(rounds.size()) + " tool round(s), keeping "
                             + std::to_string(keep));
        return e.finish();
    }
};

} // namespace

std::unique_ptr<Strategy> makeTrimTools()
{
    return std::make_unique<TrimTools>();
}

} // namespace cl::strategy
