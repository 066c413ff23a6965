// SPDX-License-Identifier: MIT
// Menus, shortcuts and the open dialog of the main window.
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/mainwindow/shortcutsdialog.h"
#include "widgets/models/tokencount.h"
#include "widgets/models/filenames.h"

#include "config-contextlens.h"
#include "widgets/analysis/contextmap.h"
#include "widgets/transcript/detailpane.h"
#include "widgets/mainwindow/diagnosticspanel.h"
#include "widgets/mainwindow/loadcontroller.h"
#include "widgets/mainwindow/recentfiles.h"
#include "widgets/mainwindow/agentsetupdialog.h"
#include "widgets/mainwindow/recorddialog.h"
#include "widgets/mainwindow/savegate.h"
#include "widgets/transcript/transcriptdocument.h"
#include "widgets/transcript/transcriptpanel.h"
#include "widgets/strategy/compareview.h"
#include "widgets/strategy/operationsdialog.h"
#include "widgets/strategy/simulationview.h"
#include "widgets/strategy/strategypanel.h"

#include <QActionGroup>
#include <QDockWidget>
#include <QApplication>
#include <QFileDialog>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QDialog>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSettings>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>
#include <QStatusBar>
#include <QTabWidget>
#include <QTreeView>
#include <QUndoStack>

// The built-in files (resources/contextlens.qrc) live in the widgets library too: registered
// here, as a static library's resources are not by themselves (outside any namespace).
static void initResources()
{
    Q_INIT_RESOURCE(contextlens);
}

