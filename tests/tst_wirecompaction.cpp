// SPDX-License-Identifier: MIT
// The agent's own compaction on the wire (core/formats/recording/compactioncall.h): the compaction
// requests of a recording found by each agent's marker, the summary read out of the answer, the
// audit linking a session's compaction to the request that wrote its summary and telling the facts
// the agent never sent from the ones its summary left out; `requests` and `audit --recording`; the
// audit panel and the request list in the window. And the session file the agent wrote beside the
// recording: found by the session id the requests carry, each request linked to its answer in it.
#include "core/formats/recording/compactioncall.h"
#include "core/io/loader.h"
#include "core/io/recordedrequest.h"
#include "core/io/requestsession.h"
#include "widgets/sessions/requestlist.h"
#include "core/workflow/audit.h"
#include "widgets/analysis/auditpanel.h"
#include "widgets/models/requestlistmodel.h"

#include "recording_fixture.h"
#include "test_support.h"

#include <QDir>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QtTest>

using namespace cl;
using namespace cl::test::recordingfixture;

namespace {

// A Claude Code session: a request, a Read, a test run that failed, the next request, then the
// agent's /compact. Facts of the replaced history: [request] Fix the failing parser test in
// /src/a.py, [path] /src/a.py, [command] pytest tests/test_parser.py, [error] FAILED
// tests/test_parser.py::test_empty, [request] Now also update the changelog.
std::string line(const Json &fields)
{
    Json o = {{"isSidechain", false}, {"userType", "external"}, {"cwd", "/w"}, {"sessionId", "s1"}, {"version", "2.1.0"}};
    o.update(fields);
    return o.dump() + "\n";
}

std::string user(const char *uuid, const char *parent, const Json &content)
{
    return line({{"type", "user"}, {"uuid", uuid}, {"parentUuid", parent ? Json(parent) : Json(nullptr)}, {"timestamp", "2026-11-30T09:00:00.000Z"}, {"message", {{"role", "user"}, {"content", content}}}});
}

std::string assistant(const char *uuid, const char *parent, const Json &content)
{
    return line({{"type", "assistant"}, {"uuid", uuid}, {"parentUuid", parent}, {"timestamp", "2026-11-30T09:00:01.000Z"}, {"message", {{"id", std::string("msg_") + uuid}, {"type", "message"}, {"role", "assistant"}, {"model", "claude-sonnet-4-5"}, {"content", content}}}});
}

Json toolUse(const char *id, const char *name, const Json &input)
{
    return Json::array({{{"type", "tool_use"}, {"id", id}, {"name", name}, {"input", input}}});
}

Json toolResult(const char *id, const std::string &text, bool error = false)
{
    return Json::array({{{"type", "tool_result"}, {"tool_use_id", id}, {"content", text}, {"is_error", error}}});
}

const char *const kSummaryCore = "1. Fix the failing parser test in /src/a.py\n2. Ran pytest tests/test_parser.py";
const char *const kError = "FAILED tests/test_parser.py::test_empty - AssertionError";

std::string claudeSession()
{
    return user("u1", nullptr, "Fix the failing parser test in /src/a.py")
           + assistant("a1", "u1", toolUse("toolu_1", "Read", {{"file_path", "/src/a.py"}}))
           + user("u2", "a1", toolResult("toolu_1", "def parse(text):\n    return text.split()\n"))
           + assistant("a2", "u2", toolUse("toolu_2", "Bash", {{"command", "pytest tests/test_parser.py"}}))
           + user("u3", "a2", toolResult("toolu_2", std::string(kError) + "\n1 failed", true))
           + user("u4", "u3", "Now also update the changelog")
           + assistant("a4", "u4", Json::array({{{"type", "text"}, {"text", "After the fix."}}}))
           + line({{"type", "system"}, {"subtype", "compact_boundary"}, {"uuid", "b1"}, {"parentUuid", nullptr}, {"logicalParentUuid", "a4"}, {"timestamp", "2026-11-30T09:05:00.000Z"}, {"content", "Conversation compacted"}, {"level", "info"}, {"compactMetadata", {{"trigger", "manual"}, {"preTokens", 30000}}}})
           // Claude Code writes the <summary> of the answer after its own preface, line breaks as they were.
           + line({{"type", "user"}, {"uuid", "u6"}, {"parentUuid", "b1"}, {"isCompactSummary", true}, {"timestamp", "2026-11-30T09:05:30.000Z"}, {"message", {{"role", "user"}, {"content", std::string("This session continues an earlier one.\nSummary:\n") + kSummaryCore}}}})
           + user("u7", "u6", "Continue");
}

Json withHeaders(Json request, const Json &headers)
{
    request["headers"].update(headers);
    return request;
}

std::string anthropicAnswer(const std::string &text, const std::string &id = "msg_c")
{
    return Json{{"id", id}, {"type", "message"}, {"role", "assistant"}, {"model", "claude-sonnet-4-5"}, {"content", Json::array({{{"type", "text"}, {"text", text}}})}, {"stop_reason", "end_turn"}, {"usage", {{"input_tokens", 900}, {"cache_read_input_tokens", 20000}, {"output_tokens", 60}}}}
        .dump();
}

std::string geminiAnswer(const std::string &text)
{
    return Json{{"candidates", Json::array({{{"content", {{"role", "model"}, {"parts", Json::array({{{"text", text}}})}}}, {"finishReason", "STOP"}}})}, {"usageMetadata", {{"promptTokenCount", 400}, {"candidatesTokenCount", 30}}}}.dump();
}

// Requests: 1 an ordinary Claude Code turn (its tool description mentions <summary>); 2 Claude
// Code's compaction: the history with the failed run's output cleared, the instruction last;
// 3 Codex's compaction (turn metadata); 4 and 5 Gemini CLI's snapshot and its check; 6 a Gemini
// turn.
std::string compactionRecording()
{
    const Json cc = {{"x-claude-code-session-id", "s1"}, {"x-app", "cli"}};
    const Json turn = {{"model", "claude-sonnet-4-5"}, {"max_tokens", 100}, {"tools", Json::array({{{"name", "Notes"}, {"description", "Writes a <summary> note"}, {"input_schema", {{"type", "object"}}}}})}, {"messages", Json::array({{{"role", "user"}, {"content", "Fix the failing parser test in /src/a.py"}}})}};
    Json history = Json::array({{{"role", "user"}, {"content", "Fix the failing parser test in /src/a.py"}},
                                {{"role", "assistant"}, {"content", toolUse("toolu_1", "Read", {{"file_path", "/src/a.py"}})}},
                                {{"role", "user"}, {"content", toolResult("toolu_1", "def parse(text):")}},
                                {{"role", "assistant"}, {"content", toolUse("toolu_2", "Bash", {{"command", "pytest tests/test_parser.py"}})}},
                                {{"role", "user"}, {"content", toolResult("toolu_2", "[Old tool result content cleared]")}},
                                {{"role", "user"}, {"content", Json::array({{{"type", "text"}, {"text", "Now also update the changelog"}}, {{"type", "text"}, {"text", "Summarise the conversation: an <analysis> block, then a <summary> block."}}})}}});
    const Json compact = {{"model", "claude-sonnet-4-5"}, {"max_tokens", 100}, {"messages", history}};
    const Json meta = {{"request_kind", "compaction"}, {"session_id", "cx-7"}, {"compaction", {{"trigger", "auto"}}}};
    const Json codex = {{"model", "gpt-5-codex"}, {"input", Json::array({{{"type", "message"}, {"role", "user"}, {"content", Json::array({{{"type", "input_text"}, {"text", "Write a handoff summary."}}})}}})}};
    const Json system = {{"parts", Json::array({{{"text", "Distil the history into a <state_snapshot>."}}})}};
    const Json gem1 = {{"systemInstruction", system}, {"contents", Json::array({{{"role", "user"}, {"parts", Json::array({{{"text", "Make a snapshot."}}})}}})}};
    const Json gem2 = {{"systemInstruction", system}, {"contents", Json::array({{{"role", "user"}, {"parts", Json::array({{{"text", "Make a snapshot."}}})}}, {{"role", "model"}, {"parts", Json::array({{{"text", "<state_snapshot>draft</state_snapshot>"}}})}}, {{"role", "user"}, {"parts", Json::array({{{"text", "Check it."}}})}}})}};
    const Json gemTurn = {{"contents", Json::array({{{"role", "user"}, {"parts", Json::array({{{"text", "Hello"}}})}}})}};
    const std::string gemPath = "/v1beta/models/gemini-2.5-pro:generateContent";
    std::string s = Json{{"type", "recording"}, {"version", 1}, {"started", "2026-11-30T09:00:00.000Z"}, {"upstream", "by path"}}.dump() + "\n";
    auto add = [&](int id, const Json &request, const std::string &contentType, const std::string &answer) {
        s += request.dump() + "\n" + responseLine(id, 200, contentType, answer).dump() + "\n";
    };
    // Its answer is the session's message a1 (same message id).
    add(1, withHeaders(requestLine(1, "/v1/messages", turn), cc), "application/json", anthropicAnswer("Looking.", "msg_a1"));
    add(2, withHeaders(requestLine(2, "/v1/messages", compact), cc), "application/json",
        anthropicAnswer(std::string("<analysis>The user wants the test fixed.</analysis>\n<summary>\n") + kSummaryCore + "\n</summary>"));
    add(3, withHeaders(requestLine(3, "/v1/responses", codex), {{"x-codex-turn-metadata", meta.dump()}}), "application/json", responsesDocument());
    add(4, requestLine(4, gemPath, gem1), "application/json", geminiAnswer("<state_snapshot>draft</state_snapshot>"));
    add(5, requestLine(5, gemPath, gem2), "application/json", geminiAnswer("<state_snapshot>final snapshot</state_snapshot>"));
    add(6, requestLine(6, gemPath, gemTurn), "application/json", geminiAnswer("Hi."));
    return s;
}

struct Files {
    QTemporaryDir dir;
    std::string session, recording;
    Files()
    {
        session = dir.filePath(QStringLiteral("session.jsonl")).toStdString();
        recording = dir.filePath(QStringLiteral("run.jsonl")).toStdString();
        test::writeFile(session, claudeSession());
        test::writeFile(recording, compactionRecording());
    }
};

} // namespace

