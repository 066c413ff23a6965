// SPDX-License-Identifier: MIT
// The main window as a daily tool, headless with real widgets on a generated Claude Code session:
// redo keys that work, the title and the close prompt after an export and undo, dock shortcuts that
// bring a tabbed dock to the front, filters that do not follow the user into another file and say so
// when they hide everything, messages numbered from 1 everywhere, no transcript action enabled
// without a transcript, feedback in a notice bar, and reports offered outside the agent's folders.
#include "core/generator/generator.h"
#include "core/io/loader.h"
#include "core/strategies/registry.h"
#include "core/strategy/strategy.h"
#include "widgets/analysis/analysispanel.h"
#include "widgets/analysis/compositionpanel.h"
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/mainwindow/noticebar.h"
#include "widgets/mainwindow/shortcutsdialog.h"
#include "widgets/strategy/changestrip.h"
#include "widgets/strategy/previewview.h"
#include "widgets/models/roles.h"
#include "widgets/models/transcriptmodel.h"
#include "widgets/transcript/detailpane.h"
#include "widgets/models/transcriptfiltermodel.h"
#include "widgets/transcript/transcriptdocument.h"
#include "widgets/transcript/transcriptpanel.h"

#include "test_support.h"

#include <QAction>
#include <QCheckBox>
#include <QDialog>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QToolButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTreeView>
#include <QUndoStack>
#include <QtTest>

#include <functional>
#include <map>

using namespace cl;
using namespace cl::gui;

namespace {
const bool kEnvironment = cl::test::guiEnvironment();

QString writeSession(const QTemporaryDir &dir, const QString &name, std::uint64_t seed)
{
    gen::Options o;
    o.format = Format::ClaudeCode;
    o.messages = 60;
    o.seed = seed;
    std::string err;
    const std::string bytes = gen::generate(o, nullptr, &err);
    const QString path = dir.filePath(name);
    QFile f(path);
    if (bytes.empty() || !f.open(QIODevice::WriteOnly))
        return {};
    f.write(bytes.data(), qint64(bytes.size()));
    return path;
}

QAction *menuAction(QMainWindow &w, const QString &menu, const QString &text)
{
    for (QAction *m : w.menuBar()->actions())
        if (m->text().remove(QLatin1Char('&')) == menu && m->menu())
            for (QAction *a : m->menu()->actions())
                if (a->text().remove(QLatin1Char('&')).startsWith(text))
                    return a;
    return nullptr;
}

// trim-tools on the document's working transcript, applied as one undo step.
bool applyTrim(TranscriptDocument &doc)
{
    const strategy::Strategy *s = strategy::find("trim-tools");
    if (!s || !doc.current())
        return false;
    const strategy::Input in(*doc.current());
    std::string error;
    const strategy::Result r = strategy::run(*s, in, nlohmann::json::object(), {}, &error);
    return r.changed && doc.apply(r);
}
} // namespace

