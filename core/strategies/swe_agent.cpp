// SPDX-License-Identifier: MIT
// docs/design/agents.md §13: SWE-agent last_n_observations history processor: always; the first observation (the
// instance template in SWE-agent) and the last n (5) observations keep their output; every other
// observation becomes "Old environment output: (N lines omitted)", N the line count of the original
// output (Python's splitlines). An observation here is a message holding tool results; each of its
// results is replaced. SWE-agent's tags: keepOutputTools play the keep_output tag (never omitted),
// removeOutputTools the remove_output tag (omitted even when recent). An output no longer than its
// omission note stays (SWE-agent would swap it; here that would only grow the context).
#include "core/strategies/factories.h"

#include "core/strategies/agent_common.h"

#include <algorithm>

namespace cl::strategy {

namespace {

class SweAgent final : public Strategy
{
public:
    std::string_view name() const override { return "swe-agent"; }
    std::string_view title() const override { return "SWE-agent last n observations"; }
    std::string_view source() const override { return "peer: SWE-agent"; }
    Group group() const override { return Group::ToolResults; }
    std::string_view follows() const override { return "SWE-agent"; }
    std::string_view description() const override
    {
        return "What SWE-agent's last_n_observations processor does: the first observation and the last 5 keep their "
               "output; the others become \"Old environment output: (N lines omitted)\".";
    }
    std::vector<ParamSpec> params() const override
    {
        return {{"n", ParamSpec::Type::Int, 0, 1000000, 5, {}, "Most recent observations kept."},
                {"keepOutputTools", ParamSpec::Type::StringList, 0, 0, nlohmann::json::array(), {}, "Tools whose output is always kept (keep_output tag)."},
                {"removeOutputTools", ParamSpec::Type::StringList, 0, 0, nlohmann::json::array(), {}, "Tools whose output is always omitted, even when recent (remove_output tag)."}};
    }

    Result apply(const Input &in, const Params &p) const override
    {
        Editor e(in);
        const Transcript &t = e.transcript();
        std::vector<std::size_t> obs; // transcript indices
        for (std::size_t pos = 0; pos < e.size(); ++pos)
            if (agents::isObservation(t.messages[e.at(pos)]))
                obs.push_back(e.at(pos));
        const auto n = static_cast<std::size_t>(p.integer("n"));
        const auto keepTools = p.list("keepOutputTools");
        const auto removeTools = p.list("removeOutputTools");
        const std::size_t lastRemoved = obs.size() > n ? obs.size() - n : 0;
        auto has = [](const std::vector<std::string> &l, const std::string &s) {
            return std::find(l.begin(), l.end(), s) != l.end();
        };
        std::size_t omitted = 0, keptByTag = 0, removedByTag = 0, tooShort = 0;
        // The omissions are planned first and applied in one batch; the tag lines of the log keep
        // their order (a removal by tag is logged only when it was applied).
        std::vector<Editor::TextEdit> edits;
        std::vector<std::pair<std::string, std::ptrdiff_t>> tagLog; // line, edit it depends on (-1: none)
        const std::string oldReason = "observation older than the last " + std::to_string(n);
        for (std::size_t k = 1; k < obs.size(); ++k) {
            const bool old = k < lastRemoved;
            const std::size_t i = obs[k];
            const Message &m = t.messages[i];
            for (std::size_t b = 0; b < m.blocks.size(); ++b) {
                const Block &blk = m.blocks[b];
                if (blk.type != BlockType::ToolResult)
                    continue;
                const bool forceRemove = has(removeTools, blk.toolName);
                if (!old && !forceRemove)
                    continue;
                if (has(keepTools, blk.toolName)) {
                    ++keptByTag;
                    tagLog.emplace_back("kept output of message " + std::to_string(i) + " (" + blk.toolName
                                            + "): keep_output tag",
                                        -1);
                    continue;
                }
                std::string text = "Old environment output: (" + std::to_string(e.lineCount(i, b)) + " lines omitted)";
                if (blk.text.size() <= text.size()) {
                    ++tooShort; // the note would be longer than the output it replaces
                    continue;
                }
                const bool byTag = forceRemove && !old;
                if (byTag)
                    tagLog.emplace_back("omitted output of message " + std::to_string(i) + " (" + blk.toolName
                                            + "): remove_output tag",
                                        std::ptrdiff_t(edits.size()));
                edits.push_back({i, b, std::move(text), Fate::Cleared, byTag ? "remove_output tag" : oldReason});
            }
        }
        const std::vector<char> applied = e.setBlockTexts(edits);
        for (const char done : applied)
            omitted += done ? 1 : 0;
        for (auto &[line, edit] : tagLog) {
            if (edit >= 0 && !applied[std::size_t(edit)])
                continue;
            removedByTag += edit >= 0 ? 1 : 0;
            e.log(std::move(line));
        }
        e.extra()["observations"] = obs.size();
        if (tooShort)
            e.log(std::to_string(tooShort) + " output(s) left as they are: shorter than their omission note");
        e.log(std::to_string(obs.size()) + " observation(s); keeping the first and the last " + std::to_string(n));
        e.setNote(omitted ? "omitted " + std::to_string(omitted) + " old output(s) of " + std::to_string(obs.size())
                                + " observations"
                                + (keptByTag ? "; " + std::to_string(keptByTag) + " kept by tag" : std::string())
                          : "nothing to omit: " + std::to_string(obs.size()) + " observation(s)");
        return e.finish();
    }
};

} // namespace

std::unique_ptr<Strategy> makeSweAgent()
{
    return std::make_unique<SweAgent>();
}

} // namespace cl::strategy
