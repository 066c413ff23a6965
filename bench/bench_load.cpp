// SPDX-License-Identifier: MIT
// Loader benchmark: loads each file N times with cl::loadFile (parse, index, pair tools, estimate
// tokens) and reports wall time, MB/s, messages/s and the process's peak RSS. It only loads: the
// files are generated beforehand by another process, so the peak memory is the loader's own.
// --split also times the stages separately (read, line split + JSON parse, full load, estimator).
#include "core/util/allocator.h"
#include "core/util/json.h"
#include "core/io/loader.h"
#include "core/tokens/estimator.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// CPU time of the whole process (all threads); less sensitive than wall time to a shared machine.
double cpuMs()
{
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return (double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000.0) + double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000.0;
}

double peakRssMb()
{
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return double(ru.ru_maxrss) / 1024.0; // Linux: kilobytes
}

void split(const std::string &path, int threads)
{
    auto t0 = Clock::now();
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string bytes = ss.str();
    const double readMs = msSince(t0);

    t0 = Clock::now();
    const auto lines = cl::json::splitLines(bytes);
    const double splitMs = msSince(t0);

    t0 = Clock::now();
    std::size_t parsed = 0;
    for (const auto &l : lines) {
        cl::json::json j;
        std::string err;
        parsed += cl::json::parse(std::string_view(bytes).substr(l.offset, l.contentLength), j, err) != cl::json::ParseStatus::Failed;
    }
    const double parseMs = msSince(t0);

    cl::LoadOptions opts;
    opts.threads = threads;
    t0 = Clock::now();
    const auto r = cl::loadFile(path, opts);
    const double loadMs = msSince(t0);
    if (!r.ok())
        return;
    for (const auto &m : r.transcript->messages)
        m.cache.tokenEstimate = -1;
    t0 = Clock::now();
    cl::tokens::estimateAll(*r.transcript, 1);
    const double est1Ms = msSince(t0);
    for (const auto &m : r.transcript->messages)
        m.cache.tokenEstimate = -1;
    t0 = Clock::now();
    cl::tokens::estimateAll(*r.transcript, threads);
    const double estNMs = msSince(t0);
    std::printf("split %s: read %.0f ms | splitLines %.0f ms | nlohmann parse of every line, 1 thread %.0f ms (%zu lines) | "
                "full loadFile %.0f ms | estimateAll 1 thread %.0f ms, %d threads %.0f ms\n",
                path.c_str(), readMs, splitMs, parseMs, parsed, loadMs, est1Ms, threads, estNMs);
}

} // namespace

int main(int argc, char **argv)
{
    cl::tuneAllocator(); // before the first large allocation
    int runs = 3, threads = 2;
    bool markdown = false, doSplit = false;
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--runs" && i + 1 < argc)
            runs = std::max(1, std::atoi(argv[++i]));
        else if (a == "--threads" && i + 1 < argc)
            threads = std::max(1, std::atoi(argv[++i]));
        else if (a == "--markdown")
            markdown = true;
        else if (a == "--split")
            doSplit = true;
        else if (a.rfind("--", 0) == 0) {
            std::fprintf(stderr, "usage: bench_load [--runs N] [--threads T] [--markdown] [--split] FILE...\n");
            return 2;
        } else
            files.push_back(a);
    }
    if (files.empty()) {
        std::fprintf(stderr, "usage: bench_load [--runs N] [--threads T] [--markdown] [--split] FILE...\n");
        return 2;
    }
    if (markdown) {
        std::printf("| file | MB | messages | best wall ms | median wall ms | CPU ms (best run) | MB/s | messages/s | peak RSS MB | RSS / file |\n");
        std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    }
    for (const auto &path : files) {
        std::vector<double> ms;
        double bestCpu = 0;
        std::size_t messages = 0, bytes = 0;
        for (int r = 0; r < runs; ++r) {
            cl::LoadOptions opts;
            opts.threads = threads;
            const auto t0 = Clock::now();
            const double c0 = cpuMs();
            const cl::LoadResult res = cl::loadFile(path, opts);
            ms.push_back(msSince(t0));
            const double cpu = cpuMs() - c0;
            if (r == 0 || cpu < bestCpu)
                bestCpu = cpu;
            if (!res.ok()) {
                std::fprintf(stderr, "%s\n", res.error.c_str());
                return 2;
            }
            messages = res.transcript->messages.size();
            bytes = res.transcript->buffer->size();
            if (messages == 0)
                std::fprintf(stderr, "warning: %s loaded with no messages\n", path.c_str());
        }
        std::sort(ms.begin(), ms.end());
        const double best = ms.front(), median = ms[ms.size() / 2];
        const double mb = double(bytes) / (1024.0 * 1024.0);
        const double rss = peakRssMb();
        if (markdown)
            std::printf("| %s | %.1f | %zu | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.2f |\n", path.substr(path.rfind('/') + 1).c_str(), mb,
                        messages, best, median, bestCpu, mb / (best / 1000.0), double(messages) / (best / 1000.0), rss, rss / mb);
        else
            std::printf("%s: %.1f MB, %zu messages, best %.0f ms, median %.0f ms (%d runs, %d threads), CPU %.0f ms, %.0f MB/s, "
                        "%.0f messages/s, peak RSS %.0f MB (%.2fx file)\n",
                        path.c_str(), mb, messages, best, median, runs, threads, bestCpu, mb / (best / 1000.0),
                        double(messages) / (best / 1000.0), rss, rss / mb);
        if (doSplit)
            split(path, threads);
    }
    return 0;
}
