// SPDX-License-Identifier: MIT
// The prompt cache over a recording (core/cost/promptcache.h): each model call against the request
// it continues. An append reads the whole previous request from the cache; a change before its end
// breaks the cache there, and the cause is named: a tool added, the system prompt, a reminder
// inserted or changed, a cleared tool result, a compaction that replaced the conversation; a
// subagent's conversation is a first request of its own. cache_control markers moving forward are
// not a change. What a break cost: the tokens the previous request left cached that this one could
// not read, priced as written again instead of read.
#include "core/cost/promptcache.h"
#include "core/llm/pricing.h"
#include "widgets/models/cachechartgeometry.h"

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace cl;
using Json = nlohmann::json;

namespace {

Json tool(const std::string &name)
{
    return {{"name", name}, {"description", "The " + name + " tool"}, {"input_schema", {{"type", "object"}}}};
}

Json user(const std::string &text) { return {{"role", "user"}, {"content", text}}; }

Json userBlocks(const std::string &text, bool marked)
{
    Json block = {{"type", "text"}, {"text", text}};
    if (marked)
        block["cache_control"] = {{"type", "ephemeral"}};
    return {{"role", "user"}, {"content", Json::array({block})}};
}

Json callBash(const std::string &id)
{
    return {{"role", "assistant"}, {"content", Json::array({{{"type", "tool_use"}, {"id", id}, {"name", "Bash"}, {"input", {{"command", "ls"}}}}})}};
}

Json result(const std::string &id, const std::string &text)
{
    return {{"role", "user"}, {"content", Json::array({{{"type", "tool_result"}, {"tool_use_id", id}, {"content", text}}})}};
}

struct Builder {
    recording::Recording rec;
    void add(const Json &body, std::int64_t read, std::int64_t written, const std::string &time = "2026-11-30T10:00:00.000Z")
    {
        recording::Exchange e;
        e.number = rec.exchanges.size() + 1;
        e.id = std::int64_t(e.number);
        e.method = "POST";
        e.path = "/v1/messages";
        e.api = Format::Anthropic;
        e.time = time;
        e.requestBody = body.dump();
        e.status = 200;
        e.responseLine = 1;
        e.responseBody = Json{{"type", "message"}, {"role", "assistant"}, {"model", body.value("model", "")}, {"content", Json::array({{{"type", "text"}, {"text", "ok"}}})}, {"usage", {{"input_tokens", 10}, {"cache_read_input_tokens", read}, {"cache_creation_input_tokens", written}, {"output_tokens", 5}}}}
                             .dump();
        rec.exchanges.push_back(std::move(e));
    }
};

Json request(const Json &tools, const std::string &system, const Json &messages)
{
    return {{"model", "claude-sonnet-4-5"}, {"system", system}, {"tools", tools}, {"messages", messages}};
}

} // namespace

