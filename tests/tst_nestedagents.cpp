// SPDX-License-Identifier: MIT
// Agents started by a subagent (Claude Code 2.1.x): the nested agent's call and result are lines of
// the first subagent's file, its result line names no agentId, and the link is in the meta file
// Claude Code writes beside each agent's file (toolUseId, parentAgentId). The fixture is a session
// recorded with the real Claude Code against our fake model server, reduced to its conversation
// lines with every text replaced. The runs form a tree: the analysis, the transcript tree, `info`.
#include "core/analysis/subagents.h"
#include "core/analysis/timeline.h"
#include "core/io/loader.h"
#include "core/util/json.h"
#include "widgets/models/roles.h"
#include "widgets/models/transcriptfiltermodel.h"
#include "widgets/models/transcriptmodel.h"

#include "test_support.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <sstream>

using namespace cl;
using namespace cl::gui;

namespace {
const bool kEnvironment = cl::test::guiEnvironment();

const QString kFixture = QStringLiteral(CL_TEST_DATA_DIR "/claudecode/nested-agents");
const std::string kSession = CL_TEST_DATA_DIR "/claudecode/nested-agents.jsonl";
constexpr const char *kOuter = "aaac03bde82d5812f", *kInner = "a001ec35568563e0b";

std::int32_t runOf(const std::vector<analysis::SubagentRun> &runs, const std::string &agentId)
{
    for (std::size_t r = 0; r < runs.size(); ++r)
        if (runs[r].agentId == agentId)
            return std::int32_t(r);
    return -1;
}

// A copy of the fixture in `dir`, so that a test can change it; returns the session's path.
QString copyFixture(const QTemporaryDir &dir)
{
    const QString to = dir.path() + QStringLiteral("/nested-agents");
    QDir().mkpath(to + QStringLiteral("/subagents"));
    QFile::copy(kFixture + QStringLiteral(".jsonl"), to + QStringLiteral(".jsonl"));
    for (const QString &name : QDir(kFixture + QStringLiteral("/subagents")).entryList(QDir::Files))
        QFile::copy(kFixture + QStringLiteral("/subagents/") + name, to + QStringLiteral("/subagents/") + name);
    return to + QStringLiteral(".jsonl");
}

} // namespace

class TestNestedAgents : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void runsFormATree();
    void runningAgentIsLinkedByItsMetaFile();
    void treeShowsTheInnerAgentUnderItsCall();
    void timelineStacksTheInnerRun();
    void agentFileOnItsOwnNamesItsParentAgent();
    void infoListsTheTree();
};

void TestNestedAgents::runsFormATree()
{
    const LoadResult r = loadFile(kSession);
    QVERIFY2(r.ok(), r.error.c_str());
    const Transcript &t = *r.transcript;
    QCOMPARE(t.subagents.size(), std::size_t(2));
    const auto runs = analysis::subagentRuns(t);
    const std::int32_t outer = runOf(runs, kOuter), inner = runOf(runs, kInner);
    QVERIFY(outer >= 0 && inner >= 0);
    // The session's Agent call (message 1) started the outer agent.
    const analysis::SubagentRun &o = runs[std::size_t(outer)];
    QCOMPARE(o.parentRun, -1);
    QCOMPARE(o.depth, 1);
    QCOMPARE(o.description, std::string("Survey the folder"));
    QCOMPARE(o.agentType, std::string("general-purpose"));
    QCOMPARE(t.messages[std::size_t(o.message)].blocks[std::size_t(o.block)].toolId, std::string("toolu_fake0256312300002"));
    QCOMPARE(o.sessionMessage, o.message);
    QVERIFY(o.durationMs > 0); // recorded on the session's result line
    // The outer agent's own Agent call started the inner one: the call is in its conversation.
    const analysis::SubagentRun &i = runs[std::size_t(inner)];
    QCOMPARE(i.parentRun, outer);
    QCOMPARE(i.depth, 2);
    QCOMPARE(i.description, std::string("Count lines"));
    const Transcript &outerFile = *t.subagents[o.subagent];
    QVERIFY(i.message >= 0);
    QCOMPARE(outerFile.messages[std::size_t(i.message)].blocks[std::size_t(i.block)].toolId, std::string("toolu_fake0256313920004"));
    QCOMPARE(i.sessionMessage, o.message); // in the session, it belongs to the outer agent's call
    QCOMPARE(i.sessionBlock, o.block);
    QCOMPARE(i.messages, std::size_t(2));
}

