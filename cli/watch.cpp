// SPDX-License-Identifier: MIT
// `watch`: follows a session while its agent writes it (core/io/livetail.h): one line per change
// with the messages added and how many turns remain before the agent's own auto-compaction
// (core/workflow/forecast.h). Lines go out as they happen; --json writes one JSON object a line.
#include "cli/cli.h"

#include "cli/common.h"
#include "core/analysis/analysis.h"
#include "core/io/livetail.h"
#include "core/io/loader.h"
#include "core/tokens/estimator.h"
#include "core/tokens/fixedpart.h"
#include "core/util/numbertext.h"
#include "core/workflow/forecast.h"

#include <chrono>
#include <cstdio>
#include <thread>

namespace cl::cli {

namespace {

forecast::Compaction forecastFor(const Transcript &t, std::int64_t windowOption)
{
    analysis::AnalysisOptions o;
    o.contextWindow = windowOption;
    const std::int64_t window = analysis::contextWindowOf(t, o).window;
    const std::int64_t estimated = tokens::totalEstimate(t) + tokens::fixedPart(t).tokens;
    return forecast::compaction(t, window, estimated);
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

void emit(const std::string &text)
{
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
    auto number = [&a](const char *name, std::int64_t fallback, std::int64_t &value) {
        value = fallback;
        if (const auto v = a.value(name)) {
            try {
                value = std::stoll(*v);
            } catch (...) {
                return false;
            }
            return value >= 0;
        }
        return true;
    };
    std::int64_t interval = 0, updates = 0, seconds = 0, window = 0;
    if (!number("--interval", 1000, interval) || interval < 10)
        return o.fail("watch: --interval wants milliseconds, at least 10");
    if (!number("--updates", 0, updates) || !number("--seconds", 0, seconds) || !number("--window", 0, window))
        return o.fail("watch: --updates, --seconds and --window want a number");
    std::optional<Format> as;
    std::string error;
    if (const auto name = a.value("--as"); name && !(as = parseFormat(*name, error)))
        return o.fail(error);
    LoadOptions options;
    options.format = as;
    LoadResult loaded = loadFile(a.positional[0], options);
    if (!loaded.ok())
        return o.fail("watch: " + loaded.error);
    LiveTail tail(a.positional[0], loaded.transcript, options);
    auto report = [&](const LiveTail::Update *u) {
        const Transcript &t = *tail.current();
        const forecast::Compaction f = forecastFor(t, window);
        emit(o.json ? lineJson(t, u, f).dump() + "\n" : lineText(t, u, f));
    };
    report(nullptr);
    const auto start = std::chrono::steady_clock::now();
    std::int64_t changes = 0;
    while ((updates == 0 || changes < updates)
           && (seconds == 0 || std::chrono::steady_clock::now() - start < std::chrono::seconds(seconds))) {
        std::this_thread::sleep_for(std::chrono::milliseconds(interval));
        const LiveTail::Update u = tail.poll();
        if (u.kind == LiveTail::Update::Kind::Failed) {
            err += "watch: " + u.note + "\n";
            return Exit::Failure;
        }
        if (!u.changed())
            continue;
        ++changes;
        report(&u);
    }
    return Exit::Success;
}

} // namespace cl::cli
