// SPDX-License-Identifier: MIT
#include "core/sessions/statusline.h"

#include "core/analysis/analysis.h"
#include "core/io/loader.h"
#include "core/util/json.h"
#include "core/util/numbertext.h"
#include "core/sessions/statusline_internal.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include <sys/stat.h>

namespace cl::statusline {

namespace fs = std::filesystem;
using namespace detail;

bool parseInput(std::string_view text, Input &out, std::string &error)
{
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object()) {
        error = "the status line input is no JSON object";
        return false;
    }
    out.transcriptPath = json::str(j, "transcript_path");
    out.sessionId = json::str(j, "session_id");
    if (const nlohmann::json *m = json::object(j, "model"))
        out.model = json::str(*m, "id");
    if (const nlohmann::json *w = json::object(j, "context_window"))
        out.window = json::num(*w, "context_window_size");
    if (const auto c = j.find("cost"); c != j.end() && c->is_object())
        if (const auto usd = c->find("total_cost_usd"); usd != c->end() && usd->is_number())
            out.agentCostUsd = usd->get<double>();
    if (out.transcriptPath.empty()) {
        error = "the status line input names no transcript_path";
        return false;
    }
    return true;
}

std::string defaultStateDir()
{
    if (const char *x = std::getenv("XDG_CACHE_HOME"); x && *x)
        return (fs::path(x) / "contextlens" / "statusline").string();
    if (const char *h = std::getenv("HOME"); h && *h)
        return (fs::path(h) / ".cache" / "contextlens" / "statusline").string();
    return {};
}

namespace {

LoadOptions liveOptions(Format f)
{
    LoadOptions o;
    o.format = f;
    o.loadSubagents = false; // their cost is read file by file
    return o;
}

struct Priced {
    double dollars = 0;
    std::int64_t unpriced = 0;
};

Priced priceOf(const cost::SessionUsage &usage, const llm::PriceTable &prices, Format f)
{
    const cost::SessionCost c = cost::sessionCost(usage, prices, {}, f);
    return {c.dollars.total(), c.unpriced.total()};
}

// Claude Code's subagent files of a session: <dir>/<stem>/subagents/*.jsonl, each priced on its own
// (kept from the state while its size and time are the same).
std::vector<SubagentState> subagentCosts(const std::string &path, const std::vector<SubagentState> &known,
                                         const llm::PriceTable &prices)
{
    std::vector<SubagentState> out;
    const fs::path p(path);
    std::error_code ec;
    const fs::path dir = p.parent_path() / p.stem() / "subagents";
    if (!fs::is_directory(dir, ec))
        return out;
    for (const fs::directory_entry &e : fs::directory_iterator(dir, ec)) {
        if (e.path().extension() != ".jsonl" || !e.is_regular_file(ec))
            continue;
        struct stat st {};
        if (::stat(e.path().c_str(), &st) != 0)
            continue;
        SubagentState s{e.path().string(), std::uint64_t(st.st_size),
                        std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec, 0, 0};
        const auto same = std::find_if(known.begin(), known.end(), [&s](const SubagentState &k) {
            return k.path == s.path && k.size == s.size && k.mtimeNs == s.mtimeNs;
        });
        if (same != known.end()) {
            out.push_back(*same);
            continue;
        }
        const LoadResult r = loadFile(s.path, liveOptions(Format::ClaudeCode));
        if (r.ok()) {
            const Priced c = priceOf(cost::readUsage(*r.transcript), prices, r.transcript->format);
            s.dollars = c.dollars;
            s.unpriced = c.unpriced;
        }
        out.push_back(std::move(s));
    }
    std::sort(out.begin(), out.end(), [](const SubagentState &a, const SubagentState &b) { return a.path < b.path; });
    return out;
}

std::shared_ptr<Transcript> loadLive(std::string_view bytes, std::size_t from, const std::string &path, Format f,
                                     const Transcript::TokenCalibration &carried, std::string &error)
{
    LoadResult r = loadBytes(std::string(bytes.substr(from)), path, liveOptions(f));
    if (!r.ok()) {
        error = r.error;
        return nullptr;
    }
    if (from > 0)
        r.transcript->tokenCalibration = carried;
    return r.transcript;
}

} // namespace

