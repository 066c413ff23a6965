// SPDX-License-Identifier: MIT
// The session browser's scan (core/sessions/): a temporary home with 1 000 generated sessions
// (argument: another count) spread over the three agents' layouts: Claude Code (half, every fifth
// with two subagent files), Codex rollouts (three in ten) and Gemini CLI (two in ten: recorded
// sessions, one in ten of them a checkpoint). Sizes are log-uniform between 8 KB and 1 MB.
// Times: a cold scan without a cache, the first scan that writes the cache, a warm scan from it, and
// a warm scan after one file was appended to. Best and median of 7 runs, wall time; the files are in
// the page cache (just written). Targets: cold <= 1 s, warm <= 100 ms on the 2-core reference machine.
#include "core/util/allocator.h"
#include "core/generator/generator.h"
#include "core/sessions/sessions.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <unistd.h>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Timing {
    double best = 0;
    double median = 0;
};

Timing time(const std::function<void()> &before, const std::function<void()> &f, int runs = 7)
{
    std::vector<double> ms;
    for (int r = 0; r < runs; ++r) {
        before();
        const auto start = std::chrono::steady_clock::now();
        f();
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(ms.begin(), ms.end());
    return {ms.front(), ms[ms.size() / 2]};
}

void write(const fs::path &path, const std::string &bytes)
{
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << bytes;
}

std::string generate(cl::Format format, std::size_t bytes, std::uint64_t seed)
{
    cl::gen::Options g;
    g.format = format;
    g.targetBytes = bytes;
    g.seed = seed;
    g.maxReadLines = 400;
    std::string error;
    std::string out = cl::gen::generate(g, nullptr, &error);
    if (out.empty())
        std::fprintf(stderr, "bench_sessions: generating failed: %s\n", error.c_str());
    return out;
}

// A Gemini CLI checkpoint ({"history": Content[]}) from a generated Gemini API request.
std::string checkpoint(std::size_t bytes, std::uint64_t seed)
{
    nlohmann::json doc = nlohmann::json::parse(generate(cl::Format::Gemini, bytes, seed), nullptr, false);
    nlohmann::json out{{"history", doc.is_object() && doc.contains("contents") ? doc["contents"] : nlohmann::json::array()}};
    return out.dump();
}

struct Home {
    std::size_t files = 0;
    std::uint64_t bytes = 0;
    std::size_t claude = 0, codex = 0, gemini = 0, checkpoints = 0, subagentFiles = 0;
    fs::path appendTo;
};

Home makeHome(const fs::path &home, std::size_t sessions)
{
    Home h;
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> logSize(std::log(8e3), std::log(1e6));
    auto put = [&](const fs::path &p, const std::string &bytes) {
        write(p, bytes);
        ++h.files;
        h.bytes += bytes.size();
    };
    for (std::size_t i = 0; i < sessions; ++i) {
        const auto size = std::size_t(std::exp(logSize(rng)));
        const std::uint64_t seed = 1000 + i;
        char id[64];
        std::snprintf(id, sizeof id, "%08zx-0000-4000-8000-%012zx", i, i);
        const std::size_t slot = i % 10;
        if (slot < 5) { // Claude Code, in 20 projects
            const fs::path dir = home / ".claude/projects" / ("-home-user-project-" + std::to_string(i % 20));
            put(dir / (std::string(id) + ".jsonl"), generate(cl::Format::ClaudeCode, size, seed));
            ++h.claude;
            if (i % 5 == 0)
                for (int k = 0; k < 2; ++k) {
                    put(dir / id / "subagents" / ("agent-" + std::to_string(k) + ".jsonl"), generate(cl::Format::ClaudeCode, 20000, seed + 7 * k));
                    ++h.subagentFiles;
                }
            if (h.appendTo.empty())
                h.appendTo = dir / (std::string(id) + ".jsonl");
        } else if (slot < 8) { // Codex, by day
            char day[32];
            std::snprintf(day, sizeof day, "2025/%02zu/%02zu", 1 + i % 12, 1 + i % 28);
            put(home / ".codex/sessions" / day / ("rollout-2025-01-01T00-00-00-" + std::string(id) + ".jsonl"), generate(cl::Format::Codex, size, seed));
            ++h.codex;
        } else { // Gemini CLI, in 10 projects
            const fs::path dir = home / ".gemini/tmp" / ("project-" + std::to_string(i % 10));
            if (!fs::exists(dir / ".project_root"))
                write(dir / ".project_root", "/home/user/project-" + std::to_string(i % 10));
            if (i % 100 == 9) {
                put(dir / ("checkpoint-" + std::string(id) + ".json"), checkpoint(size, seed));
                ++h.checkpoints;
            } else {
                put(dir / "chats" / ("session-2025-01-01T00-00-" + std::string(id).substr(0, 8) + ".jsonl"), generate(cl::Format::GeminiCli, size, seed));
                ++h.gemini;
            }
        }
    }
    return h;
}

} // namespace

