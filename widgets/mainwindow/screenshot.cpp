// SPDX-License-Identifier: MIT
#include "widgets/mainwindow/screenshot.h"

#include "widgets/mainwindow/livewatch.h"
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/mainwindow/startpage.h"

#include "core/strategy/strategy.h"
#include "core/strategies/registry.h"
#include "widgets/analysis/auditpanel.h"
#include "widgets/analysis/timelineview.h"
#include "widgets/models/sessionmodel.h"
#include "widgets/sessions/sessionbrowser.h"
#include "widgets/analysis/compositionpanel.h"
#include "widgets/strategy/compareview.h"
#include "widgets/strategy/paramform.h"
#include "widgets/strategy/previewview.h"
#include "widgets/strategy/simulationview.h"
#include "widgets/strategy/strategypanel.h"
#include "widgets/models/transcriptfiltermodel.h"
#include "widgets/models/transcriptmodel.h"
#include "widgets/transcript/transcriptpanel.h"

#include <algorithm>
#include <QCheckBox>
#include <QSpinBox>
#include <QDockWidget>
#include <QEventLoop>
#include <QHeaderView>
#include <QTimer>
#include <QTreeView>

#include <QApplication>
#include <QPixmap>
#include <QTextStream>

namespace cl::gui {

namespace {

// Runs the event loop until `signal` fires or `ms` pass; false on timeout.
template <typename Sender, typename Signal>
bool waitFor(Sender *sender, Signal signal, int ms)
{
    QEventLoop loop;
    bool fired = false;
    const auto c = QObject::connect(sender, signal, &loop, [&] {
        fired = true;
        loop.quit();
    });
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
    QObject::disconnect(c);
    return fired;
}

bool showView(MainWindow &window, const QString &view, QTextStream &err)
{
    if (view.startsWith(QLatin1String("preview:"))) {
        const QString name = view.mid(8);
        StrategyPanel *panel = window.strategyPanel();
        if (!panel->setCurrentStrategy(name)) {
            err << "contextlens: unknown strategy " << name << Qt::endl;
            return false;
        }
        nlohmann::json force = nlohmann::json::object();
        for (const auto &spec : strategy::find(name.toStdString())->params())
            if (spec.name == "force")
                force["force"] = true;
        panel->paramForm()->setValues(force);
        window.strategyDock()->raise();
        panel->runPreview();
        if (!waitFor(panel, &StrategyPanel::previewReady, 120000)) {
            err << "contextlens: the preview did not finish" << Qt::endl;
            return false;
        }
        window.showPreviewTab();
        // The first inserted message (a summary, usually) is what a preview is read for.
        if (const auto r = panel->preview())
            for (std::size_t k = 0; k < r->slots.size(); ++k)
                if (r->slots[k].origin < 0 && r->slots[k].message && r->slots[k].message->isConversation()) {
                    window.previewView()->selectSlot(int(k));
                    break;
                }
    } else if (view.startsWith(QLatin1String("simulate:"))) {
        // simulate:NAME[@WINDOW]: the window lets a short demo session show a compaction story.
        const QStringList parts = view.mid(9).split(QLatin1Char('@'));
        SimulationView *simView = window.simulationView();
        if (!simView->setCurrentStrategy(parts.front())) {
            err << "contextlens: unknown strategy " << parts.front() << Qt::endl;
            return false;
        }
        if (parts.size() > 1) {
            bool okWindow = false;
            const int tokens = parts[1].toInt(&okWindow);
            if (!okWindow || tokens <= 0) {
                err << "contextlens: simulate:NAME@WINDOW wants a positive token count, not " << parts[1] << Qt::endl;
                return false;
            }
            simView->windowSpin()->setValue(tokens);
        }
        window.showSimulateTab();
        simView->runNow(); // synchronous: the grab below must see the result
        const auto result = simView->simulation();
        if (!result || !result->error.empty()) {
            err << "contextlens: the simulation failed: " << (result ? QString::fromStdString(result->error) : QString())
                << Qt::endl;
            return false;
        }
        // The first turn the strategy changed is what the chart is read for.
        for (const auto &p : result->turns)
            if (p.changed) {
                simView->selectTurn(int(p.turn));
                break;
            }
    } else if (view == QLatin1String("live")) {
        // The last compaction in the middle of the transcript: greyed history above, live context below.
        const Transcript *t = window.transcript().get();
        const std::size_t live = t ? liveStart(*t) : 0;
        if (live == 0) {
            err << "contextlens: --view live wants a transcript with a compaction" << Qt::endl;
            return false;
        }
        TranscriptPanel *panel = window.transcriptPanel();
        panel->selectSourceIndex(panel->model()->index(int(live) - 1, 0));
    } else if (view == QLatin1String("watch")) {
        // A session being written: wait (up to 20 s) for its agent, here scripts/screenshots.sh, to add
        // lines, then show the end of the transcript with the live label in the status bar.
        if (!window.liveWatch()->isFollowing()) {
            err << "contextlens: --view watch: the file is not followed (View › Follow Live Session is off)" << Qt::endl;
            return false;
        }
        if (!waitFor(window.liveWatch(), &LiveWatch::updated, 20000))
            err << "contextlens: --view watch: the file did not grow within 20 s" << Qt::endl;
        // The rest of what was written (the watcher may have fired while it was), then its analysis.
        QEventLoop settle;
        QTimer::singleShot(1500, &settle, &QEventLoop::quit);
        settle.exec();
        if (window.isAnalysing() && !waitFor(&window, &MainWindow::analysisUpdated, 120000))
            err << "contextlens: --view watch: the analysis did not finish" << Qt::endl;
        const Transcript *t = window.transcript().get();
        for (std::size_t i = t ? t->messages.size() : 0; i-- > 0;)
            if (t->messages[i].isConversation()) {
                window.selectMessage(int(i));
                break;
            }
        window.transcriptPanel()->view()->scrollToBottom();
    } else if (view == QLatin1String("composition")) {
        // The end of the session: the live context the next request sends, the chart's cursor at the right.
        const Transcript *t = window.transcript().get();
        for (std::size_t i = t ? t->messages.size() : 0; i-- > 0;)
            if (t->messages[i].isConversation()) {
                window.selectMessage(int(i));
                break;
            }
        window.compositionDock()->show();
        window.compositionDock()->raise();
        window.resizeDocks({window.compositionDock()}, {620}, Qt::Horizontal);
        window.compositionPanel()->refreshNow();
    } else if (view == QLatin1String("sessions")) {
        // The sessions under $HOME (the script points HOME at generated ones).
        window.sessionsDock()->show();
        window.resizeDocks({window.sessionsDock()}, {760}, Qt::Horizontal);
        // The cost column dragged next to the agent's, as a user would to see it in a narrow dock.
        QHeaderView *header = window.sessionBrowser()->view()->header();
        header->moveSection(header->visualIndex(SessionModel::CostColumn), header->visualIndex(SessionModel::LastColumn));
        if (window.sessionBrowser()->isScanning() || window.sessionBrowser()->model()->sessions().empty())
            if (!waitFor(window.sessionBrowser(), &SessionBrowser::scanned, 60000)) {
                err << "contextlens: the session scan did not finish" << Qt::endl;
                return false;
            }
    } else if (view == QLatin1String("audit")) {
        window.auditDock()->show();
        window.auditDock()->raise();
        window.resizeDocks({window.auditDock()}, {360}, Qt::Vertical);
        window.auditPanel()->refreshNow();
        if (window.auditPanel()->compactions().empty()) {
            err << "contextlens: --view audit wants a transcript with a compaction" << Qt::endl;
            return false;
        }
    } else if (view == QLatin1String("subagent")) {
        // The first subagent's conversation open under the call that started it, its third message selected.
        TranscriptPanel *panel = window.transcriptPanel();
        const auto &runs = panel->model()->subagentRuns();
        const auto first = std::find_if(runs.begin(), runs.end(), [](const analysis::SubagentRun &r) { return r.parentRun < 0 && r.message >= 0; });
        if (first == runs.end()) {
            err << "contextlens: --view subagent wants a Claude Code session whose subagent answers a call in it" << Qt::endl;
            return false;
        }
        const QModelIndex call = panel->filterModel()->mapFromSource(panel->model()->indexForMessage(first->message, first->block));
        panel->view()->expand(call.parent());
        panel->view()->expand(call);
        const int rows = panel->filterModel()->rowCount(call);
        for (int row = 0; row < rows; ++row) // and the agents it started, in place
            panel->view()->expand(panel->filterModel()->index(row, 0, call));
        panel->view()->setCurrentIndex(panel->filterModel()->index(std::min(2, rows - 1), 0, call));
        panel->view()->scrollTo(call.parent(), QAbstractItemView::PositionAtTop);
    } else if (view == QLatin1String("timeline")) {
        window.timelineDock()->show();
        window.timelineDock()->raise();
        window.resizeDocks({window.timelineDock()}, {window.height() * 2 / 5}, Qt::Vertical);
        window.timelineView()->refreshNow();
        if (window.timelineView()->timeline().empty()) {
            err << "contextlens: --view timeline wants a transcript with timestamps" << Qt::endl;
            return false;
        }
        // A message in the middle of the session selected: its line and outline on the timeline.
        const auto &spans = window.timelineView()->timeline().spans;
        if (!spans.empty())
            window.selectMessage(spans[spans.size() / 2].message);
    } else if (view == QLatin1String("compare")) {
        window.showCompareTab();
        window.compareView()->forceTriggers()->setChecked(true); // show what each would do, not only who fires
        window.compareView()->runAll();
        if (!waitFor(window.compareView(), &CompareView::finished, 300000)) {
            err << "contextlens: the comparison did not finish" << Qt::endl;
            return false;
        }
    }
    return true;
}

} // namespace

int takeScreenshot(const CommandLine &cmd)
{
    QTextStream err(stderr);
    MainWindow window;
    window.setShowErrorDialogs(false); // no one is there to close them
    window.resize(cmd.size);
    window.show();
    if (cmd.view == QLatin1String("start")) {
        // The start page over the sessions under $HOME (the script points HOME at generated ones).
        SessionBrowser *sessions = window.startPage()->sessions();
        if ((sessions->isScanning() || sessions->model()->sessions().empty())
            && !waitFor(sessions, &SessionBrowser::scanned, 60000)) {
            err << "contextlens: the session scan did not finish" << Qt::endl;
            return 1;
        }
        sessions->view()->expandAll();
        QApplication::processEvents();
        return window.grab().save(cmd.screenshot, "PNG") ? 0 : 1;
    }
    const bool ok = window.openFileNow(cmd.file, cmd.format);
    if (!ok)
        err << "contextlens: cannot load " << cmd.file << ": " << window.lastError() << Qt::endl;
    // openFileNow ran the analysis on this thread, so map and panel are filled; the row at the chosen
    // boundary is the one whose explanation says the most.
    window.selectAnalysisRow();
    if (ok && !showView(window, cmd.view, err))
        return 1;
    // Two rounds: layout requests posted by the first (header sizes, scroll) settle in the second.
    QApplication::processEvents();
    QApplication::processEvents();
    const QPixmap pixmap = window.grab();
    if (!pixmap.save(cmd.screenshot, "PNG")) {
        err << "contextlens: cannot write " << cmd.screenshot << Qt::endl;
        return 1;
    }
    return ok ? 0 : 1;
}

} // namespace cl::gui
