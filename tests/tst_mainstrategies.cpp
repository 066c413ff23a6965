// SPDX-License-Identifier: MIT
// The strategy workflow in the real main window, offscreen: preview a strategy, apply it, undo and
// redo through the Edit menu's actions, pin a message, compare with and without triggers, and export
// the compacted session so that it reloads with the compaction visible.
#include "core/io/export.h"
#include "core/report/report.h"
#include "core/generator/generator.h"
#include "core/io/loader.h"
#include "core/strategy/tables.h"
#include "core/strategies/registry.h"
#include "widgets/strategy/compareview.h"
#include "widgets/mainwindow/backupsdialog.h"
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/strategy/paramform.h"
#include "widgets/models/transcriptmodel.h"
#include "widgets/models/resultmodel.h"
#include "widgets/strategy/previewview.h"
#include "widgets/strategy/strategypanel.h"
#include "widgets/transcript/contextgauge.h"
#include "widgets/transcript/transcriptdocument.h"
#include "widgets/transcript/transcriptpanel.h"

#include <QCheckBox>
#include <QDockWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QTreeView>
#include <QUndoStack>
#include <QtTest>

using namespace cl;
using namespace cl::gui;

namespace {

QAction *menuAction(QMainWindow &w, const QString &menu, const QString &text)
{
    for (QAction *top : w.menuBar()->actions())
        if (top->text().remove(QLatin1Char('&')) == menu && top->menu())
            for (QAction *a : top->menu()->actions())
                if (a->text().remove(QLatin1Char('&')).startsWith(text))
                    return a;
    return nullptr;
}

std::size_t conversationCount(const Transcript &t)
{
    std::size_t n = 0;
    for (const auto &m : t.messages)
        n += m.isConversation() && !m.sidechain ? 1 : 0;
    return n;
}

} // namespace

class TestMainStrategies : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void previewApplyUndoRedo();
    void pinningReachesTheStrategies();
    void compareWithAndWithoutTriggers();
    void exportReloadsWithCompaction();
    void tablesPreparedInTheBackground();
    void closingAsksBeforeLosingAppliedWork();
    void layoutIsRemembered();
    void saveInPlaceBackupAndRestore();
    void handEditsAreUndoSteps();
    void exportReportAndMarkdown();

private:
    QTemporaryDir m_dir;
    QString m_file;
};

void TestMainStrategies::initTestCase()
{
    QVERIFY(m_dir.isValid());
    gen::Options o;
    o.format = Format::ClaudeCode;
    o.messages = 160;
    o.seed = 21;
    o.maxReadLines = 80;
    std::string err;
    const std::string bytes = gen::generate(o, nullptr, &err);
    QVERIFY2(!bytes.empty(), err.c_str());
    m_file = m_dir.filePath(QStringLiteral("session.jsonl"));
    QFile f(m_file);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes.data(), qint64(bytes.size()));
}

