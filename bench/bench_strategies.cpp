// SPDX-License-Identifier: MIT
// Strategy engine speed. Targets (issue 4): any deterministic strategy on 100 000 messages in
// <= 100 ms (the strategy itself: Strategy::apply through run(), analysis shared and excluded,
// as the GUI computes it once per transcript); all strategies compared on a 10 000-message session
// in <= 1 s (everything the compare view shows: stats, fact retention, cache prefix and validity).
// Each strategy runs once first, reported apart ("1st run": its result's memory comes fresh from the
// system), then "apply ms" is the best of three more runs, each after the previous result was freed.
// Usage: bench_strategies [MESSAGES=100000] [COMPARE_MESSAGES=10000] [ONLY=name,name]
//        bench_strategies --dump FILE   every strategy (defaults, then force=true) on FILE as JSON,
//        everything but timings: fates, reasons, slots, note, log, extra, stats and a hash of the
//        exported bytes (random UUIDs numbered by first appearance, today's timestamps as "<now>").
//        Diff two dumps to check that a speed-up left results identical. CL_DUMP_EXPORTS=DIR also
//        writes the normalized exported bytes there.
#include "core/util/allocator.h"
#include "core/analysis/analysis.h"
#include "core/workflow/compare.h"
#include "core/generator/generator.h"
#include "core/strategy/strategy.h"
#include "core/io/loader.h"
#include "core/tokens/estimator.h"
#include "core/io/writer.h"
#include "core/strategies/registry.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <unordered_map>

#include <sys/mman.h>

namespace {

cl::Transcript make(std::size_t n)
{
    cl::gen::Options g;
    g.format = cl::Format::Anthropic;
    g.messages = n;
    g.contextWindow = 200000;
    cl::Transcript t = cl::gen::generateTranscript(g);
    cl::linkToolPairs(t);
    cl::tokens::estimateAll(t);
    return t;
}

double since(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// How fast this machine hands out memory: GB/s writing 256 MiB of pages the process never had
// (mapped from the system for this, each page faulted in; 2 MiB pages where transparent huge pages
// are available, as the allocator asks for), then the same bytes again (resident). A virtual machine
// whose host backs guest memory lazily, or takes freed pages back (free page reporting), makes the
// first number far smaller than on bare metal; a strategy's first run in a process pays it for its
// whole result.
std::pair<double, double> memoryRates()
{
    constexpr std::size_t n = std::size_t(256) << 20;
    auto rate = [](double ms) { return double(n) / 1e6 / ms; };
    void *map = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED)
        return {0, 0};
    madvise(map, n, MADV_HUGEPAGE);
    char *p = static_cast<char *>(map);
    auto start = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < n; i += 4096)
        p[i] = char(i);
    const double fresh = rate(since(start));
    start = std::chrono::steady_clock::now();
    std::memset(p, 1, n);
    asm volatile(""
                 :
                 : "r"(p)
                 : "memory"); // the bytes count as used
    const double resident = rate(since(start));
    munmap(map, n);
    return {fresh, resident};
}

// The Claude Code compaction export gives its new lines random UUIDs: each distinct UUID becomes
// its order of first appearance, so that two runs of the same result hash alike.
std::string normalizeUuids(const std::string &bytes)
{
    auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); };
    auto isUuid = [&](std::size_t at) {
        if (at + 36 > bytes.size())
            return false;
        for (std::size_t k = 0; k < 36; ++k) {
            const bool dash = k == 8 || k == 13 || k == 18 || k == 23;
            if (dash ? bytes[at + k] != '-' : !hex(bytes[at + k]))
                return false;
        }
        return true;
    };
    // Lines written now (an inserted summary) carry the current time: today's timestamps become "<now>".
    char today[16];
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    std::strftime(today, sizeof today, "%Y-%m-%dT", &tm);
    const std::string_view day(today);
    std::unordered_map<std::string, std::size_t> seen;
    std::string out;
    out.reserve(bytes.size());
    for (std::size_t i = 0; i < bytes.size();) {
        if (std::string_view(bytes).substr(i, day.size()) == day && i + 24 <= bytes.size() && bytes[i + 23] == 'Z') {
            out += "<now>";
            i += 24;
            continue;
        }
        if (bytes[i] == '-' || !isUuid(i)) {
            out += bytes[i++];
            continue;
        }
        const auto [it, fresh] = seen.emplace(bytes.substr(i, 36), seen.size());
        out += "uuid#" + std::to_string(it->second);
        i += 36;
    }
    return out;
}

