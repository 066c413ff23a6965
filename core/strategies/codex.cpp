// SPDX-License-Identifier: MIT
// docs/design/agents.md §8: Codex CLI auto-compact. Trigger: the conversation above autoCompactRatio (0.9) of the
// window. New history = initial context (system / developer messages and the session-prefix user
// messages Codex writes itself: <environment_context>, <user_instructions>, AGENTS.md
// instructions), then the most recent user requests, newest first, within userMessageBudget
// (20K) tokens (the one that overflows is truncated at a code point boundary, the older ones go),
// in chronological order, then the handoff summary as a user message behind a prefix telling the
// next model that another model started the task. Every assistant and tool item is dropped.
#include "core/strategies/factories.h"

#include "core/strategies/agent_common.h"
#include "core/strategy/summary/summary.h"
#include "core/tokens/estimator.h"

namespace cl::strategy {

namespace {

using agents::percent;

bool sessionPrefix(const Message &m)
{
    if (m.role != Role::User)
        return false;
    std::string_view text;
    for (const Block &b : m.blocks)
        if (b.type == BlockType::Text) {
            text = b.text;
            break;
        }
    const auto start = text.find_first_not_of(" \t\r\n");
    if (start == std::string_view::npos)
        return false;
    text.remove_prefix(start);
    return text.rfind("<environment_context>", 0) == 0 || text.rfind("<user_instructions>", 0) == 0
           || text.rfind("# AGENTS.md instructions", 0) == 0;
}

const std::string kTruncated = "\n[… older part of this message truncated]";

class Codex final : public Strategy
{
public:
    std::string_view name() const override { return "codex"; }
    std::string_view title() const override { return "Codex CLI auto-compact"; }
    std::string_view source() const override { return "peer: OpenAI Codex CLI"; }
    Group group() const override { return Group::Summary; }
    std::string_view follows() const override { return "Codex CLI"; }
    std::string_view description() const override
    {
        return "What Codex CLI does at 90 % of the window: keeps the initial context and the most recent user messages "
               "(newest first, up to 20K tokens, the overflowing one truncated), drops every assistant and tool item, "
               "and appends a handoff summary for the model that continues the task.";
    }
    std::vector<ParamSpec> params() const override
    {
        return {{"autoCompactRatio", ParamSpec::Type::Double, 0.0, 0.9, 0.9, {}, "Compact above this share of the window (Codex caps its auto limit at 90 %)."},
                {"userMessageBudget", ParamSpec::Type::Int, 0, 10000000, 20000, {}, "Tokens of recent user messages kept verbatim."},
                agents::forceParam()};
    }

