// SPDX-License-Identifier: MIT
// Where the context goes (core/workflow/composition.h) on a generated 100 MB Claude Code session
// (argument: another size in MB), loaded as the app loads it: compose() at the end and in the middle
// (what the composition panel computes on every selection), overTime() (the chart, once per
// transcript) and suggest() (three strategies run on the live context, once per transcript). Best
// of 5 runs by wall time, one thread. No target: the panel runs them in the background and only
// while it is shown; the figures say how long a user waits for it.
#include "core/util/allocator.h"
#include "core/generator/generator.h"
#include "core/io/loader.h"
#include "core/workflow/composition.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>

namespace {

double bestMs(const std::function<void()> &f, int runs = 5)
{
    double best = 1e18;
    for (int r = 0; r < runs; ++r) {
        const auto start = std::chrono::steady_clock::now();
        f();
        best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    return best;
}

} // namespace

int main(int argc, char **argv)
{
    cl::tuneAllocator();
    using namespace cl;
    gen::Options g;
    g.format = Format::ClaudeCode;
    g.targetBytes = std::size_t(argc > 1 ? std::strtod(argv[1], nullptr) : 100.0) * 1000000;
    g.seed = 3;
    gen::Stats stats;
    std::string bytes = gen::generate(g, &stats);
    const double mb = double(bytes.size()) / 1e6;
    const LoadResult r = loadBytes(std::move(bytes), "bench.jsonl");
    if (!r.transcript) {
        std::fprintf(stderr, "bench_composition: the generated session did not load\n");
        return 1;
    }
    const Transcript &t = *r.transcript;
    std::printf("session: %zu messages (%zu lines, %.1f MB, %zu compactions)\n", t.messages.size(), stats.lines, mb,
                stats.compactions);
    composition::Composition end;
    const double endMs = bestMs([&] { end = composition::compose(t); });
    const double midMs = bestMs([&] { (void)composition::compose(t, t.messages.size() / 2); });
    composition::Series series;
    const double seriesMs = bestMs([&] { series = composition::overTime(t); });
    std::vector<composition::Suggestion> suggestions;
    const double suggestMs = bestMs([&] { suggestions = composition::suggest(t, end); }, 3);
    std::printf("compose at the end:    %8.1f ms (%zu categories, live from message %zu)\n", endMs, end.categories.size(),
                end.from + 1);
    std::printf("compose in the middle: %8.1f ms\n", midMs);
    std::printf("overTime:              %8.1f ms (%zu rows x %zu categories)\n", seriesMs, series.messages.size(),
                series.keys.size());
    std::printf("suggest:               %8.1f ms (%zu suggestions, best of 3)\n", suggestMs, suggestions.size());
    return 0;
}