nlohmann::json dumpResult(const cl::Transcript &t, const cl::strategy::Result &r)
{
    using nlohmann::json;
    json j;
    j["changed"] = r.changed;
    j["note"] = r.note;
    j["log"] = r.log;
    j["extra"] = r.extra;
    j["params"] = r.params.values;
    auto stats = json::object();
    const auto &s = r.stats;
    // clang-format off
    stats = {{"messagesBefore", s.messagesBefore}, {"messagesAfter", s.messagesAfter}, {"originalKept", s.originalKept},
             {"inserted", s.inserted}, {"tokensBefore", s.tokensBefore}, {"tokensAfter", s.tokensAfter},
             {"reduction", s.reduction}, {"efficiency", s.efficiency}, {"factsTotal", s.factsTotal},
             {"factsKept", s.factsKept}, {"cachePrefixTokens", s.cachePrefixTokens}, {"fateCounts", s.fateCounts}};
    // clang-format on
    j["stats"] = stats;
    j["violations"] = r.violations.size();
    auto fates = json::array();
    for (const auto &f : r.fates) {
        json b = json::array();
        for (const auto x : f.blocks)
            b.push_back(int(x));
        fates.push_back({int(f.fate), f.reason, f.slot, b});
    }
    j["fates"] = std::move(fates);
    auto slots = json::array();
    for (std::size_t i = 0; i < r.slots.size(); ++i) {
        const auto &sl = r.slots[i];
        std::string content;
        if (sl.message)
            for (const auto &b : sl.message->blocks)
                content += std::to_string(int(b.type)) + "|" + b.text + "|" + b.toolId + "|" + b.toolName + "|"
                           + b.input.dump() + "\n";
        slots.push_back({sl.origin, int(sl.fate), r.slotReason(i), sl.message ? std::hash<std::string>{}(content) : 0,
                         sl.message ? int(sl.message->role) : -1, sl.message ? int(sl.message->kind) : -1});
    }
    j["slots"] = std::move(slots);
    const cl::Transcript out = r.materialize(t);
    const auto w = cl::writeTranscript(out, t.format);
    const std::string normalized = normalizeUuids(w.bytes);
    j["exported"] = std::hash<std::string>{}(normalized);
    if (const char *dir = std::getenv("CL_DUMP_EXPORTS")) { // the bytes themselves, to see what differs
        static int serial = 0;
        std::ofstream(std::string(dir) + "/" + std::to_string(serial++) + ".out", std::ios::binary) << normalized;
    }
    return j;
}

