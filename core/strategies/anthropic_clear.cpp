// SPDX-License-Identifier: MIT
// docs/design/agents.md §6–7: Anthropic API context editing.
// clear_tool_uses_20250919: when the input is above triggerTokens (100K) input tokens, or, with
// triggerToolUses > 0, above that many tool uses, the results of every tool use except the last
// `keep` (3) are replaced by a placeholder; calls stay, so pairs stay. The last `keep` are counted
// over all tool uses; uses of excludeTools are never cleared. clearToolInputs (or a non-empty
// clearToolInputsFor list) also empties the call's input. Nothing happens unless at least
// clearAtLeast tokens are freed. Clearing changes the prompt from the first cleared message on, so
// the prompt cache is invalid from there (extra()["cacheInvalidatedFrom"]).
// clear_thinking_20251015: thinking / redacted_thinking blocks of all but the last keepTurns
// assistant turns are dropped (keepAll keeps every one). A turn is one API response: consecutive
// assistant messages sharing an apiMessageId (Claude Code splits a response over lines), else one
// assistant message.
#include "core/strategies/factories.h"

#include "core/strategies/agent_common.h"
#include "core/strategies/tool_reasons.h"

#include <algorithm>

namespace cl::strategy {

namespace {

class ClearToolUses final : public Strategy
{
public:
    std::string_view name() const override { return "anthropic-clear-tool-uses"; }
    std::string_view title() const override { return "Anthropic context editing: clear tool uses"; }
    std::string_view source() const override { return "peer: Anthropic API clear_tool_uses_20250919"; }
    Group group() const override { return Group::ToolResults; }
    std::string_view follows() const override { return "Anthropic API"; }
    std::string_view description() const override
    {
        return "What the Anthropic API's clear_tool_uses edit does above 100K input tokens: results of all but the last "
               "3 tool uses become a placeholder (calls stay), optionally with their inputs; exclude_tools are spared; "
               "nothing happens unless clear_at_least tokens are freed. Invalidates the prompt cache from the first "
               "cleared message.";
    }
    std::vector<ParamSpec> params() const override
    {
        return {{"triggerTokens", ParamSpec::Type::Int, 0, 100000000, 100000, {}, "Input tokens that trigger."},
                {"triggerToolUses", ParamSpec::Type::Int, 0, 10000000, 0, {}, "When > 0, trigger on this many tool uses instead of tokens."},
                {"keep", ParamSpec::Type::Int, 0, 1000000, 3, {}, "Most recent tool uses kept."},
                {"excludeTools", ParamSpec::Type::StringList, 0, 0, nlohmann::json::array(), {}, "Never cleared."},
                {"clearToolInputs", ParamSpec::Type::Bool, 0, 0, false, {}, "Also clear the inputs of cleared calls."},
                {"clearToolInputsFor", ParamSpec::Type::StringList, 0, 0, nlohmann::json::array(), {}, "Clear inputs of these tools only (empty: as clearToolInputs says)."},
                {"clearAtLeast", ParamSpec::Type::Int, 0, 100000000, 0, {}, "Minimum tokens freed, else no edit."},
                {"placeholder", ParamSpec::Type::String, 0, 0, "[Tool result cleared by context editing]", {}, "Text of a cleared result."},
                agents::forceParam()};
    }