namespace cl::gui {

namespace {
const QString kAutoDetect = QStringLiteral("Auto-detect (*)");

QString filterFor(Format f)
{
    const std::string_view n = formatName(f);
    return QString::fromLatin1(n.data(), qsizetype(n.size())) + QStringLiteral(" (*.jsonl *.json)");
}

// A dock's View action and shortcut: show a closed dock, bring one tabbed behind another to the
// front, close the one in front (the plain toggle would close a dock the user cannot see).
void raiseOrToggle(QMainWindow *window, QDockWidget *dock)
{
    QAction *a = dock->toggleViewAction();
    QObject::disconnect(a, &QAction::triggered, dock, nullptr);
    QObject::connect(a, &QAction::triggered, dock, [window, dock, a] {
        const bool behind = !dock->isHidden() && !dock->isFloating() && !window->tabifiedDockWidgets(dock).isEmpty()
                            && dock->visibleRegion().isEmpty();
        if (dock->isHidden() || behind) {
            dock->show();
            dock->raise();
        } else {
            dock->close();
        }
        a->setChecked(!dock->isHidden());
    });
}
} // namespace

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open…"), QKeySequence::Open, this, &MainWindow::showOpenDialog);
    QMenu *recentMenu = file->addMenu(tr("Open &Recent"));
    m_recent = new RecentFiles(recentMenu, this);
    connect(m_recent, &RecentFiles::fileChosen, this, [this](const QString &path) { openFile(path); });
    // Actions that act on the open transcript: off while there is none (updateTranscriptActions).
    const auto needs = [this](QAction *a) {
        m_needsTranscript << a;
        return a;
    };
    needs(file->addAction(tr("Re&load"), QKeySequence(Qt::Key_F5), this, &MainWindow::reload));
    QAction *save = file->addAction(tr("&Save"), QKeySequence::Save, this, [this] { saveInPlace(); });
    save->setObjectName(QStringLiteral("saveAction"));
    // Enabled when something was applied and no agent is running the session (savegate.h).
    auto *gate = new SaveGate(save, m_doc, this);
    connect(gate, &SaveGate::runningChanged, this, [this](const QString &reason) {
        tell(reason.isEmpty() ? tr("No agent is running this session any more: Save is on again") : tr("Save is off: %1").arg(reason));
    });
    needs(file->addAction(tr("&Export…"), QKeySequence(Qt::CTRL | Qt::Key_E), this, &MainWindow::exportDialog));
    needs(file->addAction(tr("Export &Report…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R), this, &MainWindow::exportReportDialog));
    needs(file->addAction(tr("Export as &Markdown…"), this, &MainWindow::exportMarkdownDialog));
    needs(file->addAction(tr("&Backups…"), this, &MainWindow::showBackups))->setObjectName(QStringLiteral("backupsAction"));
    QAction *record = file->addAction(tr("Record an &Agent…"), this, [this] {
        // One recording at a time: the open dialog comes back to the front.
        auto *dialog = findChild<RecordDialog *>(QString(), Qt::FindDirectChildrenOnly);
        if (!dialog) {
            dialog = new RecordDialog(this);
            connect(dialog, &RecordDialog::openRequested, this, [this](const QString &path) { openFile(path); });
        }
        dialog->show();
        dialog->raise();
        dialog->activateWindow();
    });
    record->setObjectName(QStringLiteral("recordAction"));
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence(Qt::CTRL | Qt::Key_Q), this, &QWidget::close);

    QMenu *edit = menuBar()->addMenu(tr("&Edit"));
    QAction *undo = m_doc->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    edit->addAction(undo);
    QAction *redo = m_doc->undoStack()->createRedoAction(this, tr("&Redo"));
    // The platform's redo keys plus both common ones, each once: a key listed twice is ambiguous to
    // Qt and does nothing.
    QList<QKeySequence> redoKeys = QKeySequence::keyBindings(QKeySequence::Redo);
    for (const QKeySequence &k : {QKeySequence(Qt::CTRL | Qt::Key_Y), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z)})
        if (!redoKeys.contains(k))
            redoKeys << k;
    redo->setShortcuts(redoKeys);
    edit->addAction(redo);
    edit->addSeparator();
    needs(edit->addAction(tr("&Filter…"), QKeySequence(Qt::CTRL | Qt::Key_F), m_transcriptPanel, &TranscriptPanel::focusFilter));
    needs(edit->addAction(tr("&Pin / Unpin Message"), QKeySequence(Qt::CTRL | Qt::Key_B), this, &MainWindow::togglePinSelected));
    QAction *remove = needs(edit->addAction(tr("&Remove Messages"), QKeySequence::Delete, this, &MainWindow::removeSelectedMessages));
    remove->setShortcutContext(Qt::WidgetWithChildrenShortcut); // the transcript view's Delete, not a line edit's
    m_transcriptPanel->view()->addAction(remove);
    QAction *replace = needs(edit->addAction(tr("Replace Tool Results by a &Note…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_N),
                                             this, &MainWindow::replaceSelectedResults));
    // The transcript's context menu: the same edits.
    QTreeView *tree = m_transcriptPanel->view();
    tree->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(tree, &QWidget::customContextMenuRequested, this, [this, tree, remove, replace](const QPoint &at) {
        QMenu menu(this);
        menu.addAction(tr("Pin / Unpin Message"), this, &MainWindow::togglePinSelected);
        menu.addSeparator();
        menu.addAction(remove);
        menu.addAction(replace);
        menu.exec(tree->viewport()->mapToGlobal(at));
    });

    QMenu *strategies = menuBar()->addMenu(tr("&Strategies"));
    needs(strategies->addAction(tr("&Preview"), QKeySequence(Qt::CTRL | Qt::Key_P), this, [this] {
        m_strategyDock->show();
        m_strategyDock->raise();
        m_strategyPanel->runPreview();
    }));
    needs(strategies->addAction(tr("&Apply Preview"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Return), m_strategyPanel,
                                &StrategyPanel::requestApply));
    needs(strategies->addAction(tr("&Compare All"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C), this, [this] {
        showCompareTab();
        m_compare->runAll();
    }));
    // Ctrl+Shift+S is the System theme; T for "turns".
    needs(strategies->addAction(tr("&Simulate…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T), this, [this] {
        showSimulateTab();
        // A fresh tab runs at once; with a result on screen the user re-runs after changing settings.
        if (!m_simulate->hasResult() && !m_simulate->isRunning() && m_transcript)
            m_simulate->run();
    }));
    strategies->addSeparator();
    needs(strategies->addAction(tr("Compression &Operations…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O), this, [this] {
        OperationsDialog *d = operationsDialog();
        d->refresh();
        d->show();
        d->raise();
    }));
    updateTranscriptActions();

    QMenu *view = menuBar()->addMenu(tr("&View"));
    QAction *whole = view->addAction(tr("&Whole History (Ignore Compactions)"));
    whole->setObjectName(QStringLiteral("wholeHistoryAction"));
    whole->setCheckable(true);
    whole->setChecked(LoadController::wholeHistory());
    whole->setToolTip(tr("Count every message, also the history before the last compaction that the model no longer sees"));
    connect(whole, &QAction::toggled, this, [this](bool on) {
        LoadController::setWholeHistory(on);
        reload();
    });
    QAction *follow = view->addAction(tr("&Follow Live Session"));
    follow->setObjectName(QStringLiteral("followLiveAction"));
    follow->setCheckable(true);
    follow->setChecked(followLive());
    follow->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_L));
    follow->setToolTip(tr("Show what the agent appends to the open session as it writes it, and when it will compact"));
    connect(follow, &QAction::toggled, this, &MainWindow::setFollowLive);
    view->addSeparator();
    QAction *raw = view->addAction(tr("&Raw JSON"));
    raw->setCheckable(true);
    raw->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    connect(raw, &QAction::toggled, m_detail, &DetailPane::setRawMode);
    QAction *diag = m_diagnostics->toggleViewAction();
    raiseOrToggle(this, m_diagnostics);
    diag->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    view->addAction(diag);
    QAction *usage = m_usageDock->toggleViewAction();
    raiseOrToggle(this, m_usageDock);
    usage->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_U));
    view->addAction(usage);
    QAction *analysis = m_analysisDock->toggleViewAction();
    raiseOrToggle(this, m_analysisDock);
    analysis->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A));
    view->addAction(analysis);
    QAction *composition = m_compositionDock->toggleViewAction();
    raiseOrToggle(this, m_compositionDock);
    composition->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K));
    view->addAction(composition);
    QAction *audit = m_auditDock->toggleViewAction();
    raiseOrToggle(this, m_auditDock);
    audit->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Y));
    view->addAction(audit);
    QAction *timeline = m_timelineDock->toggleViewAction();
    raiseOrToggle(this, m_timelineDock);
    timeline->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_W));
    view->addAction(timeline);
    QAction *sessionsAction = m_sessionsDock->toggleViewAction();
    raiseOrToggle(this, m_sessionsDock);
    sessionsAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_B));
    view->addAction(sessionsAction);
    QAction *requestsAction = m_requestsDock->toggleViewAction();
    raiseOrToggle(this, m_requestsDock);
    requestsAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    requestsAction->setToolTip(tr("The requests of the recording the shown request belongs to"));
    view->addAction(requestsAction);
    QAction *strategyDock = m_strategyDock->toggleViewAction();
    raiseOrToggle(this, m_strategyDock);
    strategyDock->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_G));
    view->addAction(strategyDock);
    view->addAction(tr("Show &Transcript"), QKeySequence(Qt::ALT | Qt::Key_1), this, [this] { m_tabs->setCurrentIndex(0); });
    view->addAction(tr("Show Pre&view"), QKeySequence(Qt::ALT | Qt::Key_2), this, &MainWindow::showPreviewTab);
    view->addAction(tr("Show &Compare"), QKeySequence(Qt::ALT | Qt::Key_3), this, &MainWindow::showCompareTab);
    view->addAction(tr("Show &Simulate"), QKeySequence(Qt::ALT | Qt::Key_4), this, &MainWindow::showSimulateTab);
    QAction *map = view->addAction(tr("Context &Map"));
    map->setCheckable(true);
    map->setChecked(true);
    map->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M));
    connect(map, &QAction::toggled, m_map, &QWidget::setVisible);
    QMenu *countMenu = view->addMenu(tr("Token &Count"));
    countMenu->setToolTipsVisible(true);
    m_tokenCountGroup = new QActionGroup(this);
    for (tokens::Estimator e : {tokens::Estimator::Calibrated, tokens::Estimator::Exact, tokens::Estimator::Seed}) {
        QAction *a = countMenu->addAction(tokencount::label(e));
        const std::string_view name = tokens::estimatorName(e);
        a->setObjectName(QStringLiteral("tokenCount_") + QString::fromUtf8(name.data(), qsizetype(name.size())));
        a->setToolTip(tokencount::tooltip(e));
        a->setCheckable(true);
        a->setChecked(e == tokencount::chosen());
        a->setData(int(e));
        m_tokenCountGroup->addAction(a);
        connect(a, &QAction::triggered, this, [this, e] { setTokenCount(e); });
    }
    QMenu *themeMenu = view->addMenu(tr("&Theme"));
    m_themeGroup = new QActionGroup(this);
    const struct {
        theme::Choice choice;
        QString label;
        QKeySequence key;
    } themes[] = {
        {theme::Choice::Light, tr("&Light"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L)},
        {theme::Choice::Dark, tr("&Dark"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D)},
        {theme::Choice::System, tr("&System"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S)},
    };
    const theme::Choice current = theme::saved();
    for (const auto &t : themes) {
        QAction *a = themeMenu->addAction(t.label);
        a->setShortcut(t.key);
        a->setCheckable(true);
        a->setChecked(t.choice == current);
        a->setData(int(t.choice));
        m_themeGroup->addAction(a);
        const theme::Choice choice = t.choice;
        connect(a, &QAction::triggered, this, [this, choice] { setTheme(choice); });
    }

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&User Guide"), QKeySequence(Qt::Key_F1), this, [this] { showUserGuide(); });
    help->addAction(tr("&Keyboard Shortcuts"), QKeySequence(Qt::CTRL | Qt::Key_Slash), this, [this] {
        ShortcutsDialog dialog(menuBar(), this);
        dialog.exec();
    });
    help->addAction(tr("Use ContextLens &Inside an Agent…"), this, [this] {
        AgentSetupDialog dialog(QDir::homePath(), AgentSetupDialog::defaultCommand(), this);
        dialog.exec();
    });
    help->addSeparator();
    help->addAction(tr("&About ContextLens"), this, [this] {
        QMessageBox::about(this, tr("About ContextLens"),
                           tr("ContextLens %1\nSee where an agent's context goes.").arg(QStringLiteral(CONTEXTLENS_VERSION)));
    });
}

