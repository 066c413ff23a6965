// SPDX-License-Identifier: MIT
// The strategy side of the main window: the working document and its undo stack, the strategy dock,
// the preview, compare and simulate tabs, pinning, export, the seed 004 operations dialog and the seed 001
// event notifications in the status bar.
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/models/tokencount.h"
#include "widgets/mainwindow/redactiondialog.h"

#include "core/io/export.h"
#include "core/strategy/tables.h"
#include "widgets/analysis/analysiscontroller.h"
#include "widgets/analysis/analysispanel.h"
#include "widgets/analysis/compositionpanel.h"
#include "widgets/analysis/auditpanel.h"
#include "widgets/analysis/timelineview.h"
#include "widgets/strategy/compareview.h"
#include "widgets/transcript/contextgauge.h"
#include "widgets/analysis/contextmap.h"
#include "widgets/jobs/backgroundjob.h"
#include "widgets/mainwindow/diagnosticspanel.h"
#include "widgets/mainwindow/openmilestones.h"
#include "widgets/models/roles.h"
#include "widgets/models/transcriptmodel.h"
#include "widgets/strategy/operationsdialog.h"
#include "widgets/strategy/previewview.h"
#include "widgets/strategy/simulationview.h"
#include "widgets/mainwindow/statuspanel.h"
#include "widgets/strategy/strategypanel.h"
#include "widgets/transcript/transcriptdocument.h"
#include "widgets/transcript/transcriptpanel.h"
#include "widgets/transcript/usagechart.h"

#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QItemSelectionModel>
#include <QMessageBox>
#include <QtConcurrent/QtConcurrentRun>
#include <QStatusBar>
#include <QTabWidget>
#include <QTreeView>
#include <QUndoStack>

#include <algorithm>

