// SPDX-License-Identifier: MIT
// Following a live session (core/io/livetail.h): a generated Claude Code or Codex session of 10 MB
// and 100 MB is written up to its last turn and loaded; then its agent "writes" the rest — one line,
// then the whole last turn — and LiveTail::poll() takes it in; then, written again from the load, the
// last turn line by line, each line polled, keeping only the newest transcript as the window does.
// Timed: a fresh load of the whole file (what a reload costs) against the poll (read the appended
// bytes, parse the current turn and the new lines, put the transcript together: the first polls copy
// the earlier messages, the later ones grow the version before in place). Median of 5 runs, wall
// time, files in the page cache.
// Usage: bench_live [MB ...]   (default 10 100)
#include "core/util/allocator.h"
#include "core/generator/generator.h"
#include "core/io/livetail.h"
#include "core/io/loader.h"
#include "core/util/json.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace cl;

namespace {

double msSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

void write(const fs::path &path, std::string_view bytes, bool append)
{
    std::ofstream(path, append ? std::ios::binary | std::ios::app : std::ios::binary | std::ios::trunc) << bytes;
}

// Where the last turn starts: the last line that is a user request, found by its text.
std::size_t lastTurnStart(const std::string &bytes, Format format)
{
    const auto spans = json::splitLines(bytes);
    const std::string needle = format == Format::Codex ? "\"role\":\"user\"" : "\"type\":\"user\"";
    for (std::size_t i = spans.size(); i-- > 1;) {
        const std::string_view line = std::string_view(bytes).substr(spans[i].offset, spans[i].contentLength);
        if (line.find(needle) != std::string_view::npos && line.find("tool_result") == std::string_view::npos)
            return spans[i].offset;
    }
    return bytes.size();
}

struct Figures {
    double load = 0, pollLine = 0, pollTurn = 0;
    std::uint64_t lineBytes = 0, turnBytes = 0;
    std::string kind;
    double eachLine = 0, eachLineMax = 0; // line by line, the caller keeping only the newest version
    std::size_t lines = 0, inPlace = 0;
};

// The last turn written line by line, each polled, the caller keeping only the newest transcript as
// the window does: the polls after the first two grow the version before in place. Adds every poll's
// time after the second to `times`.
void lineByLine(const fs::path &file, const std::string &bytes, std::size_t cut, const LoadOptions &opts,
                std::vector<double> &times, Figures &f)
{
    write(file, std::string_view(bytes).substr(0, cut), false);
    std::shared_ptr<const Transcript> loaded = loadFile(file.string(), opts).transcript;
    LiveTail tail(file.string(), std::move(loaded), opts);
    std::size_t at = cut, polls = 0;
    while (at < bytes.size()) {
        const std::size_t end = bytes.find('\n', at) + 1;
        write(file, std::string_view(bytes).substr(at, end - at), true);
        at = end;
        const auto start = std::chrono::steady_clock::now();
        const LiveTail::Update u = tail.poll();
        const double ms = msSince(start);
        if (u.kind != LiveTail::Update::Kind::Appended) {
            std::fprintf(stderr, "line by line: a poll was %s (%s)\n", liveUpdateKindName(u.kind).data(), u.note.c_str());
            std::exit(1);
        }
        if (++polls > 2)
            times.push_back(ms);
    }
    f.lines = polls;
    f.inPlace = tail.stats().inPlace;
}

Figures run(const fs::path &file, const std::string &bytes, Format format)
{
    const std::size_t cut = lastTurnStart(bytes, format);
    const std::size_t firstLineEnd = bytes.find('\n', cut) + 1;
    std::vector<double> load, line, turn;
    Figures f;
    LoadOptions opts;
    for (int r = 0; r < 5; ++r) {
        write(file, bytes, false);
        auto start = std::chrono::steady_clock::now();
        const LoadResult whole = loadFile(file.string(), opts);
        load.push_back(msSince(start));
        if (!whole.ok())
            std::exit(1);

        write(file, std::string_view(bytes).substr(0, cut), false);
        const LoadResult before = loadFile(file.string(), opts);
        LiveTail tail(file.string(), before.transcript, opts);
        write(file, std::string_view(bytes).substr(cut, firstLineEnd - cut), true);
        start = std::chrono::steady_clock::now();
        const LiveTail::Update one = tail.poll();
        line.push_back(msSince(start));
        write(file, std::string_view(bytes).substr(firstLineEnd), true);
        start = std::chrono::steady_clock::now();
        const LiveTail::Update rest = tail.poll();
        turn.push_back(msSince(start));
        f.lineBytes = one.bytesRead;
        f.turnBytes = one.bytesRead + rest.bytesRead;
        f.kind = liveUpdateKindName(one.kind);
        f.kind += ", ";
        f.kind += liveUpdateKindName(rest.kind);
        if (tail.current()->messages.size() != whole.transcript->messages.size()) {
            std::fprintf(stderr, "grown transcript has %zu messages, a fresh load %zu\n", tail.current()->messages.size(),
                         whole.transcript->messages.size());
            std::exit(1);
        }
    }
    std::vector<double> each;
    for (int r = 0; r < 5; ++r)
        lineByLine(file, bytes, cut, opts, each, f);
    if (!each.empty()) {
        f.eachLine = median(each);
        f.eachLineMax = *std::max_element(each.begin(), each.end());
    }
    f.load = median(load);
    f.pollLine = median(line);
    f.pollTurn = median(turn);
    return f;
}

} // namespace

int main(int argc, char **argv)
{
    tuneAllocator();
    std::vector<std::size_t> sizes;
    for (int i = 1; i < argc; ++i)
        sizes.push_back(std::size_t(std::atoi(argv[i])));
    if (sizes.empty())
        sizes = {10, 100};
    const fs::path dir = fs::temp_directory_path() / ("contextlens-bench-live-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::printf("%-12s %6s %12s %25s %25s %26s  %s\n", "session", "MB", "fresh load", "first poll: 1 line (read)",
                "second: the rest (read)", "later lines: median / max", "update kinds, in place");
    for (const Format format : {Format::ClaudeCode, Format::Codex}) {
        for (const std::size_t mb : sizes) {
            gen::Options g;
            g.format = format;
            g.targetBytes = mb << 20;
            g.seed = 11;
            const std::string bytes = gen::generate(g);
            const fs::path file = dir / (format == Format::Codex ? "rollout.jsonl" : "session.jsonl");
            const Figures f = run(file, bytes, format);
            std::printf("%-12s %6.1f %9.1f ms %11.1f ms (%7llu B) %11.1f ms (%7llu B) %12.1f / %6.1f ms  %s; %zu of %zu\n",
                        format == Format::Codex ? "Codex" : "Claude Code", double(bytes.size()) / 1048576.0, f.load, f.pollLine,
                        static_cast<unsigned long long>(f.lineBytes), f.pollTurn,
                        static_cast<unsigned long long>(f.turnBytes), f.eachLine, f.eachLineMax, f.kind.c_str(), f.inPlace,
                        f.lines);
        }
    }
    fs::remove_all(dir);
    return 0;
}
