// SPDX-License-Identifier: MIT
// Strategy engine speed. Targets (issue 4): any deterministic strategy on 100 000 messages in
// <= 100 ms (the strategy itself: Strategy::apply through run(), analysis shared and excluded,
// as the GUI computes it once per transcript); all strategies compared on a 10 000-message session
// in <= 1 s (everything the compare view shows: stats, fact retention, cache prefix and validity).
// Usage: bench_strategies [MESSAGES=100000] [COMPARE_MESSAGES=10000]
#include "core/analysis.h"
#include "core/compare.h"
#include "core/generator.h"
#include "core/strategy.h"
#include "core/tokens.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

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

} // namespace

int main(int argc, char **argv)
{
    using namespace cl::strategy;
    const std::size_t big = argc > 1 ? std::size_t(std::strtoull(argv[1], nullptr, 10)) : 100000;
    const std::size_t small = argc > 2 ? std::size_t(std::strtoull(argv[2], nullptr, 10)) : 10000;

    const cl::Transcript t = make(big);
    Input in(t);
    auto start = std::chrono::steady_clock::now();
    const std::size_t conv = in.analysis().view.size();
    std::printf("session: %zu messages (%zu conversation), %lld estimated tokens; analysis %.1f ms (shared)\n",
                t.messages.size(), conv, static_cast<long long>(in.totalTokens()), since(start));
    std::printf("%-32s %10s %10s %10s %9s  %s\n", "strategy (forced)", "apply ms", "+metrics", "+validity", "reduct.", "");
    RunOptions bare;
    bare.validate = false;
    bare.metrics = false;
    RunOptions metrics = bare;
    metrics.metrics = true;
    int slow = 0;
    for (const Strategy *s : all()) {
        nlohmann::json p = nlohmann::json::object();
        for (const auto &spec : s->params())
            if (spec.name == "force")
                p["force"] = true;
        double best = 1e18;
        Result r;
        for (int k = 0; k < 3; ++k) {
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
        std::printf("%-32s %10.2f %10.2f %10.2f %8.1f%%  %s\n", std::string(s->name()).c_str(), best, withMetrics,
                    withValidity, r.stats.reduction * 100, ok ? "" : "SLOW");
    }
    std::printf("strategies over 100 ms: %d (target 0)\n", slow);

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