void TestMainStrategies::previewApplyUndoRedo()
{
    MainWindow w;
    w.setShowErrorDialogs(false);
    w.resize(1400, 900);
    w.show();
    QVERIFY(w.openFileNow(m_file));
    const auto original = w.transcript();
    const std::size_t before = conversationCount(*original);

    StrategyPanel *panel = w.strategyPanel();
    QVERIFY(panel->setCurrentStrategy(QStringLiteral("trim-tools")));
    QSignalSpy ready(panel, &StrategyPanel::previewReady);
    QAction *preview = menuAction(w, QStringLiteral("Strategies"), QStringLiteral("Preview"));
    QVERIFY(preview);
    preview->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 30000);
    QCOMPARE(w.centralTabs()->currentWidget(), static_cast<QWidget *>(w.previewView()));
    const auto result = panel->preview();
    QVERIFY(result && result->changed);
    const std::size_t expected = result->stats.messagesAfter;
    QVERIFY(expected < before);

    QAction *apply = menuAction(w, QStringLiteral("Strategies"), QStringLiteral("Apply"));
    QVERIFY(apply);
    apply->trigger();
    QCOMPARE(conversationCount(*w.transcript()), expected);
    QCOMPARE(w.transcriptPanel()->model()->rowCount(), int(w.transcript()->messages.size()));
    QVERIFY(w.document()->isModified());
    QVERIFY(w.windowTitle().contains(QStringLiteral("compacted")));

    QAction *undo = menuAction(w, QStringLiteral("Edit"), QStringLiteral("Undo"));
    QAction *redo = menuAction(w, QStringLiteral("Edit"), QStringLiteral("Redo"));
    QVERIFY(undo && redo);
    undo->trigger();
    QCOMPARE(w.transcript(), original);
    QCOMPARE(conversationCount(*w.transcript()), before);
    QVERIFY(!w.document()->isModified());
    redo->trigger();
    QCOMPARE(conversationCount(*w.transcript()), expected);

    // A second strategy stacks on the first; two undos return to the file.
    QVERIFY(panel->setCurrentStrategy(QStringLiteral("snip-seed004")));
    QTRY_VERIFY_WITH_TIMEOUT(panel->transcript() == w.transcript(), 10000);
    ready.clear();
    preview->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 30000);
    if (panel->preview()->changed) {
        apply->trigger();
        QCOMPARE(w.document()->undoStack()->count(), 2);
        undo->trigger();
    }
    undo->trigger();
    QCOMPARE(w.transcript(), original);
}

void TestMainStrategies::pinningReachesTheStrategies()
{
    MainWindow w;
    w.setShowErrorDialogs(false);
    w.show();
    QVERIFY(w.openFileNow(m_file));
    const QModelIndex row = w.transcriptPanel()->model()->indexForMessage(5);
    w.transcriptPanel()->selectSourceIndex(row);
    QAction *pin = menuAction(w, QStringLiteral("Edit"), QStringLiteral("Pin"));
    QVERIFY(pin);
    pin->trigger();
    QCOMPARE(w.pinned(), std::vector<std::size_t>{5});
    QCOMPARE(w.strategyPanel()->pinned(), std::vector<std::size_t>{5});
    pin->trigger();
    QVERIFY(w.pinned().empty());
    QVERIFY(w.strategyPanel()->pinned().empty());
}

void TestMainStrategies::compareWithAndWithoutTriggers()
{
    MainWindow w;
    w.setShowErrorDialogs(false);
    w.show();
    QVERIFY(w.openFileNow(m_file));
    CompareView *cmp = w.compareView();
    QSignalSpy done(cmp, &CompareView::finished);
    QAction *compareAll = menuAction(w, QStringLiteral("Strategies"), QStringLiteral("Compare"));
    QVERIFY(compareAll);
    compareAll->trigger();
    QCOMPARE(w.centralTabs()->currentWidget(), static_cast<QWidget *>(cmp));
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 120000);
    auto changed = [&] {
        std::size_t n = 0;
        for (const auto &r : cmp->rows())
            n += r.result.changed ? 1 : 0;
        return n;
    };
    const std::size_t plain = changed();
    QCOMPARE(cmp->rows().size(), strategy::all().size());
    cmp->forceTriggers()->setChecked(true);
    cmp->runAll();
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 2, 120000);
    // A small session is below most triggers; forcing them makes (many) more strategies act.
    QVERIFY2(changed() > plain, qPrintable(QStringLiteral("%1 vs %2").arg(changed()).arg(plain)));
    for (const auto &r : cmp->rows())
        QVERIFY2(r.result.violations.empty(), r.strategy.c_str());
}

namespace {

// Clicks `button` of the message box the window is about to show (close() runs it modally).
void answerNextQuestion(QMessageBox::StandardButton button)
{
    QTimer::singleShot(0, [button] {
        auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
        QVERIFY(box);
        QVERIFY(box->grab().save(QStringLiteral(CL_BINARY_DIR "/close-question.png")));
        box->button(button)->click();
    });
}

} // namespace

