// SPDX-License-Identifier: MIT
// GUI benchmark: the real main window (offscreen) opens a session the way a user does
// (MainWindow::openFile: the load in the background, then the views). Timed from the open call:
// - rows: the transcript view has painted its first rows of the session: a large file's first
//   messages, loaded while the rest loads (OpenMilestones::firstRowsPainted), else the whole file's
//   (OpenMilestones::rowsShown); "allrows": the whole file's rows;
// - all: everything the window computes for it has arrived (OpenMilestones::finished: the analysis
//   in the tree's columns, the context map and the analysis panel, the estimator table's exact
//   o200k_base counts, the strategy tables) and the window has painted it.
// Also when the load finished and each background result arrived, the GUI thread's CPU time until
// everything (its own work, whatever else the machine runs) and the longest time it kept its event
// loop waiting (the largest gap of a 5 ms timer): how responsive it stayed. Then, timed on their own:
// selecting the message with the most text until the detail pane is painted ("detail"), and its raw
// JSON view ("raw").
// Every measurement is a fresh process: the driver runs itself with --once for each, and with
// --baseline another build of this benchmark in turn with it (before and after on the same machine).
#include "core/util/allocator.h"
#include "bench/benchclock.h"
#include "widgets/analysis/analysispanel.h"
#include "widgets/analysis/timelineview.h"
#include "widgets/analysis/estimatorreport.h"
#include "widgets/mainwindow/loadcontroller.h"
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/mainwindow/openmilestones.h"
#include "widgets/style/theme.h"
#include "widgets/transcript/detailpane.h"

#include <sys/resource.h>

#include <QApplication>
#include <QDockWidget>
#include <QFileInfo>
#include <QProcess>
#include <QSettings>
#include <QStandardPaths>
#include <QStyleFactory>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace {

using benchclock::Clock;
using benchclock::msSince;
using benchclock::threadCpuMs;

const char *kUsage = "usage: bench_gui [--runs N] [--whole-history] [--timeline] [--markdown] [--baseline OTHER_BENCH_GUI] FILE...\n"
                     "       bench_gui --once [--whole-history] [--timeline] FILE\n";

double peakRssMb()
{
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return double(ru.ru_maxrss) / 1024.0;
}

