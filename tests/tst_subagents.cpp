// SPDX-License-Identifier: MIT
// Subagents in place: a Claude Code session whose Task call started a subagent (its file in the
// session's subagents/ folder). The loader names the call in the subagent's header, the analysis
// pairs them with the run's size and duration, the transcript tree shows the subagent's messages
// under the call (a consistent model, filterable), and selecting one shows it in the detail pane.
#include "core/analysis/subagents.h"
#include "core/cost/sessioncost.h"
#include "core/io/loader.h"
#include "core/llm/pricing.h"
#include "core/util/json.h"
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/models/roles.h"
#include "widgets/models/transcriptfiltermodel.h"
#include "widgets/models/transcriptmodel.h"
#include "widgets/transcript/detailpane.h"
#include "widgets/transcript/transcriptpanel.h"

#include "test_support.h"

#include <QAbstractItemModelTester>
#include <QLineEdit>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

#include <fstream>
#include <set>

using namespace cl;
using namespace cl::gui;

namespace {
const bool kEnvironment = cl::test::guiEnvironment();

std::string line(const std::string &body, const std::string &uuid, const std::string &parent, const std::string &time,
                 bool sidechain, const std::string &extra = {})
{
    return R"({"parentUuid":)" + (parent.empty() ? std::string("null") : "\"" + parent + "\"") + R"(,"isSidechain":)"
           + (sidechain ? "true" : "false") + (sidechain ? R"(,"agentId":"a7f3")" : "")
           + R"(,"userType":"external","cwd":"/w","sessionId":"sess-sub","version":"2.1.120",)" + body + R"(,"uuid":")" + uuid
           + R"(","timestamp":"2026-03-02T09:)" + time + R"(.000Z")" + extra + "}\n";
}

std::string user(const std::string &content) { return R"("type":"user","message":{"role":"user","content":)" + content + "}"; }
std::string assistant(const std::string &id, const std::string &content)
{
    return R"("type":"assistant","message":{"id":")" + id + R"(","type":"message","role":"assistant","model":"claude-x","content":)"
           + content + R"(,"usage":{"input_tokens":10,"cache_read_input_tokens":3000,"output_tokens":20}})";
}

// The session and its subagent; returns the session's path.
QString writeSession(const QTemporaryDir &dir)
{
    const std::string root = dir.path().toStdString();
    std::ofstream(root + "/sess-sub.jsonl", std::ios::binary)
        << line(user(R"("Where is the retry limit configured?")"), "u1", "", "00:00", false)
        << line(assistant("msg_1", R"([{"type":"tool_use","id":"toolu_task","name":"Task","input":{"description":"Find the retry config","prompt":"Search the repository for the retry limit.\nReport the file.","subagent_type":"Explore"}}])"),
                "a1", "u1", "00:01", false)
        << line(user(R"([{"type":"tool_result","tool_use_id":"toolu_task","content":[{"type":"text","text":"It is in conf/net.toml."}]}])"), "u2",
                "a1", "00:09", false,
                R"(,"toolUseResult":{"status":"completed","agentId":"a7f3","totalDurationMs":7400,"totalTokens":5120,"totalToolUseCount":2,"content":[{"type":"text","text":"It is in conf/net.toml."}]})")
        << line(assistant("msg_2", R"([{"type":"text","text":"The retry limit lives in conf/net.toml."}])"), "a2", "u2", "00:10", false);
    QDir().mkpath(QString::fromStdString(root + "/sess-sub/subagents"));
    std::ofstream(root + "/sess-sub/subagents/agent-a7f3.jsonl", std::ios::binary)
        << line(user(R"("Search the repository for the retry limit.\nReport the file.")"), "s1", "a1", "00:02", true)
        << line(assistant("msg_s1", R"([{"type":"tool_use","id":"toolu_grep","name":"Grep","input":{"pattern":"retry_limit"}}])"), "s2", "s1",
                "00:03", true)
        << line(user(R"([{"type":"tool_result","tool_use_id":"toolu_grep","content":"conf/net.toml:12: retry_limit = 5 # quokka"}])"), "s3", "s2",
                "00:05", true)
        << line(assistant("msg_s2", R"([{"type":"text","text":"It is in conf/net.toml."}])"), "s4", "s3", "00:08", true);
    return QString::fromStdString(root + "/sess-sub.jsonl");
}

} // namespace

