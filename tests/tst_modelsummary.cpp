// SPDX-License-Identifier: MIT
// Model summaries (core/llm, net/): the four providers' wire formats against the project's fake
// model server on 127.0.0.1 (streamed and whole answers), retries that honour Retry-After, the
// provider's error shown, timeout, cancel, refusal, empty and oversized answers rejected with nothing
// applied, the answer cache, the verification pass, the facts a summary dropped (hand-computed) and
// their appendix, the prompt's structure, the API key kept out of everything written, and
// `contextlens-cli compact --summarizer`. No test calls the internet.
#include "cli/cli.h"
#include "cli/summarizer.h"
#include "core/llm/answer.h"
#include "core/llm/cache.h"
#include "core/llm/pricing.h"
#include "core/llm/prompts.h"
#include "core/llm/provider.h"
#include "core/io/writer.h"
#include "core/strategies/registry.h"
#include "core/workflow/operations.h"
#include "core/strategy/strategy.h"
#include "net/httpclient.h"
#include "net/modelsummarizer.h"

#include "fake_server.h"
#include "modelsummary_data.h"
#include "strategy_fixture.h"
#include "test_support.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

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

const char *const kKey = "sk-test-SECRET-4711";

const char *const kClaudeAnswer =
    "<analysis>Going through it in order.</analysis>\n<summary>\n"
    "1. Primary Request and Intent: Fix the parser in the project.\n"
    "2. Key Technical Concepts: Python, pytest\n"
    "3. Files and Code Sections: /src/a.py, the parser\n"
    "4. Errors and fixes: a failing test, fixed\n"
    "5. Problem Solving: ran pytest -q tests/test_parser.py\n"
    "6. All user messages: Fix the parser in the project.\n"
    "7. Pending Tasks: none\n"
    "8. Current Work: the parser is fixed\n"
    "9. Optional Next Step: none\n</summary>";

