// SPDX-License-Identifier: MIT
// View › Follow Live Session in the real main window: a session file that grows while it is open
// shows its new messages, the status bar forecasts the agent's auto-compaction and notifies once when
// it is near; with following off, nothing changes.
#include "live_fixture.h"
#include "test_support.h"

#include "core/generator/generator.h"
#include "core/io/loader.h"
#include "widgets/mainwindow/livewatch.h"
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/mainwindow/openmilestones.h"
#include "widgets/mainwindow/statuspanel.h"
#include "widgets/models/chartgeometry.h"
#include "widgets/models/tokencount.h"
#include "widgets/transcript/contextgauge.h"
#include "widgets/models/roles.h"
#include "widgets/models/transcriptfiltermodel.h"
#include "widgets/models/transcriptmodel.h"
#include "widgets/transcript/detailpane.h"
#include "widgets/transcript/transcriptdocument.h"
#include "widgets/transcript/transcriptpanel.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QScrollBar>
#include <QToolButton>
#include <QTreeView>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace cl;
using namespace cl::gui;

namespace {

void writeFile(const QString &path, const std::string &bytes, bool append)
{
    std::ofstream f(path.toStdString(), append ? std::ios::app | std::ios::binary : std::ios::trunc | std::ios::binary);
    f << bytes;
}

// A generated Claude Code session of 120 messages with tool rounds.
std::string generatedSession(std::uint64_t seed)
{
    gen::Options o;
    o.format = Format::ClaudeCode;
    o.messages = 120;
    o.seed = seed;
    return gen::generate(o);
}

// The offset just past the line end at or after `from`.
std::size_t lineEndAfter(const std::string &text, std::size_t from)
{
    return text.find('\n', from) + 1;
}

// The agent writes the next `count` lines of `text` (from `at`, which moves past them) and the
// window, polled, shows them. QTest::currentTestFailed() tells when it did not.
void writeLinesAndWait(MainWindow &w, const QString &path, const std::string &text, std::size_t &at, int count = 1)
{
    std::size_t end = at;
    for (int k = 0; k < count && end < text.size(); ++k)
        end = text.find('\n', end) + 1;
    test::appendFile(path.toStdString(), text.substr(at, end - at));
    at = end;
    w.liveWatch()->pollNow();
    QTRY_COMPARE(w.transcript()->buffer->size(), at);
}

bool openWindow(MainWindow &w, const QString &path)
{
    w.setShowErrorDialogs(false);
    w.resize(1200, 800);
    w.show();
    return w.openFileNow(path);
}

} // namespace

