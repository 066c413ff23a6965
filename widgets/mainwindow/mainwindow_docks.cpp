// SPDX-License-Identifier: MIT
// Docks of the main window and the analysis wiring: the usage chart, diagnostics and analysis docks,
// the background analysis and estimator report on load / window change, and selection sync between
// map, panel and tree.
#include "widgets/mainwindow/mainwindow.h"

#include "widgets/analysis/analysiscontroller.h"
#include "widgets/analysis/analysispanel.h"
#include "widgets/analysis/compositionpanel.h"
#include "widgets/transcript/contextgauge.h"
#include "widgets/analysis/contextmap.h"
#include "widgets/analysis/timelineview.h"
#include "widgets/transcript/detailpane.h"
#include "widgets/mainwindow/diagnosticspanel.h"
#include "widgets/analysis/estimatorreport.h"
#include "widgets/transcript/transcriptpanel.h"
#include "widgets/models/transcriptmodel.h"
#include "widgets/transcript/usagechart.h"

#include <QDockWidget>
#include <QStatusBar>

namespace cl::gui {

void MainWindow::createDocks()
{
    addDockWidget(Qt::BottomDockWidgetArea, m_diagnostics);
    m_usageDock->setObjectName(QStringLiteral("usageDock"));
    m_usageDock->setWidget(m_chart);
    addDockWidget(Qt::BottomDockWidgetArea, m_usageDock);
    tabifyDockWidget(m_diagnostics, m_usageDock);
    m_usageDock->raise(); // the chart is the more telling view; diagnostics stay one tab away
    resizeDocks({m_usageDock}, {210}, Qt::Vertical);

    // The analysis explains the selected row, so it sits beside tree and detail, full height (the
    // right dock area owns the bottom-right corner; the usage chart keeps the rest of the width).
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    m_analysisDock->setObjectName(QStringLiteral("analysisDock"));
    m_analysisDock->setWidget(m_analysisPanel);
    addDockWidget(Qt::RightDockWidgetArea, m_analysisDock);
    resizeDocks({m_analysisDock}, {350}, Qt::Horizontal);
    createCompositionDock();
    createAuditDock();
    createTimelineDock();
    createSessionsDock();
    createRequestsDock();
    createLiveWatch();
    createUndoneBanner();
}

void MainWindow::connectAnalysis()
{
    connect(m_analyzer, &AnalysisController::started, this, [this] {
        m_map->setBusy(true);
        m_analysisPanel->setBusy(true);
    });
    connect(m_analyzer, &AnalysisController::analysisReady, this, &MainWindow::onAnalysisReady);
    connect(m_map, &ContextMap::messageActivated, this, &MainWindow::jumpToMessage);
    connect(m_analysisPanel, &AnalysisPanel::messageActivated, this, &MainWindow::jumpToMessage);
    connect(m_gauge, &ContextGauge::contextWindowChanged, this, [this] {
        if (!m_applying) // a load announces its window too; applyResult starts that analysis itself
            startAnalysis(false);
    });
}

bool MainWindow::isAnalysing() const
{
    return m_analyzer->isRunning();
}

void MainWindow::startAnalysis(bool now)
{
    // The old analysis no longer matches: clear the views until the new one arrives.
    m_analysis.reset();
    // The estimator table depends on the transcript only (not on the window): a new transcript
    // (load, apply, undo) recounts it. setAnalysis below starts it in the background; the
    // synchronous path (openFileNow, screenshots) wants it filled before it returns.
    if (now && m_transcript && m_analysisPanel->estimatorReport()->transcript() != m_transcript)
        m_analysisPanel->estimatorReport()->runNow(m_transcript);
    m_map->setAnalysis(m_transcript, nullptr);
    m_analysisPanel->setAnalysis(m_transcript, nullptr);
    m_transcriptPanel->setAnalysis(nullptr);
    if (!m_transcript)
        return;
    if (now)
        m_analyzer->runNow(m_transcript, m_gauge->contextWindow());
    else
        m_analyzer->start(m_transcript, m_gauge->contextWindow());
}

void MainWindow::onAnalysisReady(std::shared_ptr<const cl::analysis::Analysis> analysis)
{
    if (!analysis || m_analyzer->transcript() != m_transcript)
        return; // computed for a transcript that is no longer shown
    m_analysis = std::move(analysis);
    m_map->setAnalysis(m_transcript, m_analysis);
    m_analysisPanel->setAnalysis(m_transcript, m_analysis);
    m_transcriptPanel->setAnalysis(m_analysis);
    if (m_analysis->boundary)
        statusBar()->showMessage(tr("Analysis ready: compaction boundary before message %1")
                                     .arg(m_analysis->view.index[*m_analysis->boundary] + 1),
                                 5000);
    Q_EMIT analysisUpdated();
}

void MainWindow::selectAnalysisRow()
{
    if (m_analysis && m_analysis->boundary && *m_analysis->boundary < m_analysis->view.size())
        jumpToMessage(int(m_analysis->view.index[*m_analysis->boundary]));
    else
        selectRepresentativeRow();
}

void MainWindow::onRowSelected(int message, int block)
{
    m_detail->showRow(m_transcript, message, block);
    followSessionMessage(message);
}

void MainWindow::followSessionMessage(int message)
{
    m_analysisPanel->showMessage(message);
    m_map->setSelectedMessage(message);
    m_compositionPanel->showMessage(message);
    m_timelineView->setSelectedMessage(message);
}

void MainWindow::onSubagentRowSelected(int run, int message)
{
    // The subagent's message in the detail pane; the session's panels stay on the call that started it.
    const TranscriptModel *model = m_transcriptPanel->model();
    const auto &runs = model->subagentRuns();
    if (!m_transcript || run < 0 || std::size_t(run) >= runs.size() || runs[std::size_t(run)].subagent >= m_transcript->subagents.size())
        return;
    const analysis::SubagentRun &r = runs[std::size_t(run)];
    m_detail->showRow(m_transcript->subagents[r.subagent], message, -1);
    followSessionMessage(r.sessionMessage);
}

} // namespace cl::gui
