// SPDX-License-Identifier: MIT
// docs/design/agents.md §15: Qwen Code clears old tool results before a request (its microcompaction, 0.24).
// Size trigger: the outputs of its compactable tools (read, shell, grep, glob, web fetch and search,
// MCP resources, edit, write, skill) hold more than totalChars characters (500 000): the oldest are
// cleared, in order, until at most half of that is left, never the keepRecent (5) latest, failed
// ones or ones already cleared. Idle trigger (an hour since the last response): every one but the
// keepRecent latest. A cleared result keeps its call; its output becomes a short placeholder.
#include "core/strategies/factories.h"

#include "core/strategies/agent_common.h"
#include "core/strategies/tool_reasons.h"

#include <algorithm>

namespace cl::strategy {

namespace {

class QwenCodeClearToolResults final : public Strategy
{
public:
    std::string_view name() const override { return "qwen-code-clear-tool-results"; }
    std::string_view title() const override { return "Qwen Code tool-result clearing"; }
    std::string_view source() const override { return "peer: Qwen Code microcompaction"; }
    Group group() const override { return Group::ToolResults; }
    std::string_view follows() const override { return "Qwen Code"; }
    std::string_view description() const override
    {
        return "What Qwen Code does before a request once its tool outputs pass 500 000 characters: the oldest results of "
               "read, shell, search, fetch, edit and write calls are cleared until half of that is left; the latest 5 "
               "stay. After an hour idle it clears every one but the latest 5.";
    }
    std::vector<ParamSpec> params() const override
    {
        return {{"trigger", ParamSpec::Type::Choice, 0, 0, "size", {"size", "idle"}, "size: above totalChars of tool output; idle: "
                                                                                     "the session was left for an hour (clears all but the latest)."},
                {"totalChars", ParamSpec::Type::Int, 0, 1000000000, 500000, {}, "Characters of tool output that trigger; cleared down to half."},
                {"keepRecent", ParamSpec::Type::Int, 0, 1000000, 5, {}, "Most recent compactable results kept."},
                // clang-format off
                {"tools", ParamSpec::Type::StringList, 0, 0,
                 nlohmann::json::array({"read_file", "run_shell_command", "grep_search", "glob", "web_fetch", "web_search",
                                        "read_mcp_resource", "edit", "write_file", "skill"}),
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
        const bool idle = p.string("trigger") == "idle";
        const auto limit = static_cast<std::size_t>(p.integer("totalChars"));
        struct Hit {
            std::size_t message, block, chars;
        };
        std::vector<Hit> hits; // compactable results with output to clear, oldest first
        std::size_t total = 0;
        for (std::size_t pos = 0; pos < e.size(); ++pos) {
            const std::size_t i = e.at(pos);
            const Message &m = t.messages[i];
            for (std::size_t b = 0; b < m.blocks.size(); ++b) {
                const Block &blk = m.blocks[b];
                if (blk.type != BlockType::ToolResult || blk.isError || blk.text.empty() || blk.text == placeholder
                    || std::find(tools.begin(), tools.end(), blk.toolName) == tools.end())
                    continue;
                hits.push_back({i, b, blk.text.size()});
                total += blk.text.size();
            }
        }
        const bool forced = p.flag("force");
        if (!idle && !forced && total <= limit)
            return agents::unchangedResult(in, "below trigger: " + std::to_string(total) + " <= " + std::to_string(limit)
                                                   + " characters of tool output");
        const std::size_t candidates = hits.size() > keep ? hits.size() - keep : 0;
        const std::size_t low = idle ? 0 : limit / 2;
        ToolReasons reasonFor("Qwen Code clearing: ", idle ? " result older than the latest " + std::to_string(keep) + " (idle)"
                                                           : " result cleared while tool output was above " + std::to_string(limit)
                                                                 + " characters");
        std::vector<Editor::TextEdit> edits;
        std::size_t remaining = total;
        for (std::size_t k = 0; k < candidates && remaining > low; ++k) {
            const Hit &h = hits[k];
            edits.push_back({h.message, h.block, placeholder, Fate::Microcompacted, reasonFor(t.messages[h.message].blocks[h.block].toolName)});
            remaining -= h.chars;
        }
        const std::vector<char> applied = e.setBlockTexts(edits);
        const auto cleared = std::size_t(std::count(applied.begin(), applied.end(), 1));
        e.extra()["toolOutputChars"] = {{"before", total}, {"after", remaining}, {"lowWatermark", low}};
        e.log(std::to_string(hits.size()) + " compactable result(s), " + std::to_string(total) + " characters; keeping the latest "
              + std::to_string(keep) + "; cleared " + std::to_string(cleared));
        e.setNote(cleared ? "cleared " + std::to_string(cleared) + " old tool result(s): " + std::to_string(total) + " -> "
                                + std::to_string(remaining) + " characters of tool output"
                          : "nothing to clear: " + std::to_string(hits.size()) + " compactable result(s)");
        return e.finish();
    }
};

} // namespace

std::unique_ptr<Strategy> makeQwenCodeClearToolResults()
{
    return std::make_unique<QwenCodeClearToolResults>();
}

} // namespace cl::strategy