class TestSubagents : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void runsPairWithTheirCalls();
    void treeShowsThemUnderTheCall();
    void windowShowsASubagentMessage();
    void parallelRunsArePriced();
};

void TestSubagents::runsPairWithTheirCalls()
{
    QTemporaryDir dir;
    const QString path = writeSession(dir);
    const LoadResult r = loadFile(path.toStdString());
    QVERIFY(r.ok());
    const Transcript &t = *r.transcript;
    QCOMPARE(t.subagents.size(), std::size_t(1));
    QCOMPARE(json::str(t.subagents[0]->header, "parentToolUseId"), std::string("toolu_task"));
    const auto runs = analysis::subagentRuns(t);
    QCOMPARE(runs.size(), std::size_t(1));
    const analysis::SubagentRun &run = runs[0];
    QCOMPARE(run.agentId, std::string("a7f3"));
    QVERIFY(run.message >= 0);
    const Block &call = t.messages[std::size_t(run.message)].blocks[std::size_t(run.block)];
    QCOMPARE(call.toolId, std::string("toolu_task"));
    QCOMPARE(run.description, std::string("Find the retry config"));
    QCOMPARE(run.messages, std::size_t(4));
    QVERIFY(run.tokens > 0);
    QCOMPARE(run.durationMs, std::int64_t(7400)); // as the agent recorded it
    QCOMPARE(run.toolUses, std::int64_t(2));
    QCOMPARE(run.recordedTokens, std::int64_t(5120));
    // Priced by its own responses: two of 10 input, 3 000 cache read and 20 output tokens each.
    llm::PriceTable prices;
    QVERIFY(prices.merge(R"({"models":[{"match":"claude-x","input":3,"output":15,"cacheRead":0.3}]})"));
    const auto priced = cost::subagentCosts(t, prices);
    QCOMPARE(priced.size(), std::size_t(1));
    QVERIFY(priced[0].priced && priced[0].complete);
    QCOMPARE(qRound64(priced[0].dollars * 1e6), qint64(2 * (10 * 3 + 3000 * 0.3 + 20 * 15)));
    // A model without a price: no figure rather than a wrong one.
    QVERIFY(!cost::subagentCosts(t, llm::PriceTable()).at(0).priced);
    // The session's own context does not hold the subagent's messages.
    for (const Message &m : t.messages)
        QVERIFY(m.plainText().find("quokka") == std::string::npos);
}

void TestSubagents::treeShowsThemUnderTheCall()
{
    QTemporaryDir dir;
    const LoadResult r = loadFile(writeSession(dir).toStdString());
    TranscriptModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setTranscript(r.transcript);
    const auto &run = model.subagentRuns().at(0);
    const QModelIndex call = model.indexForMessage(run.message, run.block);
    QVERIFY(call.isValid());
    QCOMPARE(model.rowCount(call), 4);
    QVERIFY2(call.siblingAtColumn(TranscriptModel::PreviewColumn).data().toString().startsWith(QStringLiteral("subagent: 4 messages")),
             qPrintable(call.siblingAtColumn(TranscriptModel::PreviewColumn).data().toString()));
    QVERIFY(call.siblingAtColumn(TranscriptModel::PreviewColumn).data().toString().contains(QStringLiteral("7.4 s")));
    // Its model has no price: no dollar figure rather than a wrong one.
    QVERIFY(!call.siblingAtColumn(TranscriptModel::PreviewColumn).data().toString().contains(QLatin1Char('$')));
    const QModelIndex third = model.index(2, TranscriptModel::PreviewColumn, call);
    QVERIFY(third.data().toString().contains(QStringLiteral("quokka")));
    QCOMPARE(third.parent(), call.siblingAtColumn(0));
    QCOMPARE(third.data(SubagentRole).toInt(), 0);
    QCOMPARE(third.data(SubagentMessageRole).toInt(), 2);
    QCOMPARE(third.data(MessageIndexRole).toInt(), run.message); // the session's row it belongs to
    QCOMPARE(model.rowCount(third.siblingAtColumn(0)), 0);
    // Other blocks have no children; the text filter finds a line of the subagent and keeps its call.
    TranscriptFilterModel filter;
    QAbstractItemModelTester filterTester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
    filter.setSourceModel(&model);
    filter.setPattern(QStringLiteral("quokka"), false);
    QCOMPARE(filter.rowCount(), 1);
    const QModelIndex shownCall = filter.index(0, 0, filter.index(0, 0));
    QVERIFY(shownCall.isValid());
    QCOMPARE(filter.rowCount(shownCall), 1);
    QVERIFY(filter.index(0, TranscriptModel::PreviewColumn, shownCall).data().toString().contains(QStringLiteral("quokka")));
}