class TestDailyDriver : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_first = writeSession(m_dir, QStringLiteral("first.jsonl"), 7);
        m_second = writeSession(m_dir, QStringLiteral("second.jsonl"), 8);
        QVERIFY(!m_first.isEmpty() && !m_second.isEmpty());
    }

    // Ctrl+Y and Ctrl+Shift+Z redo; no key is bound to two actions of the window (Qt then runs
    // neither).
    void redoKeysWork()
    {
        MainWindow w;
        w.setShowErrorDialogs(false);
        w.show();
        QVERIFY(w.openFileNow(m_first));
        std::map<QString, QStringList> owners;
        for (QAction *a : w.findChildren<QAction *>())
            for (const QKeySequence &k : a->shortcuts())
                if (a->shortcutContext() == Qt::WindowShortcut)
                    owners[k.toString()] << a->text();
        for (const auto &[key, names] : owners)
            QVERIFY2(names.size() == 1, qPrintable(key + QStringLiteral(": ") + names.join(QStringLiteral(", "))));

        QUndoStack *stack = w.document()->undoStack();
        QVERIFY(applyTrim(*w.document()));
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        for (const QKeyCombination key : {Qt::CTRL | Qt::Key_Y, Qt::CTRL | Qt::SHIFT | Qt::Key_Z}) {
            stack->undo();
            QCOMPARE(stack->index(), 0);
            QTest::keyClick(&w, key.key(), key.keyboardModifiers());
            QCOMPARE(stack->index(), 1);
        }
    }

    // After an export, undoing back to the file loses nothing: no "(compacted)" in the title, no
    // question on closing. A hand edit says "(edited)".
    void undoAfterExportIsNotACompaction()
    {
        MainWindow w;
        w.setShowErrorDialogs(false);
        w.show();
        QVERIFY(w.openFileNow(m_first));
        TranscriptDocument *doc = w.document();
        QVERIFY(applyTrim(*doc));
        QVERIFY(doc->isModified());
        QVERIFY(w.windowTitle().contains(QStringLiteral("(compacted)*")));
        QString error;
        QVERIFY2(doc->exportTo(m_dir.filePath(QStringLiteral("exported.jsonl")), Format::ClaudeCode, &error), qPrintable(error));
        QVERIFY(!doc->isModified());
        QVERIFY(w.windowTitle().contains(QStringLiteral("(compacted)")) && !w.windowTitle().contains(QLatin1Char('*')));
        doc->undoStack()->undo();
        QVERIFY(!doc->isEdited());
        QVERIFY(!doc->isModified()); // closing would not ask
        QVERIFY2(!w.windowTitle().contains(QStringLiteral("compacted")), qPrintable(w.windowTitle()));
        doc->undoStack()->redo();
        QVERIFY(!doc->isModified()); // the exported state again
        QVERIFY(w.windowTitle().contains(QStringLiteral("(compacted)")));

        // A hand edit: "(edited)".
        doc->undoStack()->undo();
        int user = -1;
        const Transcript &t = *w.transcript();
        for (std::size_t i = 0; i < t.messages.size() && user < 0; ++i)
            if (t.messages[i].isConversation() && t.messages[i].role == Role::User && i > 2)
                user = int(i);
        QVERIFY(user > 0);
        QVERIFY(w.applyHandEdit({user}, true, {}));
        QVERIFY2(w.windowTitle().contains(QStringLiteral("(edited)*")), qPrintable(w.windowTitle()));
    }

    // A dock tabbed behind another comes to the front on its shortcut; pressed again, it closes.
    void dockShortcutRaisesATabbedDock()
    {
        MainWindow w;
        w.setShowErrorDialogs(false);
        w.resize(1400, 900);
        w.show();
        QVERIFY(w.openFileNow(m_first));
        QDockWidget *composition = w.findChild<QDockWidget *>(QStringLiteral("compositionDock"));
        QDockWidget *analysis = w.analysisDock();
        QVERIFY(composition && analysis);
        QVERIFY(w.tabifiedDockWidgets(analysis).contains(composition));
        analysis->show();
        composition->show();
        analysis->raise();
        QTRY_VERIFY(!analysis->visibleRegion().isEmpty());
        QTRY_VERIFY(composition->visibleRegion().isEmpty());
        composition->toggleViewAction()->trigger();
        QVERIFY(!composition->isHidden());
        QTRY_VERIFY(!composition->visibleRegion().isEmpty());
        QVERIFY(composition->toggleViewAction()->isChecked());
        composition->toggleViewAction()->trigger(); // in front now: closes
        QVERIFY(composition->isHidden());
        QVERIFY(!composition->toggleViewAction()->isChecked());
        composition->toggleViewAction()->trigger();
        QVERIFY(!composition->isHidden());
    }

    // A text filter does not follow into another file; a filter that hides every row says so.
    void filtersResetOnAnotherFileAndSayWhenEmpty()
    {
        MainWindow w;
        w.setShowErrorDialogs(false);
        w.show();
        QVERIFY(w.openFileNow(m_first));
        TranscriptPanel *panel = w.transcriptPanel();
        QLabel *note = panel->emptyNote();
        QVERIFY(!note->isVisibleTo(panel));
        panel->filterEdit()->setText(QStringLiteral("no-such-text-anywhere-xyzzy"));
        panel->filterModel()->setPattern(panel->filterEdit()->text(), false); // skip the typing delay
        QCOMPARE(panel->filterModel()->rowCount(), 0);
        QTRY_VERIFY(note->isVisibleTo(panel));
        QVERIFY(note->text().contains(QStringLiteral("No message matches")));
        QVERIFY(w.grab().save(QStringLiteral(CL_BINARY_DIR "/no-match-note.png")));
        QVERIFY(w.openFileNow(m_first)); // reloading the same file keeps the filter
        QCOMPARE(panel->filterEdit()->text(), QStringLiteral("no-such-text-anywhere-xyzzy"));
        QVERIFY(w.openFileNow(m_second));
        QVERIFY(panel->filterEdit()->text().isEmpty());
        QVERIFY(panel->filterModel()->rowCount() > 0);
        QVERIFY(!note->isVisibleTo(panel));
    }

    // One number per message: the tree, the detail pane and the Composition dock count from 1, as
    // the report does.
    void messagesNumberedFromOneEverywhere()
    {
        MainWindow w;
        w.setShowErrorDialogs(false);
        w.show();
        QVERIFY(w.openFileNow(m_first));
        TranscriptPanel *panel = w.transcriptPanel();
        const int message = 10;
        const QModelIndex source = panel->model()->index(message, 0);
        QCOMPARE(source.data().toString(), QStringLiteral("11"));
        QCOMPARE(panel->model()->index(0, 0, source).data().toString(), QStringLiteral("11.1"));
        panel->selectSourceIndex(source);
        QTRY_VERIFY(w.detailPane()->title().startsWith(QStringLiteral("Message 11")));
        QTRY_VERIFY(w.analysis());
        QTRY_VERIFY2(w.analysisPanel()->messageView()->toPlainText().contains(QStringLiteral("Message #11 ")),
                     qPrintable(w.analysisPanel()->messageView()->toPlainText().left(200)));
        w.compositionPanel()->refreshNow();
        QVERIFY2(w.compositionPanel()->header()->text().contains(QStringLiteral("at message 11")),
                 qPrintable(w.compositionPanel()->header()->text()));
    }

    // The session's analysis names strategies as the Strategy dock does, adds the agent's own
    // compaction, and quotes no design document.
    void analysisSpeaksPlainWords()
    {
        MainWindow w;
        w.setShowErrorDialogs(false);
        w.show();
        QVERIFY(w.openFileNow(m_first));
        QTRY_VERIFY(w.analysis());
        const QString text = w.analysisPanel()->sessionView()->toPlainText();
        const strategy::Strategy *s = strategy::find(w.analysis()->recommendation.strategy);
        QVERIFY(s);
        QVERIFY2(text.contains(QStringLiteral("Recommended strategy: ") + QString::fromUtf8(s->title().data(), int(s->title().size()))),
                 qPrintable(text.left(400)));
        QVERIFY(text.contains(QStringLiteral("This agent's own compaction: Claude Code compact")));
        QVERIFY2(!text.contains(QStringLiteral("seed 0"), Qt::CaseInsensitive), qPrintable(text));
    }

    // Nothing that acts on a transcript is enabled before one is open.
    void transcriptActionsNeedATranscript()
    {
        MainWindow w;
        w.setShowErrorDialogs(false);
        w.show();
        QVERIFY(w.transcriptActions().size() >= 12);
        for (QAction *a : w.transcriptActions())
            QVERIFY2(!a->isEnabled(), qPrintable(a->text()));
        for (const QString &name : {QStringLiteral("Export…"), QStringLiteral("Export Report…"), QStringLiteral("Backups…")}) {
            QAction *a = menuAction(w, QStringLiteral("File"), name);
            QVERIFY2(a && !a->isEnabled(), qPrintable(name));
        }
        QVERIFY(w.openFileNow(m_first));
        for (QAction *a : w.transcriptActions())
            QVERIFY2(a->isEnabled(), qPrintable(a->text()));
    }

    // What an action did is said where it is seen: the notice bar over the tabs (the status bar's
    // permanent summary leaves a message no room). A written file offers its folder; a failure stays.
    void feedbackIsSeen()
    {
        MainWindow w;
        w.setShowErrorDialogs(false);
        w.resize(1280, 800);
        w.show();
        QVERIFY(w.openFileNow(m_first));
        NoticeBar *notice = w.noticeBar();
        QVERIFY2(notice && notice->isHidden(), qPrintable(notice->text()));
        const QString md = m_dir.filePath(QStringLiteral("out/first.md"));
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("out")));
        QString error;
        QVERIFY2(w.exportMarkdownTo(md, &error), qPrintable(error));
        QVERIFY(notice->isVisible());
        QVERIFY(notice->height() > 10 && notice->width() > w.width() / 2);
        QVERIFY2(notice->text().contains(QStringLiteral("Markdown written to")), qPrintable(notice->text()));
        QCOMPARE(notice->file(), md);
        QVERIFY(notice->findChild<QPushButton *>(QStringLiteral("noticeReveal"))->isVisible());
        QVERIFY(w.grab().save(QStringLiteral(CL_BINARY_DIR "/notice-written.png")));

        QSignalSpy written(&w, &MainWindow::reportWritten);
        QVERIFY(w.exportReportTo(m_dir.filePath(QStringLiteral("out/first-report.html")), &error));
        QVERIFY(written.wait(30000));
        QVERIFY2(notice->text().contains(QStringLiteral("Report written to")), qPrintable(notice->text()));

        // A report into a folder that does not exist fails in the background: said, and kept.
        QVERIFY(w.exportReportTo(m_dir.filePath(QStringLiteral("no/such/folder/r.html")), &error));
        QTRY_VERIFY_WITH_TIMEOUT(notice->kind() == NoticeBar::Kind::Failure, 30000);
        QVERIFY2(notice->text().contains(QStringLiteral("Report not written")), qPrintable(notice->text()));
        QVERIFY(!notice->findChild<QPushButton *>(QStringLiteral("noticeReveal"))->isVisible());
        QTest::qWait(50);
        QVERIFY(notice->isVisible());
        notice->findChild<QPushButton *>(QStringLiteral("noticeClose"))->click();
        QVERIFY(notice->isHidden());
    }

    // The Compare tab's summary wraps on its own row: a long one never widens the window (it once
    // raised the minimum width from 1077 to 1892 px and pushed the docks off a 1600 px screen).
    void compareNeverWidensTheWindow()
    {
        MainWindow w;
        w.setShowErrorDialogs(false);
        w.resize(1280, 800);
        w.show();
        QVERIFY(w.openFileNow(m_first));
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const int before = w.minimumSizeHint().width();
        auto *tabs = w.findChild<QTabWidget *>();
        QVERIFY(tabs);
        int compare = -1;
        for (int i = 0; i < tabs->count(); ++i)
            if (tabs->tabText(i).remove(QLatin1Char('&')) == QStringLiteral("Compare"))
                compare = i;
        QVERIFY(compare >= 0);
        tabs->setCurrentIndex(compare);
        auto *status = w.findChild<QLabel *>(QStringLiteral("compareStatus"));
        QVERIFY(status);
        status->setText(QStringLiteral("27 strategies compared on 1 724 messages; ").repeated(12));
        QApplication::processEvents();
        QVERIFY2(w.minimumSizeHint().width() <= before, qPrintable(QStringLiteral("%1 > %2").arg(w.minimumSizeHint().width()).arg(before)));
        QCOMPARE(w.width(), 1280);
        QVERIFY(status->isVisible() && status->height() > status->fontMetrics().height());
    }

    // A 1024x700 screen holds the window with every tab and dock it opens with, and each dock's
    // labels read in full: dock tabs, the composition's category names, a usable detail pane.
    void fitsA1024x700Screen()
    {
        MainWindow w;
        w.setShowErrorDialogs(false);
        w.resize(1024, 700);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openFileNow(m_first));
        auto *tabs = w.findChild<QTabWidget *>();
        QVERIFY(tabs);
        const auto fits = [&](const QString &where) {
            QApplication::processEvents();
            const QSize min = w.minimumSizeHint();
            return min.width() <= 1024 && min.height() <= 700 ? QString() : QStringLiteral("%1: minimum %2x%3").arg(where).arg(min.width()).arg(min.height());
        };
        for (int i = 0; i < tabs->count(); ++i) {
            tabs->setCurrentIndex(i);
            const QString why = fits(tabs->tabText(i));
            QVERIFY2(why.isEmpty(), qPrintable(why));
        }
        tabs->setCurrentIndex(0);
        QApplication::processEvents();
        QCOMPARE(w.size(), QSize(1024, 700));
        QVERIFY2(w.detailPane()->width() >= 200, qPrintable(QString::number(w.detailPane()->width())));
        int dockTabs = 0;
        for (QTabBar *bar : w.findChildren<QTabBar *>()) {
            if (bar->parent() != &w || !bar->isVisible())
                continue; // the central tab widget's own bar, unused dock tab bars
            for (int i = 0; i < bar->count(); ++i, ++dockTabs)
                QVERIFY2(bar->tabRect(i).width() >= bar->fontMetrics().horizontalAdvance(bar->tabText(i)),
                         qPrintable(QStringLiteral("%1: %2 px").arg(bar->tabText(i)).arg(bar->tabRect(i).width())));
        }
        QVERIFY(dockTabs >= 5); // Analysis, Composition, Strategy; Diagnostics, Usage, ...
        w.compositionDock()->show();
        w.compositionDock()->raise();
        w.compositionPanel()->refreshNow();
        QApplication::processEvents();
        QTableView *table = w.compositionPanel()->table();
        QVERIFY(table->model()->rowCount() > 3);
        for (int r = 0; r < table->model()->rowCount(); ++r) {
            const QString name = table->model()->index(r, 0).data().toString();
            QVERIFY2(table->columnWidth(0) >= table->fontMetrics().horizontalAdvance(name), qPrintable(name));
            for (int c = 1; c < table->model()->columnCount(); ++c) { // tokens, share, items: never "..."
                const QString v = table->model()->index(r, c).data().toString();
                QVERIFY2(table->columnWidth(c) >= table->fontMetrics().horizontalAdvance(v), qPrintable(name + QLatin1Char(' ') + v));
            }
        }
        QVERIFY(w.grab().save(QStringLiteral(CL_BINARY_DIR "/dailydriver-1024x700.png")));
        // The session browser too.
        w.sessionsDock()->show();
        const QString why = fits(QStringLiteral("sessions"));
        QVERIFY2(why.isEmpty(), qPrintable(why));
    }

    // Metadata and event lines fold into the message before them by default: a badge counts them,
    // a click shows them, a jump to one shows it, and the choice is remembered.
    void eventsFoldIntoTheirMessage()
    {
        MainWindow w;
        w.setShowErrorDialogs(false);
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openFileNow(m_first));
        const Transcript &t = *w.transcript();
        std::vector<int> events;
        for (std::size_t i = 0; i < t.messages.size(); ++i)
            if (t.messages[i].kind == MessageKind::Meta || t.messages[i].kind == MessageKind::Event)
                events.push_back(int(i));
        QVERIFY(!events.empty() && events.front() > 0);
        TranscriptPanel *panel = w.transcriptPanel();
        auto *fold = panel->findChild<QCheckBox *>(QStringLiteral("foldEvents"));
        QVERIFY(fold && fold->isChecked());
        TranscriptFilterModel *filter = panel->filterModel();
        QCOMPARE(filter->rowCount(), int(t.messages.size() - events.size()));
        // The message before the first event carries it.
        int owner = events.front() - 1;
        while (t.messages[std::size_t(owner)].kind == MessageKind::Meta || t.messages[std::size_t(owner)].kind == MessageKind::Event)
            --owner;
        const QModelIndex cell = filter->mapFromSource(panel->model()->index(owner, TranscriptModel::RoleColumn));
        QVERIFY(cell.isValid());
        const int count = cell.data(FoldedEventsRole).toInt();
        QVERIFY(count >= 1);
        QVERIFY2(cell.data().toString().contains(QStringLiteral("\u25b8 ")), qPrintable(cell.data().toString()));
        int total = 0;
        for (int r = 0; r < filter->rowCount(); ++r)
            total += filter->index(r, TranscriptModel::RoleColumn).data(FoldedEventsRole).toInt();
        QCOMPARE(total, int(events.size()));
        // A click on the badge shows them, another folds them again.
        panel->view()->scrollTo(cell);
        QTest::mouseClick(panel->view()->viewport(), Qt::LeftButton, {}, panel->view()->visualRect(cell).center());
        QCOMPARE(filter->rowCount(), int(t.messages.size() - events.size()) + count);
        QVERIFY(filter->mapFromSource(panel->model()->index(events.front(), 0)).isValid());
        QVERIFY(cell.data().toString().contains(QStringLiteral("\u25be ")));
        QVERIFY(w.grab().save(QStringLiteral(CL_BINARY_DIR "/events-unfolded.png")));
        filter->toggleEvents(owner);
        QCOMPARE(filter->rowCount(), int(t.messages.size() - events.size()));
        // Jumping to a folded event shows it.
        w.selectMessage(events.back());
        const QModelIndex current = filter->mapToSource(panel->view()->currentIndex());
        QCOMPARE(current.row(), events.back());
        // Remembered: a new window starts unfolded after the user unfolded.
        fold->setChecked(false);
        QCOMPARE(filter->rowCount(), int(t.messages.size()));
        {
            MainWindow again;
            QVERIFY(!again.transcriptPanel()->findChild<QCheckBox *>(QStringLiteral("foldEvents"))->isChecked());
        }
        fold->setChecked(true);
    }

    // Raw JSON of a tool call shows the record holding the call first, not its message's text records.
    void rawJsonOfABlockStartsAtItsRecord()
    {
        MainWindow w;
        w.setShowErrorDialogs(false);
        QVERIFY(w.openFileNow(m_first));
        const Transcript &t = *w.transcript();
        int message = -1, block = -1;
        for (std::size_t i = 0; i < t.messages.size() && message < 0; ++i) {
            const Message &m = t.messages[i];
            if (m.records.size() < 2)
                continue;
            const std::string_view first = t.recordBytes(t.records[m.records.front()]);
            for (std::size_t k = 0; k < m.blocks.size(); ++k)
                if (m.blocks[k].type == BlockType::ToolUse && first.find(m.blocks[k].toolId) == std::string_view::npos) {
                    message = int(i);
                    block = int(k);
                    break;
                }
        }
        QVERIFY2(message >= 0, "the generated session has a call in a message's later record");
        DetailPane *pane = w.detailPane();
        pane->setRawMode(true);
        pane->showRow(w.transcript(), message, block);
        const QString text = pane->fullText();
        const QString id = QString::fromStdString(t.messages[std::size_t(message)].blocks[std::size_t(block)].toolId);
        const qsizetype firstRecordEnd = text.indexOf(QStringLiteral("\n}\n"));
        QVERIFY(firstRecordEnd > 0);
        QVERIFY2(text.indexOf(id) >= 0 && text.indexOf(id) < firstRecordEnd, qPrintable(text.left(300)));
        pane->showRow(w.transcript(), message, -1); // the message itself: file order
        QVERIFY(pane->fullText().indexOf(id) > pane->fullText().indexOf(QStringLiteral("\n}\n")));
        pane->setRawMode(false);
    }

    // Help: a table of every key (the menus' and the views' own), the user guide built in, and
    // File › Open starting where the agents keep their sessions.
    void helpAndOpenStartWhereTheUserIs()
    {
        MainWindow w;
        w.setShowErrorDialogs(false);
        const QList<ShortcutsDialog::Row> rows = ShortcutsDialog::rows(w.menuBar());
        int menuKeys = 0;
        const auto has = [&](const QString &where, const QString &command, const QKeySequence &key) {
            for (const auto &r : rows)
                if (r.where == where && r.command == command && r.keys.contains(key.toString(QKeySequence::NativeText)))
                    return true;
            return false;
        };
        QVERIFY(has(QStringLiteral("File"), QStringLiteral("Open"), QKeySequence::Open));
        QVERIFY(has(QStringLiteral("Edit"), QStringLiteral("Redo"), QKeySequence(Qt::CTRL | Qt::Key_Y)));
        QVERIFY(has(QStringLiteral("Strategies"), QStringLiteral("Compare All"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C)));
        QVERIFY(has(QStringLiteral("Preview"), QStringLiteral("Next change"), QKeySequence(Qt::Key_F8)));
        QVERIFY(has(QStringLiteral("Help"), QStringLiteral("User Guide"), QKeySequence(Qt::Key_F1)));
        // Every menu command with a key is listed.
        const std::function<void(QMenu *)> count = [&](QMenu *menu) {
            for (QAction *a : menu->actions()) {
                if (a->menu())
                    count(a->menu());
                else if (!a->isSeparator() && !a->shortcuts().isEmpty())
                    ++menuKeys;
            }
        };
        for (QAction *m : w.menuBar()->actions())
            if (m->menu())
                count(m->menu());
        QCOMPARE(int(rows.size()), menuKeys + 2); // + F8, Shift+F8 of the preview
        ShortcutsDialog dialog(w.menuBar());
        QCOMPARE(dialog.table()->rowCount(), int(rows.size()));
        dialog.findChild<QLineEdit *>()->setText(QStringLiteral("F8"));
        int shown = 0;
        for (int r = 0; r < dialog.table()->rowCount(); ++r)
            shown += dialog.table()->isRowHidden(r) ? 0 : 1;
        QCOMPARE(shown, 2);

        QDialog *guide = w.showUserGuide();
        auto *browser = guide->findChild<QTextBrowser *>(QStringLiteral("userGuide"));
        QVERIFY(browser);
        const QString text = browser->toPlainText();
        QVERIFY2(text.contains(QStringLiteral("ContextLens user guide")) && text.contains(QStringLiteral("Preview a strategy")), qPrintable(text.left(200)));
        QVERIFY(text.contains(QStringLiteral("screenshot: ")) && !text.contains(QStringLiteral("![")));
        QVERIFY(guide->grab().save(QStringLiteral(CL_BINARY_DIR "/user-guide.png")));
        QVERIFY(dialog.grab().save(QStringLiteral(CL_BINARY_DIR "/shortcuts.png")));
        guide->close();

        // HOME is this test's own folder: no agent folder yet, then Claude Code's.
        QCOMPARE(w.openFolder(), QDir::homePath());
        const QString projects = QDir::home().filePath(QStringLiteral(".claude/projects"));
        QVERIFY(QDir().mkpath(projects));
        QCOMPARE(w.openFolder(), projects);
        QVERIFY(QDir(QDir::home().filePath(QStringLiteral(".claude"))).removeRecursively());
    }

    // A preview opens at its first change; F8 / Shift+F8 and the arrow buttons walk the changes
    // (wrapping), "change k of n" says where; the strip beside the list marks each change and a
    // click on a mark selects it.
    void previewLeadsToTheChanges()
    {
        const LoadResult loaded = loadFile(m_first.toStdString());
        QVERIFY(loaded.ok() && !loaded.transcript->messages.empty());
        const std::shared_ptr<const Transcript> t = loaded.transcript;
        const strategy::Strategy *s = strategy::find("trim-tools");
        const strategy::Result r = strategy::run(*s, strategy::Input(*t), nlohmann::json{{"keepLastToolRounds", 2}});
        QVERIFY(r.changed);
        std::vector<int> expected;
        for (std::size_t i = 0; i < r.fates.size(); ++i)
            if (r.fates[i].fate != strategy::Fate::Kept)
                expected.push_back(int(i));
        QVERIFY(expected.size() >= 3 && expected.front() > 0);
        PreviewView view;
        view.resize(1200, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setResult(t, std::make_shared<const strategy::Result>(r));
        QCOMPARE(view.changedRows(), expected);
        QCOMPARE(view.originalView()->currentIndex().row(), expected.front());
        QCOMPARE(view.currentChange(), 0);
        auto *label = view.findChild<QLabel *>(QStringLiteral("changeLabel"));
        QCOMPARE(label->text(), QStringLiteral("change 1 of %1").arg(expected.size()));
        view.originalView()->setFocus();
        QTest::keyClick(view.originalView(), Qt::Key_F8);
        QCOMPARE(view.originalView()->currentIndex().row(), expected[1]);
        view.findChild<QToolButton *>(QStringLiteral("nextChange"))->click();
        QCOMPARE(view.originalView()->currentIndex().row(), expected[2]);
        QTest::keyClick(view.originalView(), Qt::Key_F8, Qt::ShiftModifier);
        QCOMPARE(view.originalView()->currentIndex().row(), expected[1]);
        QCOMPARE(label->text(), QStringLiteral("change 2 of %1").arg(expected.size()));
        view.selectOriginal(expected.front());
        view.findChild<QToolButton *>(QStringLiteral("previousChange"))->click(); // wraps to the last
        QCOMPARE(view.originalView()->currentIndex().row(), expected.back());
        // The strip: one mark per change; a click at the bottom selects the last change.
        ChangeStrip *strip = view.changeStrip();
        QCOMPARE(strip->marks().size(), expected.size());
        view.selectOriginal(0);
        QTest::mouseClick(strip, Qt::LeftButton, {}, QPoint(strip->width() / 2, strip->height() - 1));
        QCOMPARE(view.originalView()->currentIndex().row(), expected.back());
        QApplication::processEvents();
        QVERIFY(label->width() >= label->fontMetrics().horizontalAdvance(label->text()));
        QVERIFY(view.grab().save(QStringLiteral(CL_BINARY_DIR "/preview-first-change.png")));
    }

    // Reports and Markdown are offered in the user's documents (or the folder last used), not in
    // the agent's folder that holds the transcript.
    void reportsDefaultOutsideTheAgentsFolders()
    {
        MainWindow w;
        w.setShowErrorDialogs(false);
        QVERIFY(w.openFileNow(m_first));
        const QString suggestion = w.reportSuggestion(QStringLiteral("-report.html"));
        QVERIFY2(!suggestion.startsWith(m_dir.path()), qPrintable(suggestion));
        QVERIFY(suggestion.endsWith(QStringLiteral("first-report.html")));
        const QString docs = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
        QVERIFY2(suggestion.startsWith(QFileInfo(docs).isDir() ? docs : QDir::homePath()), qPrintable(suggestion));
    }

private:
    QTemporaryDir m_dir;
    QString m_first, m_second;
};

QTEST_MAIN(TestDailyDriver)
#include "tst_dailydriver.moc"