    Result apply(const Input &in, const Params &p) const override
    {
        const std::int64_t total = in.liveTokens(); // the whole request, as the agent counts it
        const std::int64_t window = in.contextWindow();
        const double ratio = double(total) / double(std::max<std::int64_t>(1, window));
        if (!p.flag("force") && ratio <= p.number("autoCompactRatio"))
            return agents::unchangedResult(in, "below trigger: " + percent(ratio) + " <= "
                                                   + percent(p.number("autoCompactRatio")) + " of the window");
        Editor e(in);
        const Transcript &t = e.transcript();
        std::vector<char> initial(e.size(), 0);
        std::vector<std::size_t> requests; // positions
        for (std::size_t pos = 0; pos < e.size(); ++pos) {
            const Message &m = t.messages[e.at(pos)];
            if (m.role == Role::System || sessionPrefix(m))
                initial[pos] = 1;
            else if (agents::isRequest(m) && m.kind != MessageKind::CompactSummary)
                requests.push_back(pos);
        }
        std::int64_t budget = p.integer("userMessageBudget");
        std::vector<char> keep(e.size(), 0);
        std::int64_t truncatedAt = -1;
        std::string truncatedText;
        std::size_t kept = 0;
        for (std::size_t k = requests.size(); k-- > 0 && budget > 0;) {
            const std::size_t pos = requests[k];
            const Message &m = t.messages[e.at(pos)];
            const std::string text = m.plainText();
            const std::int64_t tk = tokens::estimateText(text);
            if (tk <= budget) {
                keep[pos] = 1;
                budget -= tk;
                ++kept;
                continue;
            }
            // The overflowing message: the largest head that fits with the marker (binary search on bytes).
            std::size_t lo = 0, hi = text.size();
            while (lo < hi) {
                const std::size_t mid = (lo + hi + 1) / 2;
                if (tokens::estimateText(std::string(utf8Head(text, mid)) + kTruncated) <= budget)
                    lo = mid;
                else
                    hi = mid - 1;
            }
            const std::string_view head = utf8Head(text, lo);
            if (!head.empty()) {
                keep[pos] = 1;
                truncatedAt = std::int64_t(pos);
                truncatedText = std::string(head) + kTruncated;
            }
            budget = 0;
        }
        SummaryRequest req;
        req.transcript = &t;
        req.style = "codex";
        req.analysis = &e.analysis();
        for (std::size_t pos = 0; pos < e.size(); ++pos)
            if (!initial[pos]) {
                req.messages.push_back(e.at(pos));
                req.tokensBefore += tokens::estimateMessage(t.messages[e.at(pos)]);
            }
        if (req.messages.empty())
            return agents::unchangedResult(in, "nothing to compact: only the initial context");
        Summary s = in.summary().summarize(req);
        std::size_t dropped = 0;
        for (std::size_t pos = 0; pos < e.size(); ++pos) {
            const std::size_t i = e.at(pos);
            if (initial[pos])
                continue;
            if (!keep[pos]) {
                const Message &m = t.messages[i];
                const std::string why = m.role == Role::User && agents::isRequest(m)
                                            ? "older user message beyond the " + std::to_string(p.integer("userMessageBudget"))
                                                  + "-token budget"
                                            : "Codex drops every assistant and tool item";
                dropped += e.remove(i, why, Fate::Summarized) ? 1 : 0;
            } else if (std::int64_t(pos) == truncatedAt) {
                if (Message *m = e.edit(i, Fate::Snipped, "user message that overflowed the budget, truncated")) {
                    Block b;
                    b.type = BlockType::Text;
                    b.text = truncatedText;
                    m->blocks.assign(1, std::move(b));
                }
            }
        }
        const std::string prefix =
            "Another language model began this task and handed it over to you. Its summary of the work so far is "
            "below; the tools it used left the workspace in the state it describes. Build on that work instead of "
            "repeating it.\n\n";
        e.insertBefore(t.messages.size(), makeTextMessage(Role::User, prefix + s.text, MessageKind::CompactSummary),
                       "Codex handoff summary");
        e.extra()["summary"] = std::move(s.sections);
        e.extra()["keptUserMessages"] = kept + (truncatedAt >= 0 ? 1 : 0);
        e.extra()["truncatedMessage"] = truncatedAt >= 0 ? nlohmann::json(e.at(std::size_t(truncatedAt))) : nlohmann::json();
        e.log(std::to_string(requests.size()) + " user message(s); kept " + std::to_string(kept) + " whole"
              + (truncatedAt >= 0 ? " and 1 truncated" : "") + " within " + std::to_string(p.integer("userMessageBudget"))
              + " tokens");
        e.setNote("compacted: dropped " + std::to_string(dropped) + " item(s), kept " + std::to_string(kept)
                  + (truncatedAt >= 0 ? " (+1 truncated)" : "") + " recent user message(s) and a handoff summary; "
                  + percent(ratio) + " of the window before");
        agents::closeRemovals(e);
        return e.finish();
    }
};

} // namespace

std::unique_ptr<Strategy> makeCodex()
{
    return std::make_unique<Codex>();
}

} // namespace cl::strategy
