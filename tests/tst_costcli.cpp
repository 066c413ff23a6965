// SPDX-License-Identifier: MIT
// `contextlens-cli cost` and `compare --cost-turns N` on the session of cost_fixture.h (priced by hand
// in tst_cost.cpp): text, JSON, options, unknown models and bad usage.
#include "core/cost/nextturns.h"
#include "core/strategies/registry.h"
#include "core/strategy/strategy.h"

#include "cost_fixture.h"
#include "test_support.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

using nlohmann::json;
using namespace cl;
namespace fx = cl::test::costfix;
using fx::load;
using fx::near;
using fx::testPrices;
using fx::writeTemp;

class TestCostCli : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void cliCost()
    {
        QTemporaryDir dir;
        const std::string file = writeTemp(dir, "session.jsonl", fx::session());
        const std::string prices = writeTemp(dir, "prices.json", fx::kPrices);
        auto r = cl::test::runCli({"cost", file, "--prices", prices});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.find("$0.0411 over 3 responses; 3 repeated lines of a response counted once") != std::string::npos, r.out.c_str());
        QVERIFY(r.out.find("acme-large-2025: 2 responses, $0.0408, priced as acme-large (" + prices + ")") != std::string::npos);
        QVERIFY(r.out.find("  cache write 1h              500          6      $0.0030\n") != std::string::npos);
        QVERIFY(r.out.find(prices + " over it") != std::string::npos);
        QVERIFY(r.out.find("no recorded cost") != std::string::npos);

        r = cl::test::runCli({"cost", file, "--prices", prices, "--json"});
        QCOMPARE(r.code, 0);
        const json j = json::parse(r.out);
        QCOMPARE(j["responses"].get<int>(), 3);
        QCOMPARE(j["foldedLines"].get<int>(), 3);
        QCOMPARE(j["dollars"]["total"].get<double>(), 0.04112);
        QCOMPARE(j["models"][1]["tokens"]["cacheWrite1h"].get<int>(), 500);
        QCOMPARE(j["models"][1]["price"]["match"].get<std::string>(), std::string("acme-large"));
        QVERIFY(j["complete"].get<bool>());
        QVERIFY(j["recorded"].is_null());

        r = cl::test::runCli({"cost", file, "--prices", prices, "--model", "acme-small-1", "--json"});
        QCOMPARE(json::parse(r.out)["dollars"]["total"].get<double>(), 0.01394);

        // The shipped table knows no acme: unknown, said, exit 1.
        r = cl::test::runCli({"cost", file});
        QCOMPARE(r.code, 1);
        QVERIFY(r.out.find("NO PRICE: cost unknown") != std::string::npos);
        QVERIFY(r.out.find("cost unknown for 65815 tokens of models without a price: acme-small-1, acme-large-2025")
                != std::string::npos);
        QCOMPARE(cl::test::runCli({"cost", file, "--prices", dir.filePath(QStringLiteral("none.json")).toStdString()}).code, 2);
        QCOMPARE(cl::test::runCli({"cost"}).code, 2);
        QVERIFY(cl::test::runCli({"cost", "--help"}).out.find("Usage: contextlens-cli cost FILE") != std::string::npos);
        QVERIFY(cl::test::runCli({"help"}).out.find("  cost FILE [--model M]") != std::string::npos);
        const json help = json::parse(cl::test::runCli({"help", "--json"}).out);
        QVERIFY(std::find(help["commands"].begin(), help["commands"].end(), "cost") != help["commands"].end());
    }

    void cliCompareCostColumns()
    {
        QTemporaryDir dir;
        const std::string file = writeTemp(dir, "session.jsonl", fx::session());
        const std::string prices = writeTemp(dir, "prices.json", fx::kPrices);
        auto r = cl::test::runCli({"compare", file, "--only", "trim-tools,snip", "--cost-turns", "5", "--prices", prices});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.find("next turn $   next 5 turns $  b/even") != std::string::npos, r.out.c_str());
        QVERIFY(r.out.find("\nno compaction ") != std::string::npos);
        QVERIFY(r.out.find("cost: acme-large-2025 priced as acme-large") != std::string::npos);

        r = cl::test::runCli({"compare", file, "--only", "trim-tools", "--cost-turns", "5", "--prices", prices, "--model", "acme-small-1", "--json"});
        QCOMPARE(r.code, 0);
        const json j = json::parse(r.out);
        QCOMPARE(j["cost"]["model"].get<std::string>(), std::string("acme-small-1"));
        QCOMPARE(j["cost"]["noCompaction"]["turns"].size(), std::size_t(5));
        // The row's figures are nextTurns' on the same run.
        const auto t = load(fx::session());
        strategy::Input in(*t);
        const strategy::Result res = strategy::run(*strategy::find("trim-tools"), in);
        const cost::NextTurns n = cost::nextTurns(in, res, testPrices(), "acme-small-1", 5);
        const json row = j["rows"][0]["cost"];
        CL_COMPARE_DOLLARS(row["nextTurn"].get<double>(), std::round(n.strategy.firstTurn() * 1e6) / 1e6);
        CL_COMPARE_DOLLARS(row["nextTurns"].get<double>(), std::round(n.strategy.total() * 1e6) / 1e6);
        CL_COMPARE_DOLLARS(j["cost"]["noCompaction"]["nextTurns"].get<double>(), std::round(n.baseline.total() * 1e6) / 1e6);
        QCOMPARE(j["cost"]["growth"]["perTurn"].get<int>(), 16453);

        // Bad usage; an unknown model is said in the cells, not a failure.
        QCOMPARE(cl::test::runCli({"compare", file, "--cost-turns", "0"}).code, 2);
        QCOMPARE(cl::test::runCli({"compare", file, "--cost-model", "x"}).code, 2);
        QCOMPARE(cl::test::runCli({"compare", file, "--model", "x"}).code, 2); // still the summarizer's without --cost-turns
        r = cl::test::runCli({"compare", file, "--only", "trim-tools", "--cost-turns", "2", "--model", "mystery"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.find("cost unknown: no price for model 'mystery'") != std::string::npos);
        QVERIFY(r.out.find("unknown          unknown") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestCostCli)
#include "tst_costcli.moc"
