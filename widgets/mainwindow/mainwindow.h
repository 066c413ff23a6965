// SPDX-License-Identifier: MIT
#pragma once

#include "core/analysis/analysis.h"
#include "core/io/livetail.h"
#include "core/io/loader.h"
#include "core/workflow/forecast.h"
#include "widgets/jobs/backgroundjob.h"
#include "widgets/models/chartgeometry.h"
#include "widgets/style/theme.h"

#include <QMainWindow>

#include <memory>
#include <optional>
#include <vector>

class QActionGroup;
class QDialog;
class QLabel;
class QSystemTrayIcon;
namespace cl::strategy {
class TranscriptTables;
}
class QDockWidget;
class QStackedWidget;
class QTabWidget;

namespace cl::gui {

class AnalysisController;
class AnalysisPanel;
class CompareView;
class AuditPanel;
class TimelineView;
class SessionBrowser;
class RequestList;
class CompositionPanel;
class OperationsDialog;
class PreviewView;
class StrategyPanel;
class TranscriptDocument;
class ContextGauge;
class ContextMap;
class DetailPane;
class DiagnosticsPanel;
class LiveWatch;
class LoadController;
class RecentFiles;
class SimulationView;
class StatusPanel;
class TranscriptPanel;
class UndoneBanner;
class NoticeBar;
class StartPage;
class UsageChart;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // Loads in the background; loadFinished() reports the outcome.
    void openFile(const QString &path, std::optional<Format> format = std::nullopt);
    // Loads on this thread (screenshots, scripted use). Returns whether the load succeeded.
    bool openFileNow(const QString &path, std::optional<Format> format = std::nullopt);
    // Selects (and scrolls to) a message's row; the analysis panel follows.
    void selectMessage(int message) { jumpToMessage(message); }
    // Selects the row at the chosen compaction boundary, else the representative row.
    void selectAnalysisRow();
    // Selects the first tool result (or the first block) so the detail pane has content.
    void selectRepresentativeRow();
    // Applies a theme; remember=false for a one-off choice (the --theme option).
    void setTheme(theme::Choice choice, bool remember = true);
    // View › Token Count: every figure of the window counted again with `e` (saved for the next start).
    void setTokenCount(tokens::Estimator e);
    // The actions that act on a transcript, enabled only while one is open.
    const QList<QAction *> &transcriptActions() const { return m_needsTranscript; }
    // Error dialogs are window-modal and non-blocking; scripted runs can turn them off.
    void setShowErrorDialogs(bool show) { m_showErrorDialogs = show; }
    QString currentPath() const { return m_path; } // the open transcript's file ("" if none)