int main(int argc, char **argv)
{
    cl::tuneAllocator();
    using namespace cl;
    const std::size_t count = argc > 1 ? std::size_t(std::strtoul(argv[1], nullptr, 10)) : 1000;
    const fs::path root = fs::temp_directory_path() / ("contextlens-bench-sessions-" + std::to_string(::getpid()));
    const fs::path home = root / "home";
    const fs::path cache = root / "cache" / "sessions.json";
    const auto generateStart = std::chrono::steady_clock::now();
    const Home h = makeHome(home, count);
    const double generateS = std::chrono::duration<double>(std::chrono::steady_clock::now() - generateStart).count();
    std::printf("home: %zu sessions (%zu Claude Code with %zu subagent files, %zu Codex, %zu Gemini CLI, %zu checkpoints), "
                "%zu files, %.1f MB (generated in %.1f s)\n",
                count, h.claude, h.subagentFiles, h.codex, h.gemini, h.checkpoints, h.files, double(h.bytes) / 1e6, generateS);

    sessions::ScanOptions noCache;
    noCache.home = home.string();
    sessions::ScanOptions withCache = noCache;
    withCache.cachePath = cache.string();

    sessions::ScanResult last;
    auto nothing = [] {};
    const Timing cold = time(nothing, [&] { last = sessions::scan(noCache); });
    const std::size_t listed = last.sessions.size();
    const std::size_t coldRead = last.stats.parsed;
    const Timing first = time([&] { fs::remove(cache); }, [&] { last = sessions::scan(withCache); });
    const Timing warm = time(nothing, [&] { last = sessions::scan(withCache); });
    const std::size_t warmRead = last.stats.parsed;
    int appended = 0;
    const Timing changed = time(
        [&] {
            std::ofstream(h.appendTo, std::ios::app)
                << R"({"type":"user","message":{"role":"user","content":"one more"},"timestamp":"2025-02-01T00:00:)" << (10 + appended++)
                << R"(.000Z"})" << '\n';
        },
        [&] { last = sessions::scan(withCache); });
    const std::size_t changedRead = last.stats.parsed;
    const double cacheKb = double(fs::file_size(cache)) / 1024.0;

    std::printf("listed: %zu sessions (%zu files read cold)\n", listed, coldRead);
    std::printf("cold scan, no cache:        best %7.1f ms, median %7.1f ms  (target <= 1000 ms)\n", cold.best, cold.median);
    std::printf("first scan, writes cache:   best %7.1f ms, median %7.1f ms  (cache %.0f KiB)\n", first.best, first.median, cacheKb);
    std::printf("warm scan, nothing changed: best %7.1f ms, median %7.1f ms  (%zu files read; target <= 100 ms)\n", warm.best, warm.median, warmRead);
    std::printf("warm scan, one appended:    best %7.1f ms, median %7.1f ms  (%zu file read)\n", changed.best, changed.median, changedRead);
    std::error_code ec;
    fs::remove_all(root, ec);
    const bool ok = cold.median <= 1000 && warm.median <= 100 && warmRead == 0 && changedRead == 1 && listed == count;
    if (!ok)
        std::printf("TARGET MISSED\n");
    return ok ? 0 : 1;
}