void TestMainStrategies::closingAsksBeforeLosingAppliedWork()
{
    MainWindow w;
    w.setShowErrorDialogs(false);
    w.show();
    QVERIFY(w.openFileNow(m_file));
    QVERIFY(w.close()); // nothing applied: closes without a question
    w.show();
    StrategyPanel *panel = w.strategyPanel();
    QVERIFY(panel->setCurrentStrategy(QStringLiteral("trim-tools")));
    QSignalSpy ready(panel, &StrategyPanel::previewReady);
    panel->runPreview();
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 30000);
    QVERIFY(panel->preview()->changed);
    panel->requestApply();
    QVERIFY(w.document()->isModified());
    answerNextQuestion(QMessageBox::Cancel);
    QVERIFY(!w.close());
    QVERIFY(w.isVisible());
    answerNextQuestion(QMessageBox::Discard);
    QVERIFY(w.close());
    // Exported work is not lost: no question.
    w.show();
    QVERIFY(w.document()->isModified());
    QString error;
    QVERIFY2(w.document()->exportTo(m_dir.filePath(QStringLiteral("trimmed.jsonl")), Format::ClaudeCode, &error),
             qPrintable(error));
    QVERIFY(!w.document()->isModified());
    QVERIFY(w.close());
}

void TestMainStrategies::layoutIsRemembered()
{
    QSize size;
    {
        MainWindow w;
        w.resize(1000, 655);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openFileNow(m_file)); // the docks come out with the first transcript
        size = w.size();                // the minimum size may widen it
        w.findChild<QDockWidget *>(QStringLiteral("analysisDock"))->hide();
        QVERIFY(w.close()); // saves the layout
    }
    {
        // Closed on the start page (the docks put away): the docks' layout saved is the one they come back with.
        MainWindow start;
        start.restoreLayout();
        start.show();
        QVERIFY(QTest::qWaitForWindowExposed(&start));
        QVERIFY(!start.findChild<QDockWidget *>(QStringLiteral("usageDock"))->isVisible());
        QVERIFY(start.close());
    }
    MainWindow again;
    again.restoreLayout();
    again.show();
    QVERIFY(QTest::qWaitForWindowExposed(&again));
    QVERIFY(again.openFileNow(m_file));
    QVERIFY(!again.findChild<QDockWidget *>(QStringLiteral("analysisDock"))->isVisible());
    QVERIFY(again.findChild<QDockWidget *>(QStringLiteral("usageDock"))->isVisible());
    // The height is compared: Qt 6.8 fits a restored window's width into the offscreen platform's
    // 800-pixel screen (then the minimum width wins), Qt 6.4 does not.
    QCOMPARE(again.height(), size.height());
    MainWindow fresh;
    fresh.show();
    QVERIFY(QTest::qWaitForWindowExposed(&fresh));
    QVERIFY(fresh.height() != size.height()); // so the height above was restored, not a default
}