void TestSubagents::windowShowsASubagentMessage()
{
    QTemporaryDir dir;
    const QString path = writeSession(dir);
    MainWindow w;
    w.setShowErrorDialogs(false);
    w.resize(1280, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openFileNow(path));
    TranscriptPanel *panel = w.transcriptPanel();
    const auto &run = panel->model()->subagentRuns().at(0);
    const QModelIndex call = panel->filterModel()->mapFromSource(panel->model()->indexForMessage(run.message, run.block));
    QVERIFY(call.isValid());
    QTreeView *view = panel->findChild<QTreeView *>();
    QVERIFY(view);
    view->expand(call.parent());
    view->expand(call);
    const QModelIndex sub = panel->filterModel()->index(2, 0, call);
    QVERIFY(sub.isValid());
    view->setCurrentIndex(sub);
    QTRY_VERIFY(w.detailPane()->text().contains(QStringLiteral("quokka")));
    QVERIFY2(w.detailPane()->title().startsWith(QStringLiteral("Subagent a7f3 · message 3")), qPrintable(w.detailPane()->title()));
    view->scrollTo(sub);
    QTest::qWait(50);
    w.grab().save(QStringLiteral(CL_BINARY_DIR "/subagent-in-place.png"));
    // Back on a session row, the pane follows it.
    view->setCurrentIndex(call.parent());
    QTRY_VERIFY(!w.detailPane()->text().contains(QStringLiteral("quokka")));
}

// Two subagents started by parallel Task calls of one response (the bundled fixture the screenshots
// use): each under its own call, priced by its own measured usage, its cost on the call's row.
void TestSubagents::parallelRunsArePriced()
{
    const LoadResult r = loadFile(CL_TEST_DATA_DIR "/claudecode/subagents-session.jsonl");
    QVERIFY(r.ok());
    QCOMPARE(r.transcript->subagents.size(), std::size_t(2));
    llm::PriceTable prices;
    const auto runs = analysis::subagentRuns(*r.transcript);
    const auto costs = cost::subagentCosts(*r.transcript, prices);
    QCOMPARE(runs.size(), std::size_t(2));
    QCOMPARE(costs.size(), std::size_t(2));
    std::set<std::string> descriptions;
    for (const analysis::SubagentRun &run : runs) {
        QVERIFY(run.message >= 0);
        descriptions.insert(run.description);
        // Its own responses only, priced from its file's usage (cache writes and reads of sonnet).
        const cost::SubagentCost &c = costs[run.subagent];
        QVERIFY(c.priced && c.complete);
        cost::Tokens own;
        for (const Message &m : r.transcript->subagents[run.subagent]->messages)
            if (m.usage)
                own += cost::claudeTokens(m.usage->inputTokens, m.usage->cacheCreationTokens, m.usage->cacheReadTokens,
                                          m.usage->outputTokens, false, 0, 0);
        QCOMPARE(qRound64(c.dollars * 1e9), qRound64(cost::price(own, *prices.find("claude-sonnet-4-5")).total() * 1e9));
    }
    QCOMPARE(descriptions, (std::set<std::string>{"Find the flaky login test", "Review the session store"}));
    QVERIFY(costs[0].dollars != costs[1].dollars);
    TranscriptModel model;
    model.setTranscript(r.transcript);
    for (const analysis::SubagentRun &run : model.subagentRuns()) {
        const QString summary = model.indexForMessage(run.message, run.block).siblingAtColumn(TranscriptModel::PreviewColumn).data().toString();
        QVERIFY2(summary.contains(QStringLiteral("$%1").arg(costs[run.subagent].dollars, 0, 'f', 3)), qPrintable(summary));
    }
}

QTEST_MAIN(TestSubagents)
#include "tst_subagents.moc"
