// SPDX-License-Identifier: MIT
// Model summaries without a network (core/llm): each provider's request shape and the key kept to
// its header, answers, refusals and error bodies read, server-sent events in any byte split,
// answers parsed and their sections checked, the prompt framing the history as data (an earlier
// summary anchored), the facts a summary dropped counted by hand, prices and cache keys. The calls
// themselves: tst_modelsummary.
#include "core/llm/answer.h"
#include "core/llm/cache.h"
#include "core/llm/pricing.h"
#include "core/llm/prompts.h"
#include "core/llm/provider.h"
#include "net/httpclient.h"

#include "modelsummary_data.h"
#include "test_support.h"

#include <QtTest>

using namespace cl;
using Json = nlohmann::json;
using namespace cl::test::answers;

class TestLlmFormats : public QObject
{
    Q_OBJECT

private Q_SLOTS:

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
};

QTEST_GUILESS_MAIN(TestLlmFormats)
#include "tst_llmformats.moc"
