// SPDX-License-Identifier: MIT
#include "core/workflow/handedits.h"

#include "core/strategy/editor.h"

#include <algorithm>

namespace cl::handedit {

namespace {

using strategy::Fate;
using strategy::ParamSpec;

class HandEdit final : public strategy::Strategy
{
public:
    std::string_view name() const override { return "hand-edit"; }
    std::string_view title() const override { return "Hand edit"; }
    std::string_view source() const override { return "the user"; }
    strategy::Group group() const override { return strategy::Group::Removal; }
    std::string_view follows() const override { return {}; }
    std::string_view description() const override
    {
        return "Messages the user removed, or tool results the user replaced by a note.";
    }
    std::vector<ParamSpec> params() const override
    {
        using T = ParamSpec::Type;
        return {
            {"action", T::Choice, 0, 0, "remove", {"remove", "replace-results"}, "What to do with the messages."},
            {"messages", T::StringList, 0, 0, nlohmann::json::array(), {}, "Transcript indices."},
            {"note", T::String, 0, 0, "", {}, "The note that replaces the tool results."},
        };
    }
    strategy::Result apply(const strategy::Input &in, const strategy::Params &p) const override
    {
        strategy::Editor e(in);
        const Transcript &t = in.transcript;
        std::vector<std::size_t> chosen;
        for (const std::string &s : p.list("messages")) {
            char *end = nullptr;
            const unsigned long long i = std::strtoull(s.c_str(), &end, 10);
            if (end && *end == '\0' && i < t.messages.size() && t.messages[i].isConversation())
                chosen.push_back(std::size_t(i));
        }
        std::sort(chosen.begin(), chosen.end());
        chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
        std::size_t done = 0, refused = 0;
        if (p.string("action") == "remove") {
            for (std::size_t i : chosen)
                (e.remove(i, "removed by hand") ? done : refused) += 1;
            e.setNote("removed " + std::to_string(done) + " message(s) by hand"
                      + (refused ? "; " + std::to_string(refused) + " pinned or of an exempt tool, kept" : std::string()));
            return e.finish();
        }
        const std::string text = replacedResultText(p.string("note"));
        // The results in the messages, and those answering calls in them.
        std::vector<std::pair<std::size_t, std::size_t>> results;
        for (std::size_t i : chosen)
            for (std::size_t b = 0; b < t.messages[i].blocks.size(); ++b) {
                const Block &blk = t.messages[i].blocks[b];
                if (blk.type == BlockType::ToolResult)
                    results.emplace_back(i, b);
                else if (blk.type == BlockType::ToolUse && blk.pairMessage >= 0 && blk.pairBlock >= 0)
                    results.emplace_back(std::size_t(blk.pairMessage), std::size_t(blk.pairBlock));
            }
        std::sort(results.begin(), results.end());
        results.erase(std::unique(results.begin(), results.end()), results.end());
        for (const auto &[i, b] : results)
            (e.setBlockText(i, b, text, Fate::Cleared, "replaced by a note by hand") ? done : refused) += 1;
        e.setNote("replaced " + std::to_string(done) + " tool result(s) by a note"
                  + (refused ? "; " + std::to_string(refused) + " pinned or of an exempt tool, kept" : std::string()));
        return e.finish();
    }
};

} // namespace

std::string replacedResultText(const std::string &note)
{
    return "[tool result replaced by a note] " + note;
}

strategy::Result run(const strategy::Input &in, const Edit &edit)
{
    static const HandEdit strategy;
    nlohmann::json messages = nlohmann::json::array();
    for (std::size_t i : edit.messages)
        messages.push_back(std::to_string(i));
    nlohmann::json params = nlohmann::json::object();
    params["action"] = edit.action == Action::Remove ? "remove" : "replace-results";
    params["messages"] = messages;
    params["note"] = edit.note;
    strategy::RunOptions o;
    o.refuseLarger = false; // a note may be longer than a tiny result; the user asked for it
    return strategy::run(strategy, in, params, o);
}

} // namespace cl::handedit