void MainWindow::setTheme(theme::Choice choice, bool remember)
{
    theme::apply(choice);
    if (remember)
        theme::save(choice);
    for (QAction *a : m_themeGroup->actions())
        a->setChecked(a->data().toInt() == int(choice));
}

QString MainWindow::openFolder() const
{
    // The folder last opened from, else where the agents keep their sessions (hidden folders a
    // file dialog would not show), else home.
    const QString last = QSettings().value(QStringLiteral("files/openFolder")).toString();
    if (!last.isEmpty() && QFileInfo(last).isDir())
        return last;
    for (const QString &agent : {QStringLiteral(".claude/projects"), QStringLiteral(".codex/sessions"), QStringLiteral(".gemini/tmp"),
                                 QStringLiteral(".qwen/projects"), QStringLiteral(".copilot/session-state")})
        if (const QString dir = QDir::home().filePath(agent); QFileInfo(dir).isDir())
            return dir;
    return QDir::homePath();
}

QDialog *MainWindow::showUserGuide()
{
    // The guide is built in (resources/contextlens.qrc); its screenshots live in docs/ beside it in
    // the source tree, so here each one is named instead of drawn.
    initResources();
    QFile file(QStringLiteral(":/contextlens/user-guide.md"));
    QString text = file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : tr("The user guide is missing from this build.");
    static const QRegularExpression image(QStringLiteral(R"(!\[([^\]]*)\]\([^)]*\))"));
    text.replace(image, QStringLiteral("*(screenshot: \\1)*"));
    auto *dialog = new QDialog(this);
    dialog->setObjectName(QStringLiteral("userGuideDialog"));
    dialog->setWindowTitle(tr("ContextLens User Guide"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    auto *browser = new QTextBrowser(dialog);
    browser->setObjectName(QStringLiteral("userGuide"));
    browser->setOpenExternalLinks(true);
    browser->setMarkdown(text);
    auto *layout = new QVBoxLayout(dialog);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(browser);
    dialog->resize(760, 820);
    dialog->show();
    return dialog;
}

void MainWindow::showOpenDialog()
{
    // The name filter doubles as the format override: "Auto-detect" or one format name.
    QStringList filters{kAutoDetect};
    for (Format f : allFormats())
        filters << filterFor(f);
    QString selected = kAutoDetect;
    // A URL: a native dialog's keeps a file name that is not UTF-8 as it is (filenames::fromUrl).
    const QString path = filenames::fromUrl(QFileDialog::getOpenFileUrl(this, tr("Open transcript"), QUrl::fromLocalFile(openFolder()),
                                                                        filters.join(QStringLiteral(";;")), &selected));
    if (path.isEmpty())
        return;
    QSettings().setValue(QStringLiteral("files/openFolder"), QFileInfo(path).absolutePath());
    std::optional<Format> format;
    for (Format f : allFormats())
        if (selected == filterFor(f))
            format = f;
    openFile(path, format);
}

} // namespace cl::gui