bool compute(const Input &in, const Options &opts, Figures &out, std::string &error)
{
    llm::PriceTable shipped;
    if (!opts.prices)
        llm::PriceTable::load(shipped, {}, nullptr);
    const llm::PriceTable &prices = opts.prices ? *opts.prices : shipped;
    const std::string &path = in.transcriptPath;
    MappedFile file;
    if (!file.open(path, error))
        return false;
    const std::string_view bytes = file.bytes();
    const std::string stateFile = opts.stateDir.empty() ? std::string() : stateFileFor(opts.stateDir, in.sessionId, path);

    State st;
    bool warm = !stateFile.empty() && loadState(stateFile, st);
    if (!warm)
        out.why = "first call for this session";
    else if (st.path != path || st.inode != file.inode || st.device != file.device || !formatFromName(st.format))
        out.why = "another file at the path";
    else if (st.liveOffset > bytes.size() || st.headHash != headHash(bytes) || st.edgeHash != edgeHash(bytes, st.liveOffset))
        out.why = "the file was rewritten";
    else if (!st.liveUsable)
        out.why = "the live part alone does not give the whole file's figure";
    else if (lastBoundary(bytes, st.liveOffset + 1))
        out.why = "a new compaction";
    else
        out.why.clear();
    warm = warm && out.why.empty();

    std::shared_ptr<Transcript> live;            // what the figures are computed on
    std::optional<tokens::ContextFigure> figure; // of `live`, when the first call already counted it
    if (warm) {
        live = loadLive(bytes, st.liveOffset, path, *formatFromName(st.format), st.carried, error);
        if (!live)
            return false;
        out.bytesRead = bytes.size() - st.liveOffset;
    } else {
        LoadOptions o;
        o.loadSubagents = false;
        const LoadResult whole = loadFile(path, o);
        if (!whole.ok()) {
            error = whole.error;
            return false;
        }
        out.bytesRead = bytes.size();
        const Transcript &t = *whole.transcript;
        State fresh;
        fresh.path = path;
        fresh.format = std::string(formatName(t.format));
        fresh.inode = file.inode;
        fresh.device = file.device;
        fresh.headHash = headHash(bytes);
        const std::optional<std::size_t> boundary = t.format == Format::ClaudeCode ? lastBoundary(bytes, 0) : std::nullopt;
        fresh.liveOffset = boundary.value_or(0);
        fresh.liveLine = std::uint64_t(std::count(bytes.begin(), bytes.begin() + std::ptrdiff_t(fresh.liveOffset), '\n'));
        fresh.edgeHash = edgeHash(bytes, fresh.liveOffset);
        fresh.carried = tokens::carriedCalibration(t);
        fresh.carried.measuredAt = -1;
        fresh.carried.measuredContext = 0;
        fresh.carried.measured = fresh.carried.offset = 0;
        fresh.carried.unchangedPrefix = -1;
        // The history's cost: the main file's responses before the boundary.
        cost::SessionUsage usage = cost::readUsage(t);
        cost::SessionUsage before;
        for (const cost::Response &r : usage.responses)
            if (r.file == 0 && r.line <= fresh.liveLine)
                before.responses.push_back(r);
        const Priced history = priceOf(before, prices, t.format);
        fresh.prefixDollars = history.dollars;
        fresh.prefixUnpriced = history.unpriced;
        live = whole.transcript;
        if (fresh.liveOffset > 0) {
            std::string why;
            std::shared_ptr<Transcript> part = loadLive(bytes, fresh.liveOffset, path, t.format, fresh.carried, why);
            const tokens::ContextFigure wholeFigure = tokens::contextFigure(t, opts.estimator);
            if (part)
                figure = tokens::contextFigure(*part, opts.estimator);
            fresh.liveUsable = figure && figure->total == wholeFigure.total;
            if (fresh.liveUsable)
                live = std::move(part);
            else
                figure = wholeFigure;
        }
        if (!fresh.liveUsable) // every call reads the whole file; the cost then needs no history part
            fresh.prefixDollars = 0, fresh.prefixUnpriced = 0;
        st = std::move(fresh);
    }

    const Transcript &t = *live;
    out.warm = warm;
    out.liveOffset = st.liveUsable ? st.liveOffset : 0;
    out.context = figure ? *figure : tokens::contextFigure(t, opts.estimator);
    const analysis::WindowChoice w = analysis::contextWindowOf(t, analysis::AnalysisOptions{});
    out.window = in.window > 0 ? in.window : w.window;
    out.windowSource = in.window > 0 ? "the agent's context_window_size" : w.source;
    out.compaction = forecast::compaction(t, out.window, out.context.total);
    const Priced main = priceOf(cost::readUsage(t), prices, t.format);
    st.subagents = subagentCosts(path, st.subagents, prices);
    out.subagentFiles = st.subagents.size();
    out.dollars = st.prefixDollars + main.dollars;
    out.unpricedTokens = st.prefixUnpriced + main.unpriced;
    for (const SubagentState &s : st.subagents) {
        out.dollars += s.dollars;
        out.unpricedTokens += s.unpriced;
    }
    if (!stateFile.empty())
        saveState(stateFile, st); // a state that cannot be kept costs speed, not correctness
    return true;
}

std::string render(const Figures &f, bool color)
{
    const auto paint = [color](const char *code, const std::string &s) {
        return color ? std::string("\033[") + code + "m" + s + "\033[0m" : s;
    };
    std::string line = util::grouped(f.context.total);
    if (f.window > 0) {
        const double share = 100.0 * double(f.context.total) / double(f.window);
        char pct[32];
        std::snprintf(pct, sizeof pct, "%.0f %%", std::floor(share));
        line += " of " + util::grouped(f.window) + " tokens (" + pct + ")";
        const char *code = f.compaction.due() ? "31" : f.compaction.near() || share >= 80 ? "33"
                                                                                          : "32";
        line = paint(code, line);
    } else {
        line += " tokens";
    }
    const forecast::Compaction &c = f.compaction;
    if (!c.agent.empty()) {
        if (c.due())
            line += " · auto-compact due";
        else if (c.turnsLeft)
            line += " · auto-compact in ~" + std::to_string(*c.turnsLeft) + (*c.turnsLeft == 1 ? " turn" : " turns");
    }
    char dollars[48];
    std::snprintf(dollars, sizeof dollars, " · $%.2f", f.dollars);
    line += dollars;
    if (f.unpricedTokens > 0)
        line += "+";
    return line;
}

} // namespace cl::statusline