    Result apply(const Input &in, const Params &p) const override
    {
        Editor e(in);
        const Transcript &t = e.transcript();
        struct Use {
            std::size_t message, block;
            std::int32_t resultMessage, resultBlock;
            const std::string *tool;
        };
        std::vector<Use> uses;
        for (std::size_t pos = 0; pos < e.size(); ++pos) {
            const std::size_t i = e.at(pos);
            const Message &m = t.messages[i];
            if (m.role != Role::Assistant)
                continue;
            for (std::size_t b = 0; b < m.blocks.size(); ++b)
                if (m.blocks[b].type == BlockType::ToolUse)
                    uses.push_back({i, b, m.blocks[b].pairMessage, m.blocks[b].pairBlock, &m.blocks[b].toolName});
        }
        const std::int64_t total = in.liveTokens(); // the whole request, as the agent counts it
        const std::int64_t byUses = p.integer("triggerToolUses");
        if (!p.flag("force")) {
            if (byUses > 0 && std::int64_t(uses.size()) <= byUses)
                return agents::unchangedResult(in, "below trigger: " + std::to_string(uses.size()) + " <= "
                                                       + std::to_string(byUses) + " tool uses");
            if (byUses <= 0 && total <= p.integer("triggerTokens"))
                return agents::unchangedResult(in, "below trigger: " + std::to_string(total) + " <= "
                                                       + std::to_string(p.integer("triggerTokens")) + " input tokens");
        }
        const auto keep = static_cast<std::size_t>(p.integer("keep"));
        const auto exclude = p.list("excludeTools");
        const auto inputsFor = p.list("clearToolInputsFor");
        const bool allInputs = p.flag("clearToolInputs");
        const std::string placeholder = p.string("placeholder");
        Block probe;
        probe.type = BlockType::ToolResult;
        const std::int64_t placeholderTokens = agents::blockTokensWithText(probe, placeholder);
        const std::size_t candidates = uses.size() > keep ? uses.size() - keep : 0;
        // Plan first: the API makes no edit at all when too little would be freed.
        struct Plan {
            std::size_t use;
            bool result, input;
        };
        std::vector<Plan> plan;
        std::int64_t freed = 0;
        std::size_t excluded = 0;
        for (std::size_t k = 0; k < candidates; ++k) {
            const Use &u = uses[k];
            if (std::find(exclude.begin(), exclude.end(), *u.tool) != exclude.end()) {
                ++excluded;
                continue;
            }
            Plan pl{k, false, false};
            if (u.resultMessage >= 0) {
                const Message &rm = t.messages[std::size_t(u.resultMessage)];
                const auto rb = std::size_t(u.resultBlock);
                if (rb < rm.blocks.size() && rm.blocks[rb].text != placeholder) {
                    pl.result = true;
                    freed += std::max<std::int64_t>(0, e.blockTokens(std::size_t(u.resultMessage), rb) - placeholderTokens);
                }
            }
            const bool inputs = allInputs || std::find(inputsFor.begin(), inputsFor.end(), *u.tool) != inputsFor.end();
            const Block &call = t.messages[u.message].blocks[u.block];
            if (inputs && !(call.input.is_object() && call.input.empty())) {
                pl.input = true;
                freed += std::max<std::int64_t>(0, e.blockTokens(u.message, u.block)
                                                       - (10 + 1)); // tool_use overhead + "{}"
            }
            if (pl.result || pl.input)
                plan.push_back(pl);
        }
        if (plan.empty())
            return agents::unchangedResult(in, "nothing to clear: " + std::to_string(uses.size()) + " tool use(s), keeping "
                                                   + std::to_string(keep) + (excluded ? ", " + std::to_string(excluded) + " excluded" : ""));
        if (freed < p.integer("clearAtLeast"))
            return agents::unchangedResult(in, "no edit: clearing would free " + std::to_string(freed) + " < clear_at_least "
                                                   + std::to_string(p.integer("clearAtLeast")) + " tokens");
        std::size_t results = 0, inputs = 0;
        std::int64_t firstCleared = -1;
        auto first = [&](std::size_t i) {
            if (firstCleared < 0 || std::int64_t(i) < firstCleared)
                firstCleared = std::int64_t(i);
        };
        // One reason per tool name, built once (sessions use a handful of tools).
        ToolReasons reasonFor("clear_tool_uses: ", " use older than the last " + std::to_string(keep));
        // The results in one batch (a result and its call are in different messages, so the
        // cleared inputs that follow do not depend on them).
        std::vector<Editor::TextEdit> edits;
        for (const Plan &pl : plan)
            if (pl.result) {
                const Use &u = uses[pl.use];
                edits.push_back({std::size_t(u.resultMessage), std::size_t(u.resultBlock), placeholder, Fate::Cleared,
                                 reasonFor(*u.tool), placeholderTokens});
            }
        const std::vector<char> applied = e.setBlockTexts(edits);
        for (std::size_t k = 0; k < edits.size(); ++k)
            if (applied[k]) {
                ++results;
                first(edits[k].index);
            }
        for (const Plan &pl : plan) {
            const Use &u = uses[pl.use];
            if (pl.input && e.setToolInput(u.message, u.block, nlohmann::json::object(), reasonFor(*u.tool) + " (input)")) {
                ++inputs;
                first(u.message);
            }
        }
        e.extra()["clearedToolUses"] = results;
        e.extra()["clearedInputTokensFreed"] = freed;
        e.extra()["cacheInvalidatedFrom"] = firstCleared;
        e.extra()["cacheNote"] = "the prompt changes from the first cleared message on: the prompt cache is invalid "
                                 "from there and is written again on the next request";
        e.log(std::to_string(uses.size()) + " tool use(s); keep " + std::to_string(keep) + "; excluded "
              + std::to_string(excluded) + "; cleared " + std::to_string(results) + " result(s) and "
              + std::to_string(inputs) + " input(s), ~" + std::to_string(freed) + " tokens");
        e.log("prompt cache invalid from message " + std::to_string(firstCleared));
        e.setNote("cleared " + std::to_string(results) + " tool result(s)"
                  + (inputs ? " and " + std::to_string(inputs) + " input(s)" : std::string()) + ", ~"
                  + std::to_string(freed) + " tokens freed; prompt cache invalid from message "
                  + std::to_string(firstCleared));
        return e.finish();
    }
};

class ClearThinking final : public Strategy
{
public:
    std::string_view name() const override { return "anthropic-clear-thinking"; }
    std::string_view title() const override { return "Anthropic context editing: clear thinking"; }
    std::string_view source() const override { return "peer: Anthropic API clear_thinking_20251015"; }
    Group group() const override { return Group::ToolResults; }
    std::string_view follows() const override { return "Anthropic API"; }
    std::string_view description() const override
    {
        return "What the Anthropic API's clear_thinking edit does: thinking blocks of all but the last assistant turn "
               "(keepTurns) are dropped; keepAll keeps them all.";
    }
    std::vector<ParamSpec> params() const override
    {
        return {{"keepTurns", ParamSpec::Type::Int, 0, 1000000, 1, {}, "Last assistant turns whose thinking stays."},
                {"keepAll", ParamSpec::Type::Bool, 0, 0, false, {}, "Keep every thinking block (no edit)."}};
    }