void TestNestedAgents::runningAgentIsLinkedByItsMetaFile()
{
    // While the outer agent runs, the session has its call but no result line yet: the meta file,
    // written when the agent starts, links it.
    QTemporaryDir dir;
    const QString path = copyFixture(dir);
    std::ifstream in(path.toStdString());
    std::stringstream kept;
    for (std::string line; std::getline(in, line);)
        if (line.find("\"toolUseResult\"") == std::string::npos && line.find("msg_fake0256319430007") == std::string::npos)
            kept << line << '\n';
    in.close();
    std::ofstream(path.toStdString(), std::ios::binary | std::ios::trunc) << kept.str();
    const LoadResult r = loadFile(path.toStdString());
    QVERIFY2(r.ok(), r.error.c_str());
    QCOMPARE(r.transcript->messages.size(), std::size_t(2)); // the request and the call
    const auto runs = analysis::subagentRuns(*r.transcript);
    const std::int32_t outer = runOf(runs, kOuter);
    QVERIFY(outer >= 0);
    QCOMPARE(runs[std::size_t(outer)].message, 1);
    QCOMPARE(runs[std::size_t(runOf(runs, kInner))].parentRun, outer);
    // Without the meta files the running agent has no link: what they add is the test.
    QVERIFY(QFile::remove(dir.path() + QStringLiteral("/nested-agents/subagents/agent-") + QLatin1String(kOuter) + QStringLiteral(".meta.json")));
    const LoadResult bare = loadFile(path.toStdString());
    const auto bareRuns = analysis::subagentRuns(*bare.transcript);
    QCOMPARE(bareRuns[std::size_t(outer)].message, -1);
    // The inner agent still hangs under the outer one, but that chain no longer reaches a row of the
    // session: neither has a row in the tree.
    const std::int32_t inner = runOf(bareRuns, kInner);
    QCOMPARE(bareRuns[std::size_t(inner)].parentRun, outer);
    QCOMPARE(bareRuns[std::size_t(inner)].sessionMessage, -1);
    TranscriptModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setTranscript(bare.transcript);
    QVERIFY(!model.indexForSubagentMessage(inner, 0).isValid());
    QVERIFY(!model.indexForSubagentMessage(outer, 0).isValid());
}

void TestNestedAgents::treeShowsTheInnerAgentUnderItsCall()
{
    const LoadResult r = loadFile(kSession);
    QVERIFY(r.ok());
    TranscriptModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setTranscript(r.transcript);
    const auto &runs = model.subagentRuns();
    const std::int32_t outer = runOf(runs, kOuter), inner = runOf(runs, kInner);
    const analysis::SubagentRun &o = runs[std::size_t(outer)];
    const QModelIndex call = model.indexForMessage(o.message, o.block);
    QCOMPARE(model.rowCount(call), 4); // the outer agent's conversation
    // Its second message holds the Agent call: the inner agent's two messages are under it.
    const QModelIndex outerCall = model.index(runs[std::size_t(inner)].message, 0, call);
    QCOMPARE(outerCall.data(SubagentRole).toInt(), outer);
    QCOMPARE(model.rowCount(outerCall), 2);
    const QString preview = outerCall.siblingAtColumn(TranscriptModel::PreviewColumn).data().toString();
    QVERIFY2(preview.startsWith(QStringLiteral("subagent: 2 messages")), qPrintable(preview));
    const QModelIndex first = model.index(0, TranscriptModel::PreviewColumn, outerCall);
    QCOMPARE(first.data(SubagentRole).toInt(), inner);
    QCOMPARE(first.data(SubagentMessageRole).toInt(), 0);
    QVERIFY2(first.data().toString().contains(QStringLiteral("Count the lines")), qPrintable(first.data().toString()));
    QCOMPARE(first.parent(), outerCall);
    QCOMPARE(first.data(MessageIndexRole).toInt(), o.message); // the session's row it belongs to
    QVERIFY(first.data(Qt::ToolTipRole).toString().contains(QStringLiteral("started by subagent ") + QLatin1String(kOuter)));
    QCOMPARE(model.indexForSubagentMessage(inner, 1), model.index(1, 0, outerCall));
    // The text filter finds a line of the inner agent and keeps the rows above it.
    TranscriptFilterModel filter;
    QAbstractItemModelTester filterTester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
    filter.setSourceModel(&model);
    filter.setPattern(QStringLiteral("42 lines in 3 files"), false);
    const QModelIndex shown = filter.mapFromSource(model.indexForSubagentMessage(inner, 1));
    QVERIFY(shown.isValid());
    QCOMPARE(filter.mapToSource(shown.parent()), outerCall);
}