    std::shared_ptr<const Transcript> transcript() const { return m_transcript; }
    TranscriptPanel *transcriptPanel() const { return m_transcriptPanel; }
    DetailPane *detailPane() const { return m_detail; }
    DiagnosticsPanel *diagnosticsPanel() const { return m_diagnostics; }
    StatusPanel *statusPanel() const { return m_status; }
    ContextGauge *contextGauge() const { return m_gauge; }
    UsageChart *usageChart() const { return m_chart; }
    QDockWidget *usageDock() const { return m_usageDock; }
    ContextMap *contextMap() const { return m_map; }
    AnalysisPanel *analysisPanel() const { return m_analysisPanel; }
    QDockWidget *analysisDock() const { return m_analysisDock; }
    AnalysisController *analysisController() const { return m_analyzer; }
    // Where the live context goes at the selected message (mainwindow_composition.cpp).
    CompositionPanel *compositionPanel() const { return m_compositionPanel; }
    QDockWidget *compositionDock() const { return m_compositionDock; }
    // What each compaction of the session replaced and dropped (mainwindow_audit.cpp).
    AuditPanel *auditPanel() const { return m_auditPanel; }
    QDockWidget *auditDock() const { return m_auditDock; }
    // The session over wall-clock time (mainwindow_timeline.cpp).
    TimelineView *timelineView() const { return m_timelineView; }
    QDockWidget *timelineDock() const { return m_timelineDock; }
    // The agents' sessions on this machine (mainwindow_sessions.cpp).
    SessionBrowser *sessionBrowser() const { return m_sessionBrowser; }
    QDockWidget *sessionsDock() const { return m_sessionsDock; }
    // The requests of the recording a shown request belongs to (mainwindow_requests.cpp).
    RequestList *requestList() const { return m_requestList; }
    QDockWidget *requestsDock() const { return m_requestsDock; }
    // The analysis of the current transcript; nullptr while it runs or when nothing is loaded.
    std::shared_ptr<const cl::analysis::Analysis> analysis() const { return m_analysis; }
    // The strategies' per-block tables of the shown transcript (shared by the strategy panel and
    // the compare view), prepared in the background after every load and apply; undo and redo
    // return to the tables their transcript had.
    const std::shared_ptr<cl::strategy::TranscriptTables> &strategyTables() const { return m_tables; }
    bool isAnalysing() const;
    // Strategies: the document (working transcript + undo stack), the strategy dock, the preview and
    // compare tabs of the central area.
    TranscriptDocument *document() const { return m_doc; }
    StrategyPanel *strategyPanel() const { return m_strategyPanel; }
    QDockWidget *strategyDock() const { return m_strategyDock; }
    PreviewView *previewView() const { return m_preview; }
    CompareView *compareView() const { return m_compare; }
    QTabWidget *centralTabs() const { return m_tabs; }
    OperationsDialog *operationsDialog();
    void showPreviewTab();
    void showCompareTab();
    // Simulate tab: seed 003's turn-by-turn replay of the current transcript under a strategy.
    SimulationView *simulationView() const { return m_simulate; }
    void showSimulateTab();
    // Messages the user pinned (strategies never remove or edit them), transcript indices.
    const std::vector<std::size_t> &pinned() const { return m_pinned; }
    void togglePinSelected();
    // Hand edits of the selected messages (mainwindow_edits.cpp): one undo step each, shown in the
    // Preview tab. applyHandEdit: remove them, or replace their tool results by `note`.
    QList<int> selectedMessages() const;
    bool applyHandEdit(const QList<int> &messages, bool remove, const QString &note);
    void removeSelectedMessages();
    void replaceSelectedResults(); // asks for the note
    // Export with a file dialog (format from the file name's filter).
    void exportDialog();
    // File › Save: the working transcript over the loaded file, checked and backed up, then reloaded
    // (mainwindow_save.cpp). File › Backups…: list and restore.
    bool saveInPlace();
    void showBackups();
    // File › Export Report… / Export as Markdown… (mainwindow_report.cpp). exportReportTo writes in the
    // background (reportWritten when done; false at once when it cannot start).
    // redact: secrets replaced by placeholders, remote Markdown images made links (core/redact/redact.h).
    bool exportReportTo(const QString &path, QString *error = nullptr, bool redact = false);
    void exportReportDialog();
    bool exportMarkdownTo(const QString &path, QString *error = nullptr, bool redact = false);
    void exportMarkdownDialog();
    // Help › User Guide (F1): docs/user-guide.md, built in, in a window of its own.
    QDialog *showUserGuide();
    // Where File › Open starts: the folder last opened from, else ~/.claude/projects (or the
    // Codex / Gemini CLI sessions folder), else home.
    QString openFolder() const;
    // Where the report and Markdown dialogs start: the folder last written to, else the user's
    // documents (else home), never the agent's folder the transcript is in. suffix: "-report.html".
    QString reportSuggestion(const QString &suffix) const;
    // The window's size, position and dock layout as the user left them (mainwindow_layout.cpp).
    // The app calls it before showing the window; tests and screenshots keep the defaults.
    void restoreLayout();
    void saveLayout() const;
    bool isLoading() const;
    QString lastError() const { return m_lastError; } // why the last load failed, "" if it did not
    // View › Follow Live Session (remembered; on by default): the open session grows as its agent
    // writes it; the status bar forecasts the agent's auto-compaction (mainwindow_live.cpp).
    static bool followLive();
    void setFollowLive(bool on);
    LiveWatch *liveWatch() const { return m_live; }
    QLabel *liveStatusLabel() const { return m_liveLabel; }
    std::optional<forecast::Compaction> liveForecast() const;
    // The banner over the transcript when the agent continued from before a compaction ContextLens
    // saved (core/workflow/undonecompaction.h); reapplyUndone() runs that compaction's strategies
    // again on the working transcript as one undoable step (mainwindow_undone.cpp).
    UndoneBanner *undoneBanner() const { return m_undoneBanner; }
    // What just happened (written, applied, failed), over the tabs where it is seen.
    NoticeBar *noticeBar() const { return m_notice; }
    StartPage *startPage() const { return m_start; }
    bool reapplyUndone();

