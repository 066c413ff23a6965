// SPDX-License-Identifier: MIT
// docs/design/agents.md §9: LangChain trim_messages, strategy "first" and "last", emulated step by step:
//   first: the longest prefix within maxTokens; with allowPartial the overflowing message keeps its
//          first blocks (or first lines of a single text); end_on then drops messages from the end
//          until the last one is of that type. include_system and start_on play no part.
//   last:  end_on first drops trailing messages; include_system sets the system message aside (its
//          tokens come off the budget); the reversed list is trimmed like "first" (so the newest
//          messages win and a partial message keeps its last blocks / lines) with start_on as the
//          end condition, i.e. the kept list starts on that type.
// Message types: human = user request, ai = assistant, tool = tool result, system = system.
// LangChain does not look at tool call ids, so its output can hold orphan tool calls / results; the
// strategy counts them (log, extra()["langchainOrphans"]) and then closes the pairs itself (and, for
// formats whose first turn must be the user's, drops leading non-user turns) so that the result stays
// valid. maxTokens 0 means half of the context window.
#include "core/strategies/factories.h"

#include "core/strategies/agent_common.h"
#include "core/tokens/estimator.h"

#include <algorithm>

namespace cl::strategy {

namespace {

std::string typeOf(const Message &m)
{
    if (m.role == Role::System)
        return "system";
    if (m.role == Role::Assistant)
        return "ai";
    if (agents::isObservation(m))
        return "tool";
    return "human";
}

class LangChainTrim final : public Strategy
{
public:
    explicit LangChainTrim(bool last)
        : m_last(last)
    {
    }
    std::string_view name() const override { return m_last ? "langchain-trim-last" : "langchain-trim-first"; }
    std::string_view title() const override
    {
        return m_last ? "LangChain trim_messages (last)" : "LangChain trim_messages (first)";
    }
    std::string_view source() const override { return "peer: LangChain trim_messages"; }
    Group group() const override { return Group::Removal; }
    std::string_view follows() const override { return "LangChain"; }
    std::string_view description() const override
    {
        return m_last ? "LangChain's trim_messages with strategy=\"last\": keeps the newest messages within max_tokens "
                        "(optionally the system message, starting on a given type). LangChain ignores tool pairs; the "
                        "orphans it would leave are counted, then closed."
                      : "LangChain's trim_messages with strategy=\"first\": keeps the oldest messages within max_tokens "
                        "(ending on a given type). LangChain ignores tool pairs; the orphans it would leave are counted, "
                        "then closed.";
    }
    std::vector<ParamSpec> params() const override
    {
        const std::vector<std::string> types{"", "human", "ai", "system", "tool"};
        return {{"maxTokens", ParamSpec::Type::Int, 0, 1000000000, 0, {}, "Token budget (0: half of the window)."},
                {"includeSystem", ParamSpec::Type::Bool, 0, 0, false, {}, "last: always keep the leading system message."},
                {"startOn", ParamSpec::Type::Choice, 0, 0, "", types, "last: the kept list starts on this type."},
                {"endOn", ParamSpec::Type::Choice, 0, 0, "", types, "The kept list ends on this type."},
                {"allowPartial", ParamSpec::Type::Bool, 0, 0, false, {}, "Keep part of the message that overflows (blocks, or lines of a text)."}};
    }