int dump(const std::string &path)
{
    using namespace cl::strategy;
    const auto loaded = cl::loadFile(path);
    if (!loaded.ok()) {
        std::fprintf(stderr, "%s: %s\n", path.c_str(), loaded.error.c_str());
        return 2;
    }
    const cl::Transcript &t = *loaded.transcript;
    Input in(t);
    nlohmann::json out = nlohmann::json::object();
    for (const Strategy *s : all()) {
        out[std::string(s->name())]["default"] = dumpResult(t, run(*s, in));
        for (const auto &spec : s->params())
            if (spec.name == "force")
                out[std::string(s->name())]["force"] = dumpResult(t, run(*s, in, {{"force", true}}));
    }
    std::cout << out.dump(1) << "\n";
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    cl::tuneAllocator(); // before the first large allocation
    using namespace cl::strategy;
    if (argc > 2 && std::string(argv[1]) == "--dump")
        return dump(argv[2]);
    const std::size_t big = argc > 1 ? std::size_t(std::strtoull(argv[1], nullptr, 10)) : 100000;
    const std::size_t small = argc > 2 ? std::size_t(std::strtoull(argv[2], nullptr, 10)) : 10000;
    std::string only; // ",a,b," when a filter is given
    if (argc > 3)
        only.append(",").append(argv[3]).append(",");

    const cl::Transcript t = make(big);
    Input in(t);
    auto start = std::chrono::steady_clock::now();
    const std::size_t conv = in.analysis().view.size();
    const double analysisMs = since(start);
    // The per-transcript tables (block estimates, text lengths and line counts, microcompact
    // digests) are built once per transcript and shared by every strategy run on it, like the
    // analysis (the GUI keeps them between previews): built here, timed apart.
    start = std::chrono::steady_clock::now();
    in.tables()->prepare(t);
    const double tablesMs = since(start);
    std::printf("allocator: %s\n", cl::allocatorDescription().c_str());
    std::printf("session: %zu messages (%zu conversation), %lld estimated tokens; analysis %.1f ms, "
                "tables %.1f ms (shared)\n",
                t.messages.size(), conv, static_cast<long long>(in.totalTokens()), analysisMs, tablesMs);
    // "apply ms" is the best of the runs after the first; "1st run" is the first run in the process,
    // which also takes the memory for its result from the system (see the memory line below).
    std::printf("%-32s %10s %10s %10s %10s %9s  %s\n", "strategy (forced)", "apply ms", "1st run", "+metrics", "+validity",
                "reduct.", "");
    RunOptions bare;
    bare.validate = false;
    bare.metrics = false;
    RunOptions metrics = bare;
    metrics.metrics = true;
    int slow = 0;
    for (const Strategy *s : all()) {
        std::string key(",");
        key.append(s->name()).append(",");
        if (!only.empty() && only.find(key) == std::string::npos)
            continue;
        nlohmann::json p = nlohmann::json::object();
        for (const auto &spec : s->params())
            if (spec.name == "force")
                p["force"] = true;
        double best = 1e18;
        Result r = run(*s, in, p, bare);
        const double first = r.stats.millis;
        // CL_BENCH_REPEAT=N: more timed runs, so that a profile of the bench is mostly apply().
        const char *repeat = std::getenv("CL_BENCH_REPEAT");
        const int runs = repeat ? std::max(1, std::atoi(repeat)) : 3;
        for (int k = 0; k < runs; ++k) {
            r = Result(); // the previous result's memory is free for this run, as after a GUI preview is replaced
            r = run(*s, in, p, bare);
            best = std::min(best, r.stats.millis);
        }
        start = std::chrono::steady_clock::now();
        (void)run(*s, in, p, metrics);
        const double withMetrics = since(start);
        start = std::chrono::steady_clock::now();
        (void)run(*s, in, p, RunOptions{});
        const double withValidity = since(start);
        const bool ok = best <= 100;
        slow += ok ? 0 : 1;
        std::printf("%-32s %10.2f %10.2f %10.2f %10.2f %8.1f%%  %s\n", std::string(s->name()).c_str(), best, first,
                    withMetrics, withValidity, r.stats.reduction * 100, ok ? "" : "SLOW");
    }
    std::printf("strategies over 100 ms: %d (target 0)\n", slow);
    // Measured after the strategies, so that its 256 MiB are not handed to their first runs.
    const auto [fresh, resident] = memoryRates();
    std::printf("memory: new pages written at %.2f GB/s (faulted in), resident pages at %.2f GB/s\n", fresh, resident);

    if (small == 0)
        return 0;
    const cl::Transcript t2 = make(small);
    Input in2(t2);
    start = std::chrono::steady_clock::now();
    const auto rows = compare(in2);
    const double all = since(start);
    std::printf("compare: %zu strategies on %zu messages in %.1f ms wall, incl. analysis, metrics and validity "
                "(target <= 1000 ms) %s\n",
                rows.size(), t2.messages.size(), all, all <= 1000 ? "OK" : "SLOW");
    return 0;
}
