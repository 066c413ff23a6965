// SPDX-License-Identifier: MIT
// A recording of `contextlens-cli record` opened like a session (core/io/recordedrequest.h): each
// request is its wire API's document, the answer reassembled from its stream (Anthropic, OpenAI Chat
// and Responses, Gemini) and appended with the usage the provider measured; FILE#N names request N;
// the request list (`requests`); what is not a model call, an error answer, a request without an
// answer, a broken line. The recording is written here the way the proxy writes one
// (docs/recording-format.md); the agents leg checks recordings of the real agents.
#include "core/formats/recording/answer.h"
#include "core/formats/recording/recording.h"
#include "core/io/loader.h"
#include "core/io/recordedrequest.h"
#include "core/io/saveinplace.h"
#include "core/io/writer.h"
#include "core/util/json.h"

#include "recording_fixture.h"
#include "test_support.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace cl;
using Json = nlohmann::json;
using namespace cl::test::recordingfixture;

namespace {

std::size_t countWarnings(const Transcript &t)
{
    std::size_t n = 0;
    for (const Diagnostic &d : t.diagnostics)
        n += d.severity != Diagnostic::Severity::Info;
    return n;
}

bool hasDiagnostic(const Transcript &t, const std::string &text)
{
    for (const Diagnostic &d : t.diagnostics)
        if (d.message.find(text) != std::string::npos)
            return true;
    return false;
}

} // namespace