    Result apply(const Input &in, const Params &p) const override
    {
        Editor e(in);
        const Transcript &t = e.transcript();
        std::int64_t budget = p.integer("maxTokens");
        if (budget <= 0)
            budget = in.contextWindow() / 2;
        const std::string startOn = p.string("startOn"), endOn = p.string("endOn");
        const bool partial = p.flag("allowPartial");
        const std::size_t n = e.size();
        std::vector<std::size_t> list(n); // positions in LangChain's working order
        for (std::size_t k = 0; k < n; ++k)
            list[k] = k;
        std::vector<char> kept(n, 0);
        auto type = [&](std::size_t pos) { return typeOf(t.messages[e.at(pos)]); };
        auto tokensAt = [&](std::size_t pos) { return tokens::estimateMessage(t.messages[e.at(pos)]); };
        std::int64_t systemPos = -1;
        if (m_last) {
            if (!endOn.empty())
                while (!list.empty() && type(list.back()) != endOn)
                    list.pop_back();
            if (p.flag("includeSystem") && !list.empty() && type(list.front()) == "system") {
                systemPos = std::int64_t(list.front());
                budget -= tokensAt(list.front());
                list.erase(list.begin());
            }
            std::reverse(list.begin(), list.end());
        }
        // _first_max_tokens over `list`.
        std::size_t idx = 0;
        std::int64_t used = 0;
        while (idx < list.size() && budget >= 0 && used + tokensAt(list[idx]) <= budget) {
            used += tokensAt(list[idx]);
            ++idx;
        }
        std::int64_t partialPos = -1;
        Partial part;
        if (partial && idx < list.size() && budget >= 0 && planPartial(e, list[idx], budget - used, part))
            partialPos = std::int64_t(list[idx]);
        std::size_t count = idx + (partialPos >= 0 ? 1 : 0);
        const std::string &endType = m_last ? startOn : endOn;
        if (!endType.empty())
            while (count > 0 && type(list[count - 1]) != endType)
                --count;
        if (partialPos >= 0 && count <= idx)
            partialPos = -1; // the partial message was itself dropped by end_on / start_on
        for (std::size_t k = 0; k < count; ++k)
            kept[list[k]] = 1;
        if (systemPos >= 0)
            kept[std::size_t(systemPos)] = 1;
        for (std::size_t pos = 0; pos < n; ++pos)
            if (e.isProtected(e.at(pos)))
                kept[pos] = 1;

        // What LangChain returns stops here; count the orphans it would hand to the API. Tool blocks cut
        // off a partial message orphan their partners too; those partners go before the pairs close.
        std::size_t orphans = agents::countOrphans(e, kept);
        if (partialPos >= 0) {
            const Message &pm = t.messages[e.at(std::size_t(partialPos))];
            for (const std::size_t b : part.dropped) {
                const Block &blk = pm.blocks[b];
                if ((blk.type != BlockType::ToolUse && blk.type != BlockType::ToolResult) || blk.pairMessage < 0)
                    continue;
                const std::int32_t q = e.analysis().view.position[std::size_t(blk.pairMessage)];
                if (q >= 0 && kept[std::size_t(q)] && q != partialPos) {
                    ++orphans;
                    if (!e.isProtected(std::size_t(blk.pairMessage)))
                        kept[std::size_t(q)] = 0;
                }
            }
        }
        e.extra()["langchainOrphans"] = orphans;
        e.log("LangChain keeps " + std::to_string(std::count(kept.begin(), kept.end(), 1)) + " of " + std::to_string(n)
              + " messages within " + std::to_string(budget) + " tokens; its output would hold " + std::to_string(orphans)
              + " orphan tool call(s)/result(s)");
        // Keep the result valid: pairs close, and a leading non-user turn goes where the format forbids it.
        agents::closeKeptPairs(e, kept);
        if (agents::alternatingFormat(t.format)) {
            for (std::size_t pos = 0; pos < n; ++pos) {
                if (!kept[pos] || t.messages[e.at(pos)].role == Role::System)
                    continue;
                if (agents::isRequest(t.messages[e.at(pos)]) || e.isProtected(e.at(pos)))
                    break;
                kept[pos] = 0;
                e.log("dropped message " + std::to_string(e.at(pos)) + ": the format's first turn must be the user's");
                agents::closeKeptPairs(e, kept);
            }
            // A protected turn (or the partner of one) that cannot go gets a user turn before it.
            for (std::size_t pos = 0; pos < n; ++pos) {
                const Message &m = t.messages[e.at(pos)];
                if (!kept[pos] || m.role == Role::System)
                    continue;
                if (m.role != Role::User)
                    e.insertBefore(e.at(pos), makeTextMessage(Role::User, "[earlier messages trimmed]"),
                                   "the format's first turn must be the user's; message " + std::to_string(e.at(pos))
                                       + " is protected");
                break;
            }
            bool any = false;
            for (std::size_t pos = 0; pos < n; ++pos)
                any = any || (kept[pos] && t.messages[e.at(pos)].role != Role::System);
            if (!any)
                for (std::size_t pos = n; pos-- > 0;)
                    if (agents::isRequest(t.messages[e.at(pos)])) {
                        kept[pos] = 1;
                        e.log("kept the last user request: the format needs at least one message");
                        break;
                    }
        }
        std::size_t removed = 0;
        const std::string why = std::string("outside trim_messages(strategy=\"") + (m_last ? "last" : "first")
                                + "\") within " + std::to_string(budget) + " tokens";
        for (std::size_t pos = 0; pos < n; ++pos)
            if (!kept[pos])
                removed += e.remove(e.at(pos), why) ? 1 : 0;
        if (partialPos >= 0 && kept[std::size_t(partialPos)])
            applyPartial(e, std::size_t(partialPos), part);
        e.extra()["maxTokens"] = budget;
        e.setNote(removed ? "trimmed " + std::to_string(removed) + " of " + std::to_string(n) + " messages to "
                                + std::to_string(budget) + " tokens; LangChain itself would leave "
                                + std::to_string(orphans) + " orphan tool block(s)"
                          : "everything fits in " + std::to_string(budget) + " tokens");
        agents::closeRemovals(e);
        return e.finish();
    }

private:
    struct Partial {
        std::vector<std::size_t> dropped; // blocks cut off (list content)
        std::string text;                 // kept lines (single text)
        bool text_ = false;
    };

