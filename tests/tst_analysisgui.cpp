// SPDX-License-Identifier: MIT
// The analysis in the real main window, offscreen: background analysis on load and on a context
// window change, stale results dropped, the context map covering every conversation message, clicks
// on map and panel selecting rows, the panel's explanations, and a grab of the window.
#include "core/analysis/analysis.h"
#include "widgets/analysis/analysiscontroller.h"
#include "widgets/analysis/analysispanel.h"
#include "widgets/transcript/contextgauge.h"
#include "widgets/analysis/contextmap.h"
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/models/contextmapgeometry.h"
#include "widgets/style/theme.h"
#include "widgets/transcript/transcriptpanel.h"
#include "widgets/transcript/usagechart.h"

#include "test_support.h"

#include <QApplication>
#include <QDockWidget>
#include <QImage>
#include <QLocale>
#include <QSettings>
#include <QStyleFactory>
#include <QTextBrowser>
#include <QTreeView>
#include <QtTest>

using namespace cl;
using namespace cl::gui;

namespace {

const bool kEnvironment = cl::test::guiEnvironment();

// Claude Code 1.0.108 session with tool calls, sidechain lines and edits (see SOURCES.md).
const QString kSample = QStringLiteral(CL_SAMPLES_DIR "/claude-code/viewer-sample-edits.jsonl");

std::size_t conversationMessages(const Transcript &t)
{
    std::size_t n = 0;
    for (const Message &m : t.messages)
        n += m.isConversation() && !m.sidechain ? 1 : 0;
    return n;
}

std::shared_ptr<Transcript> tinyTranscript(int messages)
{
    auto t = std::make_shared<Transcript>();
    for (int k = 0; k < messages; ++k) {
        Message m;
        m.role = k % 2 ? Role::Assistant : Role::User;
        Block b;
        b.text = "message " + std::to_string(k);
        m.blocks.push_back(b);
        t->messages.push_back(m);
    }
    return t;
}

} // namespace