    Result apply(const Input &in, const Params &p) const override
    {
        if (p.flag("keepAll"))
            return agents::unchangedResult(in, "keepAll: every thinking block stays");
        Editor e(in);
        const Transcript &t = e.transcript();
        const auto keep = static_cast<std::size_t>(p.integer("keepTurns"));
        std::size_t turns = 0, dropped = 0, messages = 0;
        const std::string *turnId = nullptr;
        bool previousAssistant = false;
        for (std::size_t pos = e.size(); pos-- > 0;) {
            const std::size_t i = e.at(pos);
            const Message &m = t.messages[i];
            if (m.role != Role::Assistant) {
                previousAssistant = false;
                continue;
            }
            // A new turn unless this line continues the same API response as the one after it.
            const bool sameTurn = previousAssistant && turnId && !m.apiMessageId.empty() && *turnId == m.apiMessageId;
            if (!sameTurn)
                ++turns;
            turnId = &m.apiMessageId;
            previousAssistant = true;
            if (turns <= keep)
                continue;
            bool any = false;
            for (std::size_t b = 0; b < m.blocks.size(); ++b) {
                const BlockType ty = m.blocks[b].type;
                if (ty != BlockType::Thinking && ty != BlockType::RedactedThinking)
                    continue;
                if (e.dropBlock(i, b, Fate::Removed,
                                "clear_thinking: assistant turn older than the last " + std::to_string(keep))) {
                    ++dropped;
                    any = true;
                }
            }
            messages += any ? 1 : 0;
        }
        e.extra()["assistantTurns"] = turns;
        e.extra()["thinkingBlocksDropped"] = dropped;
        e.log(std::to_string(turns) + " assistant turn(s); keeping thinking of the last " + std::to_string(keep));
        e.setNote(dropped ? "dropped " + std::to_string(dropped) + " thinking block(s) from " + std::to_string(messages)
                                + " message(s)"
                          : "no thinking to clear outside the last " + std::to_string(keep) + " turn(s)");
        return e.finish();
    }
};

} // namespace

std::unique_ptr<Strategy> makeAnthropicClearToolUses()
{
    return std::make_unique<ClearToolUses>();
}

std::unique_ptr<Strategy> makeAnthropicClearThinking()
{
    return std::make_unique<ClearThinking>();
}

} // namespace cl::strategy