class TestWireCompaction : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void findsEachAgentsCompaction()
    {
        const std::string bytes = compactionRecording();
        const auto calls = recording::findCompactionCalls(recording::readRecording(bytes, "run.jsonl"));
        QCOMPARE(calls.size(), std::size_t(4)); // not 1 (a <summary> in a tool description), not 6
        QCOMPARE(calls[0].request, std::size_t(2));
        QCOMPARE(calls[0].agent, std::string("Claude Code"));
        QCOMPARE(calls[0].sessionId, std::string("s1"));
        QCOMPARE(calls[0].messagesSent, std::size_t(6));
        QCOMPARE(calls[0].summary, std::string(kSummaryCore));
        QVERIFY(calls[0].instruction.find("<summary> block") != std::string::npos);
        QVERIFY(calls[0].usage);
        QCOMPARE(calls[0].usage->contextTokens(), std::int64_t(20900));
        QVERIFY(calls[0].sentText.find("pytest tests/test_parser.py") != std::string::npos);
        QVERIFY(calls[0].sentText.find(kError) == std::string::npos);
        QCOMPARE(calls[1].request, std::size_t(3));
        QCOMPARE(calls[1].agent, std::string("Codex"));
        QCOMPARE(calls[1].trigger, std::string("auto"));
        QCOMPARE(calls[1].sessionId, std::string("cx-7"));
        QCOMPARE(calls[1].summary, std::string("Running it.")); // no tags: the whole answer
        QCOMPARE(calls[2].agent, std::string("Gemini CLI"));
        QCOMPARE(calls[2].pass, 1);
        QCOMPARE(calls[2].summary, std::string("draft"));
        QCOMPARE(calls[3].pass, 2);
        QCOMPARE(calls[3].instruction, std::string("Check it."));
        QCOMPARE(calls[3].summary, std::string("final snapshot"));
        QCOMPARE(compactionLabel(calls[1]), std::string("Codex compaction (auto)"));
        QCOMPARE(compactionLabel(calls[3]), std::string("Gemini CLI compaction (its check)"));

        // Line breaks and spaces are compared as one space; an empty summary matches nothing.
        QVERIFY(recording::holdsSummary("Summary:  1. Fix the failing parser test in /src/a.py 2. Ran   pytest tests/test_parser.py", calls[0]));
        QVERIFY(!recording::holdsSummary("1. Fix the failing parser test", calls[0]));
        recording::CompactionCall empty;
        QVERIFY(!recording::holdsSummary("anything", empty));
    }

    void auditLinksTheCompactionToItsRequest()
    {
        Files f;
        const auto t = loadFile(f.session).transcript;
        QVERIFY(t);
        audit::Options o;
        o.strategies = std::vector<std::string>{};
        std::string error;
        QVERIFY2(readCompactionCalls(f.recording, o.wire, error), error.c_str());
        const auto list = audit::auditCompactions(*t, o);
        QCOMPARE(list.size(), std::size_t(1));
        const audit::Compaction &c = list[0];
        QVERIFY(c.wire);
        QCOMPARE(c.wire->call.request, std::size_t(2));
        QCOMPARE(c.wire->calls, 1);
        // Dropped: the error (its output was cleared before the request: never sent) and the
        // changelog request (sent, left out of the summary).
        QCOMPARE(c.dropped.size(), std::size_t(2));
        QCOMPARE(c.wire->notSent.size(), std::size_t(1));
        QCOMPARE(c.wire->notSent[0].kind, strategy::Fact::Kind::Error);
        QVERIFY(c.wire->notSent[0].text.find("test_empty") != std::string::npos);

        // Without a recording, or with one no call of which wrote the summary: no link.
        QVERIFY(!audit::auditCompactions(*t, audit::Options{std::vector<std::string>{}, {}, 1})[0].wire);
        audit::Options other = o;
        other.wire.erase(other.wire.begin());
        QVERIFY(!audit::auditCompactions(*t, other)[0].wire);
    }

    void cliRequestsAndAudit()
    {
        Files f;
        auto r = test::runCli({"requests", f.recording});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.find("Claude Code compaction: the agent asked for a summary") != std::string::npos, r.out.c_str());
        QVERIFY(r.out.find("Gemini CLI compaction (its check)") != std::string::npos);
        r = test::runCli({"requests", f.recording, "--json"});
        const Json listed = Json::parse(r.out);
        QCOMPARE(listed["list"][1]["compaction"], Json("Claude Code compaction"));
        QCOMPARE(listed["list"][1]["session"], Json("s1"));
        QVERIFY(listed["list"][0]["compaction"].is_null());

        r = test::runCli({"audit", f.session, "--recording", f.recording, "--strategies", "none"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.find("on the wire: " + f.recording + "#2 (Claude Code): sent 6 messages, 20,900 tokens measured") != std::string::npos, r.out.c_str());
        QVERIFY2(r.out.find("of the 2 dropped facts: 1 sent and left out of the summary, 1 never sent: [error] FAILED") != std::string::npos, r.out.c_str());
        r = test::runCli({"audit", f.session, "--recording", f.recording, "--strategies", "none", "--json"});
        const Json audited = Json::parse(r.out);
        const Json &wire = audited["compactions"][0]["wire"];
        QCOMPARE(wire["linked"], Json(true));
        QCOMPARE(wire["request"], Json(2));
        QCOMPARE(wire["open"], Json(f.recording + "#2"));
        QCOMPARE(wire["droppedNotSent"].size(), std::size_t(1));
        // Without --recording the key is null; a file that is not a recording is an error naming it.
        r = test::runCli({"audit", f.session, "--strategies", "none", "--json"});
        QVERIFY(Json::parse(r.out)["compactions"][0]["wire"].is_null());
        r = test::runCli({"audit", f.session, "--recording", f.session});
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.find("not a recording") != std::string::npos, r.err.c_str());
    }

    void auditPanelShowsTheRequest()
    {
        Files f;
        auto t = loadFile(f.session).transcript;
        QVERIFY(t);
        gui::AuditPanel panel;
        panel.resize(900, 600);
        panel.setTranscript(t);
        panel.refreshNow();
        QCOMPARE(panel.compactions().size(), std::size_t(1));
        QVERIFY(!panel.compactions()[0].wire);
        QVERIFY(panel.compactionList()->topLevelItem(0)->text(6).isEmpty());
        panel.setRecording(QString::fromStdString(f.recording));
        panel.refreshNow();
        QVERIFY(panel.compactions()[0].wire);
        QCOMPARE(panel.compactionList()->topLevelItem(0)->text(6), QStringLiteral("#2"));
        QCOMPARE(panel.recordingButton()->text(), QStringLiteral("Recording: run.jsonl"));
        const QString html = panel.summaryView()->toHtml();
        QVERIFY2(html.contains(QStringLiteral("request:2")), qPrintable(html));
        QVERIFY(panel.summaryView()->toPlainText().contains(QStringLiteral("Never sent to be summarised")));
        // The request's link opens it as FILE#N.
        QSignalSpy opened(&panel, &gui::AuditPanel::requestActivated);
        Q_EMIT panel.summaryView()->anchorClicked(QUrl(QStringLiteral("request:2")));
        QCOMPARE(opened.size(), 1);
        QCOMPARE(opened[0][0].toString(), QString::fromStdString(f.recording + "#2"));
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.grab().save(QStringLiteral(CL_BINARY_DIR "/audit-wire.png"));

        // A file that is not a recording: said in the header, the audit still there.
        panel.setRecording(QString::fromStdString(f.session));
        panel.refreshNow();
        QCOMPARE(panel.compactions().size(), std::size_t(1));
        QVERIFY(panel.header()->text().contains(QStringLiteral("could not be read")));
        QCOMPARE(panel.compactionList()->topLevelItem(0)->text(6), QStringLiteral("not found"));
    }

    // The session the agent wrote, found by the session id its requests carry, linked request by request.
    void linksTheSessionFile()
    {
        Files f;
        const QString home = f.dir.filePath(QStringLiteral("home"));
        const std::string claude = QString(home + QStringLiteral("/.claude/projects/-w/s1.jsonl")).toStdString();
        const std::string codex = QString(home + QStringLiteral("/.codex/sessions/2026/11/30/rollout-2026-11-30T09-00-00-cx-7.jsonl")).toStdString();
        QVERIFY(QDir().mkpath(home + QStringLiteral("/.claude/projects/-w")));
        QVERIFY(QDir().mkpath(home + QStringLiteral("/.codex/sessions/2026/11/30")));
        test::writeFile(claude, claudeSession());
        test::writeFile(codex, "{}\n");
        QCOMPARE(findAgentSession("s1", home.toStdString()), claude);
        QCOMPARE(findAgentSession("cx-7", home.toStdString()), codex);
        QCOMPARE(findAgentSession("nobody", home.toStdString()), std::string());
        QCOMPARE(findAgentSession("../s1", home.toStdString()), std::string());

        std::string bytes, error;
        QVERIFY(readRecordingFile(f.recording, bytes, error));
        const recording::Recording rec = recording::readRecording(bytes, f.recording);
        RecordingSummary summary = summarizeRecording(bytes, f.recording);
        QCOMPARE(sessionIdOf(summary), std::string("s1"));
        const auto session = loadFile(claude).transcript;
        QVERIFY(session);
        QCOMPARE(linkToSession(summary, rec, *session), std::size_t(1));
        QCOMPARE(summary.requests[0].sessionMessage, std::int64_t(1)); // a1, after u1
        for (std::size_t k = 1; k < summary.requests.size(); ++k)
            QCOMPARE(summary.requests[k].sessionMessage, std::int64_t(-1)); // the compaction's answer became a user summary

        auto r = test::runCli({"requests", f.recording, "--home", home.toStdString(), "--json"});
        Json j = Json::parse(r.out);
        QCOMPARE(j["session"]["path"], Json(claude));
        QCOMPARE(j["session"]["linked"], Json(1));
        QCOMPARE(j["list"][0]["sessionMessage"], Json(2));
        QVERIFY(j["list"][1]["sessionMessage"].is_null());
        r = test::runCli({"requests", f.recording, "--session", f.session});
        QVERIFY2(r.out.find("session: " + f.session + " (the answers of 1 of 6 model calls are in it") != std::string::npos, r.out.c_str());
        r = test::runCli({"requests", f.recording, "--session", f.dir.filePath(QStringLiteral("missing.jsonl")).toStdString()});
        QCOMPARE(r.code, 2);

        // The dock finds it under the home folder.
        const QByteArray oldHome = qgetenv("HOME");
        qputenv("HOME", home.toUtf8());
        gui::RequestList list;
        list.setRecording(QString::fromStdString(f.recording), 1);
        list.waitForWork();
        qputenv("HOME", oldHome);
        QTRY_VERIFY(!list.isReading());
        QCOMPARE(list.model()->index(0, gui::RequestListModel::SessionColumn).data().toString(), QStringLiteral("#2"));
        QVERIFY2(list.status()->text().contains(QStringLiteral("s1.jsonl")), qPrintable(list.status()->text()));
    }

    void requestListNamesTheCompaction()
    {
        Files f;
        RecordingSummary summary;
        std::string error;
        QVERIFY(summarizeRecordingFile(f.recording, summary, error));
        gui::RequestListModel model;
        model.setRequests(std::move(summary.requests));
        QCOMPARE(model.index(1, gui::RequestListModel::KindColumn).data().toString(), QStringLiteral("compaction"));
        QVERIFY(model.index(0, gui::RequestListModel::KindColumn).data().toString().isEmpty());
        QVERIFY(model.index(1, 0).data(Qt::ToolTipRole).toString().contains(QStringLiteral("Claude Code compaction")));
    }
};

QTEST_MAIN(TestWireCompaction)
#include "tst_wirecompaction.moc"
