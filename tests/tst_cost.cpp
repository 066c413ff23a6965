// SPDX-License-Identifier: MIT
// Cost and cache (core/cost/, core/llm/pricing.h): a Claude Code session priced by hand, the price
// table and its merging, unknown models, the next-turns model with the cache a compaction rewrites,
// and the shared real samples. The CLI's text and JSON: tst_costcli.cpp.
#include "core/cost/nextturns.h"
#include "core/cost/sessioncost.h"
#include "core/cost/simulationcost.h"
#include "core/io/loader.h"
#include "core/llm/pricing.h"
#include "core/strategies/registry.h"
#include "core/strategy/strategy.h"

#include "cost_fixture.h"
#include "test_support.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

using nlohmann::json;
using namespace cl;
namespace fx = cl::test::costfix;
using fx::load;
using fx::near;
using fx::testPrices;
using fx::writeTemp;

class TestCost : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // The fixture's session, priced by hand ($ per million tokens, see cost_fixture.h):
    //   msg_C acme-small:  100 x 1 + 50 x 5                                          =   350 -> $0.000350
    //   msg_A acme-large:  10 x 3 + 1500 x 3.75 + 500 x 6 + 30000 x 0.3 + 400 x 15   = 23655 -> $0.023655
    //   msg_B acme-large:  5 x 3 + 1000 x 3.75 + 32000 x 0.3 + 250 x 15              = 17115 -> $0.017115
    //   total $0.041120; acme-large $0.040770. The intermediate lines of msg_A (output 1, 7) and msg_B
    //   (output 3) count nothing: each id's last line is its usage; 3 lines fold into their response.
    void claudeCodeSessionByHand()
    {
        const auto t = load(fx::session());
        QVERIFY(t);
        const cost::SessionUsage usage = cost::readUsage(*t);
        QCOMPARE(usage.responses.size(), std::size_t(3));
        QCOMPARE(usage.foldedLines, std::size_t(3));
        QCOMPARE(usage.responses[1].id, std::string("msg_A"));
        QCOMPARE(usage.responses[1].lines, std::size_t(3));
        QCOMPARE(usage.responses[1].tokens.output, std::int64_t(400));
        QCOMPARE(usage.responses[1].tokens.cacheWrite5m, std::int64_t(1500));
        QCOMPARE(usage.responses[1].tokens.cacheWrite1h, std::int64_t(500));
        QCOMPARE(usage.responses[2].tokens.cacheWrite5m, std::int64_t(1000)); // no split: the default TTL

        const cost::SessionCost c = cost::sessionCost(usage, testPrices(), {}, t->format);
        QVERIFY(c.complete());
        QCOMPARE(c.responses, std::size_t(3));
        QCOMPARE(c.models.size(), std::size_t(2));
        QCOMPARE(c.models[0].model, std::string("acme-small-1"));
        QCOMPARE(c.models[1].model, std::string("acme-large-2025"));
        QCOMPARE(c.models[1].price->match, std::string("acme-large"));
        QCOMPARE(c.models[1].responses, std::size_t(2));
        const cost::Tokens &large = c.models[1].tokens;
        QCOMPARE(large.input, std::int64_t(15));
        QCOMPARE(large.cacheWrite5m, std::int64_t(2500));
        QCOMPARE(large.cacheWrite1h, std::int64_t(500));
        QCOMPARE(large.cacheRead, std::int64_t(62000));
        QCOMPARE(large.output, std::int64_t(650));
        CL_COMPARE_DOLLARS(c.models[0].dollars.total(), 0.000350);
        CL_COMPARE_DOLLARS(c.models[1].dollars.total(), 0.040770);
        CL_COMPARE_DOLLARS(c.models[1].dollars.cacheWrite5m, 0.009375); // 2500 x 3.75
        CL_COMPARE_DOLLARS(c.models[1].dollars.cacheWrite1h, 0.003);    // 500 x 6
        CL_COMPARE_DOLLARS(c.models[1].dollars.cacheRead, 0.0186);      // 62000 x 0.3
        CL_COMPARE_DOLLARS(c.dollars.total(), 0.041120);
        QVERIFY(!c.recorded);
        QVERIFY(c.note.find("no recorded cost") != std::string::npos);

        // Every response as acme-small: 115 x 1 + 2500 x 1.25 + 500 x 2 + 62000 x 0.1 + 700 x 5 = 13940.
        const cost::SessionCost small = cost::sessionCost(*t, testPrices(), "acme-small-1");
        QCOMPARE(small.models.size(), std::size_t(1));
        CL_COMPARE_DOLLARS(small.dollars.total(), 0.013940);
    }

    // costUSD (older Claude Code) on msg_A's last line: $0.03 recorded against our $0.023655.
    void recordedCostChecked()
    {
        const auto t = load(fx::session(true));
        const cost::SessionCost c = cost::sessionCost(*t, testPrices());
        QVERIFY(c.recorded);
        CL_COMPARE_DOLLARS(*c.recorded, 0.03);
        QVERIFY(c.recordedCompared);
        CL_COMPARE_DOLLARS(*c.recordedCompared, 0.023655);
        QVERIFY2(c.note.find("costUSD on 1 response") != std::string::npos, c.note.c_str());
        QVERIFY2(c.note.find("-21.") != std::string::npos, c.note.c_str()); // (0.023655 - 0.03) / 0.03
    }

    void priceTableShippedAndMerged()
    {
        llm::PriceTable shipped;
        QVERIFY(!shipped.asOf().empty());
        QCOMPARE(shipped.shippedFrom(), std::string("built in")); // nothing installed beside the test
        // The built-in copy is resources/prices.json.
        const json file = json::parse(cl::test::readFile(CL_SOURCE_DIR "/resources/prices.json"));
        QCOMPARE(shipped.prices().size(), file["models"].size());
        QVERIFY(file.contains("source") && file.contains("sources"));
        // The providers' rules hold for every shipped entry.
        for (const auto &p : shipped.prices()) {
            QVERIFY2(p.input > 0 && p.output > 0 && p.cacheRead > 0, p.match.c_str());
            if (p.provider == "anthropic") { // to the cent as published (Haiku 3: 0.30, 0.03)
                QVERIFY2(std::fabs(p.cacheWrite5m - 1.25 * p.input) <= 0.013 && near(p.cacheWrite1h, 2 * p.input)
                             && std::fabs(p.cacheRead - 0.1 * p.input) <= 0.005,
                         p.match.c_str());
            } else {
                QVERIFY2(p.provider == "openai" || p.provider == "google", p.match.c_str());
                QVERIFY2(p.cacheWrite5m == p.input && p.cacheWrite1h == p.input && p.cacheRead <= p.input, p.match.c_str());
            }
        }
        for (const char *m : {"claude-opus-4-1", "claude-sonnet-4-5-20250929", "claude-haiku-4-5", "claude-3-5-haiku-20241022",
                              "gpt-4o", "gpt-4o-mini", "gpt-4.1-mini", "o3", "o4-mini", "gpt-5", "gpt-5-mini",
                              "gemini-2.5-pro", "gemini-2.5-flash", "gemini-2.5-flash-lite"})
            QVERIFY2(shipped.find(m), m);
        // Longest match, at the start or after / . : @; case ignored.
        QCOMPARE(shipped.find("gpt-4o-mini-2024-07-18")->match, std::string("gpt-4o-mini"));
        QCOMPARE(shipped.find("us.anthropic.claude-sonnet-4-20250514-v1:0")->match, std::string("claude-sonnet-4"));
        QCOMPARE(shipped.find("models/gemini-2.5-flash-lite")->match, std::string("gemini-2.5-flash-lite"));
        QCOMPARE(shipped.find("Claude-Opus-4-5-20251101")->match, std::string("claude-opus-4-5"));
        QVERIFY(!shipped.find("notgpt-4o"));
        QVERIFY(!shipped.find("qwen2.5:7b"));

        // A user file over it: named fields replace, the others stay; a new entry's cache prices are its input.
        QTemporaryDir dir;
        const std::string user = writeTemp(dir, "user.json", R"({"models": [{"match": "claude-sonnet-4", "input": 2},
            {"match": "acme", "input": 4, "output": 8}]})");
        llm::PriceTable t;
        std::string error;
        QVERIFY(t.mergeFile(user, &error));
        const llm::Price sonnet = *t.find("claude-sonnet-4-5");
        QCOMPARE(sonnet.input, 2.0);
        QCOMPARE(sonnet.output, shipped.find("claude-sonnet-4")->output);
        QCOMPARE(sonnet.cacheRead, shipped.find("claude-sonnet-4")->cacheRead);
        QCOMPARE(sonnet.origin, user);
        const llm::Price acme = *t.find("acme-1");
        QCOMPARE(acme.cacheWrite5m, 4.0);
        QCOMPARE(acme.cacheWrite1h, 4.0);
        QCOMPARE(acme.cacheRead, 4.0);
        QCOMPARE(t.mergedFiles(), std::vector<std::string>{user});
        QVERIFY(!t.mergeFile(dir.filePath(QStringLiteral("missing.json")).toStdString(), &error));
        QVERIFY(error.find("cannot read") != std::string::npos);

        // load(): shipped, then $XDG_CONFIG_HOME/contextlens/prices.json, then the --prices file.
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("cfg/contextlens")));
        writeTemp(dir, "cfg/contextlens/prices.json", R"({"models": [{"match": "acme", "input": 5, "output": 9}]})");
        const std::string extra = writeTemp(dir, "extra.json", R"({"models": [{"match": "acme", "output": 10}]})");
        qputenv("XDG_CONFIG_HOME", dir.filePath(QStringLiteral("cfg")).toUtf8());
        QCOMPARE(llm::PriceTable::userFile(), dir.filePath(QStringLiteral("cfg/contextlens/prices.json")).toStdString());
        llm::PriceTable loaded;
        QVERIFY(llm::PriceTable::load(loaded, extra, &error));
        QCOMPARE(loaded.find("acme")->input, 5.0);
        QCOMPARE(loaded.find("acme")->output, 10.0);
        QCOMPARE(loaded.mergedFiles().size(), std::size_t(2));
        writeTemp(dir, "cfg/contextlens/prices.json", "{not json");
        QVERIFY(!llm::PriceTable::load(loaded, {}, &error));
        QVERIFY2(error.find("cfg/contextlens/prices.json") != std::string::npos, error.c_str());
        qunsetenv("XDG_CONFIG_HOME");
        QVERIFY(llm::PriceTable::userFile().find("/.config/contextlens/prices.json") != std::string::npos);
    }

    // A model the table does not know: its cost is unknown and said to be, never taken as zero.
    void unknownModel()
    {
        std::string bytes = fx::session();
        for (std::size_t at; (at = bytes.find("acme-small-1")) != std::string::npos;)
            bytes.replace(at, 12, "mystery-model");
        const auto t = load(bytes);
        const cost::SessionCost c = cost::sessionCost(*t, testPrices());
        QVERIFY(!c.complete());
        QCOMPARE(c.unknownModels, std::vector<std::string>{"mystery-model"});
        QCOMPARE(c.unpriced.total(), std::int64_t(150));
        QVERIFY(!c.models[0].price);
        CL_COMPARE_DOLLARS(c.dollars.total(), 0.040770); // the priced part only

        strategy::Input in(*t);
        const strategy::Result r = strategy::unchanged(*t);
        const cost::NextTurns n = cost::nextTurns(in, r, testPrices(), "mystery-model", 3);
        QVERIFY(!n.price);
        QCOMPARE(n.error, std::string("no price for model 'mystery-model'"));
    }

    // The next-turns model on a constructed case: fixed part 1000, growth 500 and output 100 per
    // turn; acme-large prices (read 0.3, write 3.75, output 15). The live conversation has 10000
    // tokens; the strategy leaves 4000 of which the first 1000 are unchanged.
    //   no compaction: turn 1 reads 11000 (3300) + output 1500                 = 4800
    //                  turn 2 reads 11000 (3300), writes 500 (1875), + 1500    = 6675
    //                  turn 3 reads 11500 (3450), writes 500 (1875), + 1500    = 6825   total 18300
    //   strategy:      turn 1 reads 2000 (600), writes 3000 (11250), + 1500    = 13350
    //                  turn 2 reads 5000 (1500), writes 500 (1875), + 1500     = 4875
    //                  turn 3 reads 5500 (1650), writes 500 (1875), + 1500     = 5025   total 23250
    //   (millionths of a dollar). Break-even: 8550 more at turn 1, 6000 x 0.3 = 1800 less at each
    //   turn after: 8550 - 5 x 1800 <= 0 at turn 6.
    void nextTurnsByHand()
    {
        cost::Growth g;
        g.fixedTokens = 1000;
        g.perTurn = 500;
        g.outputPerTurn = 100;
        const llm::Price price = *testPrices().find("acme-large");
        strategy::Result r;
        r.stats.tokensBefore = 10000;
        r.stats.tokensAfter = 4000;
        r.stats.cachePrefixTokens = 1000;
        const cost::NextTurns n = cost::nextTurns(g, r, price, 3);
        QCOMPARE(n.baseline.turns.size(), std::size_t(3));
        CL_COMPARE_DOLLARS(n.baseline.turns[0].dollars, 0.0048);
        CL_COMPARE_DOLLARS(n.baseline.turns[1].dollars, 0.006675);
        CL_COMPARE_DOLLARS(n.baseline.turns[2].dollars, 0.006825);
        CL_COMPARE_DOLLARS(n.baseline.total(), 0.0183);
        QCOMPARE(n.strategy.turns[0].cacheRead, std::int64_t(2000));
        QCOMPARE(n.strategy.turns[0].cacheWrite, std::int64_t(3000));
        QCOMPARE(n.strategy.turns[2].context, std::int64_t(6000));
        CL_COMPARE_DOLLARS(n.strategy.firstTurn(), 0.01335);
        CL_COMPARE_DOLLARS(n.strategy.turns[1].dollars, 0.004875);
        CL_COMPARE_DOLLARS(n.strategy.total(), 0.02325);
        CL_COMPARE_DOLLARS(n.saving(), -0.00495);
        QCOMPARE(n.breakEven, 6);
        // The cumulative costs cross exactly there.
        const cost::NextTurns six = cost::nextTurns(g, r, price, 6);
        double base = 0, with = 0;
        for (int k = 0; k < 6; ++k) {
            base += six.baseline.turns[std::size_t(k)].dollars;
            with += six.strategy.turns[std::size_t(k)].dollars;
            QCOMPARE(with <= base + 1e-12, k + 1 >= 6);
        }

        // The prefix kept whole (only the tail removed): nothing to rewrite, it pays from turn 1.
        r.stats.cachePrefixTokens = 4000;
        const cost::NextTurns kept = cost::nextTurns(g, r, price, 3);
        QCOMPARE(kept.strategy.turns[0].cacheWrite, std::int64_t(0));
        CL_COMPARE_DOLLARS(kept.strategy.firstTurn(), 0.003); // 5000 x 0.3 + 1500
        QCOMPARE(kept.breakEven, 1);
        // A model summary paid once: 0.01 on top of turn 1.
        r.extra["modelCost"] = 0.01;
        CL_COMPARE_DOLLARS(cost::nextTurns(g, r, price, 3).strategy.firstTurn(), 0.013);
        QCOMPARE(cost::nextTurns(g, r, price, 3).breakEven, 6); // 0.013 - 0.0048 = 0.0082 <= 5 x 0.0018
        // Nothing changed: the same as no compaction, nothing to pay back.
        strategy::Result same;
        same.stats.tokensBefore = same.stats.tokensAfter = same.stats.cachePrefixTokens = 10000;
        const cost::NextTurns none = cost::nextTurns(g, same, price, 3);
        CL_COMPARE_DOLLARS(none.saving(), 0.0);
        QCOMPARE(none.breakEven, -1);
    }

    // From a transcript: growth measured over its responses (contexts 100, 32010, 33005: growths
    // 31910 and 995, average 16452.5 -> 16453; output (50 + 400 + 250) / 3 -> 233), priced as the
    // session's model (msg_B's acme-large-2025).
    void nextTurnsFromTranscript()
    {
        const auto t = load(fx::session());
        const cost::Growth g = cost::measureGrowth(*t);
        QCOMPARE(g.samples, std::size_t(2));
        QCOMPARE(g.perTurn, std::int64_t(16453));
        QCOMPARE(g.outputPerTurn, std::int64_t(233));
        QVERIFY(g.fixedTokens > 0);
        strategy::Input in(*t);
        const strategy::Result r = strategy::run(*strategy::find("trim-tools"), in);
        const cost::NextTurns n = cost::nextTurns(in, r, testPrices(), "", 4);
        QVERIFY2(n.error.empty(), n.error.c_str());
        QCOMPARE(n.model, std::string("acme-large-2025"));
        QCOMPARE(n.baseline.turns[0].cacheRead, g.fixedTokens + r.stats.tokensBefore);
        QCOMPARE(n.strategy.turns[0].cacheRead, g.fixedTokens + r.stats.cachePrefixTokens);
        QCOMPARE(n.strategy.turns[3].context, g.fixedTokens + r.stats.tokensAfter + 3 * g.perTurn);
        QCOMPARE(n.strategy.turns[1].output, std::int64_t(233));
    }

    // compare's rows priced in one go (the CLI's and the GUI's cost columns): each row as nextTurns()
    // prices it, no compaction from the rows' conversation, a row with an error left empty.
    void compareNextTurnsPerRow()
    {
        const auto t = load(fx::session());
        strategy::Input in(*t);
        strategy::CompareOptions o;
        o.names = {"trim-tools", "snip"};
        std::vector<strategy::CompareRow> rows = strategy::compare(in, o);
        QCOMPARE(rows.size(), std::size_t(2));
        rows.push_back({"broken", "", "", {}, "bad parameter"});
        const cost::CompareNextTurns all = cost::compareNextTurns(in, rows, testPrices(), {}, 4);
        QVERIFY(all.price);
        QCOMPARE(all.model, std::string("acme-large-2025"));
        QCOMPARE(all.rows.size(), std::size_t(3));
        for (std::size_t i = 0; i < 2; ++i) {
            const cost::NextTurns one = cost::nextTurns(in, rows[i].result, testPrices(), {}, 4);
            CL_COMPARE_DOLLARS(all.rows[i].strategy.total(), one.strategy.total());
            QCOMPARE(all.rows[i].breakEven, one.breakEven);
            QCOMPARE(all.rows[i].model, all.model);
        }
        CL_COMPARE_DOLLARS(all.baseline.total(), cost::nextTurns(in, rows[0].result, testPrices(), {}, 4).baseline.total());
        QCOMPARE(all.rows[2].error, std::string("bad parameter"));
        QVERIFY(all.rows[2].strategy.turns.empty());
        // No price: the model said, nothing priced.
        const cost::CompareNextTurns none = cost::compareNextTurns(in, rows, testPrices(), "mystery", 4);
        QVERIFY(!none.price);
        QCOMPARE(none.model, std::string("mystery"));
        QVERIFY(none.baseline.turns.empty());
        QCOMPARE(none.rows.size(), std::size_t(3));
    }

    // The folding both readers share: a response's lines once, the last usage kept, a response
    // without any usage dropped with its repeated lines.
    void responseFolder()
    {
        cost::SessionUsage u;
        cost::ResponseFolder folder(u);
        cost::Tokens a1, a2, b;
        a1.output = 1;
        a2.output = 40;
        b.input = 7;
        cost::ResponseLine l;
        l.id = "A";
        l.model = "m";
        l.tokens = &a1;
        QCOMPARE(folder.add(l), std::size_t(0));
        l.tokens = nullptr; // a line of A without usage keeps what A had
        QCOMPARE(folder.add(l), std::size_t(0));
        l.tokens = &a2;
        l.line = 9;
        QCOMPARE(folder.add(l), std::size_t(0));
        l = {};
        l.id = "N"; // never measured
        QCOMPARE(folder.add(l), std::size_t(1));
        QCOMPARE(folder.add(l), std::size_t(1));
        l.id = ""; // no id: a response of its own each time
        l.tokens = &b;
        QCOMPARE(folder.add(l), std::size_t(2));
        QCOMPARE(folder.add(l), std::size_t(3));
        QCOMPARE(folder.responses(), std::size_t(4));
        QCOMPARE(u.foldedLines, std::size_t(3));
        folder.finish();
        QCOMPARE(u.responses.size(), std::size_t(3));
        QCOMPARE(u.foldedLines, std::size_t(2)); // N's repeated line went with it
        QCOMPARE(u.responses[0].tokens.output, std::int64_t(40));
        QCOMPARE(u.responses[0].lines, std::size_t(3));
        QCOMPARE(u.responses[0].line, std::uint32_t(9));
        QCOMPARE(u.responses[0].model, std::string("m"));
        QCOMPARE(u.responses[2].tokens.input, std::int64_t(7));
        // Claude Code's figures by TTL: the 1-hour part of the split, the rest of the writes 5-minute.
        const cost::Tokens split = cost::claudeTokens(10, 2000, 30000, 400, true, 1500, 500);
        QCOMPARE(split.cacheWrite5m, std::int64_t(1500));
        QCOMPARE(split.cacheWrite1h, std::int64_t(500));
        QCOMPARE(cost::claudeTokens(0, 0, 0, 0, true, 300, 200).cacheWrite5m, std::int64_t(300)); // no total: the split's sum
        QCOMPARE(cost::claudeTokens(0, 900, 0, 0, false, 0, 0).cacheWrite5m, std::int64_t(900));
    }

    // A simulation priced by hand. Ten messages with set estimates, fixed part 500, acme-large
    // ($/M: cache write 3.75, cache read 0.3, output 15):
    //   turn 1: 0 user 100, 1 assistant 50, 2 tool 1000, 3 assistant 30       (without 1180)
    //   turn 2: 4 user 100, 5 assistant 50, 6 tool 2000, 7 assistant 40       (without 3370)
    //   turn 3: 8 user 100, 9 assistant 60                                    (without 3530)
    // The strategy changes the context after turn 2 (to 1500, keeping 150 leading tokens: 0 and 1).
    // A request per response, sending the fixed part and what precedes it:
    //   R1 before 1: sends 600, cold cache: writes 600, output 50
    //   R2 before 3: sends 1650, reads 600 (R1's), writes 1050, output 30
    //   R3 before 5: sends 1780, reads 1650, writes 130, output 50
    //   R4 before 7: sends 3830, reads 1780, writes 2050, output 40
    //   R5 before 9, without: sends 3970, reads 3830, writes 140, output 60
    //            with: sends 500 + 1600 = 2100, reads 500 + 150 = 650, writes 1450, output 60
    //   without: reads 7860, writes 3970, output 230: 0.002358 + 0.0148875 + 0.00345 = 0.0206955
    //   with:    reads 4680, writes 5280, output 230: 0.001404 + 0.0198 + 0.00345 = 0.024654
    //   turn 3 alone: with 0.000195 + 0.0054375 + 0.0009 = 0.0065325; without 0.001149 + 0.000525
    //   + 0.0009 = 0.002574 (the rewrite costs more than one turn of reads saves).
    void simulationByHand()
    {
        Transcript t;
        const std::pair<Role, int> messages[] = {{Role::User, 100}, {Role::Assistant, 50}, {Role::Tool, 1000}, {Role::Assistant, 30}, {Role::User, 100}, {Role::Assistant, 50}, {Role::Tool, 2000}, {Role::Assistant, 40}, {Role::User, 100}, {Role::Assistant, 60}};
        for (const auto &[role, tokens] : messages) {
            Message &m = t.messages.emplace_back();
            m.kind = MessageKind::Conversation;
            m.role = role;
            m.cache.tokenEstimate = tokens;
        }
        sim::Simulation s;
        auto turn = [&](std::size_t n, std::size_t first, std::size_t last, std::int64_t without, std::int64_t with,
                        bool changed, std::int64_t prefix) {
            sim::TurnPoint p;
            p.turn = n;
            p.firstIndex = first;
            p.lastIndex = last;
            p.without = without;
            p.with = with;
            p.changed = changed;
            p.cachePrefix = prefix;
            s.turns.push_back(p);
        };
        turn(1, 0, 3, 1180, 1180, false, 0);
        turn(2, 4, 7, 3370, 1500, true, 150);
        turn(3, 8, 9, 3530, 1660, false, 0);
        const llm::Price price = *testPrices().find("acme-large");
        const cost::SimulationCost c = cost::simulationCost(t, s, price, 500);
        QCOMPARE(c.requests, std::size_t(5));
        QCOMPARE(c.turns.size(), std::size_t(3));
        QCOMPARE(c.turns[0].requests, std::size_t(2));
        QCOMPARE(c.turns[2].requests, std::size_t(1));
        QCOMPARE(c.without.tokens.cacheRead, std::int64_t(7860));
        QCOMPARE(c.without.tokens.cacheWrite5m, std::int64_t(3970));
        QCOMPARE(c.without.tokens.output, std::int64_t(230));
        QCOMPARE(c.with.tokens.cacheRead, std::int64_t(4680));
        QCOMPARE(c.with.tokens.cacheWrite5m, std::int64_t(5280));
        QCOMPARE(c.with.tokens.output, std::int64_t(230));
        QCOMPARE(c.with.tokens.input, std::int64_t(0)); // everything goes through the cache
        CL_COMPARE_DOLLARS(c.without.dollars, 0.0206955);
        CL_COMPARE_DOLLARS(c.with.dollars, 0.024654);
        CL_COMPARE_DOLLARS(c.saving(), 0.0206955 - 0.024654);
        CL_COMPARE_DOLLARS(c.turns[2].with.dollars, 0.0065325);
        CL_COMPARE_DOLLARS(c.turns[2].without.dollars, 0.002574);
        CL_COMPARE_DOLLARS(c.turns[0].with.dollars, c.turns[0].without.dollars);
        QCOMPARE(c.with.rewrites, std::size_t(1));
        QCOMPARE(c.without.rewrites, std::size_t(0));

        // The strategy only cut the tail (its whole result is the kept prefix): R5 reads all of it.
        s.turns[1].cachePrefix = 1500;
        const cost::SimulationCost tail = cost::simulationCost(t, s, price, 500);
        QCOMPARE(tail.turns[2].with.tokens.cacheRead, std::int64_t(500 + 1500));
        QCOMPARE(tail.turns[2].with.tokens.cacheWrite5m, std::int64_t(100));
        // A prefix as long as what was cached: the cache is intact, nothing rewritten.
        s.turns[1].cachePrefix = 3330;
        QCOMPARE(cost::simulationCost(t, s, price, 500).with.rewrites, std::size_t(0));

        // No price: the tokens, no dollars.
        const cost::SimulationCost unpriced = cost::simulationCost(t, s, std::nullopt, 500);
        QCOMPARE(unpriced.with.tokens.output, std::int64_t(230));
        QCOMPARE(unpriced.with.dollars, 0.0);
        // By name from a table: the transcript names no model here.
        const cost::SimulationCost named = cost::simulationCost(t, s, testPrices());
        QVERIFY(!named.price);
        QCOMPARE(named.error, std::string("the transcript names no model"));
        QVERIFY(cost::simulationCost(t, s, testPrices(), "acme-small-9").price);
    }

    // The shared samples: positive cost, one response per message.id whatever the lines repeat, and
    // every response's tokens those of its id's last line.
    void realSamples()
    {
        CL_REQUIRE_SAMPLES();
        for (const char *name : {"viewer-sample-small.jsonl", "viewer-sample-edits.jsonl"}) {
            const std::string path = std::string(CL_SAMPLES_DIR "/claude-code/") + name;
            std::map<std::string, json> lastUsage;
            std::size_t lines = 0;
            std::ifstream in(path);
            for (std::string l; std::getline(in, l);) {
                const json o = json::parse(l, nullptr, false);
                if (o.is_object() && o.value("type", "") == "assistant" && o["message"].contains("usage")) {
                    lastUsage[o["message"]["id"].get<std::string>()] = o["message"]["usage"];
                    ++lines;
                }
            }
            const auto t = loadFile(path).transcript;
            QVERIFY(t);
            const cost::SessionUsage usage = cost::readUsage(*t);
            QCOMPARE(usage.responses.size(), lastUsage.size());
            QVERIFY(lines > lastUsage.size()); // some ids do repeat over lines
            QCOMPARE(usage.foldedLines, lines - lastUsage.size());
            std::int64_t output = 0, read = 0;
            for (const auto &[id, u] : lastUsage) {
                output += u["output_tokens"].get<std::int64_t>();
                read += u["cache_read_input_tokens"].get<std::int64_t>();
            }
            const cost::SessionCost c = cost::sessionCost(usage, llm::PriceTable(), {}, t->format);
            QCOMPARE(c.tokens.output, output);
            QCOMPARE(c.tokens.cacheRead, read);
            QVERIFY(c.complete());
            QVERIFY(c.dollars.total() > 0);
        }
        for (const char *name : {"codex/fixture-rollout.jsonl", "gemini/fixture-session.jsonl"}) {
            const auto t = loadFile(std::string(CL_SAMPLES_DIR "/") + name).transcript;
            QVERIFY(t);
            const cost::SessionCost c = cost::sessionCost(*t, llm::PriceTable());
            QVERIFY2(c.dollars.total() > 0, name);
        }
    }
};

QTEST_GUILESS_MAIN(TestCost)
#include "tst_cost.moc"