class TestLiveGui : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Three turns growing by 20,000 tokens (context 80,100; Claude Code compacts at 200,000 - 13,000):
    // ceil(106,900 / 20,000) = 6 turns left. Three more turns arrive (140,100): 3 left, near.
    void growsAndForecasts()
    {
        QTemporaryDir dir;
        // In an agent's session folder, just written: the label shows before the file grows.
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral(".claude/projects/-work-demo")));
        const QString path = dir.filePath(QStringLiteral(".claude/projects/-work-demo/live.jsonl"));
        const std::string six = test::growingSession(6, 20000);
        const std::string three = test::growingSession(3, 20000);
        QVERIFY(six.compare(0, three.size(), three) == 0);
        writeFile(path, three, false);

        MainWindow w;
        w.setShowErrorDialogs(false);
        w.resize(1200, 800);
        w.show();
        QVERIFY(w.openFileNow(path));
        QCOMPARE(w.transcript()->messages.size(), std::size_t(6));
        QVERIFY(w.liveWatch()->isFollowing());
        w.contextGauge()->setContextWindow(200000);
        QTRY_VERIFY(w.liveForecast().has_value() && w.liveForecast()->turnsLeft.has_value());
        QCOMPARE(*w.liveForecast()->turnsLeft, 6);
        QVERIFY(w.liveStatusLabel()->isVisible());
        QTRY_VERIFY(w.liveStatusLabel()->text().contains(QStringLiteral("6 turns to Claude Code's auto-compact")));

        QSignalSpy near(&w, &MainWindow::compactionNear);
        writeFile(path, six.substr(three.size()), true);
        w.liveWatch()->pollNow();
        QTRY_COMPARE(w.transcript()->messages.size(), std::size_t(12));
        QTRY_COMPARE(near.count(), 1);
        QVERIFY(near.first().first().toString().startsWith(QStringLiteral("3 turns to")));
        QTRY_VERIFY(w.liveStatusLabel()->text().contains(QStringLiteral("3 turns to")));
        // The window shows what it follows: the working transcript is the grown one, unmodified.
        QCOMPARE(w.transcript()->buffer->size(), six.size());

        // Off: the next lines are not taken in, the label goes.
        w.setFollowLive(false);
        QVERIFY(!w.liveWatch()->isFollowing());
        QVERIFY(!w.liveStatusLabel()->isVisible());
        writeFile(path, test::growingSession(7, 20000).substr(six.size()), true);
        QTest::qWait(1500);
        QCOMPARE(w.transcript()->messages.size(), std::size_t(12));
        w.setFollowLive(true); // remembered setting back to its default for the other tests
    }

    // A session written line by line while the window follows it: each line is shown as it comes,
    // the window lets go of the version before, so that each poll grows it in place (costing what
    // was appended, bench/results-live.md), and what is shown is what a fresh load of the file gives.
    void growsLineByLineInPlace()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("growing.jsonl"));
        const std::string text = generatedSession(5);
        std::size_t at = lineEndAfter(text, text.size() / 2);
        writeFile(path, text.substr(0, at), false);
        MainWindow w;
        QVERIFY(openWindow(w, path));
        QVERIFY(w.liveWatch()->isFollowing());
        int lines = 0;
        while (at < text.size() && lines < 40) {
            writeLinesAndWait(w, path, text, at);
            ++lines;
            if (QTest::currentTestFailed())
                return;
            // The window's work on the version shown (analysis, counts, strategy tables) is done: no
            // job holds the version before any more.
            QTRY_VERIFY(!w.liveWatch()->isPolling() && OpenMilestones::of(&w)->isFinished());
        }
        const LoadResult fresh = loadFile(path.toStdString());
        QVERIFY(fresh.ok());
        QCOMPARE(w.transcript()->messages.size(), fresh.transcript->messages.size());
        QCOMPARE(*w.transcript()->buffer, text.substr(0, at));
        const LiveTail::Stats stats = w.liveWatch()->stats();
        qInfo("%d lines: %llu appended, %llu in place", lines, static_cast<unsigned long long>(stats.appends),
              static_cast<unsigned long long>(stats.inPlace));
        QCOMPARE(stats.appends, std::uint64_t(lines));
        // The first two polls have no version before that the window let go of; a job for an earlier
        // version that outlives the next one's (a slow machine, sanitizers) may cost another copy.
        QVERIFY2(stats.inPlace * 10 >= stats.appends * 8, "the window holds on to earlier versions");
    }

    // A live update changes only the rows after the messages it kept (the turn being written, and the
    // new ones): no reset of the tree (its rows, selection and expanded rows stay), and the models'
    // signals are consistent (QAbstractItemModelTester, on the model and the filter over it). A
    // compaction among the new lines makes the earlier messages history: then the tree resets.
    void growsOnlyTheRowsThatChanged()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("growing.jsonl"));
        const std::string text = generatedSession(13);
        std::size_t at = lineEndAfter(text, text.size() / 3);
        writeFile(path, text.substr(0, at), false);
        MainWindow w;
        QVERIFY(openWindow(w, path));
        TranscriptPanel *panel = w.transcriptPanel();
        QAbstractItemModelTester modelTester(panel->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester filterTester(panel->filterModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy resets(panel->model(), &QAbstractItemModel::modelReset);
        QSignalSpy inserted(panel->model(), &QAbstractItemModel::rowsInserted);
        const QPersistentModelIndex early = panel->model()->index(2, 0);
        const std::string earlyId = w.transcript()->messages[2].id;
        // The last message selected: its row is replaced while its turn is written, and comes back.
        const int last = int(w.transcript()->messages.size()) - 1;
        w.selectMessage(last);
        const std::string lastId = w.transcript()->messages[std::size_t(last)].id;
        int updates = 0, historyChanges = 0;
        while (at < text.size() && updates < 25) {
            const std::size_t liveBefore = liveStart(*w.transcript());
            writeLinesAndWait(w, path, text, at);
            ++updates;
            historyChanges += liveStart(*w.transcript()) != liveBefore;
            if (QTest::currentTestFailed())
                return;
        }
        QCOMPARE(resets.count(), historyChanges);
        QVERIFY(inserted.count() > 0);
        QCOMPARE(panel->model()->rowCount(), int(w.transcript()->messages.size()));
        if (historyChanges == 0) {
            QVERIFY(early.isValid());
            QCOMPARE(early.row(), 2);
            QCOMPARE(w.transcript()->messages[2].id, earlyId);
        }
        const QModelIndex current = panel->filterModel()->mapToSource(panel->view()->currentIndex());
        QVERIFY(current.isValid());
        QCOMPARE(w.transcript()->messages[std::size_t(current.data(MessageIndexRole).toInt())].id, lastId);
        // What the tree shows is what a fresh load shows, row by row.
        const LoadResult fresh = loadFile(path.toStdString());
        QVERIFY(fresh.ok());
        QCOMPARE(panel->model()->rowCount(), int(fresh.transcript->messages.size()));
        for (int r = 0; r < panel->model()->rowCount(); ++r)
            QCOMPARE(panel->model()->rowCount(panel->model()->index(r, 0)), int(fresh.transcript->messages[std::size_t(r)].blocks.size()));
    }

    // The poll also counts the figures every view shows (30-45 ms on the GUI thread at 800 MB): what it
    // delivers is what the window would count, and the gauge, chart and status line show it. Exact
    // counts stay the window's to make (nothing is delivered with them).
    void figuresCountedWithThePoll()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("growing.jsonl"));
        const std::string text = generatedSession(11);
        std::size_t at = lineEndAfter(text, text.size() / 2);
        writeFile(path, text.substr(0, at), false);
        MainWindow w;
        QVERIFY(openWindow(w, path));
        QSignalSpy updates(w.liveWatch(), &LiveWatch::updated);
        const QLocale loc;
        for (const tokens::Estimator count : {tokens::Estimator::Calibrated, tokens::Estimator::Seed, tokens::Estimator::Exact}) {
            w.setTokenCount(count);
            updates.clear();
            writeLinesAndWait(w, path, text, at, 2);
            if (QTest::currentTestFailed())
                return;
            QCOMPARE(updates.count(), 1);
            const auto usage = updates.first().at(2).value<std::optional<UsageData>>();
            const UsageData fresh = usageData(*w.transcript(), count);
            if (count == tokens::Estimator::Exact) {
                QVERIFY(!usage.has_value());
            } else {
                QVERIFY(usage.has_value());
                QCOMPARE(usage->estimateNow, fresh.estimateNow);
                QCOMPARE(usage->figure.total, fresh.figure.total);
                QCOMPARE(usage->estimated.size(), fresh.estimated.size());
                QCOMPARE(usage->measured.size(), fresh.measured.size());
                QCOMPARE(usage->messageCount, int(w.transcript()->messages.size()));
            }
            QCOMPARE(w.contextGauge()->estimated(), fresh.estimateNow);
            QCOMPARE(w.contextGauge()->usage().estimated.size(), fresh.estimated.size());
            QVERIFY2(w.statusPanel()->summaryText().contains(loc.toString(qlonglong(fresh.figure.total))),
                     qPrintable(w.statusPanel()->summaryText()));
        }
        w.setTokenCount(tokens::Estimator::Calibrated); // the saved choice back to its default
    }

    // The reader's place survives the agent's next lines: the selected message (and the detail pane
    // on it), the rows expanded, the events shown, the message filter and the scroll position.
    void keepsTheReadersPlace()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("growing.jsonl"));
        const std::string text = generatedSession(9);
        std::size_t at = lineEndAfter(text, text.size() * 2 / 3);
        writeFile(path, text.substr(0, at), false);
        MainWindow w;
        QVERIFY(openWindow(w, path));
        TranscriptPanel *panel = w.transcriptPanel();
        QTreeView *view = panel->view();
        // A message with blocks, a third of the way down; another expanded; events of an owner shown.
        const Transcript &t = *w.transcript();
        int picked = -1, other = -1, owner = -1;
        for (int i = int(t.messages.size()) / 3; i < int(t.messages.size()) && (picked < 0 || other < 0); ++i)
            if (!t.messages[std::size_t(i)].isEvent() && t.messages[std::size_t(i)].blocks.size() > 1 && !t.messages[std::size_t(i)].id.empty())
                (picked < 0 ? picked : other) = i;
        QVERIFY(picked >= 0 && other >= 0);
        for (int i = 0; i < int(t.messages.size()) && owner < 0; ++i)
            if (panel->filterModel()->foldedCount(i) > 0)
                owner = i;
        QVERIFY(owner >= 0);
        panel->filterModel()->toggleEvents(owner);
        const QList<int> filtered{picked, other, owner};
        panel->setMessageFilter(QStringLiteral("Picked"), filtered);
        auto proxyRow = [&](int message) { return panel->filterModel()->mapFromSource(panel->model()->index(message, 0)); };
        view->expand(proxyRow(other));
        w.selectMessage(picked);
        view->expand(proxyRow(picked));
        QVERIFY(w.detailPane()->title().contains(QString::number(picked + 1)));
        view->verticalScrollBar()->setValue(0);
        const std::string pickedId = t.messages[std::size_t(picked)].id;
        const int rowsShown = panel->filterModel()->rowCount(); // the message filter's
        QCOMPARE(rowsShown, int(filtered.size()));

        int lines = 0;
        while (at < text.size() && lines < 6) {
            writeLinesAndWait(w, path, text, at);
            ++lines;
            if (QTest::currentTestFailed())
                return;
        }
        const QModelIndex current = panel->filterModel()->mapToSource(view->currentIndex());
        QVERIFY(current.isValid());
        QCOMPARE(current.data(MessageIndexRole).toInt(), picked);
        QCOMPARE(w.transcript()->messages[std::size_t(picked)].id, pickedId);
        QVERIFY(w.detailPane()->title().contains(QString::number(picked + 1)));
        QVERIFY(view->isExpanded(proxyRow(picked)));
        QVERIFY(view->isExpanded(proxyRow(other)));
        QVERIFY(panel->filterModel()->eventsShown(owner));
        QVERIFY(panel->messageFilterChip()->isVisible());
        QCOMPARE(panel->filterModel()->rowCount(), rowsShown);
        QCOMPARE(view->verticalScrollBar()->value(), 0);
    }

    // A file outside the agents' folders (a copy, the demo) and a session last written an hour ago
    // are followed without a label; the label comes when the file grows.
    void quietUntilItGrows()
    {
        QTemporaryDir dir;
        {
            const QString copy = dir.filePath(QStringLiteral("copy.jsonl"));
            writeFile(copy, test::growingSession(2), false);
            MainWindow w;
            w.setShowErrorDialogs(false);
            w.show();
            QVERIFY(w.openFileNow(copy));
            QVERIFY(w.liveWatch()->isFollowing());
            QVERIFY(!w.liveStatusLabel()->isVisible());
        }
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral(".codex/sessions/2026/11/28")));
        const QString path = dir.filePath(QStringLiteral(".codex/sessions/2026/11/28/old.jsonl"));
        writeFile(path, test::growingSession(2), false);
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadWrite));
        QVERIFY(file.setFileTime(QDateTime::currentDateTime().addSecs(-3600), QFileDevice::FileModificationTime));
        file.close();
        MainWindow w;
        w.setShowErrorDialogs(false);
        w.show();
        QVERIFY(w.openFileNow(path));
        QVERIFY(w.liveWatch()->isFollowing());
        QVERIFY(!w.liveStatusLabel()->isVisible());
        writeFile(path, test::growingSession(3).substr(test::growingSession(2).size()), true);
        w.liveWatch()->pollNow();
        QTRY_COMPARE(w.transcript()->messages.size(), std::size_t(6));
        QTRY_VERIFY(w.liveStatusLabel()->isVisible());
        QVERIFY(w.liveStatusLabel()->text().contains(QStringLiteral("Live")));

        // With an edit of the working transcript, the agent's new lines are counted, not mixed in.
        w.selectMessage(0);
        w.removeSelectedMessages();
        QVERIFY(w.document()->isModified());
        const std::size_t edited = w.transcript()->messages.size();
        QVERIFY(edited < 6);
        writeFile(path, test::growingSession(4).substr(test::growingSession(3).size()), true);
        w.liveWatch()->pollNow();
        QTRY_VERIFY(w.liveStatusLabel()->text().contains(QStringLiteral("2 new messages since your edits")));
        QCOMPARE(w.transcript()->messages.size(), edited);
    }
};

QTEST_MAIN(TestLiveGui)
#include "tst_livegui.moc"
