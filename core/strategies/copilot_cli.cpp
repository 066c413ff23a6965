// SPDX-License-Identifier: MIT
// docs/design/agents.md §16: GitHub Copilot CLI compaction (1.0.102). Trigger: the prompt above threshold (0.8) of
// its prompt limit (it compacts in the background from there and waits for it at 95 %). What it
// sends afterwards: its system prompt, then one user message holding a preamble, every earlier user
// request as typed, and the summary the model wrote (tagged sections: overview, history, work done,
// technical details, important files, next steps), then what came after the compaction began
// (nothing, in a transcript compacted at one point). Every assistant and tool message before it goes.
#include "core/strategies/factories.h"

#include "core/strategies/agent_common.h"
#include "core/strategy/summary/summary.h"
#include "core/tokens/estimator.h"

namespace cl::strategy {

namespace {

using agents::percent;

class CopilotCliCompact final : public Strategy
{
public:
    std::string_view name() const override { return "copilot-cli"; }
    std::string_view title() const override { return "Copilot CLI compaction"; }
    std::string_view source() const override { return "peer: GitHub Copilot CLI"; }
    Group group() const override { return Group::Summary; }
    std::string_view follows() const override { return "Copilot CLI"; }
    std::string_view description() const override
    {
        return "What GitHub Copilot CLI does at 80 % of its prompt limit: everything after its system prompt becomes one "
               "user message with the earlier requests as typed and a sectioned summary; every assistant and tool "
               "message goes.";
    }
    std::vector<ParamSpec> params() const override
    {
        return {{"threshold", ParamSpec::Type::Double, 0.0, 1.0, 0.8, {}, "Share of the prompt limit at which it starts compacting."},
                agents::forceParam()};
    }

    Result apply(const Input &in, const Params &p) const override
    {
        const std::int64_t total = in.liveTokens();
        const std::int64_t window = in.contextWindow();
        const double ratio = double(total) / double(std::max<std::int64_t>(1, window));
        if (!p.flag("force") && ratio < p.number("threshold"))
            return agents::unchangedResult(in, "below trigger: " + percent(ratio) + " < " + percent(p.number("threshold"))
                                                   + " of the prompt limit");
        Editor e(in);
        const Transcript &t = e.transcript();
        std::vector<std::size_t> history; // positions of everything but the system prompt
        std::string requests;
        for (std::size_t pos = 0; pos < e.size(); ++pos) {
            const Message &m = t.messages[e.at(pos)];
            if (m.role == Role::System)
                continue;
            history.push_back(pos);
            if (agents::isRequest(m) && m.kind != MessageKind::CompactSummary)
                if (const std::string text = m.plainText(); !text.empty())
                    requests += "- " + text + "\n";
        }
        if (history.empty())
            return agents::unchangedResult(in, "nothing to compact: only the system prompt");
        std::int64_t removedTokens = 0;
        Summary s = agents::summarizeTurns(in, e, history, history.size(), "codex", removedTokens);
        if (s.text.empty())
            return agents::unchangedResult(in, "compaction failed: the summary is empty");
        const std::size_t at = e.at(history.front());
        std::size_t removed = 0;
        for (const std::size_t pos : history)
            removed += e.remove(e.at(pos), "Copilot CLI: replaced by its compaction summary", Fate::Summarized) ? 1 : 0;
        agents::closeRemovals(e);
        std::string text = "The conversation so far was compacted to save room. The requests made in it:\n" + requests
                           + "\nSummary of the work:\n<summary>\n" + s.text + "\n</summary>";
        e.insertBefore(at, makeTextMessage(Role::User, std::move(text), MessageKind::CompactSummary),
                       "Copilot CLI compaction summary with the earlier requests");
        e.extra()["summary"] = std::move(s.sections);
        e.log("trigger " + percent(p.number("threshold")) + " of " + std::to_string(window) + " tokens; live context "
              + std::to_string(total) + " (" + percent(ratio) + ")");
        e.setNote("compacted " + std::to_string(removed) + " message(s) into one summary message with the earlier requests; "
                  + percent(ratio) + " of the prompt limit before");
        agents::closeRemovals(e);
        return e.finish();
    }
};

} // namespace

std::unique_ptr<Strategy> makeCopilotCliCompact()
{
    return std::make_unique<CopilotCliCompact>();
}

} // namespace cl::strategy
