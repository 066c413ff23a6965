// SPDX-License-Identifier: MIT
// `contextlens-cli simulate`, run in-process, and the core additions it uses (stride, progress,
// cancel): on an OpenAI chat transcript the test writes itself (K requests, each one tool round with a
// large result, so the turn structure and the numbers can be checked by hand) and on a generated
// Claude Code session, against cl::sim::simulate() called directly on the same file.
#include "cli/cli.h"
#include "core/cost/simulationcost.h"
#include "core/generator/generator.h"
#include "core/io/loader.h"
#include "core/strategy/simulation.h"
#include "core/strategy/strategy.h"
#include "core/tokens/contextfigure.h"
#include "core/tokens/estimator.h"
#include "core/strategies/registry.h"

#include "test_support.h"

#include <QDir>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

using nlohmann::json;
using namespace cl;

namespace {

using Run = cl::test::CliRun;
using cl::test::runCli;

// system, then per request: user, assistant tool call, tool result (resultChars of text), assistant answer.
std::string chatSession(int requests, int resultChars)
{
    json messages = json::array();
    messages.push_back({{"role", "system"}, {"content", "You are a coding agent."}});
    for (int k = 1; k <= requests; ++k) {
        const std::string id = "call_" + std::to_string(k);
        messages.push_back({{"role", "user"}, {"content", "Request " + std::to_string(k) + ": look at file " + std::to_string(k) + ".txt"}});
        // clang-format off
        messages.push_back({{"role", "assistant"}, {"content", nullptr},
            {"tool_calls", json::array({{{"id", id}, {"type", "function"},
                {"function", {{"name", "read_file"}, {"arguments", json{{"path", std::to_string(k) + ".txt"}}.dump()}}}}})}});
        // clang-format on
        std::string body;
        for (int line = 0; int(body.size()) < resultChars; ++line)
            body += "line " + std::to_string(line) + " of file " + std::to_string(k) + ": some content here\n";
        messages.push_back({{"role", "tool"}, {"tool_call_id", id}, {"content", body}});
        messages.push_back({{"role", "assistant"}, {"content", "File " + std::to_string(k) + " looks fine."}});
    }
    return json{{"model", "gpt-4o"}, {"messages", messages}}.dump(1);
}

std::shared_ptr<Transcript> load(const std::string &path)
{
    LoadResult r = loadFile(path, LoadOptions{});
    return r.transcript;
}

} // namespace

