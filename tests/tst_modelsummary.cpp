// SPDX-License-Identifier: MIT
// Model summaries (net/) against the project's fake model server on 127.0.0.1: the four providers
// (streamed and whole answers), retries that honour Retry-After, the provider's error shown, timeout,
// cancel, refusal, empty and oversized answers rejected with nothing applied, the answer cache, the
// verification pass and the dropped-facts appendix, summaries.json, the API key kept out of
// everything written, and `contextlens-cli compact / compare --summarizer`. The wire formats, prompts
// and answer checks without a network: tst_llmformats. No test calls the internet.
#include "cli/cli.h"
#include "cli/summarizer.h"
#include "core/llm/provider.h"
#include "core/io/writer.h"
#include "core/strategies/registry.h"
#include "core/workflow/operations.h"
#include "core/strategy/strategy.h"
#include "net/modelsummarizer.h"

#include "fake_server.h"
#include "modelsummary_data.h"
#include "strategy_fixture.h"
#include "test_support.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

#include <thread>

using namespace cl;
using cl::test::FakeModelServer;
using cl::test::errorTurn;
using cl::test::script;
using cl::test::textTurn;
using cl::test::tierfix::Builder;
using cl::test::tierfix::prose;
using Json = nlohmann::json;
using namespace cl::test::answers;

namespace {

llm::SummarizerSettings settingsFor(llm::Provider p, const FakeModelServer &server, bool stream = true)
{
    llm::SummarizerSettings s;
    s.config.provider = p;
    s.config.baseUrl = server.baseUrl(p == llm::Provider::OpenAIChat || p == llm::Provider::OpenAIResponses);
    s.config.model = "test-model";
    s.config.apiKey = kKey;
    s.config.stream = stream;
    s.config.timeoutMs = 20000;
    s.backoffMs = 50;
    return s;
}

std::string header(const Json &request, const std::string &name)
{
    for (auto it = request["headers"].begin(); it != request["headers"].end(); ++it)
        if (QString::fromStdString(it.key()).compare(QString::fromStdString(name), Qt::CaseInsensitive) == 0)
            return it.value().get<std::string>();
    return {};
}

// The rejection a summary run ends with ("" when it succeeded).
std::string rejection(const net::ModelSummarizer &m, const strategy::SummaryRequest &r)
{
    try {
        (void)m.summarize(r);
    } catch (const strategy::SummaryError &e) {
        return e.what();
    }
    return {};
}

} // namespace