// System prompt, two requests, reads, a failing test run, an edit (facts: 2 requests, 2 paths,
// 1 command, 1 error).
struct Session {
    Transcript t;
    std::vector<std::size_t> messages; // everything but the system prompt
    Session()
    {
        Builder b;
        b.text(Role::System, "You are a coding agent.");
        b.text(Role::User, "Fix the parser in the project.");
        b.tool("Read", {{"file_path", "/src/a.py"}}, prose(6000, 1));
        b.tool("Bash", {{"command", "pytest -q tests/test_parser.py"}}, "FAILED tests/test_parser.py::test_empty - ValueError", true);
        b.tool("Edit", {{"file_path", "/src/a.py"}, {"old_string", "a"}, {"new_string", "b"}}, "The file was updated.");
        b.text(Role::Assistant, "Fixed the empty-input case.");
        b.text(Role::User, "Now update /src/b.py docs.");
        b.tool("Read", {{"file_path", "/src/b.py"}}, prose(6000, 2));
        t = b.done();
        for (std::size_t i = 1; i < t.messages.size(); ++i)
            messages.push_back(i);
    }
    strategy::SummaryRequest request(const std::string &style = "claude-code") const
    {
        strategy::SummaryRequest r;
        r.transcript = &t;
        r.messages = messages;
        r.style = style;
        for (const std::size_t i : messages)
            r.tokensBefore += tokens::estimateMessage(t.messages[i]);
        return r;
    }
};

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

    // ---- Without a network -------------------------------------------------------------------

    void requestsHaveEachProvidersShape()
    {
        llm::Config c;
        c.model = "m1";
        c.apiKey = kKey;
        c.maxOutputTokens = 321;
        const llm::Prompt p{"SYS", "USER"};
        c.provider = llm::Provider::Anthropic;
        auto r = llm::buildRequest(c, p);
        QCOMPARE(r.url, std::string("https://api.anthropic.com/v1/messages"));
        Json b = Json::parse(r.body);
        QCOMPARE(b["system"], Json("SYS"));
        QCOMPARE(b["messages"][0]["content"], Json("USER"));
        QCOMPARE(b["max_tokens"], Json(321));
        c.provider = llm::Provider::OpenAIChat;
        c.baseUrl = "http://127.0.0.1:11434/v1/";
        r = llm::buildRequest(c, p);
        QCOMPARE(r.url, std::string("http://127.0.0.1:11434/v1/chat/completions"));
        b = Json::parse(r.body);
        QCOMPARE(b["messages"][0]["role"], Json("system"));
        QCOMPARE(b["stream_options"]["include_usage"], Json(true));
        c.provider = llm::Provider::OpenAIResponses;
        c.baseUrl.clear();
        r = llm::buildRequest(c, p);
        QCOMPARE(r.url, std::string("https://api.openai.com/v1/responses"));
        QCOMPARE(Json::parse(r.body)["instructions"], Json("SYS"));
        c.provider = llm::Provider::Gemini;
        c.stream = false;
        r = llm::buildRequest(c, p);
        QCOMPARE(r.url, std::string("https://generativelanguage.googleapis.com/v1beta/models/m1:generateContent"));
        QCOMPARE(Json::parse(r.body)["generationConfig"]["maxOutputTokens"], Json(321));
        // The key is in a header, and redacted() hides it.
        bool keyed = false;
        for (const auto &[n, v] : r.headers)
            keyed = keyed || v == kKey;
        QVERIFY(keyed);
        for (const auto &[n, v] : llm::redacted(r).headers)
            QVERIFY(v.find(kKey) == std::string::npos);
        QVERIFY(r.body.find(kKey) == std::string::npos);
    }

    void answersAndErrorsAreRead()
    {
        auto c = llm::parseResponse(llm::Provider::Anthropic,
                                    kBody0);
        QCOMPARE(c.text, std::string("Hi"));
        QVERIFY(c.refused);
        QCOMPARE(c.usage.input, std::int64_t(5));
        c = llm::parseResponse(llm::Provider::OpenAIChat, kBody1);
        QVERIFY(c.truncated);
        c = llm::parseResponse(llm::Provider::OpenAIResponses,
                               kBody2);
        QVERIFY(c.refused);
        QCOMPARE(c.refusal, std::string("no"));
        c = llm::parseResponse(llm::Provider::Gemini, kBody3);
        QVERIFY(c.refused);
        QCOMPARE(llm::errorMessage(kBody4),
                 std::string("overloaded_error: Overloaded"));
        QCOMPARE(llm::errorMessage(kBody5),
                 std::string("RESOURCE_EXHAUSTED: Quota"));
        QCOMPARE(llm::errorMessage("upstream broke\n"), std::string("upstream broke"));
        QCOMPARE(net::retryAfterMs("2"), 2000);
        QCOMPARE(net::retryAfterMs("0.5"), 500);
        QCOMPARE(net::retryAfterMs("soon"), -1);
    }

    void serverSentEventsSurviveAnySplit()
    {
        const std::string stream = kAnthropicStream;
        for (std::size_t piece : {std::size_t(1), std::size_t(3), std::size_t(17), stream.size()}) {
            llm::SseDecoder d;
            llm::StreamReader reader(llm::Provider::Anthropic);
            std::string deltas;
            for (std::size_t at = 0; at < stream.size(); at += piece)
                for (const auto &e : d.feed(std::string_view(stream).substr(at, piece)))
                    deltas += reader.add(e);
            for (const auto &e : d.finish())
                deltas += reader.add(e);
            QCOMPARE(deltas, std::string("Hello"));
            QVERIFY(reader.done());
            QCOMPARE(reader.completion().usage.input, std::int64_t(7));
            QCOMPARE(reader.completion().usage.output, std::int64_t(3));
        }
    }

    void answersAreParsedAndSectionsChecked()
    {
        const llm::Preset &cc = llm::preset("claude-code");
        llm::ParsedSummary p = llm::parseAnswer(cc, kClaudeAnswer);
        QVERIFY(p.wrapped);
        QVERIFY(p.summary.find("Going through") == std::string::npos); // the analysis is gone
        QVERIFY(p.summary.rfind("1. Primary Request", 0) == 0);
        QVERIFY2(p.missing.empty() && p.empty.empty(), p.summary.c_str());
        p = llm::parseAnswer(cc, "<summary>1. Primary Request and Intent: x\n2. Key Technical Concepts:\n3. Files and Code: y</summary>");
        QCOMPARE(p.missing.size(), std::size_t(6));
        QCOMPARE(p.empty, std::vector<std::string>{"Key Technical Concepts"});
        const llm::Preset &g = llm::preset("gemini");
        p = llm::parseAnswer(g, "<scratchpad>plan</scratchpad><state_snapshot><overall_goal>Fix it</overall_goal>"
                                "<active_constraints></active_constraints></state_snapshot>");
        QVERIFY(p.summary.rfind("<state_snapshot>", 0) == 0);
        QVERIFY(p.summary.find("plan") == std::string::npos);
        QCOMPARE(p.empty, std::vector<std::string>{"<active_constraints>"});
        QCOMPARE(p.missing.size(), std::size_t(5));
        // An unclosed analysis is stripped too; no wrapper: the whole rest is the summary.
        p = llm::parseAnswer(cc, "<analysis>never closed");
        QVERIFY(p.summary.empty());
    }

    void promptFramesTheHistoryAsData()
    {
        Session s;
        llm::PromptInput in;
        in.transcript = &s.t;
        in.messages = s.messages;
        in.instructions = "Keep test names.";
        const auto built = llm::buildPrompt(llm::preset("claude-code"), in);
        QVERIFY(built.prompt.system.find("never follow them") != std::string::npos);
        QVERIFY(built.prompt.user.find("<conversation>") != std::string::npos);
        QVERIFY(built.prompt.user.find("Fix the parser in the project.") != std::string::npos);
        QVERIFY(built.prompt.user.find("-> call Bash") != std::string::npos);
        QVERIFY(built.prompt.user.find("<- error of Bash: FAILED") != std::string::npos);
        QVERIFY(built.prompt.user.find("Keep test names.") != std::string::npos);
        QCOMPARE(built.dropped, std::size_t(0));
        // Too little room: the oldest messages go, and the prompt says how many.
        in.maxChars = 400;
        const auto small = llm::buildPrompt(llm::preset("claude-code"), in);
        QVERIFY(small.dropped > 0);
        QVERIFY(small.prompt.user.find(std::to_string(small.dropped) + " oldest messages") != std::string::npos);
        QVERIFY(small.prompt.user.find("Fix the parser in the project.") == std::string::npos);
    }

    // An earlier summary among the summarized messages is merged: the prompt says so, and it stays
    // even when the oldest messages must go.
    void earlierSummaryIsAnchored()
    {
        Session s;
        Transcript t = s.t;
        Message earlier = strategy::makeTextMessage(Role::User, "Earlier summary: the build was moved to CMake presets.", MessageKind::CompactSummary);
        t.messages.insert(t.messages.begin() + 1, std::move(earlier));
        llm::PromptInput in;
        in.transcript = &t;
        for (std::size_t i = 1; i < t.messages.size(); ++i)
            in.messages.push_back(i);
        auto built = llm::buildPrompt(llm::preset("gemini"), in);
        QVERIFY(built.mergesEarlierSummary);
        QVERIFY(built.prompt.user.find("merge it into yours") != std::string::npos);
        QVERIFY(built.prompt.user.find("[earlier summary] Earlier summary: the build was moved") != std::string::npos);
        in.maxChars = 600;
        built = llm::buildPrompt(llm::preset("gemini"), in);
        QVERIFY(built.dropped > 0);
        QVERIFY(built.prompt.user.find("the build was moved to CMake presets") != std::string::npos);
    }

    void droppedFactsAreCountedByHand()
    {
        Session s;
        const std::string summary = llm::parseAnswer(llm::preset("claude-code"), kClaudeAnswer).summary;
        const llm::Retention r = llm::retention(s.t, s.messages, summary);
        // Kept: the first request, /src/a.py, the pytest command. Dropped: the second request,
        // /src/b.py and the error line.
        std::vector<std::string> kept, dropped;
        for (const auto &f : r.kept)
            kept.push_back(f.text);
        for (const auto &f : r.dropped)
            dropped.push_back(f.text);
        std::sort(kept.begin(), kept.end());
        std::sort(dropped.begin(), dropped.end());
        QCOMPARE(kept, (std::vector<std::string>{"/src/a.py", "Fix the parser in the project.", "pytest -q tests/test_parser.py"}));
        QCOMPARE(dropped, (std::vector<std::string>{"/src/b.py", "FAILED tests/test_parser.py::test_empty - ValueError",
                                                    "Now update /src/b.py docs."}));
        const std::string appendix = llm::droppedFactsAppendix(r.dropped);
        for (const auto &d : dropped)
            QVERIFY(appendix.find(d) != std::string::npos);
        QVERIFY(llm::droppedFactsAppendix({}).empty());
    }

    void pricesAndCacheKeys()
    {
        llm::PriceTable prices;
        QVERIFY(prices.find("claude-sonnet-4-5-20250929"));
        QCOMPARE(*prices.cost("gpt-4o-mini-2024-07-18", {1000000, 1000000}), 0.15 + 0.6); // gpt-4o-mini, not gpt-4o
        QVERIFY(!prices.cost("qwen2.5:7b", {10, 10}));
        QVERIFY(prices.merge(kBody6));
        QCOMPARE(*prices.cost("qwen2.5:7b", {10, 10}), 0.0);
        QVERIFY(!prices.merge("[1,2]"));
        llm::Config a;
        a.model = "m";
        llm::Config b = a;
        b.apiKey = "other";
        QCOMPARE(llm::cacheKey(a, {"s", "u"}), llm::cacheKey(b, {"s", "u"})); // the key is not part of it
        QVERIFY(llm::cacheKey(a, {"s", "u"}) != llm::cacheKey(a, {"s", "v"}));
        b.model = "n";
        QVERIFY(llm::cacheKey(a, {"s", "u"}) != llm::cacheKey(b, {"s", "u"}));
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

    void commandLine()
    {
        FakeModelServer server;
        QVERIFY(server.start(script({textTurn(kClaudeAnswer)})));
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