class TestPromptCache : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void partsInCacheOrder()
    {
        const auto parts = cost::requestParts(Format::Anthropic, request(Json::array({tool("Bash"), tool("Read")}), "Be careful.",
                                                                         Json::array({user("hi")}))
                                                                     .dump());
        QCOMPARE(parts.size(), std::size_t(4));
        QCOMPARE(parts[0].kind, cost::RequestPart::Kind::Tool);
        QCOMPARE(parts[1].label, std::string("Read"));
        QCOMPARE(parts[2].kind, cost::RequestPart::Kind::System);
        QCOMPARE(parts[3].text, std::string("hi"));
        // Gemini: each function declaration is a tool; the system instruction first.
        const auto g = cost::requestParts(Format::Gemini, R"({"systemInstruction":{"parts":[{"text":"S"}]},"tools":[{"functionDeclarations":[{"name":"a"},{"name":"b"}]}],"contents":[{"role":"user","parts":[{"text":"x"}]}]})");
        QCOMPARE(g.size(), std::size_t(4));
        QCOMPARE(g[0].kind, cost::RequestPart::Kind::System);
        QCOMPARE(g[2].label, std::string("b"));
        QVERIFY(cost::requestParts(Format::Anthropic, "not json").empty());
    }

    void explainsEachStep()
    {
        const Json tools = Json::array({tool("Bash"), tool("Read")});
        const Json withGrep = Json::array({tool("Bash"), tool("Read"), tool("Grep")});
        const std::string system = "You are careful.\nToday is Monday.";
        Builder b;
        // 1: the first request. 2: the agent's answer and a result appended; the marker moved on.
        b.add(request(tools, system, Json::array({userBlocks("List the files.", true)})), 0, 1000);
        const Json turn2 = Json::array({userBlocks("List the files.", false), callBash("t1"), result("t1", "a.txt\nb.txt"),
                                        userBlocks("Now count them.", true)});
        b.add(request(tools, system, turn2), 1000, 300);
        // 3: a tool added: the cache breaks at the tool definitions.
        b.add(request(withGrep, system, turn2), 0, 1400);
        // 4: the system prompt's date changed.
        b.add(request(withGrep, "You are careful.\nToday is Tuesday.", turn2), 0, 1400);
        // 5: a reminder added to the first message.
        Json turn5 = turn2;
        turn5[0] = userBlocks("<system-reminder>Files changed.</system-reminder>List the files.", false);
        b.add(request(withGrep, "You are careful.\nToday is Tuesday.", turn5), 400, 1000);
        // 6: the tool result cleared.
        Json turn6 = turn5;
        turn6[2] = result("t1", std::string(kClearedResult));
        b.add(request(withGrep, "You are careful.\nToday is Tuesday.", turn6), 600, 800);
        // 7: a subagent: other tools, its own first message.
        b.add(request(Json::array({tool("Read")}), system, Json::array({user("Find the config.")})), 0, 500);
        // 8: compacted: the same tools and system prompt, a summary in place of the conversation.
        b.add(request(withGrep, "You are careful.\nToday is Tuesday.", Json::array({user("Summary: we listed the files.")})), 0, 900);
        // 9: an append three hours later that reads nothing: the cache expired.
        Json turn9 = Json::array({user("Summary: we listed the files."), callBash("t2"), result("t2", "2")});
        b.add(request(withGrep, "You are careful.\nToday is Tuesday.", turn9), 0, 1100, "2026-11-30T13:00:00.000Z");

        const llm::PriceTable prices;
        const auto steps = cost::cacheSteps(b.rec, prices);
        QCOMPARE(steps.size(), std::size_t(9));
        using K = cost::CacheStep::Kind;
        QCOMPARE(steps[0].kind, K::First);
        QCOMPARE(steps[1].kind, K::Append); // the moved cache_control is no change
        QCOMPARE(steps[1].previous, std::size_t(1));
        QCOMPARE(steps[1].missedTokens, std::int64_t(0));
        QVERIFY(steps[1].appendedTokens > 0);

        QCOMPARE(steps[2].kind, K::Break);
        QCOMPARE(steps[2].where, std::string("tool definitions"));
        QVERIFY2(steps[2].cause.find("added Grep") != std::string::npos, steps[2].cause.c_str());
        QCOMPARE(steps[2].missedTokens, std::int64_t(1300)); // request 2 left 1000 + 300 cached; 3 read none
        QVERIFY(steps[2].priced);
        const auto sonnet = prices.find("claude-sonnet-4-5");
        QVERIFY(sonnet);
        QVERIFY(qFuzzyCompare(steps[2].dollars, 1300 * (sonnet->cacheWrite5m - sonnet->cacheRead) / 1e6));

        QCOMPARE(steps[3].where, std::string("system prompt"));
        QVERIFY2(steps[3].cause.find("\"Today is Monday.\" became \"Today is Tuesday.\"") != std::string::npos, steps[3].cause.c_str());
        QCOMPARE(steps[4].where, std::string("message 1 (user)"));
        QVERIFY2(steps[4].cause.find("system reminder") != std::string::npos, steps[4].cause.c_str());
        QCOMPARE(steps[5].where, std::string("message 3 (user)"));
        QVERIFY2(steps[5].cause.find("cleared") != std::string::npos, steps[5].cause.c_str());

        QCOMPARE(steps[6].kind, K::First); // the subagent
        QCOMPARE(steps[7].kind, K::Replaced);
        QCOMPARE(steps[7].previous, std::size_t(6));
        QVERIFY2(steps[7].cause.find("4 messages, this one 1 message") != std::string::npos, steps[7].cause.c_str());
        QCOMPARE(steps[8].kind, K::Append);
        QCOMPARE(steps[8].previous, std::size_t(8));
        QVERIFY2(steps[8].cause.find("10800 s earlier") != std::string::npos, steps[8].cause.c_str());
        QCOMPARE(steps[8].missedTokens, std::int64_t(900));
    }

    // The chart's bars: one slot per request, read / written / uncached stacked from the bottom, the
    // tallest request the plot's full height.
    void barsStackFromTheBottom()
    {
        const std::vector<gui::CachePoint> points{{1, 0, 1000, 10, false}, {2, 1000, 300, 10, false}, {3, 0, 2620, 0, true}};
        const QRectF plot(10, 20, 300, 131);
        const auto bars = gui::cacheBars(points, plot);
        QCOMPARE(bars.size(), std::size_t(3));
        QCOMPARE(bars[2].slot, QRectF(210, 20, 100, 131));
        QVERIFY(bars[0].read.isEmpty());
        QCOMPARE(bars[1].read.bottom(), plot.bottom());
        QCOMPARE(bars[1].written.bottom(), bars[1].read.top());
        QCOMPARE(bars[2].written.height(), plot.height()); // the tallest
        QVERIFY(bars[2].broke && !bars[1].broke);
        QVERIFY(bars[1].uncached.height() >= 1); // small, never gone
        QCOMPARE(gui::cacheBarAt(bars, 215), 2);
        QCOMPARE(gui::cacheBarAt(bars, 5), -1);
        QVERIFY(gui::cacheBars({}, plot).empty());
    }
};

QTEST_GUILESS_MAIN(TestPromptCache)
#include "tst_promptcache.moc"
