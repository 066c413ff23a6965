// SPDX-License-Identifier: MIT
// docs/design/agents.md §3: gemini-cli: chat compression. Trigger: the history's tokens above threshold (0.5) of the
// model's limit (the seed 001 estimate stands in for gemini-cli's token count). Split: the history
// is measured in JSON characters per Content, as gemini-cli does; the split is the first user turn
// without a functionResponse (a request, not a tool result) at which at least 1 - preserveFraction
// (70 %) of the characters lie before it. When there is none, everything is compressed if the last
// turn is a model turn without a functionCall, else the split falls back to the last clean user turn.
// New history: [state_snapshot summary as user, model acknowledgement, kept tail]. As in gemini-cli
// the result is rejected when the summary is empty or the new history is not smaller.
// System messages (the system instruction lives outside gemini-cli's history) are left alone.
#include "core/strategies/factories.h"

#include "core/strategies/agent_common.h"
#include "core/strategy/summary/summary.h"
#include "core/tokens/estimator.h"

namespace cl::strategy {

namespace {

using agents::percent;

class GeminiCli final : public Strategy
{
public:
    std::string_view name() const override { return "gemini-cli"; }
    std::string_view title() const override { return "Gemini CLI compression"; }
    std::string_view source() const override { return "peer: gemini-cli"; }
    Group group() const override { return Group::Summary; }
    std::string_view follows() const override { return "Gemini CLI"; }
    std::string_view description() const override
    {
        return "What gemini-cli does when the history passes half of the model's limit: the oldest ~70 % of the history "
               "(by JSON characters, split before a user request) becomes a <state_snapshot> summary followed by a short "
               "model acknowledgement; the last ~30 % stays verbatim. Rejected when the summary is empty or not smaller.";
    }
    std::vector<ParamSpec> params() const override
    {
        return {{"threshold", ParamSpec::Type::Double, 0.0, 1.0, 0.5, {}, "Compress when history tokens exceed this share of the model's limit."},
                {"preserveFraction", ParamSpec::Type::Double, 0.0, 1.0, 0.3, {}, "Share of the history (JSON characters) kept verbatim at the end."},
                agents::forceParam()};
    }

    Result apply(const Input &in, const Params &p) const override
    {
        const std::int64_t total = in.liveTokens(); // the whole request, as the agent counts it
        const std::int64_t limit = in.contextWindow();
        const double threshold = p.number("threshold");
        const double ratio = limit > 0 ? double(total) / double(limit) : 0.0;
        if (!p.flag("force") && double(total) <= threshold * double(limit))
            return agents::unchangedResult(in, "below trigger: " + percent(ratio) + " <= " + percent(threshold) + " of "
                                                   + std::to_string(limit) + " tokens");
        Editor e(in);
        const Transcript &t = e.transcript();
        // gemini-cli's history: the conversation without system messages.
        std::vector<std::size_t> history; // positions
        std::vector<std::size_t> chars;
        std::size_t totalChars = 0;
        const std::shared_ptr<const std::vector<std::size_t>> contentChars = in.contentChars();
        for (std::size_t pos = 0; pos < e.size(); ++pos) {
            const Message &m = t.messages[e.at(pos)];
            if (m.role == Role::System)
                continue;
            history.push_back(pos);
            chars.push_back((*contentChars)[e.at(pos)]);
            totalChars += chars.back();
        }
        const double fraction = 1.0 - p.number("preserveFraction");
        const double target = double(totalChars) * fraction;
        std::size_t split = 0, lastClean = 0, before = 0, splitChars = 0;
        bool found = false;
        for (std::size_t k = 0; k < history.size(); ++k) {
            const std::size_t pos = history[k];
            if (agents::isRequest(t.messages[e.at(pos)]) && isSafeCut(e, pos)) {
                if (double(before) >= target) {
                    split = k;
                    splitChars = before;
                    found = true;
                    break;
                }
                lastClean = k;
            }
            before += chars[k];
        }
        if (!found) {
            const Message *last = history.empty() ? nullptr : &t.messages[e.at(history.back())];
            if (last && last->role == Role::Assistant && !last->hasToolUse()) {
                split = history.size();
                splitChars = totalChars;
                e.log("no clean user turn after " + percent(fraction) + " of the characters; the last turn is a model "
                                                                        "answer, so the whole history is compressed");
            } else {
                split = lastClean;
                std::size_t c = 0;
                for (std::size_t k = 0; k < split; ++k)
                    c += chars[k];
                splitChars = c;
                e.log("no clean user turn after " + percent(fraction) + " of the characters; falling back to the last "
                                                                        "one before it");
            }
        }
        e.log("history: " + std::to_string(history.size()) + " turns, " + std::to_string(totalChars)
              + " JSON characters; target " + std::to_string(static_cast<long long>(target)) + "; split at turn "
              + std::to_string(split) + " (" + std::to_string(splitChars) + " characters before it)");
        e.extra()["totalChars"] = totalChars;
        e.extra()["targetChars"] = static_cast<long long>(target);
        e.extra()["splitTurn"] = split;
        e.extra()["charsBeforeSplit"] = splitChars;
        if (split == 0)
            return agents::unchangedResult(in, "nothing to compress: no clean user turn to split at");

        std::int64_t removedTokens = 0;
        Summary s = agents::summarizeTurns(in, e, history, split, "gemini", removedTokens);
        if (s.text.empty())
            return agents::unchangedResult(in, "compression rejected: the summary is empty");
        Message summaryMsg = makeTextMessage(Role::User, s.text, MessageKind::CompactSummary);
        Message ackMsg = makeTextMessage(Role::Assistant, std::string(agents::kSnapshotAck));
        const std::int64_t added = tokens::estimateMessage(summaryMsg) + tokens::estimateMessage(ackMsg);
        if (added >= removedTokens)
            return agents::unchangedResult(in, "compression rejected: the new history would not be smaller ("
                                                   + std::to_string(added) + " >= " + std::to_string(removedTokens)
                                                   + " tokens)");
        const std::string why = "gemini-cli: before the split at turn " + std::to_string(split) + " (first "
                                + percent(double(splitChars) / double(std::max<std::size_t>(1, totalChars)))
                                + " of the characters)";
        std::size_t removed = 0;
        for (std::size_t k = 0; k < split; ++k)
            removed += e.remove(e.at(history[k]), why, Fate::Summarized) ? 1 : 0;
        agents::closeRemovals(e);
        // The snapshot opens the new history: before the first turn that survived (a pinned turn, or
        // the partner of one, can outlive the compression), else at the split.
        std::size_t at = split < history.size() ? e.at(history[split]) : t.messages.size();
        for (std::size_t k = 0; k < split; ++k)
            if (!e.isRemoved(e.at(history[k]))) {
                at = e.at(history[k]);
                break;
            }
        e.insertBefore(at, std::move(summaryMsg), "gemini-cli state_snapshot of the compressed turns");
        e.insertBefore(at, std::move(ackMsg), "gemini-cli model acknowledgement after the snapshot");
        e.extra()["summary"] = std::move(s.sections);
        e.setNote("compressed " + std::to_string(removed) + " of " + std::to_string(history.size())
                  + " turns into a state_snapshot (" + std::to_string(removedTokens) + " -> " + std::to_string(added)
                  + " tokens); " + percent(ratio) + " of the limit before");
        agents::closeRemovals(e);
        return e.finish();
    }
};

} // namespace

std::unique_ptr<Strategy> makeGeminiCli()
{
    return std::make_unique<GeminiCli>();
}

} // namespace cl::strategy