class TestModelSummary : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        CL_REQUIRE(!QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty(), "python3 for the fake model server");
    }

    // ---- Against the fake server --------------------------------------------------------------

    void everyProviderWritesASummary_data()
    {
        QTest::addColumn<int>("provider");
        QTest::addColumn<bool>("stream");
        for (const llm::Provider p : llm::allProviders())
            for (const bool stream : {true, false})
                QTest::newRow((std::string(llm::providerName(p)) + (stream ? " streamed" : " whole")).c_str()) << int(p) << stream;
    }

    void everyProviderWritesASummary()
    {
        QFETCH(int, provider);
        QFETCH(bool, stream);
        const auto p = llm::Provider(provider);
        FakeModelServer server;
        QVERIFY(server.start(script({textTurn(kClaudeAnswer, {{"chunks", 6}, {"usage", {{"input", 1234}, {"output", 321}}}})})));
        net::ModelSummarizer m(settingsFor(p, server, stream));
        int deltas = 0;
        std::string streamed;
        m.setOnDelta([&](const std::string &d) {
            ++deltas;
            streamed += d;
        });
        Session s;
        const strategy::Summary sum = m.summarize(s.request());
        QVERIFY(sum.text.find("This session continues") == 0); // framed as the strategy's rule summary is
        QVERIFY(sum.text.find("1. Primary Request and Intent: Fix the parser") != std::string::npos);
        QVERIFY(sum.text.find("Going through") == std::string::npos);
        if (stream) {
            QVERIFY2(deltas >= 6, std::to_string(deltas).c_str());
            QCOMPARE(streamed, std::string(kClaudeAnswer));
        } else {
            QCOMPARE(deltas, 0);
        }
        const auto reports = m.reports();
        QCOMPARE(reports.size(), std::size_t(1));
        QCOMPARE(reports[0].usage.input, std::int64_t(1234));
        QCOMPARE(reports[0].usage.output, std::int64_t(321));
        QVERIFY(reports[0].missingSections.empty());
        QCOMPARE(reports[0].droppedFacts.size(), std::size_t(3));
        // The request: path, model, key header, streaming as asked, the preset's prompt.
        const auto requests = server.requests();
        QCOMPARE(requests.size(), std::size_t(1));
        const Json &r = requests[0];
        const std::string path = r["path"];
        const Json &body = r["body"];
        switch (p) {
        case llm::Provider::Anthropic:
            QCOMPARE(path, std::string("/v1/messages"));
            QCOMPARE(header(r, "x-api-key"), std::string(kKey));
            QCOMPARE(header(r, "anthropic-version"), std::string("2023-06-01"));
            QVERIFY(body["system"].get<std::string>().find("<analysis>") != std::string::npos);
            break;
        case llm::Provider::OpenAIChat:
            QCOMPARE(path, std::string("/v1/chat/completions"));
            QCOMPARE(header(r, "authorization"), std::string("Bearer ") + kKey);
            break;
        case llm::Provider::OpenAIResponses:
            QCOMPARE(path, std::string("/v1/responses"));
            QCOMPARE(header(r, "authorization"), std::string("Bearer ") + kKey);
            break;
        case llm::Provider::Gemini:
            QCOMPARE(path, std::string("/v1beta/models/test-model:") + (stream ? "streamGenerateContent?alt=sse" : "generateContent"));
            QCOMPARE(header(r, "x-goog-api-key"), std::string(kKey));
            break;
        }
        if (p != llm::Provider::Gemini) {
            QCOMPARE(body["model"], Json("test-model"));
            QCOMPARE(body["stream"], Json(stream));
        }
        // The key is in the request header only: nowhere in the summary or the report.
        QVERIFY(sum.text.find(kKey) == std::string::npos);
        QVERIFY(sum.sections.dump().find(kKey) == std::string::npos);
        QVERIFY(m.reportJson().dump().find(kKey) == std::string::npos);
        QVERIFY(body.dump().find(kKey) == std::string::npos);
    }

    void retriesHonourRetryAfter()
    {
        FakeModelServer server;
        QVERIFY(server.start(script({errorTurn(429, "slow down", {{"retry-after", "1"}}), errorTurn(503, "busy"), textTurn(kClaudeAnswer)})));
        net::ModelSummarizer m(settingsFor(llm::Provider::Anthropic, server));
        std::vector<int> waits;
        m.setOnRetry([&](int, int waitMs, const std::string &) { waits.push_back(waitMs); });
        QElapsedTimer timer;
        timer.start();
        Session s;
        QVERIFY(!m.summarize(s.request()).text.empty());
        QVERIFY(timer.elapsed() >= 1000);               // Retry-After: 1 second
        QCOMPARE(waits, (std::vector<int>{1000, 100})); // then the backoff: 50 ms doubled
        QCOMPARE(m.reports().front().attempts, 3);
        QCOMPARE(server.requests().size(), std::size_t(3));
    }

    void failuresAreRejectedWithTheirReason()
    {
        FakeModelServer server;
        QVERIFY(server.start(script({errorTurn(400, "max_tokens too large"), textTurn("I cannot help with that.", {{"stop", "refusal"}}),
                                     textTurn(""), textTurn("<summary>1. Primary Request and Intent: cut</summary>", {{"stop", "max_tokens"}}),
                                     textTurn("<summary>" + prose(200000, 9) + "</summary>")})));
        auto settings = settingsFor(llm::Provider::Anthropic, server);
        settings.config.retries = 0;
        net::ModelSummarizer m(settings);
        Session s;
        const auto r = s.request();
        std::string why = rejection(m, r);
        QVERIFY2(why.find("HTTP 400") != std::string::npos && why.find("max_tokens too large") != std::string::npos, why.c_str());
        why = rejection(m, r);
        QVERIFY2(why.find("refused") != std::string::npos, why.c_str());
        why = rejection(m, r);
        QVERIFY2(why.find("empty") != std::string::npos, why.c_str());
        why = rejection(m, r);
        QVERIFY2(why.find("output limit") != std::string::npos, why.c_str());
        why = rejection(m, r);
        QVERIFY2(why.find("not smaller") != std::string::npos, why.c_str());
        for (const auto &rep : m.reports())
            QVERIFY(!rep.error.empty());
        // Through a strategy: nothing applied, the note says why.
        QVERIFY(server.start(script({errorTurn(500, "exploded")})));
        settings = settingsFor(llm::Provider::Anthropic, server);
        settings.config.retries = 0;
        net::ModelSummarizer failing(settings);
        strategy::Input in(s.t);
        in.summarizer = &failing;
        const strategy::Result result = strategy::run(*strategy::find("claude-code-compact"), in, {{"force", true}});
        QVERIFY(!result.changed);
        QVERIFY2(result.note.find("not applied") == 0 && result.note.find("exploded") != std::string::npos, result.note.c_str());
        QCOMPARE(result.stats.tokensAfter, result.stats.tokensBefore);
    }

    void timeoutAndCancel()
    {
        FakeModelServer server;
        QVERIFY(server.start(script({textTurn(kClaudeAnswer, {{"delay", 3}}), textTurn(kClaudeAnswer, {{"delay", 5}})})));
        auto settings = settingsFor(llm::Provider::OpenAIChat, server);
        settings.config.timeoutMs = 800;
        settings.config.retries = 0;
        net::ModelSummarizer slow(settings);
        Session s;
        QElapsedTimer timer;
        timer.start();
        std::string why = rejection(slow, s.request());
        QVERIFY2(why.find("timeout") != std::string::npos, why.c_str());
        QVERIFY(timer.elapsed() < 2800);
        settings.config.timeoutMs = 20000;
        net::ModelSummarizer cancellable(settings);
        std::atomic_bool cancel{false};
        cancellable.setCancelFlag(&cancel);
        std::thread stopper([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            cancel = true;
        });
        timer.restart();
        why = rejection(cancellable, s.request());
        stopper.join();
        QVERIFY2(why.find("cancelled") != std::string::npos, why.c_str());
        QVERIFY(timer.elapsed() < 2000);
    }

    void cacheVerifyAndAppendix()
    {
        FakeModelServer server;
        const std::string fixed = std::string(kClaudeAnswer).replace(std::string(kClaudeAnswer).find("7. Pending Tasks: none"), 22, "7. Pending Tasks: update /src/b.py docs");
        QVERIFY(server.start(script({textTurn(kClaudeAnswer), textTurn(fixed)})));
        QTemporaryDir cache;
        auto settings = settingsFor(llm::Provider::Gemini, server);
        settings.cacheDir = cache.path().toStdString();
        settings.verify = true;
        settings.keepDroppedFacts = true;
        Session s;
        {
            net::ModelSummarizer m(settings);
            const auto sum = m.summarize(s.request());
            const auto rep = m.reports().front();
            QVERIFY(rep.verified);
            QVERIFY(!rep.cached);
            // The verified summary mentions /src/b.py: only the error and the second request are dropped.
            QCOMPARE(rep.droppedFacts.size(), std::size_t(2));
            QVERIFY(rep.appendix);
            QVERIFY(sum.text.find("does not mention") != std::string::npos);
            QVERIFY(sum.text.find("FAILED tests/test_parser.py::test_empty - ValueError") != std::string::npos);
            const auto requests = server.requests();
            QCOMPARE(requests.size(), std::size_t(2));
            QVERIFY(requests[1]["body"].dump().find("summary_to_check") != std::string::npos);
        }
        // The same request again: answered from the cache, no call made.
        net::ModelSummarizer again(settings);
        const auto sum = again.summarize(s.request());
        QVERIFY(again.reports().front().cached);
        QCOMPARE(again.reports().front().cost.value_or(-1), 0.0);
        QCOMPARE(server.requests().size(), std::size_t(2));
        QVERIFY(sum.text.find("update /src/b.py docs") != std::string::npos);
        for (const QString &f : QDir(cache.path()).entryList(QDir::Files)) {
            QFile file(QDir(cache.path()).filePath(f));
            QVERIFY(file.open(QIODevice::ReadOnly));
            QVERIFY(!file.readAll().contains(kKey));
        }
    }

    // Seed 004's compress now with a model: summaries.json records who wrote the summary and its cost.
    void summariesJsonRecordsTheModel()
    {
        FakeModelServer server;
        QVERIFY(server.start(script({textTurn("Summary: the user asked to fix the parser in /src/a.py; it was fixed.",
                                              {{"usage", {{"input", 900}, {"output", 40}}}})})));
        auto settings = settingsFor(llm::Provider::OpenAIChat, server);
        settings.config.model = "gpt-4o-mini";
        net::ModelSummarizer m(settings);
        QTemporaryDir dir;
        const ops::Store store(dir.path().toStdString());
        ops::Config config;
        config.keepRecent = 1;
        config.maxTurns = 2;
        std::string error;
        QVERIFY2(store.saveConfig(config, &error), error.c_str());
        Builder b;
        for (int k = 0; k < 8; ++k) {
            b.text(Role::User, "Request " + std::to_string(k) + ": fix the parser in /src/a.py");
            b.tool("Read", {{"file_path", "/src/a.py"}}, prose(3000, std::uint32_t(k + 1)));
            b.text(Role::Assistant, "Done with request " + std::to_string(k) + ".");
        }
        const Transcript &t = b.done();
        ops::CompressOptions o;
        o.summarizer = &m;
        const ops::CompressOutcome out = ops::compressNow(t, store, o);
        QVERIFY2(out.ok && out.result && out.result->changed, (out.error + (out.result ? out.result->note : "")).c_str());
        QVERIFY2(out.summaryAppended, out.summaryError.c_str());
        std::vector<ops::SummaryRecord> list;
        QVERIFY(store.loadSummaries(list, &error));
        QCOMPARE(list.size(), std::size_t(1));
        QCOMPARE(list[0].summarizer, std::string("model:openai/gpt-4o-mini"));
        QCOMPARE(list[0].model["inputTokens"], Json(900));
        QCOMPARE(list[0].model["outputTokens"], Json(40));
        QVERIFY(list[0].model["cost"].is_number());
        QVERIFY(list[0].content.find("fix the parser") != std::string::npos);
        QVERIFY(list[0].toJson().dump().find(kKey) == std::string::npos);
    }

    // Seed 001's incremental compaction with a model: only the messages after the earlier compaction
    // go to the model; the earlier summary stays as it was, the model's summary follows it.
    void incrementalCompactionWithTheModel()
    {
        FakeModelServer server;
        QVERIFY(server.start(script({textTurn("Summary: questions 6 to 11 about the parser were answered.")})));
        net::ModelSummarizer m(settingsFor(llm::Provider::OpenAIChat, server));
        Builder b;
        auto pair = [&](int k) {
            b.text(Role::User, "Question " + std::to_string(k) + ": " + prose(200, std::uint32_t(k + 1)));
            b.text(Role::Assistant, "Answer " + std::to_string(k) + ": " + prose(400, std::uint32_t(k + 50)));
        };
        for (int k = 0; k < 6; ++k)
            pair(k);
        const std::size_t markerAt = b.text(Role::System, "Conversation compacted");
        b.t.messages[markerAt].kind = MessageKind::CompactBoundary;
        b.t.messages[markerAt].type = "system/compact_boundary";
        const std::size_t summaryAt = b.text(Role::User, "Summary: EARLIER-SUMMARY-TEXT of questions 0 to 5.");
        b.t.messages[summaryAt].kind = MessageKind::CompactSummary;
        b.text(Role::Assistant, "Understood.");
        for (int k = 6; k < 18; ++k)
            pair(k);
        const Transcript &t = b.done();
        strategy::Input in(t);
        in.summarizer = &m;
        const strategy::Strategy *s = strategy::find("microcompaction");
        QVERIFY(s);
        const strategy::Result r = strategy::run(*s, in, {{"force", true}, {"adaptiveRatio", false}, {"incremental", true}});
        QVERIFY2(r.changed, r.note.c_str());
        QCOMPARE(r.fates[summaryAt].fate, strategy::Fate::Kept);
        QCOMPARE(server.requests().size(), std::size_t(1));
        const std::string prompt = server.requests().front()["body"].dump();
        QVERIFY(prompt.find("Question 6:") != std::string::npos);
        QVERIFY(prompt.find("Question 0:") == std::string::npos);
        QVERIFY(prompt.find("EARLIER-SUMMARY-TEXT") == std::string::npos);
        // The result: the earlier summary, then this compaction's marker and the model's summary.
        const Transcript after = r.materialize(t);
        std::vector<std::string> summaries;
        for (const auto &msg : after.messages)
            if (msg.kind == MessageKind::CompactSummary)
                summaries.push_back(msg.blocks.front().text);
        QCOMPARE(summaries.size(), std::size_t(2));
        QVERIFY(summaries[0].find("EARLIER-SUMMARY-TEXT") != std::string::npos);
        QVERIFY(summaries[1].find("questions 6 to 11 about the parser were answered") != std::string::npos);
    }

    void commandLine()
    {
        FakeModelServer server;
        QVERIFY(server.start(script({textTurn(kClaudeAnswer), textTurn(kClaudeAnswer)})));
        cli::setSummarizerFactory(net::makeModelSummarizer);
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("session.json"));
        {
            Session s; // as an OpenAI chat document
            const WriteResult w = writeTranscript(s.t, Format::OpenAIChat);
            QVERIFY(w.ok);
            cl::test::writeFile(file.toStdString(), w.bytes);
        }
        qputenv("CL_TEST_SUMMARY_KEY", kKey);
        std::string out, err;
        const int rc = cli::run({"compact", file.toStdString(), "--strategy", "claude-code-compact", "--param", "force=true", "--param", "maxFiles=0",
                                 "--summarizer", "anthropic", "--base-url", server.baseUrl(false), "--model", "claude-3-5-haiku-latest",
                                 "--api-key-env", "CL_TEST_SUMMARY_KEY", "--json"},
                                out, err);
        QVERIFY2(rc == 0, (out + err).c_str());
        const Json j = Json::parse(out);
        QVERIFY2(j["changed"].get<bool>(), j["note"].get<std::string>().c_str());
        QCOMPARE(j["summaries"].size(), std::size_t(1));
        QCOMPARE(j["summaries"][0]["model"], Json("claude-3-5-haiku-latest"));
        QVERIFY(j["summaries"][0]["cost"].is_number()); // in the price table
        QVERIFY(out.find(kKey) == std::string::npos && err.find(kKey) == std::string::npos);
        QCOMPARE(header(server.requests().front(), "x-api-key"), std::string(kKey));
        // A user template replaces the preset's instruction; the strategy's compact instructions are added.
        const QString templ = dir.filePath(QStringLiteral("template.txt"));
        cl::test::writeFile(templ.toStdString(), "TEMPLATE-INSTRUCTION: summarize the session in nine sections.\n");
        out.clear();
        err.clear();
        QCOMPARE(cli::run({"compact", file.toStdString(), "--strategy", "claude-code-compact", "--param", "force=true", "--param", "maxFiles=0",
                           "--param", "instructions=Focus on the parser", "--summarizer", "anthropic", "--base-url",
                           server.baseUrl(false), "--model", "claude-3-5-haiku-latest", "--prompt-template", templ.toStdString()},
                          out, err),
                 int(cli::Success));
        QCOMPARE(server.requests().size(), std::size_t(2));
        const std::string templated = server.requests()[1]["body"].dump();
        QVERIFY(templated.find("TEMPLATE-INSTRUCTION") != std::string::npos);
        QVERIFY(templated.find("Focus on the parser") != std::string::npos);
        QVERIFY(server.requests()[0]["body"].dump().find("TEMPLATE-INSTRUCTION") == std::string::npos);
        out.clear();
        err.clear();
        QCOMPARE(cli::run({"compact", file.toStdString(), "--strategy", "codex", "--summarizer", "anthropic", "--model", "m",
                           "--prompt-template", dir.filePath(QStringLiteral("missing.txt")).toStdString()},
                          out, err),
                 int(cli::Failure));
        QVERIFY2(err.find("--prompt-template: cannot read") != std::string::npos, err.c_str());
        // A FIFO (or a device) is refused at once: reading it would block, or never end.
        const std::string fifo = dir.filePath(QStringLiteral("template.fifo")).toStdString();
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        for (const std::string &path : {fifo, std::string("/dev/zero")}) {
            out.clear();
            err.clear();
            QElapsedTimer clock;
            clock.start();
            QCOMPARE(cli::run({"compact", file.toStdString(), "--strategy", "codex", "--summarizer", "anthropic", "--model",
                               "m", "--prompt-template", path},
                              out, err),
                     int(cli::Failure));
            QVERIFY2(err.find("not a regular file") != std::string::npos, err.c_str());
            QVERIFY(clock.elapsed() < 5000);
        }
        // Bad usage is said, not ignored.
        out.clear();
        err.clear();
        QCOMPARE(cli::run({"compact", file.toStdString(), "--strategy", "codex", "--model", "x"}, out, err), int(cli::Failure));
        QVERIFY(err.find("--model needs --summarizer") != std::string::npos);
        out.clear();
        err.clear();
        QCOMPARE(cli::run({"compact", file.toStdString(), "--strategy", "codex", "--summarizer", "anthropic"}, out, err), int(cli::Failure));
        QVERIFY2(err.find("needs --model") != std::string::npos, err.c_str());
        out.clear();
        err.clear();
        QCOMPARE(cli::run({"compare", file.toStdString(), "--summarizer", "anthropic", "--model", "m"}, out, err), int(cli::Failure));
        QVERIFY(err.find("--only") != std::string::npos);
        // compare: each strategy with the rules and, beside it, with the model; the model rows' cost.
        Json answers = script({});
        answers["default_text"] = kClaudeAnswer;
        QVERIFY(server.start(answers));
        out.clear();
        err.clear();
        QCOMPARE(cli::run({"compare", file.toStdString(), "--only", "codex,gemini-cli", "--window", "3000", "--summarizer", "anthropic",
                           "--base-url", server.baseUrl(false), "--model", "claude-3-5-haiku-latest", "--json"},
                          out, err),
                 int(cli::Success));
        const Json c = Json::parse(out);
        std::vector<std::string> names;
        for (const auto &row : c["rows"])
            names.push_back(row["strategy"]);
        QCOMPARE(names, (std::vector<std::string>{"codex", "codex+model", "gemini-cli", "gemini-cli+model"}));
        for (const int row : {1, 3}) {
            QVERIFY2(c["rows"][row]["changed"].get<bool>(), c["rows"][row]["note"].dump().c_str());
            QVERIFY2(c["rows"][row]["modelCost"].is_number() && c["rows"][row]["modelCost"].get<double>() > 0, c.dump(1).c_str());
            QVERIFY(!c["rows"][row - 1].contains("modelCost"));
        }
        QCOMPARE(server.requests().size(), std::size_t(2)); // one summary per model row
        QCOMPARE(c["summaries"].size(), std::size_t(2));
    }
};

QTEST_GUILESS_MAIN(TestModelSummary)
#include "tst_modelsummary.moc"
