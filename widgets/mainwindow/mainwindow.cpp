// SPDX-License-Identifier: MIT
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/models/filenames.h"

#include "widgets/analysis/analysiscontroller.h"
#include "widgets/analysis/analysispanel.h"
#include "widgets/transcript/contextgauge.h"
#include "widgets/analysis/contextmap.h"
#include "widgets/transcript/detailpane.h"
#include "widgets/mainwindow/diagnosticspanel.h"
#include "widgets/mainwindow/loadcontroller.h"
#include "widgets/mainwindow/noticebar.h"
#include "widgets/mainwindow/startpage.h"
#include "widgets/mainwindow/openmilestones.h"
#include "widgets/transcript/transcriptdocument.h"
#include "widgets/models/transcriptmodel.h"
#include "widgets/mainwindow/recentfiles.h"
#include "widgets/mainwindow/statuspanel.h"
#include "widgets/transcript/transcriptpanel.h"
#include "widgets/transcript/usagechart.h"

#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileInfo>
#include <QLocale>
#include <QMessageBox>
#include <QMimeData>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QStatusBar>
#include <QVBoxLayout>

namespace cl::gui {

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_loader(new LoadController(this))
    , m_transcriptPanel(new TranscriptPanel(this))
    , m_detail(new DetailPane(this))
    , m_diagnostics(new DiagnosticsPanel(this))
    , m_status(new StatusPanel(this))
    , m_gauge(new ContextGauge(this))
    , m_chart(new UsageChart(this))
    , m_usageDock(new QDockWidget(tr("Usage"), this))
    , m_analyzer(new AnalysisController(this))
    , m_map(new ContextMap(this))
    , m_analysisPanel(new AnalysisPanel(this))
    , m_analysisDock(new QDockWidget(tr("Analysis"), this))
    , m_doc(new TranscriptDocument(this))
{
    setWindowTitle(tr("ContextLens"));
    setAcceptDrops(true);
    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(m_transcriptPanel);
    splitter->addWidget(m_detail);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setChildrenCollapsible(false);
    // 2:1 from the start, not only for extra space: the tree's many columns would otherwise claim
    // their full width and squeeze the detail pane.
    splitter->setSizes({2000, 1000});
    // Gauge and context map sit in a strip above tree and detail: how full the context is and where
    // it goes frame everything below.
    auto *central = new QWidget(this);
    auto *column = new QVBoxLayout(central);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(0);
    column->addWidget(m_gauge);
    column->addWidget(m_map);
    m_notice = new NoticeBar(central);
    column->addWidget(m_notice);
    createStrategyViews();
    // Tabs: the transcript itself, the side-by-side preview of a strategy, and the comparison.
    m_tabs->addTab(splitter, tr("Transcript"));
    // Until a transcript is open, the start page stands where the tabs go (createStartPage).
    m_pages = new QStackedWidget(central);
    m_pages->addWidget(m_tabs);
    column->addWidget(m_pages, 1);
    setCentralWidget(central);
    createDocks();
    m_chart->setContextWindow(m_gauge->contextWindow());
    statusBar()->addPermanentWidget(m_status, 1);
    m_status->showSummary(nullptr);
    createMenus();
    createStartPage();

    connect(m_transcriptPanel, &TranscriptPanel::rowSelected, this, &MainWindow::onRowSelected);
    connect(m_transcriptPanel, &TranscriptPanel::subagentRowSelected, this, &MainWindow::onSubagentRowSelected);
    connect(m_diagnostics, &DiagnosticsPanel::lineActivated, this, &MainWindow::jumpToSourceLine);
    connect(m_chart, &UsageChart::messageActivated, this, &MainWindow::jumpToMessage);
    connect(m_gauge, &ContextGauge::contextWindowChanged, m_chart, &UsageChart::setContextWindow);
    connect(m_loader, &LoadController::started, this, &MainWindow::onLoadStarted);
    connect(m_loader, &LoadController::progress, m_status, &StatusPanel::setProgress);
    connect(m_loader, &LoadController::firstRowsLoaded, this, &MainWindow::onFirstRowsLoaded);
    connect(m_loader, &LoadController::finished, this,
            [this](const QString &path, const LoadResult &result) { applyResult(path, result); });
    connect(m_status, &StatusPanel::cancelRequested, this, &MainWindow::cancelLoad);
    connectAnalysis();
    connectStrategies();
    new OpenMilestones(this); // watches the panels made above
}

MainWindow::~MainWindow() = default;

void MainWindow::tell(const QString &text)
{
    m_notice->tell(text);
    statusBar()->showMessage(text, 10000);
}

void MainWindow::tellFailure(const QString &text)
{
    m_notice->tell(text, NoticeBar::Kind::Failure);
    statusBar()->showMessage(text, 10000);
}

void MainWindow::tellWritten(const QString &text, const QString &file)
{
    m_notice->tell(text, NoticeBar::Kind::Information, file, 20000);
    statusBar()->showMessage(text, 10000);
}

bool MainWindow::isLoading() const
{
    return m_loader->isLoading();
}

void MainWindow::openFile(const QString &path, std::optional<Format> format)
{
    m_format = format;
    m_loader->start(path, format);
}

bool MainWindow::openFileNow(const QString &path, std::optional<Format> format)
{
    m_loader->cancel();
    m_format = format;
    return applyResult(path, LoadController::loadNow(path, format), true);
}

void MainWindow::reload()
{
    if (!m_path.isEmpty())
        openFile(m_path, m_format);
}

void MainWindow::cancelLoad()
{
    m_loader->cancel();
    dropFirstRows();
    m_status->setLoading(false);
    statusBar()->showMessage(tr("Loading cancelled"), 5000);
}

void MainWindow::onLoadStarted(const QString &path)
{
    m_status->setLoading(true, tr("Loading %1…").arg(QFileInfo(path).fileName()));
    statusBar()->showMessage(tr("Loading %1…").arg(QDir::toNativeSeparators(path)));
}

void MainWindow::onFirstRowsLoaded(const QString &path, std::shared_ptr<const Transcript> firstRows)
{
    if (!m_loader->isLoading() || (m_transcript && path == m_path))
        return; // a reload: the window shows the whole file already
    if (path != m_path)
        m_transcriptPanel->resetFilters();
    showStartPage(false);
    if (OpenMilestones *milestones = OpenMilestones::of(this))
        milestones->firstRowsShown(firstRows.get());
    const int shown = int(firstRows->messages.size());
    m_transcriptPanel->showFirstRows(std::move(firstRows));
    const QString name = QFileInfo(path).fileName();
    m_status->setLoading(true, shown == 1 ? tr("Loading %1… its first message shown").arg(name)
                                          : tr("Loading %1… its first %2 messages shown").arg(name, QLocale().toString(shown)));
}

void MainWindow::dropFirstRows()
{
    if (!m_transcriptPanel->showsFirstRows())
        return;
    m_transcriptPanel->setTranscript(m_transcript);
    showStartPage(!m_transcript);
}

QString MainWindow::failureReason(const LoadResult &result)
{
    if (result.cancelled)
        return tr("loading was cancelled");
    if (!result.ok())
        return QString::fromStdString(result.error);
    if (result.transcript->messages.empty())
        for (const Diagnostic &d : result.transcript->diagnostics)
            if (d.severity == Diagnostic::Severity::Error)
                return QString::fromStdString(d.message);
    return {};
}

bool MainWindow::applyResult(const QString &path, const LoadResult &result, bool analyzeNow)
{
    m_status->setLoading(false);
    statusBar()->clearMessage();
    const QString reason = failureReason(result);
    m_lastError = reason;
    if (!result.ok() || result.cancelled)
        dropFirstRows(); // nothing of this file to show
    if (result.cancelled) {
        statusBar()->showMessage(tr("Loading cancelled"), 5000);
        Q_EMIT loadFinished(false);
        return false;
    }
    if (result.ok()) {
        // Even a failed decode is shown: its diagnostics say what went wrong.
        if (path != m_path)
            m_transcriptPanel->resetFilters(); // a filter for another file would hide this one's rows
        m_path = path;
        m_pinned.clear();
        showTranscript(result.transcript, analyzeNow);
        updateRequestsDock();
        m_doc->setSource(result.transcript, path); // a fresh document: empty undo stack
        updateTitle();
        // A request of a recording: the recording is what the recent files list (it opens its last request).
        if (m_recent)
            m_recent->add(result.transcript->recording.is_object()
                              ? filenames::fromBytes(result.transcript->recording.value("file", std::string()))
                              : path);
    }
    if (!reason.isEmpty() && m_showErrorDialogs) {
        auto *box = new QMessageBox(QMessageBox::Critical, tr("Cannot open transcript"),
                                    tr("Could not open %1:\n%2").arg(QDir::toNativeSeparators(path), reason),
                                    QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open(); // window-modal without a nested event loop
    }
    Q_EMIT loadFinished(reason.isEmpty());
    return reason.isEmpty();
}

void MainWindow::selectRepresentativeRow()
{
    m_transcriptPanel->selectSourceIndex(m_transcriptPanel->model()->representativeIndex());
}

void MainWindow::jumpToSourceLine(quint32 line)
{
    const QModelIndex idx = m_transcriptPanel->model()->indexForSourceLine(line);
    if (idx.isValid())
        m_transcriptPanel->selectSourceIndex(idx);
    else
        tellFailure(tr("No message comes from line %1").arg(line));
}

void MainWindow::jumpToMessage(int message)
{
    const QModelIndex idx = m_transcriptPanel->model()->indexForMessage(message);
    if (idx.isValid())
        m_transcriptPanel->selectSourceIndex(idx);
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    const auto urls = event->mimeData()->urls();
    for (const QUrl &url : urls)
        if (url.isLocalFile()) {
            openFile(filenames::fromUrl(url)); // one transcript at a time: the first local file
            event->acceptProposedAction();
            return;
        }
}

} // namespace cl::gui
