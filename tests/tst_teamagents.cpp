// SPDX-License-Identifier: MIT
// Agents of the session's team (Claude Code 2.1.x): an Agent call with a name and run_in_background
// returns at once; the session talks to the running agent with SendMessage (to its name) and learns
// that it stopped from <task-notification> messages carrying its id. The meta file beside the
// agent's conversation names it and says it ran in the background. The fixture is a session
// recorded with the real Claude Code against our fake model server, reduced to its conversation
// lines with Claude Code's own texts replaced. The run knows its name and the session's messages to
// and about it: the analysis, the transcript tree, `info`.
#include "core/analysis/subagents.h"
#include "core/io/loader.h"
#include "core/util/json.h"
#include "widgets/models/transcriptmodel.h"

#include "test_support.h"

#include <QAbstractItemModelTester>
#include <QtTest>

using namespace cl;
using namespace cl::gui;

namespace {
const bool kEnvironment = cl::test::guiEnvironment();

const std::string kSession = CL_TEST_DATA_DIR "/claudecode/team-agent.jsonl";
constexpr const char *kAgent = "a910cc6ede715c296";
// The session's messages (0-based): the Agent call, the SendMessage call, the two notifications.
constexpr std::int32_t kCall = 1, kSend = 3, kFirstNotice = 6, kSecondNotice = 8;

QString previewOf(const TranscriptModel &model, int message, int block = -1)
{
    return model.indexForMessage(message, block).siblingAtColumn(TranscriptModel::PreviewColumn).data().toString();
}

} // namespace

class TestTeamAgents : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void runKnowsItsNameAndContacts();
    void otherIdsAndNamesAreNotLinked();
    void treeNamesTheAgentOnItsContacts();
    void infoListsNameAndContacts();
};

void TestTeamAgents::runKnowsItsNameAndContacts()
{
    const LoadResult r = loadFile(kSession);
    QVERIFY2(r.ok(), r.error.c_str());
    const auto runs = analysis::subagentRuns(*r.transcript);
    QCOMPARE(runs.size(), std::size_t(1));
    const analysis::SubagentRun &run = runs.front();
    QCOMPARE(run.agentId, std::string(kAgent));
    QCOMPARE(run.name, std::string("counter"));
    QVERIFY(run.background);
    QCOMPARE(run.message, kCall); // linked by the meta file: the call's result names no finished run
    QCOMPARE(run.messagesTo, std::vector<std::int32_t>{kSend});
    QCOMPARE(run.notifications, (std::vector<std::int32_t>{kFirstNotice, kSecondNotice}));
    // The lead's message reached the agent: a line of its own conversation.
    const Transcript &sub = *r.transcript->subagents.front();
    QVERIFY(std::any_of(sub.messages.begin(), sub.messages.end(), [](const Message &m) {
        return !m.blocks.empty() && m.blocks.front().text.find("Include hidden files too.") != std::string::npos;
    }));
}

void TestTeamAgents::otherIdsAndNamesAreNotLinked()
{
    LoadResult r = loadFile(kSession);
    QVERIFY(r.ok());
    Transcript &t = *r.transcript;
    // A background shell's notification (another id) and a message to an agent that is not there.
    Block &notice = t.messages[std::size_t(kSecondNotice)].blocks.front();
    const std::size_t at = notice.text.find(kAgent);
    QVERIFY(at != std::string::npos);
    notice.text.replace(at, std::strlen(kAgent), "bash_7");
    t.messages[std::size_t(kSend)].blocks.front().input["to"] = "reviewer";
    const auto runs = analysis::subagentRuns(t);
    QCOMPARE(runs.front().notifications, std::vector<std::int32_t>{kFirstNotice});
    QVERIFY(runs.front().messagesTo.empty());
    // Addressed by its id instead of its name: still the same agent.
    t.messages[std::size_t(kSend)].blocks.front().input["to"] = kAgent;
    QCOMPARE(analysis::subagentRuns(t).front().messagesTo, std::vector<std::int32_t>{kSend});
}

void TestTeamAgents::treeNamesTheAgentOnItsContacts()
{
    const LoadResult r = loadFile(kSession);
    QVERIFY(r.ok());
    TranscriptModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setTranscript(r.transcript);
    const QString call = previewOf(model, kCall, 0);
    QVERIFY2(call.startsWith(QStringLiteral("subagent counter (in the background): 4 messages")), qPrintable(call));
    const QString send = previewOf(model, kSend);
    QVERIFY2(send.startsWith(QStringLiteral("to subagent counter \u00b7 SendMessage")), qPrintable(send));
    for (const int notice : {kFirstNotice, kSecondNotice}) {
        const QString text = previewOf(model, notice);
        QVERIFY2(text.startsWith(QStringLiteral("subagent counter stopped \u00b7 <task-notification>")), qPrintable(text));
    }
    const QString plain = previewOf(model, kSend + 2); // the lead's answer after it: no prefix
    QVERIFY2(plain.startsWith(QStringLiteral("Asked it to include")), qPrintable(plain));
}

void TestTeamAgents::infoListsNameAndContacts()
{
    const auto run = cl::test::runCli({"info", kSession, "--json"});
    QCOMPARE(run.code, 0);
    const nlohmann::json j = nlohmann::json::parse(run.out).at("subagentRuns").at(0);
    QCOMPARE(j["name"].get<std::string>(), std::string("counter"));
    QCOMPARE(j["background"].get<bool>(), true);
    QCOMPARE(j["messagesTo"], nlohmann::json::array({kSend}));
    QCOMPARE(j["notifications"], nlohmann::json::array({kFirstNotice, kSecondNotice}));
    const auto text = cl::test::runCli({"info", kSession});
    QVERIFY2(text.out.find("named counter in the background") != std::string::npos, text.out.c_str());
    QVERIFY(text.out.find("1 message sent to it, 2 notifications that it stopped") != std::string::npos);
}

QTEST_MAIN(TestTeamAgents)
#include "tst_teamagents.moc"