void TestMainStrategies::exportReloadsWithCompaction()
{
    MainWindow w;
    w.setShowErrorDialogs(false);
    w.show();
    QVERIFY(w.openFileNow(m_file));
    StrategyPanel *panel = w.strategyPanel();
    QVERIFY(panel->setCurrentStrategy(QStringLiteral("claude-code-compact")));
    QVERIFY(panel->paramForm());
    QSignalSpy ready(panel, &StrategyPanel::previewReady);
    panel->paramForm()->setValues({{"force", true}});
    panel->runPreview();
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 30000);
    QVERIFY(panel->preview()->changed);
    panel->requestApply();
    QVERIFY(w.document()->isModified());

    const QString out = m_dir.filePath(QStringLiteral("compacted.jsonl"));
    QString error;
    QVERIFY2(w.document()->exportTo(out, Format::ClaudeCode, &error), qPrintable(error));
    QVERIFY(!w.document()->exportTo(m_file, Format::ClaudeCode, &error)); // never over the input unasked
    QFile f(out);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray bytes = f.readAll();
    QFile in(m_file);
    QVERIFY(in.open(QIODevice::ReadOnly));
    QVERIFY(bytes.startsWith(in.readAll())); // the file never shrinks: the old lines stay as they were
    LoadOptions lo;
    auto back = loadBytes(bytes.toStdString(), out.toStdString(), lo);
    QVERIFY(back.transcript);
    const auto &msgs = back.transcript->messages;
    std::size_t boundary = msgs.size();
    for (std::size_t i = 0; i < msgs.size(); ++i)
        if (msgs[i].kind == MessageKind::CompactBoundary)
            boundary = i;
    QVERIFY2(boundary < msgs.size(), "no compact boundary after reload");
    bool summary = false;
    for (std::size_t i = boundary + 1; i < msgs.size(); ++i)
        summary = summary || msgs[i].kind == MessageKind::CompactSummary;
    QVERIFY(summary);
    for (const auto &d : back.transcript->diagnostics)
        QVERIFY2(d.severity != Diagnostic::Severity::Error, d.message.c_str());
}

// The strategies' tables are one object per transcript, shared by the preview and compare views
// and built in the background after the load and after an apply; undo finds the loaded ones again.
void TestMainStrategies::tablesPreparedInTheBackground()
{
    MainWindow w;
    w.setShowErrorDialogs(false);
    w.show();
    QVERIFY(w.openFileNow(m_file));
    const auto loaded = w.strategyTables();
    QVERIFY(loaded);
    QCOMPARE(w.strategyPanel()->tables(), loaded);
    QCOMPARE(w.compareView()->tables(), loaded);
    QTRY_VERIFY_WITH_TIMEOUT(loaded->prepared(*w.transcript()), 30000);

    StrategyPanel *panel = w.strategyPanel();
    QVERIFY(panel->setCurrentStrategy(QStringLiteral("trim-tools")));
    QSignalSpy ready(panel, &StrategyPanel::previewReady);
    menuAction(w, QStringLiteral("Strategies"), QStringLiteral("Preview"))->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 30000);
    QCOMPARE(panel->tables(), loaded); // the preview used them, it did not build its own
    menuAction(w, QStringLiteral("Strategies"), QStringLiteral("Apply"))->trigger();
    const auto applied = w.strategyTables();
    QVERIFY(applied != loaded);
    QCOMPARE(w.strategyPanel()->tables(), applied);
    QCOMPARE(w.compareView()->tables(), applied);
    QTRY_VERIFY_WITH_TIMEOUT(applied->prepared(*w.transcript()), 30000);
    menuAction(w, QStringLiteral("Edit"), QStringLiteral("Undo"))->trigger();
    QCOMPARE(w.strategyTables(), loaded);
    QCOMPARE(w.compareView()->tables(), loaded);
    QVERIFY(loaded->prepared(*w.transcript()));
    menuAction(w, QStringLiteral("Edit"), QStringLiteral("Redo"))->trigger();
    QCOMPARE(w.strategyTables(), applied);
}