class TestAnalysisGui : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QCoreApplication::setOrganizationName(QStringLiteral("ContextLensTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_analysisgui"));
        QSettings().clear();
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
        theme::apply(theme::Choice::Light);
    }

    void cleanupTestCase() { QSettings().clear(); }

    void controllerDropsStaleResults()
    {
        AnalysisController c;
        QSignalSpy spy(&c, &AnalysisController::analysisReady);
        const auto first = tinyTranscript(30), second = tinyTranscript(12);
        c.start(first, 100000);
        c.start(second, 100000); // supersedes the first before it can arrive
        QVERIFY(c.isRunning());
        QTRY_COMPARE_WITH_TIMEOUT(spy.count(), 1, 20000);
        QTest::qWait(50); // the first worker's result, if it were delivered, would come now
        QCOMPARE(spy.count(), 1);
        QCOMPARE(c.transcript(), std::shared_ptr<const Transcript>(second));
        QCOMPARE(c.analysis()->view.size(), std::size_t(12));
        QCOMPARE(c.analysis()->usage.window, 100000); // the window given is the option
        QVERIFY(!c.isRunning());

        // The synchronous path delivers too and makes a running analysis stale.
        c.start(first, 100000);
        const auto now = c.runNow(second, 50000);
        QCOMPARE(now->usage.window, 50000);
        QTest::qWait(200);
        QCOMPARE(spy.count(), 2);
        QCOMPARE(c.analysis(), now);
    }

    void mainWindow()
    {
        CL_REQUIRE(QFileInfo::exists(kSample), "sample not present");
        MainWindow w;
        w.setShowErrorDialogs(false);
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy analysed(&w, &MainWindow::analysisUpdated);
        w.openFile(kSample); // background load, then background analysis
        QTRY_VERIFY_WITH_TIMEOUT(w.analysis() != nullptr, 20000);
        QCOMPARE(analysed.count(), 1);
        const auto t = w.transcript();
        const auto a = w.analysis();
        QVERIFY(t && !t->messages.empty());
        QCOMPARE(a->priority.size(), t->messages.size());
        QCOMPARE(a->usage.window, w.contextGauge()->contextWindow());
        QVERIFY(w.analysisDock()->isVisible() && w.contextMap()->isVisible());
        QVERIFY(w.contextMap()->height() >= 40);

        // One segment per conversation message (not sidechain, not events), in transcript order.
        const ContextMapGeometry &g = w.contextMap()->mapGeometry();
        QCOMPARE(g.segments.size(), conversationMessages(*t));
        QVERIFY(g.segments.size() >= 15);
        for (std::size_t p = 1; p < g.segments.size(); ++p)
            QVERIFY(g.segments[p].message > g.segments[p - 1].message);
        QVERIFY(!g.merged); // 25 messages fit with their minimum width
        QVERIFY(std::abs(g.segments.back().x + g.segments.back().width - w.contextMap()->stripRect().right()) < 1e-6);

        // Clicking the map at the chosen boundary selects that row in the transcript view.
        QVERIFY(a->boundary.has_value());
        const int boundaryMessage = int(a->view.index[*a->boundary]);
        QSignalSpy rows(w.transcriptPanel(), &TranscriptPanel::rowSelected);
        const MapSegment &seg = g.segments[*a->boundary];
        const QPoint at(int(std::floor(g.boundaryX + std::min(seg.width / 2, 2.0))), int(w.contextMap()->stripRect().center().y()));
        QCOMPARE(g.messageAt(at.x()), boundaryMessage);
        QTest::mouseClick(w.contextMap(), Qt::LeftButton, {}, at);
        QVERIFY(rows.count() >= 1);
        QCOMPARE(rows.last().at(0).toInt(), boundaryMessage);
        const QModelIndex current = w.transcriptPanel()->view()->currentIndex();
        QVERIFY(current.isValid());
        QCOMPARE(current.sibling(current.row(), 0).data().toString().trimmed(), QString::number(boundaryMessage + 1)); // numbered from 1

        // The panel explains the selected message: its priority rule and the cut before it.
        QCOMPARE(w.analysisPanel()->shownMessage(), boundaryMessage);
        const QString message = w.analysisPanel()->messageView()->toPlainText();
        const std::string_view rule = a->priority[std::size_t(boundaryMessage)].rule;
        QVERIFY2(message.contains(toQString(rule)), qPrintable(message));
        QVERIFY(message.contains(priorityRuleText(rule)));
        QVERIFY(message.contains(QStringLiteral("the chosen boundary")));
        for (const auto &r : cl::analysis::reasonsFor(a->boundaries[*a->boundary - 1], a->options))
            QVERIFY2(message.contains(toQString(r.rule)), r.rule.data());
        // ... and the session: both seed 002 trigger decisions with their numbers.
        const QString session = w.analysisPanel()->sessionView()->toPlainText();
        const QLocale loc;
        const auto decision = [&](std::int64_t tokens, bool fires) {
            return QStringLiteral("%1 %2 %3 → %4")
                .arg(loc.toString(qlonglong(tokens)), fires ? QStringLiteral("≥") : QStringLiteral("<"),
                     loc.toString(qlonglong(a->zones.threshold)), fires ? QStringLiteral("compact") : QStringLiteral("no compaction"));
        };
        QVERIFY(session.contains(QStringLiteral("old: total")) && session.contains(QStringLiteral("new: compressible")));
        QVERIFY2(session.contains(decision(a->zones.totalTokens, a->zones.oldTrigger)), qPrintable(session));
        QVERIFY(session.contains(decision(a->zones.compressibleTokens, a->zones.newTrigger)));
        QVERIFY(session.contains(QStringLiteral("Compaction needed")));
        QVERIFY(session.contains(QString::fromStdString(a->recommendation.strategy)));

        // A message link in the panel selects its row.
        const int other = int(a->view.index[3]);
        Q_EMIT w.analysisPanel()->sessionView()->anchorClicked(QUrl(QStringLiteral("msg:%1").arg(other)));
        QCOMPARE(rows.last().at(0).toInt(), other);
        QCOMPARE(w.analysisPanel()->shownMessage(), other);

        const QString png = QStringLiteral(CL_BINARY_DIR "/tst_analysisgui.png");
        QVERIFY(w.grab().save(png, "PNG"));
        QCOMPARE(QImage(png).size(), w.size());

        // A new context window re-runs the analysis in the background.
        w.contextGauge()->setContextWindow(120000);
        QTRY_VERIFY_WITH_TIMEOUT(w.analysis() && w.analysis()->usage.window == 120000, 20000);
        QCOMPARE(w.contextMap()->mapGeometry().segments.size(), conversationMessages(*t));
        QSettings().remove(QStringLiteral("view/contextWindow"));

        // View menu toggles with shortcuts.
        QVERIFY(!w.analysisDock()->toggleViewAction()->shortcut().isEmpty());
        QVERIFY(!w.usageDock()->toggleViewAction()->shortcut().isEmpty());
        w.analysisDock()->toggleViewAction()->trigger();
        QVERIFY(!w.analysisDock()->isVisible());

        // Hidden, the panel does not render the analyses that arrive (each live update brings one);
        // shown again, it shows the newest.
        const auto shownText = [&w] { // the browser as it is, without the accessor bringing it up to date
            const QList<QTextBrowser *> views = w.analysisPanel()->findChildren<QTextBrowser *>();
            QString all;
            for (const QTextBrowser *v : views)
                all += v->toPlainText();
            return all;
        };
        const QString before = shownText();
        w.contextGauge()->setContextWindow(150000);
        QTRY_VERIFY_WITH_TIMEOUT(w.analysis() && w.analysis()->usage.window == 150000, 20000);
        QCOMPARE(shownText(), before);
        w.analysisDock()->toggleViewAction()->trigger();
        QVERIFY(w.analysisDock()->isVisible());
        QTRY_VERIFY(shownText() != before);
        QVERIFY(shownText().contains(QLocale().toString(150000)));
        QSettings().remove(QStringLiteral("view/contextWindow"));
    }

    void openFileNowAnalysesAtOnce()
    {
        CL_REQUIRE(QFileInfo::exists(kSample), "sample not present");
        MainWindow w;
        w.setShowErrorDialogs(false);
        QVERIFY(w.openFileNow(kSample));
        QVERIFY(w.analysis() != nullptr); // no waiting: the screenshot path relies on it
        QVERIFY(!w.isAnalysing());
        w.selectAnalysisRow();
        QCOMPARE(w.analysisPanel()->shownMessage(), int(w.analysis()->view.index[*w.analysis()->boundary]));
    }
};

QTEST_MAIN(TestAnalysisGui)
#include "tst_analysisgui.moc"