// One measurement in this process; prints one line of key=value figures (ms unless named).
// With `timeline`, the Timeline dock is shown as the load finishes (built with the transcript, on the
// GUI thread); then a zoom into its middle is timed until painted ("zoom").
int once(const QString &file, bool wholeHistory, bool timeline)
{
    using namespace cl::gui;
    theme::apply(theme::Choice::System);
    LoadController::setWholeHistory(wholeHistory);
    MainWindow window;
    window.setShowErrorDialogs(false);
    window.resize(1400, 860); // the app's default size
    window.show();
    // The empty window is laid out and painted first, and View › Whole History as set above is
    // synced to disk (else the open's first settings read does it, fdatasync included): not what
    // is timed.
    for (int i = 0; i < 5; ++i)
        QApplication::processEvents();
    QSettings().sync();
    OpenMilestones *milestones = OpenMilestones::of(&window);

    std::map<std::string, double> at;
    bool ok = true;
    bool opening = true; // the stall is the open's; looking at the detail pane is timed on its own
    const auto t0 = Clock::now();
    const double cpu0 = threadCpuMs();
    QObject::connect(&window, &MainWindow::loadFinished, &window, [&](bool loaded) {
        at["load"] = msSince(t0);
        ok = loaded;
        if (!loaded)
            QApplication::exit(1);
        // The start page put the docks away until a file is open: the Timeline tab is raised now, as
        // a user who keeps it open sees it, and builds with the transcript.
        if (timeline) {
            window.timelineDock()->show();
            window.timelineDock()->raise();
        }
    });
    QObject::connect(&window, &MainWindow::analysisUpdated, &window, [&] { at["analysis"] = msSince(t0); });
    EstimatorReport *report = window.analysisPanel()->estimatorReport();
    QObject::connect(report, &EstimatorReport::ready, &window, [&] { at["counts"] = msSince(t0); });
    QObject::connect(report, &EstimatorReport::unavailable, &window, [&] { at["counts"] = msSince(t0); });
    QObject::connect(milestones, &OpenMilestones::firstRowsPainted, &window, [&] { at.emplace("rows", msSince(t0)); });
    QObject::connect(milestones, &OpenMilestones::rowsShown, &window, [&] {
        at["allrows"] = msSince(t0);
        at.emplace("rows", at["allrows"]);
    });
    QObject::connect(milestones, &OpenMilestones::tablesPrepared, &window, [&] { at["tables"] = msSince(t0); });
    QObject::connect(milestones, &OpenMilestones::finished, &window, [&] {
        at["computed"] = msSince(t0);
        // What arrived last is on screen once the updates it asked for are painted.
        QApplication::processEvents();
        at["all"] = msSince(t0);
        at["guicpu"] = threadCpuMs() - cpu0;
        opening = false;
        // Then the user selects the message with the most text and looks at it, then at its source
        // records (View › Raw JSON): how long each takes until painted.
        const auto &messages = window.transcript()->messages;
        std::size_t longest = 0, most = 0;
        for (std::size_t i = 0; i < messages.size(); ++i) {
            std::size_t bytes = 0;
            for (const cl::Block &b : messages[i].blocks)
                bytes += b.text.size();
            if (bytes > most) {
                most = bytes;
                longest = i;
            }
        }
        auto t1 = Clock::now();
        window.selectMessage(int(longest));
        window.repaint();
        QApplication::processEvents();
        at["detail"] = msSince(t1);
        t1 = Clock::now();
        window.detailPane()->setRawMode(true);
        window.repaint();
        QApplication::processEvents();
        at["raw"] = msSince(t1);
        if (timeline) {
            TimelineView *view = window.timelineView();
            if (view->timeline().empty()) {
                std::fprintf(stderr, "bench_gui: the timeline was not built\n");
                QApplication::exit(1);
                return;
            }
            t1 = Clock::now();
            view->zoomAt(view->lanesRect().center().x(), 0.25);
            view->repaint();
            at["zoom"] = msSince(t1);
        }
        QApplication::exit(0);
    });
    double stall = 0;
    auto tick = Clock::now();
    QTimer ticker;
    ticker.setTimerType(Qt::PreciseTimer);
    QObject::connect(&ticker, &QTimer::timeout, &window, [&] {
        if (!opening)
            return;
        stall = std::max(stall, msSince(tick));
        tick = Clock::now();
    });
    ticker.start(5);
    QTimer::singleShot(300000, &window, [] { QApplication::exit(2); });

    window.openFile(file);
    const int rc = QApplication::exec();
    if (rc != 0 || !ok) {
        std::fprintf(stderr, "bench_gui: %s: %s\n", qPrintable(file),
                     rc == 2 ? "timed out" : qPrintable(window.lastError()));
        return 1;
    }
    std::printf("messages=%zu", window.transcript()->messages.size());
    for (const auto &[key, ms] : at)
        std::printf(" %s=%.1f", key.c_str(), ms);
    std::printf(" stall=%.1f rss=%.0f\n", std::max(0.0, stall - 5.0), peakRssMb());
    return 0;
}