QTEST_MAIN(TestMainStrategies)
// File › Save writes the compacted session over its file after a backup and reloads it; a file the
// agent appended to meanwhile is refused and left as it is; File › Backups… restores the original
// byte for byte.
void TestMainStrategies::saveInPlaceBackupAndRestore()
{
    const QString file = m_dir.filePath(QStringLiteral("save-me.jsonl"));
    QFile::remove(file);
    QVERIFY(QFile::copy(m_file, file));
    QFile in(file);
    QVERIFY(in.open(QIODevice::ReadOnly));
    const QByteArray original = in.readAll();
    in.close();
    MainWindow w;
    w.setShowErrorDialogs(false);
    w.resize(1200, 800);
    w.show();
    const QString root = m_dir.filePath(QStringLiteral("backups"));
    w.document()->setBackupRoot(root);
    QVERIFY(w.openFileNow(file));
    QAction *save = menuAction(w, QStringLiteral("File"), QStringLiteral("Save"));
    QVERIFY(save && !save->isEnabled()); // nothing applied yet
    auto applyTrim = [&] {
        StrategyPanel *panel = w.strategyPanel();
        QVERIFY(panel->setCurrentStrategy(QStringLiteral("trim-tools")));
        QSignalSpy ready(panel, &StrategyPanel::previewReady);
        panel->runPreview();
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 30000);
        menuAction(w, QStringLiteral("Strategies"), QStringLiteral("Apply"))->trigger();
        QVERIFY(w.document()->isModified());
    };
    applyTrim();
    const std::size_t expected = conversationCount(*w.transcript());
    QVERIFY(save->isEnabled());

    // The agent appends a line: Save refuses, the file keeps the agent's line.
    QVERIFY(in.open(QIODevice::Append));
    in.write("{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"late\"},\"uuid\":\"u-late\"}\n");
    in.close();
    QVERIFY(in.open(QIODevice::ReadOnly));
    const QByteArray grown = in.readAll();
    in.close();
    QVERIFY(!w.saveInPlace());
    QVERIFY2(w.lastError().contains(QStringLiteral("grew")), qPrintable(w.lastError()));
    QVERIFY(in.open(QIODevice::ReadOnly));
    QCOMPARE(in.readAll(), grown);
    in.close();

    // Back to the original bytes, reloaded: Save writes, keeps a backup and reloads what it wrote.
    QVERIFY(in.open(QIODevice::WriteOnly | QIODevice::Truncate));
    in.write(original);
    in.close();
    QSignalSpy loaded(&w, &MainWindow::loadFinished);
    QVERIFY(w.openFileNow(file));
    applyTrim();
    loaded.clear();
    save->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
    QVERIFY(!w.document()->isModified());
    QCOMPARE(conversationCount(*w.transcript()), expected); // the live context that was saved
    QVERIFY(in.open(QIODevice::ReadOnly));
    QVERIFY(in.readAll().startsWith(original)); // a Claude Code session grows by a compaction
    in.close();

    // File › Backups…: the one backup is the original; restoring it puts those bytes back.
    BackupsDialog dialog(file, root);
    dialog.setConfirm(false);
    QCOMPARE(dialog.list()->topLevelItemCount(), 1);
    QSignalSpy restored(&dialog, &BackupsDialog::restored);
    QString error;
    QVERIFY2(dialog.restoreSelected(&error), qPrintable(error));
    QCOMPARE(restored.count(), 1);
    QVERIFY(in.open(QIODevice::ReadOnly));
    QCOMPARE(in.readAll(), original);
    in.close();
    QCOMPARE(dialog.list()->topLevelItemCount(), 2); // what the file held became a backup
    dialog.show();
    QVERIFY(dialog.grab().save(QStringLiteral(CL_BINARY_DIR "/backups-dialog.png")));
}

