// SPDX-License-Identifier: MIT
// `watch`: follows a session while its agent writes it (core/io/livetail.h): one line per change
// with the messages added and how many turns remain before the agent's own auto-compaction
// (core/workflow/forecast.h). Lines go out as they happen; --json writes one JSON object a line.
// A compaction ContextLens saved that the agent then left behind (core/workflow/undonecompaction.h) is
// said at once, as its own line / "undone-compaction" event. A file missing for a while (rotation, an
// atomic replace) is waited for; only regular files are followed.
#include "cli/cli.h"

#include "cli/common.h"
#include "core/util/terminaltext.h"
#include "core/analysis/analysis.h"
#include "core/io/livetail.h"
#include "core/io/loader.h"
#include "core/tokens/contextfigure.h"
#include "core/util/numbertext.h"
#include "core/workflow/forecast.h"
#include "core/workflow/undonecompaction.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <set>
#include <thread>

namespace cl::cli {

namespace {

forecast::Compaction forecastFor(const Transcript &t, std::int64_t windowOption)
{
    analysis::AnalysisOptions o;
    o.contextWindow = windowOption;
    const std::int64_t window = analysis::contextWindowOf(t, o).window;
    return forecast::compaction(t, window, tokens::contextFigure(t, commandEstimator()).total);
}

std::string lineText(const Transcript &t, const LiveTail::Update *u, const forecast::Compaction &f)
{
    std::string s;
    if (!u) {
        s = "watching " + t.path + ": ";
    } else {
        s = (u->newMessages >= 0 ? "+" : "") + std::to_string(u->newMessages) + " messages ("
            + std::string(liveUpdateKindName(u->kind)) + (u->note.empty() ? "" : ": " + u->note) + "), ";
    }
    s += std::to_string(t.messages.size()) + " messages; context " + util::grouped(f.current) + (f.measured ? "" : " (estimated)")
         + " of " + util::grouped(f.window) + "; " + forecast::describe(f) + "\n";
    return s;
}

ojson lineJson(const Transcript &t, const LiveTail::Update *u, const forecast::Compaction &f)
{
    ojson j{{"file", t.path},
            {"event", u ? std::string(liveUpdateKindName(u->kind)) : std::string("start")},
            {"messages", t.messages.size()},
            {"context", f.current},
            {"measured", f.measured},
            {"window", f.window},
            {"agent", f.agent},
            {"trigger", f.trigger},
            {"growthPerTurn", f.growthPerTurn},
            {"turnsLeft", f.turnsLeft ? ojson(*f.turnsLeft) : ojson()},
            {"near", f.near()}};
    if (u) {
        j["newMessages"] = u->newMessages;
        j["bytesRead"] = u->bytesRead;
        if (!u->note.empty())
            j["note"] = u->note;
    }
    return j;
}

std::string undoneText(const std::string &path, const UndoneCompaction &u)
{
    return "watch: " + path + ": " + describe(u) + "\n";
}

ojson undoneJson(const std::string &path, const UndoneCompaction &u)
{
    return ojson{{"file", path},
                 {"event", "undone-compaction"},
                 {"line", u.boundaryLine},
                 {"continuedLine", u.continuedLine},
                 {"fromLine", u.fromLine},
                 {"note", describe(u)}};
}

// Never throws: a file name that is not UTF-8 is written with replacement characters.
std::string jsonLine(const ojson &j)
{
    return j.dump(-1, ' ', false, ojson::error_handler_t::replace) + "\n";
}

// Straight to standard output as it happens (run() cannot filter a stream): control characters from
// the transcript (ESC[2J, OSC titles) are made visible here, JSON's DEL and C1 escaped.
void emit(const std::string &raw, bool json)
{
    const std::string text = json ? util::jsonTerminalSafe(raw) : util::terminalSafe(raw);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
}

} // namespace

int watch(const std::vector<std::string> &args, std::string &out, std::string &err)
{
    const Args a = parseArgs(args, {{"--as", "", true}, {"--interval", "", true}, {"--updates", "", true}, {"--seconds", "", true}, {"--window", "", true}});
    Output o{out, err, a.has("--json")};
    if (a.has("--help")) {
        out += commandHelp("watch");
        return Exit::Success;
    }
    if (!a.error.empty())
        return o.fail("watch: " + a.error);
    if (a.positional.size() != 1)
        return o.fail("watch: expected one FILE (usage: contextlens-cli watch FILE [--interval MS] [--updates N] [--seconds S] [--json])");
    // Whole numbers from 0 to `most`, digits only (no sign, no "10abc", no overflow).
    auto number = [&a](const char *name, std::int64_t fallback, std::int64_t most, std::int64_t &value) {
        value = fallback;
        const auto v = a.value(name);
        if (!v)
            return true;
        if (v->empty() || v->size() > 19 || !std::all_of(v->begin(), v->end(), [](char c) { return c >= '0' && c <= '9'; }))
            return false;
        try {
            value = std::stoll(*v);
        } catch (...) {
            return false;
        }
        return value <= most;
    };
    constexpr std::int64_t kDay = 86400000;                // the longest interval, in milliseconds
    constexpr std::int64_t kCentury = 100LL * 366 * 86400; // the longest --seconds
    constexpr std::int64_t kMostTokens = 1000000000000LL;  // the largest --window
    std::int64_t interval = 0, updates = 0, seconds = 0, window = 0;
    if (!number("--interval", 1000, kDay, interval) || interval < 10)
        return o.fail("watch: --interval wants milliseconds, from 10 to 86400000 (a day)");
    if (!number("--updates", 0, std::numeric_limits<std::int64_t>::max(), updates))
        return o.fail("watch: --updates wants a whole number (0: no limit)");
    if (!number("--seconds", 0, kCentury, seconds))
        return o.fail("watch: --seconds wants a whole number of seconds, at most a century (0: no limit)");
    if (!number("--window", 0, kMostTokens, window))
        return o.fail("watch: --window wants a number of tokens, at most 1,000,000,000,000 (0: the model's)");
    std::optional<Format> as;
    std::string error;
    if (const auto name = a.value("--as"); name && !(as = parseFormat(*name, error)))
        return o.fail(error);
    const std::string &path = a.positional[0];
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        return o.fail("watch: " + path + " is not a regular file (a FIFO, a device or a folder is not followed)");
    LoadOptions options;
    options.format = as;
    LoadResult loaded = loadFile(path, options);
    if (!loaded.ok())
        return o.fail("watch: " + loaded.error);
    LiveTail tail(path, loaded.transcript, options);
    std::set<std::pair<std::uint32_t, std::uint32_t>> undoneSaid; // (boundary line, continued line)
    auto report = [&](const LiveTail::Update *u) {
        const Transcript &t = *tail.current();
        const forecast::Compaction f = forecastFor(t, window);
        emit(o.json ? jsonLine(lineJson(t, u, f)) : lineText(t, u, f), o.json);
        for (const UndoneCompaction &undone : findUndoneCompactions(t))
            if (undoneSaid.insert({undone.boundaryLine, undone.continuedLine}).second)
                emit(o.json ? jsonLine(undoneJson(t.path, undone)) : undoneText(t.path, undone), o.json);
    };
    auto note = [&](const std::string &event, const std::string &text) {
        emit(o.json ? jsonLine(ojson{{"file", path}, {"event", event}, {"note", text}}) : "watch: " + text + "\n", o.json);
    };
    report(nullptr);
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    const auto end = start + std::chrono::seconds(seconds); // a century fits steady_clock's range
    // A missing file (rotation, an atomic replace in progress) is waited for: until --seconds ends,
    // or for this many polls (at least 10 seconds) without it.
    const std::int64_t missingPolls = std::max<std::int64_t>(5, 10000 / interval + 1);
    std::int64_t changes = 0, missing = 0;
    while (updates == 0 || changes < updates) {
        auto wait = std::chrono::milliseconds(interval);
        if (seconds > 0) {
            const auto now = Clock::now();
            if (now >= end)
                break;
            wait = std::min(wait, std::chrono::ceil<std::chrono::milliseconds>(end - now));
        }
        std::this_thread::sleep_for(wait);
        if (seconds > 0 && Clock::now() >= end)
            break;
        const LiveTail::Update u = tail.poll();
        if (u.kind == LiveTail::Update::Kind::Failed) {
            if (!u.missing) {
                err += "watch: " + u.note + "\n";
                return Exit::Failure;
            }
            if (missing++ == 0)
                note("missing", u.note + "; waiting for it to come back");
            if (seconds == 0 && missing >= missingPolls) {
                err += "watch: " + u.note + " (" + std::to_string(missing) + " polls)\n";
                return Exit::Failure;
            }
            continue;
        }
        if (missing > 0) {
            missing = 0;
            note("back", path + " is back");
        }
        if (!u.changed())
            continue;
        ++changes;
        report(&u);
    }
    return Exit::Success;
}

} // namespace cl::cli