void TestNestedAgents::timelineStacksTheInnerRun()
{
    const LoadResult r = loadFile(kSession);
    QVERIFY(r.ok());
    const analysis::Timeline tl = analysis::buildTimeline(*r.transcript);
    const auto runs = analysis::subagentRuns(*r.transcript);
    const analysis::SubagentRun &o = runs[std::size_t(runOf(runs, kOuter))];
    const analysis::TimelineSpan *outer = nullptr, *inner = nullptr;
    for (const analysis::TimelineSpan &s : tl.spans)
        if (s.kind == analysis::SpanKind::Subagent)
            (s.subagent == std::int32_t(o.subagent) ? outer : inner) = &s;
    QVERIFY(outer && inner);
    QCOMPARE(inner->subagent, runOf(runs, kInner));
    QCOMPARE(inner->lane, outer->lane);
    QVERIFY(inner->startMs >= outer->startMs && inner->endMs <= outer->endMs); // within the run that started it
    QCOMPARE(inner->message, o.message);                                       // a click selects the session's call it belongs to
}

void TestNestedAgents::agentFileOnItsOwnNamesItsParentAgent()
{
    const std::string file = CL_TEST_DATA_DIR "/claudecode/nested-agents/subagents/agent-" + std::string(kInner) + ".jsonl";
    const LoadResult r = loadFile(file);
    QVERIFY2(r.ok(), r.error.c_str());
    const nlohmann::json &h = r.transcript->header;
    QCOMPARE(json::str(h, "parentAgentId"), std::string(kOuter));
    QCOMPARE(json::str(h, "parentToolUseId"), std::string("toolu_fake0256313920004"));
    QVERIFY(json::str(h, "parentSession").find(std::string("agent-") + kOuter + ".jsonl") != std::string::npos);
    QCOMPARE(h.value("parentLine", 0), 2); // the outer agent's call
}

void TestNestedAgents::infoListsTheTree()
{
    const auto run = cl::test::runCli({"info", kSession, "--json"});
    QCOMPARE(run.code, 0);
    const nlohmann::json j = nlohmann::json::parse(run.out);
    const nlohmann::json &runs = j.at("subagentRuns");
    QCOMPARE(runs.size(), std::size_t(2));
    QCOMPARE(runs[0]["agentId"].get<std::string>(), std::string(kOuter)); // parents first
    QCOMPARE(runs[0]["startedBy"].get<std::string>(), std::string("session"));
    QCOMPARE(runs[0]["message"].get<int>(), 1);
    QCOMPARE(runs[1]["agentId"].get<std::string>(), std::string(kInner));
    QCOMPARE(runs[1]["startedBy"].get<std::string>(), std::string(kOuter));
    QCOMPARE(runs[1]["depth"].get<int>(), 2);
    QCOMPARE(runs[1]["sessionMessage"].get<int>(), 1);
    const auto text = cl::test::runCli({"info", kSession});
    QVERIFY2(QString::fromStdString(text.out).contains(QStringLiteral("    agent a001ec35568563e0b")), text.out.c_str());
    QVERIFY(text.out.find("started by subagent aaac03bde82d5812f") != std::string::npos);
}

QTEST_MAIN(TestNestedAgents)
#include "tst_nestedagents.moc"