class TestSimulateCli : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::string m_chat;
    static constexpr int kRequests = 12;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_chat = m_dir.filePath(QStringLiteral("chat.json")).toStdString();
        std::ofstream(m_chat, std::ios::binary) << chatSession(kRequests, 12000);
    }

    void turnsAreRequests()
    {
        const auto t = load(m_chat);
        QVERIFY(t);
        QCOMPARE(t->format, Format::OpenAIChat);
        QCOMPARE(sim::countTurns(*t, sim::Step::Turn), std::size_t(kRequests));
        const Run r = runCli({"simulate", m_chat, "--by", "turn", "--strategy", "trim-tools", "--json"});
        QCOMPARE(r.code, 0);
        const json j = json::parse(r.out);
        QCOMPARE(j["totalTurns"].get<int>(), kRequests);
        QCOMPARE(j["turns"].size(), std::size_t(kRequests));
        // Turn 1 carries the system prompt: 5 messages; every other turn 4 (user, call, result, answer).
        QCOMPARE(j["turns"][0]["messages"].get<int>(), 5);
        QCOMPARE(j["turns"][0]["firstIndex"].get<int>(), 0);
        for (int k = 1; k < kRequests; ++k) {
            QCOMPARE(j["turns"][k]["messages"].get<int>(), 4);
            QCOMPARE(j["turns"][k]["firstIndex"].get<int>(), 1 + 4 * k);
            QCOMPARE(j["turns"][k]["lastIndex"].get<int>(), 4 + 4 * k);
        }
        // "Without" is the running total of the message estimates: check it turn by turn.
        std::int64_t sum = 0;
        for (int k = 0; k < kRequests; ++k) {
            const int from = k == 0 ? 0 : 1 + 4 * k, to = 4 + 4 * k;
            for (int i = from; i <= to; ++i)
                sum += tokens::estimateMessage(t->messages[std::size_t(i)]);
            QCOMPARE(j["turns"][k]["without"].get<std::int64_t>(), sum);
        }
        QCOMPARE(sum, tokens::totalEstimate(*t));
    }

    // By request (the default): a step ends at each response, so each user request of the chat is
    // two steps, the tool call's and the answer's, as the agent sent two requests.
    void stepsAreRequests()
    {
        const auto t = load(m_chat);
        QVERIFY(t);
        QCOMPARE(sim::countTurns(*t), std::size_t(2 * kRequests));
        const Run r = runCli({"simulate", m_chat, "--strategy", "trim-tools", "--json"});
        QCOMPARE(r.code, 0);
        const json j = json::parse(r.out);
        QCOMPARE(j["by"].get<std::string>(), std::string("request"));
        QCOMPARE(j["turns"].size(), std::size_t(2 * kRequests));
        // Step 1: system, request, call; step 2: result, answer; step 3: the next request and call.
        const json &steps = j["turns"];
        QCOMPARE(steps[0]["messages"].get<int>(), 3);
        QCOMPARE(steps[1]["firstIndex"].get<int>(), 3);
        QCOMPARE(steps[1]["lastIndex"].get<int>(), 4);
        QCOMPARE(steps[2]["firstIndex"].get<int>(), 5);
        QCOMPARE(steps[2]["lastIndex"].get<int>(), 6);
        // The live context of each step is the one figure at its last message, fixed part included.
        for (std::size_t k = 0; k < steps.size(); ++k) {
            const std::size_t last = steps[k]["lastIndex"].get<std::size_t>();
            const tokens::ContextFigure f = tokens::contextFigure(*t, tokens::Estimator::Calibrated, last);
            QCOMPARE(steps[k]["liveWithout"].get<std::int64_t>(), f.total);
            if (k > 0)
                QVERIFY(steps[k]["liveWithout"].get<std::int64_t>() >= steps[k - 1]["liveWithout"].get<std::int64_t>());
        }
        QCOMPARE(j["finalLiveWithout"].get<std::int64_t>(), tokens::contextFigure(*t).total);
        // Text: the step is named, and an unknown --by is a usage error.
        const Run text = runCli({"simulate", m_chat, "--strategy", "trim-tools"});
        QVERIFY2(text.out.find("of 24 requests") != std::string::npos, text.out.c_str());
        QCOMPARE(runCli({"simulate", m_chat, "--strategy", "snip", "--by", "minute"}).code, 2);
    }

    // The real Claude Code session: one request and its tool rounds are one user turn but 79 steps,
    // one per response the agent recorded in the live context (several lines of one response are one step),
    // and the last step's live context is the measured figure `info` shows.
    void realSessionStepsAreResponses()
    {
        const std::string path = CL_SAMPLES_DIR "/../real-sessions/claude-code-2.1.39-compacted.jsonl";
        CL_REQUIRE(QFile::exists(QString::fromStdString(path)), "the real sessions (../shared/real-sessions)");
        const auto t = load(path);
        QVERIFY(t);
        const analysis::ConversationView view = analysis::conversationView(*t);
        std::size_t responses = 0;
        std::string previous;
        for (std::size_t p = 0; p < view.size(); ++p) {
            const Message &m = t->messages[view.index[p]];
            if (m.role == Role::Assistant && (m.apiMessageId.empty() || m.apiMessageId != previous))
                ++responses;
            previous = m.role == Role::Assistant ? m.apiMessageId : std::string();
        }
        QVERIFY2(responses > 50, qPrintable(QString::number(responses))); // 79 in its live context
        QCOMPARE(sim::countTurns(*t), responses);
        QVERIFY(sim::countTurns(*t, sim::Step::Turn) <= 3);
        sim::SimulationOptions so;
        so.maxTurns = 0;
        const sim::Simulation s = sim::simulate(*t, *strategy::find("trim-tools"), json::object(), so);
        QCOMPARE(s.turns.size(), responses);
        const tokens::ContextFigure f = tokens::contextFigure(*t);
        QCOMPARE(f.basis, tokens::ContextFigure::Basis::Measured);
        QVERIFY(s.turns.back().liveWithout <= f.total && s.turns.back().liveWithout >= f.measured);
        QVERIFY(s.turns.back().liveWith < s.turns.back().liveWithout);
    }

    void matchesSimulateAndReduces_data()
    {
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<int>("window");
        QTest::newRow("progressive") << QStringLiteral("progressive") << 20000;
        QTest::newRow("trim-tools") << QStringLiteral("trim-tools") << 0;
        QTest::newRow("snip") << QStringLiteral("snip") << 15000;
    }

    void matchesSimulateAndReduces()
    {
        QFETCH(QString, strategy);
        QFETCH(int, window);
        const auto t = load(m_chat);
        QVERIFY(t);
        sim::SimulationOptions so;
        so.step = sim::Step::Turn;
        so.analysis.contextWindow = window;
        const sim::Simulation s = sim::simulate(*t, *strategy::find(strategy.toStdString()), json::object(), so);
        QVERIFY(s.error.empty());
        std::vector<std::string> args{"simulate", m_chat, "--by", "turn", "--strategy", strategy.toStdString(), "--json"};
        if (window > 0) {
            args.push_back("--window");
            args.push_back(std::to_string(window));
        }
        const Run r = runCli(args);
        QCOMPARE(r.code, 0);
        const json j = json::parse(r.out);
        QCOMPARE(j["strategy"].get<std::string>(), strategy.toStdString());
        QCOMPARE(j["window"].get<std::int64_t>(), s.window);
        if (window > 0)
            QCOMPARE(s.window, std::int64_t(window));
        QCOMPARE(j["compactions"].get<std::size_t>(), s.compactions);
        QCOMPARE(j["exceedsWithout"].is_null() ? -1 : j["exceedsWithout"].get<int>(), s.exceedsWithout);
        QCOMPARE(j["exceedsWith"].is_null() ? -1 : j["exceedsWith"].get<int>(), s.exceedsWith);
        QCOMPARE(j["turns"].size(), s.turns.size());
        std::int32_t firstOver = -1;
        for (std::size_t k = 0; k < s.turns.size(); ++k) {
            const auto &p = s.turns[k];
            const json &q = j["turns"][k];
            QCOMPARE(q["without"].get<std::int64_t>(), p.without);
            QCOMPARE(q["with"].get<std::int64_t>(), p.with);
            QCOMPARE(q["beforeStrategy"].get<std::int64_t>(), p.beforeStrategy);
            QCOMPARE(q["managedMessages"].get<std::size_t>(), p.managedMessages);
            QCOMPARE(q["changed"].get<bool>(), p.changed);
            QCOMPARE(q["note"].get<std::string>(), p.note);
            if (k > 0)
                QVERIFY(p.without >= s.turns[k - 1].without);
            // Every strategy here only removes or shortens: never more than the plain total.
            QVERIFY2(p.with <= p.without, qPrintable(QStringLiteral("turn %1").arg(p.turn)));
            QCOMPARE(q["liveWithout"].get<std::int64_t>(), p.liveWithout);
            QCOMPARE(q["liveWith"].get<std::int64_t>(), p.liveWith);
            QVERIFY(p.liveWith <= p.liveWithout);
            if (firstOver < 0 && p.liveWithout > s.window)
                firstOver = std::int32_t(p.turn);
        }
        QCOMPARE(s.exceedsWithout, firstOver);
        if (window > 0) {
            // 12 results of ~3,000 tokens each outgrow these windows, and each strategy trims them.
            QVERIFY(s.exceedsWithout > 0);
            QVERIFY(s.compactions > 0);
            QVERIFY(s.turns.back().with < s.turns.back().without);
            QVERIFY(s.turns.back().liveWith < s.turns.back().liveWithout);
        }

        // The text table: a header, one line per turn, the summary line.
        const Run text = runCli({"simulate", m_chat, "--by", "turn", "--strategy", strategy.toStdString(), "--window",
                                 std::to_string(window)});
        QCOMPARE(text.code, 0);
        const QStringList lines = QString::fromStdString(text.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 3 + kRequests + 1);
        QVERIFY(lines[2].contains(QLatin1String("without")));
        QVERIFY(lines.last().startsWith(QStringLiteral("window %1").arg(s.window)));
        QVERIFY(lines.last().contains(QStringLiteral("%1 compaction").arg(s.compactions)));
        const QStringList turn3 = lines[3 + 2].split(QLatin1Char(' '), Qt::SkipEmptyParts);
        QCOMPARE(turn3[0], QStringLiteral("3"));
        QCOMPARE(turn3[2].toLongLong(), qint64(s.turns[2].liveWithout));
        QCOMPARE(turn3[3].toLongLong(), qint64(s.turns[2].liveWith));
        QCOMPARE(turn3[6].toLongLong(), qint64(s.turns[2].with)); // conversation, seed estimate ("x.y %" is two words)
    }

    void optionsAndErrors()
    {
        // --max-turns stops early; params reach the strategy and are reported resolved.
        Run r = runCli({"simulate", m_chat, "--by", "turn", "-s", "snip", "--param", "snipMaxChars=2000", "--max-turns", "3", "--json"});
        QCOMPARE(r.code, 0);
        json j = json::parse(r.out);
        QCOMPARE(j["turns"].size(), std::size_t(3));
        QCOMPARE(j["totalTurns"].get<int>(), kRequests);
        QCOMPARE(j["params"]["snipMaxChars"].get<int>(), 2000);

        // Unknown strategy: exit 2 and a message naming it (text and JSON).
        r = runCli({"simulate", m_chat, "--by", "turn", "--strategy", "no-such-thing"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.find("no-such-thing") != std::string::npos);
        r = runCli({"simulate", m_chat, "--by", "turn", "--strategy", "no-such-thing", "--json"});
        QCOMPARE(r.code, 2);
        QVERIFY(json::parse(r.out)["error"].get<std::string>().find("no-such-thing") != std::string::npos);
        // Bad parameter, bad numbers, missing pieces.
        r = runCli({"simulate", m_chat, "--by", "turn", "--strategy", "snip", "--param", "bogus=1"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.find("bogus") != std::string::npos);
        r = runCli({"simulate", m_chat, "--by", "turn", "--strategy", "snip", "--max-turns", "x3"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.find("--max-turns") != std::string::npos);
        r = runCli({"simulate", m_chat, "--by", "turn", "--strategy", "snip", "--window", "-5"});
        QCOMPARE(r.code, 2);
        QCOMPARE(runCli({"simulate", m_chat}).code, 2);
        QCOMPARE(runCli({"simulate", "--strategy", "snip"}).code, 2);
        r = runCli({"simulate", m_dir.filePath(QStringLiteral("missing.json")).toStdString(), "--strategy", "snip"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.find("missing.json") != std::string::npos);
        // Help names the command and its options.
        r = runCli({"simulate", "--help"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.find("--max-turns") != std::string::npos);
        QVERIFY(runCli({"help"}).out.find("simulate FILE --strategy NAME") != std::string::npos);
        QVERIFY(json::parse(runCli({"help", "--json"}).out)["commands"].dump().find("simulate") != std::string::npos);
    }

    // --cost: each turn's dollars with and without the strategy (core/cost/simulationcost.h, priced
    // by hand in tst_cost), the same as a direct call; nothing of it without the flag.
    void costColumns()
    {
        const auto t = load(m_chat);
        QVERIFY(t);
        const std::string prices = m_dir.filePath(QStringLiteral("prices.json")).toStdString();
        std::ofstream(prices) << R"({"models": [{"match": "acme-large", "input": 3, "output": 15, "cacheWrite5m": 3.75, "cacheRead": 0.3}]})";
        sim::SimulationOptions so;
        so.step = sim::Step::Turn;
        so.analysis.contextWindow = 15000;
        const sim::Simulation s = sim::simulate(*t, *strategy::find("snip"), json::object(), so);
        QVERIFY(s.compactions > 0);
        llm::PriceTable table;
        QVERIFY(table.mergeFile(prices));
        const cost::SimulationCost direct = cost::simulationCost(*t, s, table, "acme-large");
        QVERIFY(direct.price);
        QCOMPARE(direct.requests, std::size_t(2 * kRequests)); // the tool call and the answer of each request

        Run r = runCli({"simulate", m_chat, "--by", "turn", "-s", "snip", "--window", "15000", "--model", "acme-large", "--prices", prices, "--json"});
        QCOMPARE(r.code, 0);
        json j = json::parse(r.out);
        const json &c = j["cost"];
        QCOMPARE(c["model"].get<std::string>(), std::string("acme-large"));
        QCOMPARE(c["requests"].get<std::size_t>(), direct.requests);
        QCOMPARE(c["with"]["dollars"].get<double>(), std::round(direct.with.dollars * 1e6) / 1e6);
        QCOMPARE(c["without"]["dollars"].get<double>(), std::round(direct.without.dollars * 1e6) / 1e6);
        QCOMPARE(c["with"]["cacheRead"].get<std::int64_t>(), direct.with.tokens.cacheRead);
        QCOMPARE(c["with"]["rewrites"].get<std::size_t>(), direct.with.rewrites);
        QVERIFY(direct.with.rewrites > 0);
        QCOMPARE(c["fixedTokens"].get<std::int64_t>(), direct.fixedTokens);
        double with = 0, without = 0;
        bool compacted = false;
        for (std::size_t k = 0; k < s.turns.size(); ++k) {
            const json &turn = j["turns"][k]["cost"];
            QCOMPARE(turn["requests"].get<int>(), 2);
            with += direct.turns[k].with.dollars;
            without += direct.turns[k].without.dollars;
            QCOMPARE(turn["with"].get<double>(), std::round(direct.turns[k].with.dollars * 1e6) / 1e6);
            // Until the first compaction both runs send the same requests.
            if (!compacted)
                QCOMPARE(direct.turns[k].with.dollars, direct.turns[k].without.dollars);
            compacted = compacted || s.turns[k].changed;
        }
        QVERIFY(std::fabs(with - direct.with.dollars) < 1e-12 && std::fabs(without - direct.without.dollars) < 1e-12);
        // Smaller contexts after the compactions: fewer cache reads.
        QVERIFY(direct.with.tokens.cacheRead < direct.without.tokens.cacheRead);

        // Text: two columns and the lines that say how.
        r = runCli({"simulate", m_chat, "--by", "turn", "-s", "snip", "--window", "15000", "--model", "acme-large", "--prices", prices});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.find("managed     with $  without $  changed / note") != std::string::npos, r.out.c_str());
        QVERIFY(r.out.find("cost: acme-large priced as acme-large") != std::string::npos);
        char line[160];
        std::snprintf(line, sizeof line, "  %zu requests: $%.4f with snip, $%.4f without", direct.requests, direct.with.dollars,
                      direct.without.dollars);
        QVERIFY2(r.out.find(line) != std::string::npos, line);
        const QStringList lines = QString::fromStdString(r.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        std::snprintf(line, sizeof line, "%.4f", direct.turns[2].with.dollars);
        QCOMPARE(lines[3 + 2].split(QLatin1Char(' '), Qt::SkipEmptyParts)[8], QString::fromLatin1(line)); // with% is "x.y %"

        // --cost alone: the session's model (gpt-4o) from the shipped table.
        r = runCli({"simulate", m_chat, "--by", "turn", "-s", "snip", "--cost", "--json"});
        QCOMPARE(r.code, 0);
        QCOMPARE(json::parse(r.out)["cost"]["model"].get<std::string>(), std::string("gpt-4o"));
        QVERIFY(json::parse(r.out)["cost"]["with"]["dollars"].is_number());
        // A model without a price: said, cells unknown, still a success.
        r = runCli({"simulate", m_chat, "--by", "turn", "-s", "snip", "--model", "mystery"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.find("cost unknown: no price for model 'mystery' (give --prices FILE or --model M)") != std::string::npos);
        QVERIFY(r.out.find("   unknown    unknown") != std::string::npos);
        j = json::parse(runCli({"simulate", m_chat, "--by", "turn", "-s", "snip", "--model", "mystery", "--json"}).out);
        QVERIFY(j["cost"]["with"]["dollars"].is_null());
        QVERIFY(j["turns"][0]["cost"]["with"].is_null());
        // Without --cost: no cost at all.
        j = json::parse(runCli({"simulate", m_chat, "--by", "turn", "-s", "snip", "--json"}).out);
        QVERIFY(!j.contains("cost"));
        QVERIFY(!j["turns"][0].contains("cost"));
        QCOMPARE(runCli({"simulate", m_chat, "--by", "turn", "-s", "snip", "--prices", m_dir.filePath(QStringLiteral("none.json")).toStdString()}).code, 2);
    }

    // Pins (transcript indices) and exempt tools hold in every run of the strategy, and the CLI
    // passes them on (--pin, --exempt) and reports the surviving messages ("kept").
    void pinsAndExemptToolsHold()
    {
        const auto t = load(m_chat);
        QVERIFY(t);
        const strategy::Strategy &truncate = *strategy::find("hard-truncate");
        sim::SimulationOptions so;
        so.step = sim::Step::Turn;
        so.analysis.contextWindow = 20000;
        auto has = [](const sim::Simulation &s, std::int64_t i) { return std::find(s.kept.begin(), s.kept.end(), i) != s.kept.end(); };
        const sim::Simulation free = sim::simulate(*t, truncate, json::object(), so);
        QVERIFY(free.compactions > 0);
        QVERIFY(!has(free, 5) && !has(free, 3)); // turn 2's request and turn 1's result are gone
        QVERIFY(has(free, std::int64_t(t->messages.size()) - 1));
        so.pinned = {5};
        const sim::Simulation pinned = sim::simulate(*t, truncate, json::object(), so);
        QVERIFY(has(pinned, 5));
        QVERIFY(!has(pinned, 3));
        so.pinned.clear();
        so.exemptTools = {"read_file"};
        const sim::Simulation exempt = sim::simulate(*t, truncate, json::object(), so);
        QVERIFY(has(exempt, 2) && has(exempt, 3)); // every read_file call and result stays

        Run r = runCli({"simulate", m_chat, "--by", "turn", "-s", "hard-truncate", "--window", "20000", "--pin", "5", "--json"});
        QCOMPARE(r.code, 0);
        QCOMPARE(json::parse(r.out)["kept"].get<std::vector<std::int64_t>>(), pinned.kept);
        r = runCli({"simulate", m_chat, "--by", "turn", "-s", "hard-truncate", "--window", "20000", "--exempt", "read_file", "--json"});
        QCOMPARE(r.code, 0);
        QCOMPARE(json::parse(r.out)["kept"].get<std::vector<std::int64_t>>(), exempt.kept);
        r = runCli({"simulate", m_chat, "--by", "turn", "-s", "hard-truncate", "--pin", "x5"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.find("--pin") != std::string::npos);
    }

    void strideAndCancel()
    {
        const auto t = load(m_chat);
        QVERIFY(t);
        const strategy::Strategy &snip = *strategy::find("snip");
        sim::SimulationOptions so;
        so.step = sim::Step::Turn;
        so.analysis.contextWindow = 15000;
        const sim::Simulation every = sim::simulate(*t, snip, json::object(), so);
        so.stride = 5;
        const sim::Simulation strided = sim::simulate(*t, snip, json::object(), so);
        QCOMPARE(strided.stride, std::size_t(5));
        QCOMPARE(strided.turns.size(), std::size_t(kRequests));
        // Runs at turns 5, 10 and the last (12); in between nothing changes and with == before.
        for (const auto &p : strided.turns) {
            const bool runs = p.turn % 5 == 0 || p.turn == std::size_t(kRequests);
            if (!runs) {
                QVERIFY(!p.changed);
                QCOMPARE(p.with, p.beforeStrategy);
            }
            QCOMPARE(p.without, every.turns[p.turn - 1].without); // "without" does not depend on the strategy
        }
        QVERIFY(strided.compactions <= 3);
        const Run r = runCli({"simulate", m_chat, "--by", "turn", "--strategy", "snip", "--window", "15000", "--stride", "5", "--json"});
        QCOMPARE(r.code, 0);
        QCOMPARE(json::parse(r.out)["stride"].get<int>(), 5);
        QCOMPARE(json::parse(r.out)["compactions"].get<std::size_t>(), strided.compactions);

        // Progress counts every turn; returning false stops after that turn.
        std::vector<std::pair<std::size_t, std::size_t>> calls;
        so.stride = 1;
        so.progress = [&](std::size_t done, std::size_t total) {
            calls.emplace_back(done, total);
            return done < 4;
        };
        const sim::Simulation cancelled = sim::simulate(*t, snip, json::object(), so);
        QVERIFY(cancelled.cancelled);
        QCOMPARE(cancelled.turns.size(), std::size_t(4));
        QCOMPARE(calls.size(), std::size_t(4));
        QCOMPARE(calls.back(), std::make_pair(std::size_t(4), std::size_t(kRequests)));
        for (std::size_t k = 0; k < 4; ++k)
            QCOMPARE(cancelled.turns[k].with, every.turns[k].with);
        // Not cancelled when the last turn is the one that returns false.
        so.progress = [](std::size_t, std::size_t) { return false; };
        so.maxTurns = 1;
        QVERIFY(!sim::simulate(*t, snip, json::object(), so).cancelled);

        QCOMPARE(sim::suggestedStride(150, 200), std::size_t(1));
        QCOMPARE(sim::suggestedStride(200, 200), std::size_t(1));
        QCOMPARE(sim::suggestedStride(201, 200), std::size_t(2));
        QCOMPARE(sim::suggestedStride(2000, 200), std::size_t(10));
    }

    // The real samples: every format loads and simulates; the CLI agrees with simulate() and the
    // running totals behave (a 2,000-token window makes the strategy act on the larger ones).
    void realSamples()
    {
        const QDir dir(QStringLiteral(CL_SAMPLES_DIR));
        CL_REQUIRE(dir.exists(), "no samples folder");
        int checked = 0;
        for (const QString &sub : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            if (sub == QLatin1String("schema"))
                continue;
            for (const QFileInfo &fi : QDir(dir.filePath(sub)).entryInfoList({QStringLiteral("*.json"), QStringLiteral("*.jsonl")}, QDir::Files)) {
                const std::string path = fi.absoluteFilePath().toStdString();
                const auto t = load(path);
                QVERIFY2(t, path.c_str());
                const Run r = runCli({"simulate", path, "--strategy", "progressive", "--window", "2000", "--json"});
                QVERIFY2(r.code == 0, (path + ": " + r.err).c_str());
                const json j = json::parse(r.out);
                sim::SimulationOptions so; // by request, the default
                so.analysis.contextWindow = 2000;
                const sim::Simulation s = sim::simulate(*t, *strategy::find("progressive"), json::object(), so);
                QCOMPARE(j["turns"].size(), s.turns.size());
                QCOMPARE(s.turns.size(), sim::countTurns(*t));
                QCOMPARE(j["compactions"].get<std::size_t>(), s.compactions);
                // The last step's live context without the strategy is the one figure `info` shows.
                if (!s.turns.empty())
                    QCOMPARE(s.turns.back().liveWithout, tokens::contextFigure(*t, tokens::Estimator::Calibrated, s.turns.back().lastIndex).total);
                for (std::size_t k = 0; k < s.turns.size(); ++k) {
                    QCOMPARE(j["turns"][k]["with"].get<std::int64_t>(), s.turns[k].with);
                    QCOMPARE(j["turns"][k]["liveWith"].get<std::int64_t>(), s.turns[k].liveWith);
                    QVERIFY(s.turns[k].with <= s.turns[k].without);
                    if (k > 0)
                        QVERIFY(s.turns[k].without >= s.turns[k - 1].without);
                }
                ++checked;
            }
        }
        QVERIFY(checked >= 5);
    }

    // A long generated session: with the auto stride the replay stays within seconds.
    void longSessionIsBounded()
    {
        gen::Options o;
        o.format = Format::ClaudeCode;
        o.messages = 2400;
        o.seed = 11;
        o.maxReadLines = 60;
        o.compactAt = 100; // no compaction: the whole session is live context
        const std::string path = m_dir.filePath(QStringLiteral("long.jsonl")).toStdString();
        std::ofstream(path, std::ios::binary) << gen::generate(o);
        const auto t = load(path);
        QVERIFY(t);
        const std::size_t turns = sim::countTurns(*t);
        QVERIFY(turns > 100);
        QElapsedTimer timer;
        timer.start();
        const Run r = runCli({"simulate", path, "--strategy", "progressive", "--stride", "auto", "--json"});
        QCOMPARE(r.code, 0);
        const json j = json::parse(r.out);
        QCOMPARE(j["turns"].size(), turns);
        QCOMPARE(j["stride"].get<std::size_t>(), sim::suggestedStride(turns));
        qInfo("%zu turns, stride %zu: %lld ms", turns, j["stride"].get<std::size_t>(), qint64(timer.elapsed()));
    }
};

QTEST_GUILESS_MAIN(TestSimulateCli)
#include "tst_simulatecli.moc"
