// SPDX-License-Identifier: MIT
// dedupe-reads: when the same file was read several times, the older reads become a short pointer to
// the latest one (the trick the closest peers, Cline's context manager among them, find most
// effective: agents re-read the files they work on). A later read supersedes an earlier one when it
// covers the earlier one's lines: a whole-file read covers every read of the file, a ranged read
// (offset / limit) covers a read inside its range. Edits in between are taken into account: an
// Edit or Write of the path between the two reads means the earlier content is out of date, and the
// pointer says so; with no edit in between the contents are the same file read twice. Only reads of
// Read-like tools with one path count (analysis::toolKind, toolPaths); failed reads, results below
// minTokens and, with `paths` set, other files are left alone. The latest read of a file always stays.
#include "core/strategies/factories.h"

#include "core/analysis/analysis.h"
#include "core/strategies/agent_common.h"
#include "core/util/json.h"

#include <algorithm>
#include <limits>
#include <map>

namespace cl::strategy {

namespace {

struct Range {
    std::int64_t first = 0;                                      // first line (0-based offset)
    std::int64_t end = std::numeric_limits<std::int64_t>::max(); // one past the last line
    bool covers(const Range &o) const { return first <= o.first && end >= o.end; }
};

std::int64_t number(const nlohmann::json &input, const char *key, std::int64_t fallback)
{
    const nlohmann::json *v = input.is_object() ? json::child(input, key) : nullptr;
    if (v && v->is_number_integer())
        return v->get<std::int64_t>();
    if (v && v->is_string()) // some agents write numbers as strings
        try {
            return std::stoll(v->get<std::string>());
        } catch (...) {
        }
    return fallback;
}

// The lines a read call asks for: offset (else 0) to offset + limit (else the end of the file).
Range rangeOf(const Block &call)
{
    Range r;
    r.first = std::max<std::int64_t>(0, number(call.input, "offset", 0));
    if (const std::int64_t limit = number(call.input, "limit", -1); limit > 0)
        r.end = r.first + limit;
    return r;
}

struct Read {
    std::size_t call, callBlock, result, resultBlock;
    Range range;
};

class DedupeReads final : public Strategy
{
public:
    std::string_view name() const override { return "dedupe-reads"; }
    std::string_view title() const override { return "Deduplicate file reads"; }
    std::string_view source() const override { return "project (peer practice: Cline's duplicate file reads)"; }
    Group group() const override { return Group::ToolResults; }
    std::string_view follows() const override { return ""; }
    std::string_view description() const override
    {
        return "Older reads of a file that was read again later become a short pointer to the latest read; a later "
               "read must cover the earlier one's lines, and the pointer says when the file was edited in between. "
               "The latest read of every file stays; calls stay, so pairs stay.";
    }
    std::vector<ParamSpec> params() const override
    {
        return {{"minTokens", ParamSpec::Type::Int, 0, 100000000, 50, {}, "Reads smaller than this stay."},
                {"paths", ParamSpec::Type::StringList, 0, 0, nlohmann::json::array(), {}, "Only these files (empty: every file)."},
                {"placeholder", ParamSpec::Type::String, 0, 0, "[Earlier read of {path} removed: the file is read again later in this conversation{edited}. Refer to "
                                                               "the latest read.]",
                 {},
                 "Text of a superseded read; {path} and {edited} are filled in."}};
    }