class TestRecordedRequest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_path = m_dir.filePath(QStringLiteral("rec.jsonl")).toStdString();
        test::writeFile(m_path, recordingText());
    }

    void readsExchangesInFileOrder()
    {
        const std::string bytes = test::readFile(m_path);
        QVERIFY(recording::looksLikeRecording(bytes));
        QVERIFY(!recording::looksLikeRecording(R"({"type":"user","message":{}})"));
        const recording::Recording r = recording::readRecording(bytes, m_path);
        QCOMPARE(r.exchanges.size(), std::size_t(8));
        QCOMPARE(r.upstreams.size(), std::size_t(2));
        QCOMPARE(r.diagnostics.size(), std::size_t(1));
        QCOMPARE(r.diagnostics[0].line, 12u);
        const Format apis[] = {Format::Anthropic, Format::Unknown, Format::OpenAIChat, Format::OpenAIResponses,
                               Format::Gemini, Format::Anthropic, Format::Anthropic, Format::Anthropic};
        for (std::size_t i = 0; i < 8; ++i) {
            QCOMPARE(r.exchanges[i].number, i + 1);
            QCOMPARE(r.exchanges[i].api, apis[i]);
        }
        QCOMPARE(r.exchanges[7].run, std::size_t(2));
        QCOMPARE(r.exchanges[7].id, std::int64_t(1));
        QCOMPARE(r.exchanges[7].status, 200); // paired within its own run, not with run 1's id 1
        QCOMPARE(r.exchanges[0].firstByteMs.value_or(-1), std::int64_t(41));
        QCOMPARE(r.exchanges[6].responseLine, 0u); // no answer recorded
        QCOMPARE(recording::pick(r, 0)->number, std::size_t(8));
        QVERIFY(recording::pick(r, 9) == nullptr);
    }

    void reassemblesEachApisAnswer()
    {
        const recording::Answer a = recording::readAnswer(Format::Anthropic, anthropicStream());
        QVERIFY(a.decoded);
        QCOMPARE(a.message.blocks.size(), std::size_t(2));
        QCOMPARE(a.message.blocks[0].text, std::string("Let me look."));
        QCOMPARE(a.message.blocks[1].type, BlockType::ToolUse);
        QCOMPARE(a.message.blocks[1].input, Json({{"command", "ls"}}));
        QCOMPARE(a.stopReason, std::string("tool_use"));
        QVERIFY(a.usage);
        QCOMPARE(a.usage->inputTokens, std::int64_t(10));
        QCOMPARE(a.usage->cacheReadTokens, std::int64_t(1000));
        QCOMPARE(a.usage->cacheCreationTokens, std::int64_t(50));
        QCOMPARE(a.usage->outputTokens, std::int64_t(30));

        const recording::Answer c = recording::readAnswer(Format::OpenAIChat, chatStream());
        QCOMPARE(c.message.blocks.size(), std::size_t(2));
        QCOMPARE(c.message.blocks[0].text, std::string("Reading the file."));
        QCOMPARE(c.message.blocks[1].toolId, std::string("call_1"));
        QCOMPARE(c.message.blocks[1].input, Json({{"path", "a.txt"}}));
        QCOMPARE(c.usage->contextTokens(), std::int64_t(500)); // prompt tokens include the cached ones
        QCOMPARE(c.usage->cacheReadTokens, std::int64_t(100));

        const recording::Answer o = recording::readAnswer(Format::OpenAIResponses, responsesDocument());
        QCOMPARE(o.message.blocks.size(), std::size_t(2));
        QCOMPARE(o.message.blocks[1].toolName, std::string("shell"));
        QCOMPARE(o.usage->inputTokens, std::int64_t(100));
        QCOMPARE(o.usage->cacheReadTokens, std::int64_t(200));

        const recording::Answer g = recording::readAnswer(Format::Gemini, geminiStream());
        QCOMPARE(g.message.blocks.size(), std::size_t(1)); // streamed pieces of one text
        QCOMPARE(g.message.blocks[0].text, std::string("All done."));
        QCOMPARE(g.usage->contextTokens(), std::int64_t(700));
        QCOMPARE(g.stopReason, std::string("STOP"));

        const recording::Answer e = recording::readAnswer(Format::Anthropic, R"({"type":"error","error":{"message":"Overloaded"}})");
        QVERIFY(!e.decoded);
        QCOMPARE(e.error, std::string("Overloaded"));
        QVERIFY(!recording::readAnswer(Format::Gemini, "<html>bad gateway</html>").decoded);
    }

    void opensARequestWithItsAnswer()
    {
        const LoadResult r = loadFile(m_path + "#1");
        QVERIFY2(r.ok(), r.error.c_str());
        const Transcript &t = *r.transcript;
        QCOMPARE(t.format, Format::Anthropic);
        QCOMPARE(t.path, m_path + "#1");
        QCOMPARE(t.messages.size(), std::size_t(3)); // system prompt, the user's request, the answer
        QCOMPARE(t.messages.back().role, Role::Assistant);
        QVERIFY(t.messages.back().usage);
        QCOMPARE(t.messages.back().usage->contextTokens(), std::int64_t(1060));
        QCOMPARE(t.recording.value("request", 0), 1);
        QVERIFY(t.recording.value("answered", false));
        QVERIFY(!t.hasEdits());
        QCOMPARE(countWarnings(t), std::size_t(1)); // the recording's broken line, said with it
        // Its bytes are the request's document with the answer appended: an export carries both.
        const WriteResult w = writeTranscript(t, Format::Anthropic);
        Json doc;
        std::string err;
        QVERIFY(cl::json::parse(w.bytes, doc, err) != cl::json::ParseStatus::Failed);
        QCOMPARE(doc["messages"].size(), std::size_t(2));
        QCOMPARE(doc["messages"][1]["content"][1]["input"], Json({{"command", "ls"}}));
        QCOMPARE(doc["tools"].size(), std::size_t(1));

        // The file alone: the last request of the agent's loop (one that sent tools).
        const LoadResult last = loadFile(m_path);
        QVERIFY(last.ok());
        QCOMPARE(last.transcript->path, m_path + "#8");
        QCOMPARE(last.transcript->messages.back().plainText(), std::string("Here."));
    }

    void saysWhatCannotBeOpened()
    {
        LoadResult r = loadFile(m_path + "#2");
        QVERIFY(!r.ok());
        QVERIFY2(r.error.find("not a model call") != std::string::npos, r.error.c_str());
        r = loadFile(m_path + "#9");
        QVERIFY(!r.ok());
        QVERIFY2(r.error.find("8 requests, no request 9") != std::string::npos, r.error.c_str());
        const std::string plain = m_dir.filePath(QStringLiteral("plain.json")).toStdString();
        test::writeFile(plain, R"({"model":"m","messages":[{"role":"user","content":"hi"}]})");
        r = loadFile(plain + "#2");
        QVERIFY(!r.ok());
        QVERIFY2(r.error.find("not a recording") != std::string::npos, r.error.c_str());

        // An error answer and a missing one: the request opens, the answer's trouble is said.
        r = loadFile(m_path + "#6");
        QVERIFY(r.ok());
        QCOMPARE(r.transcript->messages.size(), std::size_t(1));
        QVERIFY(!r.transcript->recording.value("answered", true));
        QVERIFY(hasDiagnostic(*r.transcript, "Overloaded"));
        r = loadFile(m_path + "#7");
        QVERIFY(r.ok());
        QVERIFY(hasDiagnostic(*r.transcript, "no response recorded"));

        // Never saved over: the recording is not a session file.
        r = loadFile(m_path + "#1");
        const auto stamp = stampOf(m_path);
        QVERIFY(stamp);
        const std::string before = test::readFile(m_path);
        const SaveInPlaceResult s = saveInPlace(*r.transcript, r.transcript->path, *stamp);
        QVERIFY(!s.ok);
        QVERIFY2(s.error.find("recording") != std::string::npos, s.error.c_str());
        QCOMPARE(test::readFile(m_path), before);
    }

    void listsEveryRequest()
    {
        const RecordingSummary s = summarizeRecording(test::readFile(m_path), m_path);
        QCOMPARE(s.requests.size(), std::size_t(8));
        QCOMPARE(s.modelCalls, std::size_t(7));
        const RequestSummary &first = s.requests[0];
        QCOMPARE(first.messages, std::size_t(1));
        QCOMPARE(first.tools, std::size_t(1));
        QVERIFY(first.systemTokens > 0 && first.toolTokens > 0 && first.messageTokens > 0);
        QVERIFY(first.estimate >= first.systemTokens + first.toolTokens + first.messageTokens);
        QCOMPARE(first.usage->contextTokens(), std::int64_t(1060));
        QCOMPARE(first.answerToolCalls, std::size_t(1));
        QCOMPARE(s.requests[1].api, Format::Unknown);
        QCOMPARE(s.requests[4].model, std::string("gemini-2.5-pro")); // from the path
        QCOMPARE(s.requests[4].tools, std::size_t(2));                // Gemini's function declarations
        QVERIFY(s.requests[5].error.find("Overloaded") != std::string::npos);

        test::CliRun run = test::runCli({"requests", m_path, "--json"});
        QCOMPARE(run.code, 1); // the broken line
        const Json j = Json::parse(run.out);
        QCOMPARE(j["list"].size(), std::size_t(8));
        QCOMPARE(j["list"][2]["open"], Json(m_path + "#3"));
        QCOMPARE(j["list"][2]["usage"]["context"], Json(500));
        QCOMPARE(j["list"][0]["cache"]["kind"], Json("first"));
        QVERIFY(j["list"][1]["cache"].is_null()); // not a model call
        QVERIFY(j["cache"].contains("breaks"));
        run = test::runCli({"info", m_path + "#3", "--json"});
        const Json info = Json::parse(run.out);
        QCOMPARE(info["format"], Json("openai-chat"));
        QCOMPARE(info["recording"]["request"], Json(3));
        run = test::runCli({"requests", m_dir.filePath(QStringLiteral("plain.json")).toStdString()});
        QCOMPARE(run.code, 2);
        QVERIFY(run.out.find("not a recording") != std::string::npos || run.err.find("not a recording") != std::string::npos);
    }

private:
    QTemporaryDir m_dir;
    std::string m_path;
};

QTEST_GUILESS_MAIN(TestRecordedRequest)
#include "tst_recordedrequest.moc"