namespace cl::gui {

void MainWindow::createStrategyViews()
{
    m_tabs = new QTabWidget(this);
    m_tabs->setDocumentMode(true);
    m_preview = new PreviewView(this);
    m_compare = new CompareView(this);
    m_simulate = new SimulationView(this);
    // Their splitters would otherwise claim the height of the usage dock below the tabs.
    m_preview->setMinimumHeight(160);
    m_compare->setMinimumHeight(160);
    m_simulate->setMinimumHeight(160);
    m_strategyPanel = new StrategyPanel(this);
    m_strategyDock = new QDockWidget(tr("Strategy"), this);
    m_strategyDock->setObjectName(QStringLiteral("strategyDock"));
    m_strategyDock->setWidget(m_strategyPanel);
}

void MainWindow::connectStrategies()
{
    m_tabs->addTab(m_preview, tr("Preview"));
    m_tabs->addTab(m_compare, tr("Compare"));
    m_tabs->addTab(m_simulate, tr("Simulate"));
    addDockWidget(Qt::RightDockWidgetArea, m_strategyDock);
    tabifyDockWidget(m_analysisDock, m_strategyDock);
    m_analysisDock->raise();
    resizeDocks({m_usageDock}, {210}, Qt::Vertical); // adding a dock re-balances the others

    connect(m_doc, &TranscriptDocument::transcriptChanged, this, &MainWindow::onDocumentChanged);
    connect(m_doc, &TranscriptDocument::modifiedChanged, this, &MainWindow::updateTitle);
    connect(m_strategyPanel, &StrategyPanel::previewReady, this, [this](std::shared_ptr<const strategy::Result> r) {
        m_preview->setResult(m_strategyPanel->previewTranscript(), std::move(r));
        showPreviewTab();
    });
    connect(m_strategyPanel, &StrategyPanel::previewCleared, m_preview, [this] { m_preview->setTranscript(m_transcript); });
    connect(m_strategyPanel, &StrategyPanel::applyRequested, this,
            [this](std::shared_ptr<const strategy::Result> r, const QString &label) {
                QString error;
                if (!r || !m_doc->apply(*r, label, &error))
                    tellFailure(tr("Not applied: %1").arg(error));
                else
                    tell(tr("%1 applied (Ctrl+Z undoes it)").arg(label));
            });
    connect(m_preview, &PreviewView::messageActivated, this, [this](int message) {
        if (message < 0)
            return;
        m_tabs->setCurrentIndex(0);
        jumpToMessage(message);
    });
    m_compare->setModelSummarizer(m_strategyPanel->modelSummarizer());
    connect(m_strategyPanel, &StrategyPanel::modelSummarizerChanged, this,
            [this] { m_compare->setModelSummarizer(m_strategyPanel->modelSummarizer()); });
    connect(m_compare, &CompareView::previewRequested, this, [this](const QString &name) {
        if (m_strategyPanel->setCurrentStrategy(name)) {
            m_strategyDock->raise();
            m_strategyPanel->runPreview();
        }
    });
    connect(m_simulate, &SimulationView::messageActivated, this, [this](int message) {
        if (message < 0)
            return;
        m_tabs->setCurrentIndex(0);
        jumpToMessage(message);
    });
    connect(m_simulate, &SimulationView::finished, this, [this] {
        if (const auto s = m_simulate->simulation(); s && s->error.empty())
            tell(tr("Simulated %1 over %2 turns: %3 compactions")
                     .arg(QString::fromStdString(s->strategy))
                     .arg(s->turns.size())
                     .arg(s->compactions));
    });
    connect(m_compare, &CompareView::finished, this, [this] {
        tell(tr("Compared %1 strategies").arg(m_compare->rows().size()));
    });
    // seed 001 events: compaction needed when an analysis says so.
    connect(this, &MainWindow::analysisUpdated, this, [this] {
        if (m_analysis && m_analysis->needs.needed) {
            QString why;
            for (const auto &r : m_analysis->needs.reasons)
                why += (why.isEmpty() ? QString() : QStringLiteral("; ")) + QString::fromStdString(r.describe());
            statusBar()->showMessage(tr("Compaction needed: %1").arg(why), 10000); // every load: not news
        }
        // Only a panel without this transcript takes it (a new transcript would drop its preview).
        if (m_strategyPanel->transcript() != m_transcript)
            m_strategyPanel->setTranscript(m_transcript, m_analysis, m_tables);
    });
}

OperationsDialog *MainWindow::operationsDialog()
{
    if (!m_ops) {
        m_ops = new OperationsDialog(this);
        m_ops->setModelSummarizer(m_strategyPanel->modelSummarizer());
        connect(m_strategyPanel, &StrategyPanel::modelSummarizerChanged, m_ops,
                [this] { m_ops->setModelSummarizer(m_strategyPanel->modelSummarizer()); });
        connect(m_ops, &OperationsDialog::compressed, this, [this](std::shared_ptr<const strategy::Result> r) {
            QString error;
            if (r && !m_doc->apply(*r, tr("Compress now (%1)").arg(QString::fromStdString(r->strategy)), &error))
                tellFailure(tr("Not applied: %1").arg(error));
        });
        connect(m_ops, &OperationsDialog::compactionNeeded, this,
                [this](const QString &why) { tell(tr("Compaction needed: %1").arg(why)); });
        connect(m_ops, &OperationsDialog::compactionStarted, this,
                [this](const QString &s) { statusBar()->showMessage(tr("Compaction started: %1…").arg(s)); });
        connect(m_ops, &OperationsDialog::compactionCompleted, this,
                [this](qint64 mb, qint64 ma, qint64 tb, qint64 ta) {
                    tell(tr("Compaction complete: %1 → %2 messages, %3 → %4 tokens").arg(mb).arg(ma).arg(tb).arg(ta));
                });
    }
    updateStrategyInputs();
    return m_ops;
}

void MainWindow::showPreviewTab()
{
    m_tabs->setCurrentWidget(m_preview);
}

void MainWindow::showCompareTab()
{
    m_tabs->setCurrentWidget(m_compare);
}

void MainWindow::showSimulateTab()
{
    m_tabs->setCurrentWidget(m_simulate);
}

std::shared_ptr<strategy::TranscriptTables> MainWindow::tablesFor(const std::shared_ptr<const Transcript> &transcript)
{
    std::erase_if(m_tableCache, [](const auto &entry) { return entry.first.expired(); });
    for (const auto &[shown, tables] : m_tableCache)
        if (shown.lock() == transcript)
            return tables;
    // The tables every strategy run reads (block estimates, text lengths, microcompact digests)
    // take about a second on 100 000 messages: built on the thread pool as soon as the transcript's
    // rows are painted, so that the first preview or compare finds them ready (one that starts
    // earlier builds or waits for the table it needs).
    auto tables = std::make_shared<strategy::TranscriptTables>();
    if (!transcript)
        return tables;
    afterPendingPaint(this, [this, transcript, tables] {
        const QFuture<void> work = QtConcurrent::run(backgroundPool(), [transcript, tables] { tables->prepare(*transcript); });
        if (OpenMilestones *milestones = OpenMilestones::of(this))
            milestones->tablesStarted(transcript, work);
    });
    constexpr std::size_t kKept = 4;
    if (m_tableCache.size() == kKept)
        m_tableCache.erase(m_tableCache.begin());
    m_tableCache.emplace_back(transcript, tables);
    return tables;
}

void MainWindow::showTranscript(std::shared_ptr<const Transcript> transcript, bool analyzeNow, std::optional<UsageData> given,
                                std::size_t keptMessages)
{
    m_transcript = std::move(transcript);
    showStartPage(!m_transcript);
    if (OpenMilestones *milestones = OpenMilestones::of(this))
        milestones->transcriptShown(m_transcript.get());
    m_tables = tablesFor(m_transcript);
    m_applying = true;
    if (keptMessages > 0)
        m_transcriptPanel->growTranscript(m_transcript, keptMessages);
    else
        m_transcriptPanel->setTranscript(m_transcript);
    m_diagnostics->setTranscript(m_transcript.get());
    // The chart, the gauge and the status line show the same figures: counted once.
    UsageData usage = given ? std::move(*given) : m_transcript ? usageData(*m_transcript, tokencount::chosen())
                                                               : UsageData{};
    m_status->showSummary(m_transcript.get(), &usage.figure);
    m_chart->setUsage(usage);
    m_gauge->setTranscript(m_transcript.get(), std::move(usage)); // after the chart: it announces the window to it
    m_applying = false;
    m_compositionPanel->setContextWindow(m_gauge->contextWindow());
    m_compositionPanel->setTranscript(m_transcript);
    m_auditPanel->setTranscript(m_transcript);
    m_timelineView->setTranscript(m_transcript);
    startAnalysis(analyzeNow);
    updateStrategyInputs();
    updateTranscriptActions();
}

void MainWindow::updateTranscriptActions()
{
    for (QAction *a : std::as_const(m_needsTranscript))
        a->setEnabled(bool(m_transcript));
}

void MainWindow::setTokenCount(tokens::Estimator e)
{
    if (e == tokencount::chosen())
        return;
    tokencount::choose(e);
    // The same transcript and window, every figure counted again.
    UsageData usage = m_transcript ? usageData(*m_transcript, tokencount::chosen()) : UsageData{};
    m_status->showSummary(m_transcript.get(), &usage.figure);
    m_chart->setUsage(usage);
    m_gauge->recount(std::move(usage));
    m_compositionPanel->recount();
    startAnalysis(false);
    updateStrategyInputs();
    if (m_tokenCountGroup)
        for (QAction *a : m_tokenCountGroup->actions())
            a->setChecked(a->data().toInt() == int(e));
}

void MainWindow::onDocumentChanged()
{
    if (m_doc->current() != m_transcript && m_doc->current()) {
        // Pins are transcript indices: they do not survive a change of the message list.
        m_pinned.clear();
        showTranscript(m_doc->current(), false);
    } else {
        updateStrategyInputs();
    }
    m_preview->setTranscript(m_transcript);
    updateTitle();
}

void MainWindow::updateStrategyInputs()
{
    const analysis::AnalysisOptions options = AnalysisController::optionsFor(m_gauge->contextWindow());
    m_strategyPanel->setAnalysisOptions(options);
    if (m_strategyPanel->transcript() != m_transcript)
        m_strategyPanel->setTranscript(m_transcript, m_analysis, m_tables);
    m_strategyPanel->setPinned(m_pinned);
    std::vector<std::string> exempt;
    for (const QString &s : m_strategyPanel->exemptTools())
        exempt.push_back(s.toStdString());
    m_compare->setInput(m_transcript, options, m_pinned, exempt, m_tables);
    // The simulation has its own window box (0: by model); the gauge's window is its default.
    m_simulate->setInput(m_transcript, options);
    m_simulate->setGuards(m_pinned, exempt);
    if (m_ops && m_transcript)
        m_ops->setTranscript(m_transcript, m_path, options, m_pinned, exempt);
}

void MainWindow::updateTitle()
{
    if (m_path.isEmpty()) {
        setWindowTitle(tr("ContextLens"));
        return;
    }
    // "(compacted)" while the working transcript is not the loaded one ("(edited)" once a hand edit
    // made it), "*" while that is not exported or saved.
    QString state;
    if (m_doc->isEdited())
        state = (m_doc->hasHandEdits() ? tr(" (edited)") : tr(" (compacted)")) + (m_doc->isModified() ? QStringLiteral("*") : QString());
    setWindowTitle(tr("%1%2 — ContextLens").arg(QFileInfo(m_path).fileName(), state));
}

void MainWindow::togglePinSelected()
{
    const QModelIndex current = m_transcriptPanel->view()->currentIndex();
    if (!current.isValid())
        return;
    const QVariant v = current.data(MessageIndexRole);
    if (!v.isValid())
        return;
    const auto message = static_cast<std::size_t>(v.toInt());
    const auto it = std::find(m_pinned.begin(), m_pinned.end(), message);
    if (it == m_pinned.end()) {
        m_pinned.push_back(message);
        tell(tr("Message %1 pinned: strategies keep it untouched").arg(message + 1));
    } else {
        m_pinned.erase(it);
        tell(tr("Message %1 unpinned").arg(message + 1));
    }
    updateStrategyInputs();
}

void MainWindow::exportDialog()
{
    if (!m_doc->current()) {
        tell(tr("Nothing to export: open a transcript first"));
        return;
    }
    const std::vector<Format> formats = m_doc->exportFormats();
    QStringList filters;
    for (const Format f : formats)
        filters << tr("%1 (*.jsonl *.json)").arg(QString::fromUtf8(formatName(f).data(), int(formatName(f).size())));
    QString chosen;
    const QFileInfo in(m_path);
    const QString suggestion = in.absolutePath() + QLatin1Char('/') + in.completeBaseName() + tr("-compacted.") + in.suffix();
    const QString path = QFileDialog::getSaveFileName(this, tr("Export transcript"), suggestion, filters.join(QStringLiteral(";;")),
                                                      &chosen, QFileDialog::DontConfirmOverwrite);
    if (path.isEmpty())
        return;
    const Format target = formats[std::size_t(std::max<qsizetype>(0, filters.indexOf(chosen)))];
    bool confirm = false;
    if (m_doc->isInputPath(path) || QFileInfo::exists(path)) {
        const auto answer = QMessageBox::question(
            this, tr("Replace file?"),
            m_doc->isInputPath(path) ? tr("%1 is the transcript you opened. Replace it with the compacted version?").arg(path)
                                     : tr("%1 exists. Replace it?").arg(path));
        if (answer != QMessageBox::Yes)
            return;
        confirm = true;
    }
    bool redact = false;
    if (!confirmRedaction(m_doc->current(), RedactionDialog::Purpose::Export, this, &redact))
        return;
    QString error;
    if (!m_doc->exportTo(path, target, &error, confirm, redact ? redactionRules() : nullptr)) {
        QMessageBox::warning(this, tr("Export failed"), error);
        return;
    }
    tellWritten(tr("Exported to %1 (%2)").arg(QDir::toNativeSeparators(path), QString::fromUtf8(formatName(target).data(), int(formatName(target).size()))), path);
}

} // namespace cl::gui