    // A transcript "failed" when the file could not be read, or nothing decoded and there is an error.
    static QString failureReason(const LoadResult &result);

Q_SIGNALS:
    void loadFinished(bool ok);
    // The analysis of the current transcript arrived (analysis() holds it).
    void analysisUpdated();
    // The followed session is within a few turns of its agent's auto-compaction (once per approach).
    void compactionNear(const QString &forecast);
    void reportWritten(const QString &path);

protected:
    // With compactions applied but not exported, asks first: Export…, Discard or Cancel.
    void closeEvent(QCloseEvent *event) override;
    // The first show without a restored layout sizes the docks to the window (mainwindow_layout.cpp).
    void showEvent(QShowEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void createMenus();
    void createDocks();
    void createCompositionDock();
    void createAuditDock();
    void createTimelineDock();
    void createSessionsDock();
    void createRequestsDock();
    void updateRequestsDock();
    void createStartPage();
    void showStartPage(bool show);
    void parkDocks();
    void unparkDocks();
    void sizeDocksToWindow();
    void createLiveWatch();
    void createUndoneBanner();
    // Feedback in the notice bar (and the status bar's history): tell fades, tellFailure stays until
    // closed, tellWritten adds "Show in Folder" for the file just written.
    void tell(const QString &text);
    void tellFailure(const QString &text);
    void tellWritten(const QString &text, const QString &file);
    void updateUndoneBanner(const Transcript *transcript);
    void startFollowing();
    void onLiveUpdate(std::shared_ptr<const Transcript> transcript, const LiveTail::Update &update,
                      const std::optional<UsageData> &usage);
    void updateLiveStatus();
    void connectComposition();
    void previewSuggestion(const QString &strategy, const QString &paramsJson);
    void connectAnalysis();
    void startAnalysis(bool now);
    void onAnalysisReady(std::shared_ptr<const cl::analysis::Analysis> analysis);
    void onRowSelected(int message, int block);
    // The session's panels (analysis, map, composition, timeline) on message `message`.
    void followSessionMessage(int message);
    void onSubagentRowSelected(int run, int message);
    void showOpenDialog();
    void reload();
    void cancelLoad();
    void onLoadStarted(const QString &path);
    // A large file's first messages while the rest loads; and back to what the window shows when
    // the load ends without a transcript.
    void onFirstRowsLoaded(const QString &path, std::shared_ptr<const Transcript> firstRows);
    void dropFirstRows();
    // analyzeNow: run the analysis on this thread before returning (openFileNow).
    bool applyResult(const QString &path, const LoadResult &result, bool analyzeNow = false);
    void jumpToSourceLine(quint32 line);
    void jumpToMessage(int message);
    // Strategy wiring (mainwindow_strategies.cpp).
    void createStrategyViews();
    void connectStrategies();
    void onDocumentChanged();
    // `usage`: the chart's and gauge's figures when they were computed already (off the GUI thread),
    // counted the way the window counts now. `keptMessages`: a live update's first messages that are
    // those shown now (the transcript view then changes only the rows after them).
    void showTranscript(std::shared_ptr<const Transcript> transcript, bool analyzeNow, std::optional<UsageData> usage = {},
                        std::size_t keptMessages = 0);
    void updateTranscriptActions();
    void updateStrategyInputs();
    void updateTitle();

    LoadController *m_loader;
    TranscriptPanel *m_transcriptPanel;
    DetailPane *m_detail;
    DiagnosticsPanel *m_diagnostics;
    StatusPanel *m_status;
    ContextGauge *m_gauge;
    UsageChart *m_chart;
    QDockWidget *m_usageDock;
    AnalysisController *m_analyzer;
    ContextMap *m_map;
    AnalysisPanel *m_analysisPanel;
    QDockWidget *m_analysisDock;
    CompositionPanel *m_compositionPanel = nullptr;
    QDockWidget *m_compositionDock = nullptr;
    AuditPanel *m_auditPanel = nullptr;
    QDockWidget *m_auditDock = nullptr;
    TimelineView *m_timelineView = nullptr;
    QDockWidget *m_timelineDock = nullptr;
    SessionBrowser *m_sessionBrowser = nullptr;
    QDockWidget *m_sessionsDock = nullptr;
    RequestList *m_requestList = nullptr;
    QDockWidget *m_requestsDock = nullptr;
    struct ReportOutcome {
        bool ok = false;
        QString error;
    };
    BackgroundJob<ReportOutcome> m_reportJob{this};
    std::shared_ptr<const cl::analysis::Analysis> m_analysis;
    TranscriptDocument *m_doc;
    QTabWidget *m_tabs = nullptr;
    StrategyPanel *m_strategyPanel = nullptr;
    QDockWidget *m_strategyDock = nullptr;
    PreviewView *m_preview = nullptr;
    CompareView *m_compare = nullptr;
    SimulationView *m_simulate = nullptr;
    OperationsDialog *m_ops = nullptr;
    std::vector<std::size_t> m_pinned;
    bool m_applying = false; // a load is being applied: the gauge's window change is not a user's
    RecentFiles *m_recent = nullptr;
    QActionGroup *m_themeGroup = nullptr;
    QActionGroup *m_tokenCountGroup = nullptr;
    QList<QAction *> m_needsTranscript; // off while no transcript is open
    std::shared_ptr<const Transcript> m_transcript;
    std::shared_ptr<cl::strategy::TranscriptTables> m_tables;
    // The tables of the last few transcripts shown (undo and redo find theirs ready).
    std::vector<std::pair<std::weak_ptr<const Transcript>, std::shared_ptr<cl::strategy::TranscriptTables>>> m_tableCache;
    std::shared_ptr<cl::strategy::TranscriptTables> tablesFor(const std::shared_ptr<const Transcript> &transcript);
    QString m_path;
    QString m_lastError;
    std::optional<Format> m_format;
    bool m_showErrorDialogs = true;
    bool m_layoutSized = false; // the docks were sized to the window, or a saved layout restored
    // The start page has the window to itself: the docks are put away (their state kept) until a
    // transcript opens.
    QByteArray m_dockState;
    bool m_docksParked = false;
    LiveWatch *m_live = nullptr;
    QLabel *m_liveLabel = nullptr;
    QString m_liveFailure;
    QString m_liveLast;         // what the last update brought, "+7 at 10:42:31"
    std::int64_t m_liveNew = 0; // messages the agent added while the working transcript had edits
    bool m_liveNear = false;
    QSystemTrayIcon *m_liveTray = nullptr; // made for the first notification, where the desktop has a tray
    bool m_liveActive = false;             // a recent file in an agent's folder, or one that grew since opened
    UndoneBanner *m_undoneBanner = nullptr;
    NoticeBar *m_notice = nullptr;
    StartPage *m_start = nullptr;      // shown while no transcript is open
    QStackedWidget *m_pages = nullptr; // the start page, or the tabs
    nlohmann::json m_undoneStrategies; // the strategies of the last undone compaction shown
};

} // namespace cl::gui
