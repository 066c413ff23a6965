// SPDX-License-Identifier: MIT
// The usage chart's paint on a long session: the context series, the compactions and the axes drawn
// into an image of the chart's size, as a live update of the window repaints it after every line.
// Usage: bench_chart FILE [WIDTHxHEIGHT] [RUNS]   (default 1100x240, 15 runs; median and worst, ms)
#include "bench/benchclock.h"
#include "widgets/models/chartgeometry.h"
#include "widgets/models/tokencount.h"
#include "widgets/transcript/usagechart.h"

#include "core/io/loader.h"

#include <QApplication>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_chart FILE [WIDTHxHEIGHT] [RUNS]\n");
        return 2;
    }
    int width = 1100, height = 240;
    if (argc > 2)
        std::sscanf(argv[2], "%dx%d", &width, &height);
    const int runs = argc > 3 ? std::max(1, std::atoi(argv[3])) : 15;
    const cl::LoadResult loaded = cl::loadFile(argv[1]);
    if (!loaded.ok()) {
        std::fprintf(stderr, "bench_chart: %s\n", loaded.error.c_str());
        return 1;
    }
    auto t0 = benchclock::Clock::now();
    cl::gui::UsageData data = cl::gui::usageData(*loaded.transcript, cl::gui::tokencount::chosen());
    const double dataMs = benchclock::msSince(t0);
    const auto points = data.estimated.size() + data.measured.size();
    const auto compactions = data.compactions.size();
    cl::gui::UsageChart chart;
    chart.resize(width, height);
    t0 = benchclock::Clock::now();
    chart.setUsage(std::move(data));
    const double setMs = benchclock::msSince(t0);
    std::vector<double> paints;
    for (int r = 0; r < runs; ++r) {
        QImage image(chart.size(), QImage::Format_ARGB32_Premultiplied);
        t0 = benchclock::Clock::now();
        chart.render(&image);
        paints.push_back(benchclock::msSince(t0));
    }
    std::sort(paints.begin(), paints.end());
    std::printf("messages=%zu points=%lld compactions=%lld size=%dx%d usageData=%.1f setUsage=%.1f paint=%.1f paintmax=%.1f\n",
                loaded.transcript->messages.size(), static_cast<long long>(points), static_cast<long long>(compactions), width,
                height, dataMs, setMs, paints[paints.size() / 2], paints.back());
    return 0;
}