// Selected messages removed (Edit › Remove Messages, Delete in the tree) or their results replaced by a
// note: one undo step each, shown in the Preview tab with their fates.
void TestMainStrategies::handEditsAreUndoSteps()
{
    MainWindow w;
    w.setShowErrorDialogs(false);
    w.resize(1200, 800);
    w.show();
    QVERIFY(w.openFileNow(m_file));
    const auto original = w.transcript();
    const Transcript &t = *original;
    // Two user requests, selected in the tree.
    std::vector<int> chosen;
    for (std::size_t i = 0; i < t.messages.size() && chosen.size() < 2; ++i)
        if (t.messages[i].isConversation() && t.messages[i].role == Role::User && t.messages[i].blocks.front().type == BlockType::Text)
            chosen.push_back(int(i));
    QCOMPARE(chosen.size(), std::size_t(2));
    QTreeView *tree = w.transcriptPanel()->view();
    auto *filter = tree->model();
    tree->selectionModel()->clearSelection();
    for (int i : chosen) {
        const QModelIndex source = w.transcriptPanel()->model()->index(i, 0);
        const QModelIndex shown = qobject_cast<QSortFilterProxyModel *>(filter)->mapFromSource(source);
        tree->selectionModel()->select(shown, QItemSelectionModel::Select | QItemSelectionModel::Rows);
    }
    QCOMPARE(w.selectedMessages(), (QList<int>{chosen[0], chosen[1]}));
    const std::size_t before = conversationCount(t);
    // Delete in the tree removes them.
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    tree->setFocus();
    QTest::keyClick(tree, Qt::Key_Delete);
    QCOMPARE(conversationCount(*w.transcript()), before - 2);
    QVERIFY(w.document()->isModified());
    QVERIFY(w.previewView()->resultModel()->rowCount() > 0);
    QVERIFY(w.previewView()->statsText().contains(QStringLiteral("Hand edit")) || w.previewView()->detailsText().contains(QStringLiteral("removed 2")));
    w.showPreviewTab();
    QVERIFY(w.grab().save(QStringLiteral(CL_BINARY_DIR "/hand-edit-preview.png")));
    QAction *undo = menuAction(w, QStringLiteral("Edit"), QStringLiteral("Undo"));
    QVERIFY(undo->text().contains(QStringLiteral("Remove 2")));
    undo->trigger();
    QCOMPARE(w.transcript(), original);

    // Replace the results of a tool call's message by a note.
    int call = -1;
    for (std::size_t i = 0; i < t.messages.size() && call < 0; ++i)
        for (const Block &b : t.messages[i].blocks)
            if (b.type == BlockType::ToolUse && b.pairMessage >= 0 && t.messages[i].isConversation())
                call = int(i);
    QVERIFY(call >= 0);
    QVERIFY(w.applyHandEdit({call}, false, QStringLiteral("read earlier; not needed")));
    bool replaced = false;
    for (const Message &m : w.transcript()->messages)
        for (const Block &b : m.blocks)
            replaced = replaced || (b.type == BlockType::ToolResult && b.text.find("read earlier; not needed") != std::string::npos);
    QVERIFY(replaced);
    QCOMPARE(conversationCount(*w.transcript()), before);
    undo->trigger();
    QCOMPARE(w.transcript(), original);
}

// File › Export Report… writes the engine's report in the background; Export as Markdown writes the
// working transcript; neither writes over the open file.
void TestMainStrategies::exportReportAndMarkdown()
{
    MainWindow w;
    w.setShowErrorDialogs(false);
    w.resize(1200, 800);
    w.show();
    QVERIFY(w.openFileNow(m_file));
    const QString html = m_dir.filePath(QStringLiteral("report.html"));
    QSignalSpy written(&w, &MainWindow::reportWritten);
    QString error;
    QVERIFY2(w.exportReportTo(html, &error), qPrintable(error));
    QVERIFY(written.wait(120000));
    QFile f(html);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray page = f.readAll();
    f.close();
    report::ReportOptions o;
    o.contextWindow = w.contextGauge()->contextWindow();
    o.title = QFileInfo(m_file).fileName().toStdString();
    QCOMPARE(page, QByteArray::fromStdString(report::htmlReport(*w.transcript(), o)));
    QVERIFY(!w.exportReportTo(m_file, &error));
    QVERIFY(error.contains(QStringLiteral("open transcript")));
    QVERIFY(!w.exportReportTo(m_dir.filePath(QStringLiteral("report.txt")), &error));

    const QString md = m_dir.filePath(QStringLiteral("session.md"));
    QVERIFY2(w.exportMarkdownTo(md, &error), qPrintable(error));
    QFile m(md);
    QVERIFY(m.open(QIODevice::ReadOnly));
    QCOMPARE(m.readAll(), QByteArray::fromStdString(report::markdownTranscript(*w.document()->current())));
}

#include "tst_mainstrategies.moc"