std::map<std::string, double> parse(const QString &line)
{
    std::map<std::string, double> values;
    for (const QString &field : line.trimmed().split(u' ', Qt::SkipEmptyParts)) {
        const qsizetype eq = field.indexOf(u'=');
        if (eq > 0)
            values[field.left(eq).toStdString()] = field.mid(eq + 1).toDouble();
    }
    return values;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv)
{
    cl::tuneAllocator(); // before the first large allocation
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    // Settings of a test-mode folder of the bench's own: the user's window layout, recent files and
    // View › Whole History stay out of it.
    QStandardPaths::setTestModeEnabled(true);
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("ContextLens"));
    QApplication::setApplicationName(QStringLiteral("contextlens-bench-gui"));
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));

    int runs = 3;
    bool whole = false, markdown = false, single = false, timeline = false;
    QString baseline;
    QStringList files;
    const QStringList args = QApplication::arguments();
    for (qsizetype i = 1; i < args.size(); ++i) {
        const QString &a = args[i];
        if (a == QLatin1String("--runs") && i + 1 < args.size())
            runs = std::max(1, args[++i].toInt());
        else if (a == QLatin1String("--whole-history"))
            whole = true;
        else if (a == QLatin1String("--timeline"))
            timeline = true;
        else if (a == QLatin1String("--markdown"))
            markdown = true;
        else if (a == QLatin1String("--once"))
            single = true;
        else if (a == QLatin1String("--baseline") && i + 1 < args.size())
            baseline = args[++i];
        else if (a.startsWith(QLatin1String("--"))) {
            std::fputs(kUsage, stderr);
            return 2;
        } else
            files << a;
    }
    if (files.empty() || (single && files.size() != 1)) {
        std::fputs(kUsage, stderr);
        return 2;
    }
    if (single)
        return once(files.front(), whole, timeline);

    // Each run of the baseline (another build of this benchmark) is followed by one of this build:
    // both see the same machine, whatever else it runs meanwhile.
    const QStringList programs = baseline.isEmpty() ? QStringList{QApplication::applicationFilePath()}
                                                    : QStringList{baseline, QApplication::applicationFilePath()};
    if (markdown) {
        std::printf("| session | MB | messages | first rows ms | whole file's rows ms | everything ms | load ms | analysis ms | "
                    "exact counts ms | strategy tables ms | GUI thread CPU ms | longest GUI stall ms | peak RSS MB | detail ms | "
                    "raw JSON ms | timeline zoom ms |\n");
        std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    }
    for (const QString &file : files) {
        std::vector<std::map<std::string, std::vector<double>>> figures(std::size_t(programs.size()));
        std::vector<QString> lines;
        for (int r = 0; r < runs; ++r)
            for (qsizetype p = 0; p < programs.size(); ++p) {
                QProcess child;
                QStringList childArgs{QStringLiteral("--once")};
                if (whole)
                    childArgs << QStringLiteral("--whole-history");
                if (timeline)
                    childArgs << QStringLiteral("--timeline");
                child.start(programs[p], childArgs << file);
                if (!child.waitForFinished(600000) || child.exitCode() != 0) {
                    std::fprintf(stderr, "bench_gui: a run of %s on %s failed: %s\n", qPrintable(programs[p]),
                                 qPrintable(file), child.readAllStandardError().constData());
                    return 1;
                }
                const QString line = QString::fromUtf8(child.readAllStandardOutput());
                lines.push_back(line.trimmed());
                for (const auto &[key, value] : parse(line))
                    figures[std::size_t(p)][key].push_back(value);
            }
        const double mb = double(QFileInfo(file).size()) / 1048576.0;
        for (std::size_t p = 0; p < figures.size(); ++p) {
            const auto &f = figures[p];
            // "–" for a figure the program does not report (an older baseline).
            const auto med = [&](const char *key) {
                const auto it = f.find(key);
                return it == f.end() ? QStringLiteral("–") : QString::number(median(it->second), 'f', 0);
            };
            const auto range = [&](const char *key) {
                const auto &v = f.at(key);
                const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
                return QStringLiteral("%1 (%2–%3)").arg(med(key)).arg(*lo, 0, 'f', 0).arg(*hi, 0, 'f', 0);
            };
            const QString name = QFileInfo(file).fileName() + (whole ? QStringLiteral(" (whole history)") : QString())
                                 + (timeline ? QStringLiteral(" (timeline shown)") : QString())
                                 + (p + 1 < figures.size() ? QStringLiteral(", baseline") : QString());
            if (markdown)
                std::printf("| %s | %.0f | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", qPrintable(name),
                            mb, qPrintable(med("messages")), qPrintable(range("rows")), qPrintable(med("allrows")), qPrintable(range("all")),
                            qPrintable(med("load")), qPrintable(med("analysis")), qPrintable(med("counts")),
                            qPrintable(med("tables")), qPrintable(med("guicpu")), qPrintable(med("stall")),
                            qPrintable(med("rss")), qPrintable(med("detail")), qPrintable(med("raw")), qPrintable(med("zoom")));
            else
                std::printf("%s: %.1f MB, %s messages, median of %d processes: first rows %s ms, everything %s ms\n",
                            qPrintable(name), mb, qPrintable(med("messages")), runs, qPrintable(range("rows")),
                            qPrintable(range("all")));
        }
        if (!markdown)
            for (const QString &line : lines)
                std::printf("  run: %s\n", qPrintable(line));
    }
    return 0;
}
