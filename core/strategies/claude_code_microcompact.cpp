// SPDX-License-Identifier: MIT
// docs/design/agents.md §5: Claude Code microcompact: when the conversation is above triggerTokens (40K) and clearing
// would save at least minSavings (20K), the results of every compactable tool call except the last
// keepRecent (3) are replaced by a short placeholder; calls and results stay paired. The last
// keepRecent are counted over the compactable results only (a result of another tool neither counts
// nor is cleared). extra()["microcompactMetadata"] mirrors Claude Code's microcompact boundary.
#include "core/strategies/factories.h"

#include "core/strategies/agent_common.h"
#include "core/strategies/tool_reasons.h"

#include <algorithm>

namespace cl::strategy {

namespace {

class ClaudeCodeMicrocompact final : public Strategy
{
public:
    std::string_view name() const override { return "claude-code-microcompact"; }
    std::string_view title() const override { return "Claude Code microcompact"; }
    std::string_view source() const override { return "peer: Claude Code microcompact"; }
    Group group() const override { return Group::ToolResults; }
    std::string_view follows() const override { return "Claude Code"; }
    std::string_view description() const override
    {
        return "What Claude Code's microcompact does above 40K tokens when at least 20K can be saved: old results of "
               "Read, Bash, Grep, Glob, WebFetch, WebSearch, Edit and Write are replaced by a placeholder; the last 3 "
               "stay.";
    }
    std::vector<ParamSpec> params() const override
    {
        return {{"triggerTokens", ParamSpec::Type::Int, 0, 100000000, 40000, {}, "Conversation size that triggers."},
                {"minSavings", ParamSpec::Type::Int, 0, 100000000, 20000, {}, "Only clear when this many tokens are saved."},
                {"keepRecent", ParamSpec::Type::Int, 0, 1000000, 3, {}, "Most recent compactable results kept."},
                // clang-format off
                {"tools", ParamSpec::Type::StringList, 0, 0,
                 nlohmann::json::array({"Read", "Bash", "shell", "Grep", "Glob", "WebFetch", "WebSearch", "Edit", "Write"}),
                 {}, "Tools whose results may be cleared."},
                {"placeholder", ParamSpec::Type::String, 0, 0, "[Earlier tool output removed to save context]", {},
                 "Text that replaces a cleared result."},
                // clang-format on
                agents::forceParam()};
    }

    Result apply(const Input &in, const Params &p) const override
    {
        Editor e(in);
        const Transcript &t = e.transcript();
        const auto tools = p.list("tools");
        const std::string placeholder = p.string("placeholder");
        const auto keep = static_cast<std::size_t>(p.integer("keepRecent"));
        struct Hit {
            std::size_t message, block;
            std::int64_t saved;
        };
        std::vector<Hit> hits;
        Block probe;
        probe.type = BlockType::ToolResult;
        const std::int64_t placeholderTokens = agents::blockTokensWithText(probe, placeholder);
        for (std::size_t pos = 0; pos < e.size(); ++pos) {
            const std::size_t i = e.at(pos);
            const Message &m = t.messages[i];
            for (std::size_t b = 0; b < m.blocks.size(); ++b) {
                const Block &blk = m.blocks[b];
                if (blk.type != BlockType::ToolResult
                    || std::find(tools.begin(), tools.end(), blk.toolName) == tools.end())
                    continue;
                const std::int64_t saved = e.blockTokens(i, b) - placeholderTokens;
                hits.push_back({i, b, blk.text == placeholder ? 0 : saved});
            }
        }
        const std::size_t clear = hits.size() > keep ? hits.size() - keep : 0;
        std::int64_t saving = 0;
        for (std::size_t k = 0; k < clear; ++k)
            saving += std::max<std::int64_t>(0, hits[k].saved);
        const std::int64_t total = in.liveTokens(); // the whole request, as the agent counts it
        const bool forced = p.flag("force");
        if (!forced && total <= p.integer("triggerTokens"))
            return agents::unchangedResult(in, "below trigger: " + std::to_string(total) + " <= "
                                                   + std::to_string(p.integer("triggerTokens")) + " tokens");
        if (!forced && saving < p.integer("minSavings"))
            return agents::unchangedResult(in, "not worth it: clearing would save " + std::to_string(saving) + " < "
                                                   + std::to_string(p.integer("minSavings")) + " tokens");
        nlohmann::json ids = nlohmann::json::array();
        std::int64_t saved = 0;
        std::size_t cleared = 0;
        // One reason per tool name, built once (the list of compactable tools is short).
        ToolReasons reasonFor("microcompact: ", " result older than the last " + std::to_string(keep));
        std::vector<Editor::TextEdit> edits;
        std::vector<const Hit *> of; // the hit of each edit
        for (std::size_t k = 0; k < clear; ++k) {
            const Hit &h = hits[k];
            if (h.saved <= 0)
                continue;
            edits.push_back({h.message, h.block, placeholder, Fate::Microcompacted,
                             reasonFor(t.messages[h.message].blocks[h.block].toolName)});
            of.push_back(&h);
        }
        const std::vector<char> applied = e.setBlockTexts(edits);
        for (std::size_t k = 0; k < edits.size(); ++k)
            if (applied[k]) {
                ids.push_back(t.messages[of[k]->message].blocks[of[k]->block].toolId);
                saved += of[k]->saved;
                ++cleared;
            }
        e.extra()["microcompactMetadata"] = {{"trigger", forced ? "manual" : "auto"}, {"preTokens", total}, {"tokensSaved", saved}, {"compactedToolIds", std::move(ids)}};
        e.log(std::to_string(hits.size()) + " compactable result(s); keeping the last " + std::to_string(keep)
              + "; cleared " + std::to_string(cleared));
        e.setNote(cleared ? "cleared " + std::to_string(cleared) + " old tool result(s), saving ~" + std::to_string(saved)
                                + " tokens"
                          : "nothing to clear: " + std::to_string(hits.size()) + " compactable result(s)");
        return e.finish();
    }
};

} // namespace

std::unique_ptr<Strategy> makeClaudeCodeMicrocompact()
{
    return std::make_unique<ClaudeCodeMicrocompact>();
}

} // namespace cl::strategy
