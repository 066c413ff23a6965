// SPDX-License-Identifier: MIT
// Following a live session in the real main window (offscreen): a generated session is written but for
// its last LINES lines and opened; then the agent "writes" those line by line. For each line: the poll
// (thread pool) and the window's update on the GUI thread until the line is on screen ("shown"), the
// GUI thread's CPU time and its longest stall until everything for that version is computed (analysis,
// counts, strategy tables: "computed"). Median and worst over the lines after the first two.
// Usage: bench_livegui FILE [LINES]   (a Claude Code or Codex session; LINES: 20 unless given)
#include "bench/benchclock.h"
#include "widgets/mainwindow/livewatch.h"
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/mainwindow/openmilestones.h"
#include "widgets/style/theme.h"

#include "core/io/loader.h"
#include "core/util/json.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

using benchclock::Clock;
using benchclock::msSince;
using benchclock::threadCpuMs;

void write(const std::string &path, std::string_view bytes, bool append)
{
    std::ofstream(path, append ? std::ios::binary | std::ios::app : std::ios::binary | std::ios::trunc) << bytes;
}

// Where the last `lines` lines start.
std::size_t lastLinesStart(const std::string &bytes, std::size_t lines)
{
    const auto spans = cl::json::splitLines(bytes);
    return spans.size() > lines ? spans[spans.size() - lines].offset : bytes.size();
}

struct Stats {
    double median = 0, worst = 0;
};

Stats stats(std::vector<double> v)
{
    if (v.empty())
        return {};
    std::sort(v.begin(), v.end());
    return {v[v.size() / 2], v.back()};
}

} // namespace

int main(int argc, char **argv)
{
    using namespace cl::gui;
    QApplication app(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("ContextLensBench"));
    const QStringList args = QCoreApplication::arguments();
    if (args.size() < 2) {
        std::fprintf(stderr, "usage: bench_livegui FILE [LINES]\n");
        return 2;
    }
    const int maxLines = args.size() > 2 ? args[2].toInt() : 20;
    std::string bytes;
    {
        std::ifstream in(args[1].toStdString(), std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    const std::size_t cut = lastLinesStart(bytes, std::size_t(maxLines));
    if (cut >= bytes.size()) {
        std::fprintf(stderr, "bench_livegui: %s has too few lines\n", qPrintable(args[1]));
        return 1;
    }
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("live.jsonl")).toStdString();
    write(path, std::string_view(bytes).substr(0, cut), false);

    theme::apply(theme::Choice::System);
    MainWindow window;
    window.setShowErrorDialogs(false);
    window.resize(1400, 860);
    window.show();
    OpenMilestones *milestones = OpenMilestones::of(&window);
    if (!window.openFileNow(QString::fromStdString(path))) {
        std::fprintf(stderr, "bench_livegui: cannot open: %s\n", qPrintable(window.lastError()));
        return 1;
    }
    auto waitFor = [](const std::function<bool()> &done) {
        QElapsedTimer t;
        t.start();
        while (!done()) {
            if (t.elapsed() > 120000)
                return false;
            // Waits for the next event (at the latest the 5 ms ticker's) instead of spinning, so that
            // the GUI thread's CPU time is the window's work, not this loop's.
            QApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents);
        }
        return true;
    };
    if (!waitFor([&] { return milestones->isFinished(); })) {
        std::fprintf(stderr, "bench_livegui: the open did not finish\n");
        return 1;
    }

    double stall = 0;
    auto tick = Clock::now();
    QTimer ticker;
    ticker.setTimerType(Qt::PreciseTimer);
    QObject::connect(&ticker, &QTimer::timeout, &window, [&] {
        stall = std::max(stall, msSince(tick));
        tick = Clock::now();
    });
    ticker.start(5);

    std::vector<double> shown, computed, cpu, stalls;
    std::size_t at = cut;
    int lines = 0;
    std::fprintf(stderr, "bench_livegui: opened, following\n");
    while (at < bytes.size()) {
        const std::size_t end = bytes.find('\n', at) + 1;
        write(path, std::string_view(bytes).substr(at, end - at), true);
        at = end;
        ++lines;
        QApplication::processEvents();
        stall = 0;
        tick = Clock::now();
        const auto t0 = Clock::now();
        const double cpu0 = threadCpuMs();
        window.liveWatch()->pollNow();
        if (!waitFor([&] { return window.transcript()->buffer->size() == at; })) {
            std::fprintf(stderr, "bench_livegui: line %d was not shown\n", lines);
            return 1;
        }
        window.repaint();
        const double shownMs = msSince(t0);
        if (!waitFor([&] { return milestones->isFinished() && !window.liveWatch()->isPolling(); })) {
            std::fprintf(stderr, "bench_livegui: line %d: the window's work did not finish\n", lines);
            return 1;
        }
        QApplication::processEvents();
        if (lines > 2) {
            shown.push_back(shownMs);
            computed.push_back(msSince(t0));
            cpu.push_back(threadCpuMs() - cpu0);
            stalls.push_back(std::max(0.0, stall - 5.0));
        }
    }
    const cl::LiveTail::Stats tail = window.liveWatch()->stats();
    const Stats s = stats(shown), c = stats(computed), g = stats(cpu), st = stats(stalls);
    std::printf("messages=%zu lines=%d inplace=%llu shown=%.1f shownmax=%.1f computed=%.1f computedmax=%.1f guicpu=%.1f "
                "guicpumax=%.1f stall=%.1f stallmax=%.1f\n",
                window.transcript()->messages.size(), lines, static_cast<unsigned long long>(tail.inPlace), s.median, s.worst,
                c.median, c.worst, g.median, g.worst, st.median, st.worst);
    return 0;
}