    // Plans the part of message `pos` that fits `room` tokens (LangChain's allow_partial): a list
    // content loses blocks from its far end; a single text keeps whole lines. False when nothing fits.
    bool planPartial(const Editor &e, std::size_t pos, std::int64_t room, Partial &out) const
    {
        const Message &m = e.transcript().messages[e.at(pos)];
        const std::int64_t base = tokens::kRoleTokens + tokens::kStructureTokens;
        if (m.blocks.size() > 1) {
            std::int64_t sum = base;
            std::size_t k = 0;
            for (; k < m.blocks.size(); ++k) {
                const Block &b = m.blocks[m_last ? m.blocks.size() - 1 - k : k];
                if (sum + tokens::estimateBlock(b) > room)
                    break;
                sum += tokens::estimateBlock(b);
            }
            for (std::size_t j = k; j < m.blocks.size(); ++j)
                out.dropped.push_back(m_last ? m.blocks.size() - 1 - j : j);
            return k > 0;
        }
        if (m.blocks.size() != 1 || m.blocks[0].type != BlockType::Text)
            return false;
        const std::string &text = m.blocks[0].text;
        std::vector<std::string_view> lines;
        for (std::size_t s = 0; s < text.size();) {
            const std::size_t nl = text.find('\n', s);
            const std::size_t end = nl == std::string::npos ? text.size() : nl + 1;
            lines.emplace_back(text.data() + s, end - s);
            s = end;
        }
        std::string acc;
        for (std::size_t k = 0; k < lines.size(); ++k) {
            const std::string_view line = lines[m_last ? lines.size() - 1 - k : k];
            std::string next = m_last ? std::string(line) + acc : acc + std::string(line);
            if (base + tokens::estimateText(next) > room)
                break;
            acc = std::move(next);
        }
        while (!acc.empty() && (acc.back() == '\n' || acc.back() == '\r'))
            acc.pop_back();
        out.text = std::move(acc);
        out.text_ = true;
        return !out.text.empty();
    }

    static void applyPartial(Editor &e, std::size_t pos, const Partial &part)
    {
        const std::size_t i = e.at(pos);
        const std::string why = "allow_partial: the message that overflowed the budget, in part";
        if (part.text_)
            e.setBlockText(i, 0, part.text, Fate::Snipped, why);
        else
            for (const std::size_t b : part.dropped)
                e.dropBlock(i, b, Fate::Removed, why);
        e.log("kept part of message " + std::to_string(i) + " (allow_partial)");
    }

    bool m_last;
};

} // namespace

std::unique_ptr<Strategy> makeLangChainTrimFirst()
{
    return std::make_unique<LangChainTrim>(false);
}

std::unique_ptr<Strategy> makeLangChainTrimLast()
{
    return std::make_unique<LangChainTrim>(true);
}

} // namespace cl::strategy