    Result apply(const Input &in, const Params &p) const override
    {
        Editor e(in);
        const Transcript &t = e.transcript();
        const auto only = p.list("paths");
        const std::int64_t minTokens = p.integer("minTokens");
        // Per path, in conversation order: its reads, and the positions of the edits to it.
        std::map<std::string, std::vector<Read>> reads;
        std::map<std::string, std::vector<std::size_t>> edits;
        for (std::size_t pos = 0; pos < e.size(); ++pos) {
            const std::size_t i = e.at(pos);
            const Message &m = t.messages[i];
            if (m.role != Role::Assistant)
                continue;
            for (std::size_t b = 0; b < m.blocks.size(); ++b) {
                const Block &call = m.blocks[b];
                if (call.type != BlockType::ToolUse)
                    continue;
                const analysis::ToolKind kind = analysis::toolKind(call.toolName);
                const auto paths = analysis::toolPaths(call);
                if (kind == analysis::ToolKind::Edit || kind == analysis::ToolKind::Write || kind == analysis::ToolKind::Delete) {
                    for (const auto &path : paths)
                        edits[path].push_back(i);
                    continue;
                }
                if (kind != analysis::ToolKind::Read || paths.size() != 1 || call.pairMessage < 0)
                    continue;
                if (!only.empty() && std::find(only.begin(), only.end(), paths.front()) == only.end())
                    continue;
                const Message &rm = t.messages[std::size_t(call.pairMessage)];
                const auto rb = std::size_t(call.pairBlock);
                if (rb >= rm.blocks.size() || rm.blocks[rb].isError || rm.blocks[rb].cleared)
                    continue;
                reads[paths.front()].push_back({i, b, std::size_t(call.pairMessage), rb, rangeOf(call)});
            }
        }
        const std::string placeholder = p.string("placeholder");
        std::vector<Editor::TextEdit> plan;
        std::size_t files = 0;
        std::int64_t freed = 0;
        for (const auto &[path, list] : reads) {
            bool any = false;
            for (std::size_t k = 0; k + 1 < list.size(); ++k) {
                const Read &r = list[k];
                // The first later read that covers this one.
                const auto later = std::find_if(list.begin() + std::ptrdiff_t(k) + 1, list.end(),
                                                [&](const Read &o) { return o.range.covers(r.range); });
                if (later == list.end())
                    continue;
                const Block &result = t.messages[r.result].blocks[r.resultBlock];
                const std::int64_t before = e.blockTokens(r.result, r.resultBlock);
                if (before < minTokens)
                    continue;
                const auto &pathEdits = edits[path];
                const bool edited = std::any_of(pathEdits.begin(), pathEdits.end(),
                                                [&](std::size_t i) { return i > r.call && i < later->call; });
                std::string text = placeholder;
                for (const auto &[key, value] :
                     {std::pair<std::string, std::string>{"{path}", path},
                      {"{edited}", edited ? std::string(" (it was edited in between)") : std::string()}})
                    for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
                        text.replace(at, key.size(), value);
                const std::int64_t after = agents::blockTokensWithText(result, text);
                if (after >= before)
                    continue;
                plan.push_back({r.result, r.resultBlock, std::move(text), Fate::Cleared,
                                std::string("dedupe-reads: ") + path + " read again later" + (edited ? " (edited in between)" : ""),
                                after});
                freed += before - after;
                any = true;
            }
            files += any ? 1 : 0;
        }
        if (plan.empty())
            return agents::unchangedResult(in, "no file was read again over an earlier read of " + std::to_string(minTokens)
                                                   + "+ tokens (" + std::to_string(reads.size()) + " file(s) read)");
        const std::size_t planned = plan.size();
        const std::vector<char> applied = e.setBlockTexts(plan);
        const auto done = std::size_t(std::count(applied.begin(), applied.end(), char(1)));
        e.extra()["dedupedReads"] = done;
        e.extra()["files"] = files;
        e.log(std::to_string(reads.size()) + " file(s) read; " + std::to_string(planned) + " superseded read(s) in "
              + std::to_string(files) + " file(s); " + std::to_string(done) + " replaced (" + std::to_string(planned - done)
              + " protected), ~" + std::to_string(freed) + " tokens");
        e.setNote("replaced " + std::to_string(done) + " superseded read(s) of " + std::to_string(files) + " file(s) by a pointer to the latest");
        return e.finish();
    }
};

} // namespace

std::unique_ptr<Strategy> makeDedupeReads()
{
    return std::make_unique<DedupeReads>();
}

} // namespace cl::strategy
