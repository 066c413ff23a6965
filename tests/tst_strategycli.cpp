// SPDX-License-Identifier: MIT
// `strategies`, `compact` and `compare`, run in-process: the JSON reports against the engine's own
// answers on the same file (strategy::run / strategy::compare), parameter errors naming what is
// wrong, exit codes 0/1/2, and -o's refusal to overwrite, atomic write and --to conversion.
#include "cli/cli.h"
#include "core/workflow/compare.h"
#include "core/generator/generator.h"
#include "core/io/loader.h"
#include "core/strategy/strategy.h"
#include "core/io/validity.h"
#include "core/strategies/registry.h"

#include "test_support.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

using nlohmann::json;
using namespace cl;
using namespace cl::strategy;

namespace {

using Run = cl::test::CliRun;
using cl::test::readFile;
using cl::test::runCli;
using cl::test::writeFile;

bool mentions(const Run &r, const std::string &word)
{
    return r.err.find(word) != std::string::npos || r.out.find(word) != std::string::npos;
}

// The CLI rounds ratios to 4 decimals.
bool near(const json &v, double want)
{
    return v.is_number() && std::abs(v.get<double>() - want) <= 0.00006;
}

// Every stat but the time, against the engine's result.
QString statsMismatch(const json &s, const Result &r)
{
    const Stats &st = r.stats;
    auto eq = [&](const char *k, std::int64_t v) { return s[k].is_number_integer() && s[k].get<std::int64_t>() == v; };
    if (!eq("messagesBefore", std::int64_t(st.messagesBefore)) || !eq("messagesAfter", std::int64_t(st.messagesAfter)))
        return QStringLiteral("messages");
    if (!eq("tokensBefore", st.tokensBefore) || !eq("tokensAfter", st.tokensAfter))
        return QStringLiteral("tokens");
    if (!eq("factsTotal", std::int64_t(st.factsTotal)) || !eq("factsKept", std::int64_t(st.factsKept)))
        return QStringLiteral("facts");
    if (!eq("cachePrefixTokens", st.cachePrefixTokens))
        return QStringLiteral("cachePrefixTokens");
    if (!near(s["reduction"], st.reduction) || !near(s["efficiency"], st.efficiency)
        || !near(s["factRetention"], st.factRetention) || !near(s["cachePrefixShare"], st.cachePrefixShare))
        return QStringLiteral("ratios");
    for (std::size_t f = 0; f < kFateCount; ++f) {
        const std::string name(fateName(static_cast<Fate>(f)));
        const std::size_t got = s["fates"].contains(name) ? s["fates"][name].get<std::size_t>() : 0;
        if (got != st.fateCounts[f])
            return QString::fromStdString("fate " + name);
    }
    return {};
}

} // namespace

class TestStrategyCli : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    std::string m_session;
    std::shared_ptr<Transcript> m_t;

    std::string path(const char *name) const { return m_dir.filePath(QString::fromUtf8(name)).toStdString(); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        gen::Options o;
        o.messages = 200;
        o.seed = 5;
        o.maxReadLines = 150;
        m_session = path("session.jsonl");
        writeFile(m_session, gen::generate(o));
        m_t = loadFile(m_session).transcript;
        QVERIFY(m_t && m_t->format == Format::ClaudeCode && m_t->messages.size() > 150);
    }

    void strategiesListsParams()
    {
        const Run r = runCli({"strategies", "--json"});
        QCOMPARE(r.code, 0);
        const json j = json::parse(r.out);
        const auto &list = j["strategies"];
        QCOMPARE(list.size(), all().size());
        for (std::size_t i = 0; i < all().size(); ++i) {
            const Strategy *s = all()[i];
            const json &row = list[i];
            QCOMPARE(row["name"].get<std::string>(), std::string(s->name()));
            QCOMPARE(row["source"].get<std::string>(), std::string(s->source()));
            QCOMPARE(row["group"].get<std::string>(), std::string(groupTitle(s->group())));
            QCOMPARE(row["follows"].get<std::string>(), std::string(s->follows()));
            const auto specs = s->params();
            QCOMPARE(row["params"].size(), specs.size());
            for (std::size_t k = 0; k < specs.size(); ++k) {
                const json &p = row["params"][k];
                const std::string where = std::string(s->name()) + "." + specs[k].name;
                QVERIFY2(p["name"] == specs[k].name, where.c_str());
                QVERIFY2(p["type"] == std::string(paramTypeName(specs[k].type)), where.c_str());
                QVERIFY2(p["default"] == specs[k].defaultValue, where.c_str());
                QVERIFY2(p["help"] == specs[k].help && !specs[k].help.empty(), where.c_str());
                if (specs[k].min != specs[k].max)
                    QVERIFY2(p["range"] == json::array({specs[k].min, specs[k].max}), where.c_str());
            }
        }
        // Text: one header line per strategy and a --param line per parameter.
        const Run t = runCli({"strategies"});
        QCOMPARE(t.code, 0);
        for (const Strategy *s : all()) {
            const std::string head = std::string(s->name()) + "  " + std::string(s->title()) + "  (" + std::string(groupTitle(s->group()));
            QVERIFY2(t.out.find("\n" + head) != std::string::npos || t.out.rfind(head, 0) == 0, head.c_str());
            for (const auto &p : s->params())
                QVERIFY(t.out.find("--param " + p.name + "=") != std::string::npos);
        }
    }

    void compactStatsMatchEngine()
    {
        const Run r = runCli({"compact", m_session, "--strategy", "trim-tools", "--param", "keepLastToolRounds=0", "--json"});
        QCOMPARE(r.code, 0);
        const json j = json::parse(r.out);
        Input in(*m_t);
        const Result want = run(*find("trim-tools"), in, json{{"keepLastToolRounds", 0}});
        QVERIFY(want.changed);
        QCOMPARE(j["strategy"].get<std::string>(), std::string("trim-tools"));
        QCOMPARE(j["params"]["keepLastToolRounds"].get<int>(), 0);
        QCOMPARE(j["changed"].get<bool>(), true);
        QCOMPARE(j["note"].get<std::string>(), want.note);
        QCOMPARE(j["valid"].get<bool>(), true);
        const QString bad = statsMismatch(j["stats"], want);
        QVERIFY2(bad.isEmpty(), qPrintable(bad));
        // The default (keep the last round) is a different result: the flag really reached the strategy.
        const json d = json::parse(runCli({"compact", m_session, "--strategy", "trim-tools", "--json"}).out);
        QVERIFY(d["stats"]["tokensAfter"].get<std::int64_t>() > j["stats"]["tokensAfter"].get<std::int64_t>());
        // The text report says the same numbers.
        const Run t = runCli({"compact", m_session, "-s", "trim-tools", "-p", "keepLastToolRounds=0"});
        QCOMPARE(t.code, 0);
        QVERIFY(t.out.find("conversation " + std::to_string(want.stats.tokensBefore) + " -> " + std::to_string(want.stats.tokensAfter))
                != std::string::npos);
        QVERIFY(t.out.find("live context " + std::to_string(want.stats.liveBefore) + " -> " + std::to_string(want.stats.liveAfter))
                != std::string::npos);
        QVERIFY(t.out.find("  valid\n") != std::string::npos);
    }

    void badParameters()
    {
        Run r = runCli({"compact", m_session, "--strategy", "trim-tools", "--param", "keepLastToolRounds=-3"});
        QCOMPARE(r.code, 2);
        QVERIFY2(mentions(r, "keepLastToolRounds"), r.err.c_str());
        r = runCli({"compact", m_session, "--strategy", "trim-tools", "--param", "keepLastToolRounds=many"});
        QCOMPARE(r.code, 2);
        QVERIFY2(mentions(r, "keepLastToolRounds"), r.err.c_str());
        r = runCli({"compact", m_session, "--strategy", "trim-tools", "--param", "bogusKnob=1", "--json"});
        QCOMPARE(r.code, 2);
        QVERIFY2(json::parse(r.out)["error"].get<std::string>().find("bogusKnob") != std::string::npos, r.out.c_str());
        r = runCli({"compact", m_session, "--strategy", "no-such-strategy"});
        QCOMPARE(r.code, 2);
        QVERIFY2(mentions(r, "no-such-strategy"), r.err.c_str());
        r = runCli({"compact", m_session, "--strategy", "trim-tools", "--param", "keepLastToolRounds"});
        QCOMPARE(r.code, 2);
        QCOMPARE(runCli({"compact", m_session}).code, 2);                  // no --strategy
        QCOMPARE(runCli({"compact", "--strategy", "trim-tools"}).code, 2); // no FILE
        QCOMPARE(runCli({"compact", path("missing.jsonl"), "--strategy", "trim-tools"}).code, 2);
        QCOMPARE(runCli({"compare", m_session, "--sort", "sideways"}).code, 2);
        r = runCli({"compare", m_session, "--only", "trim-tools,no-such-strategy"});
        QCOMPARE(r.code, 2);
        QVERIFY2(mentions(r, "no-such-strategy"), r.err.c_str());
        QCOMPARE(runCli({"compact", "--help"}).code, 0);
        QCOMPARE(runCli({"compare", "--help"}).code, 0);
    }

    void outputFile()
    {
        const std::string input = readFile(m_session);
        // Never the input, not even with another spelling of its path.
        const std::string sameFile = m_dir.path().toStdString() + "/./session.jsonl";
        Run r = runCli({"compact", m_session, "-s", "trim-tools", "-o", sameFile});
        QCOMPARE(r.code, 2);
        QVERIFY(mentions(r, "input"));
        QCOMPARE(readFile(m_session), input);

        const std::string out = path("out.jsonl");
        r = runCli({"compact", m_session, "-s", "trim-tools", "-p", "keepLastToolRounds=0", "-o", out, "--json"});
        QCOMPARE(r.code, 0);
        const json j = json::parse(r.out);
        const std::string written = readFile(out);
        QCOMPARE(j["output"]["bytes"].get<std::size_t>(), written.size());
        QCOMPARE(j["output"]["format"].get<std::string>(), std::string("claude-code"));
        // Claude Code: appended as a compaction, the original lines first.
        QVERIFY(written.size() > input.size() && written.compare(0, input.size(), input) == 0);
        QVERIFY(written.find("\"compact_boundary\"", input.size()) != std::string::npos);
        // Only the two files: the temporary file of the atomic write is gone.
        QCOMPARE(QDir(m_dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 2);

        // An existing OUT stays as it is without --force.
        writeFile(out, "keep me");
        r = runCli({"compact", m_session, "-s", "trim-tools", "-o", out});
        QCOMPARE(r.code, 2);
        QVERIFY(mentions(r, "--force"));
        QCOMPARE(readFile(out), std::string("keep me"));
        r = runCli({"compact", m_session, "-s", "trim-tools", "-o", out, "--force", "--no-compaction-style"});
        QCOMPARE(r.code, 0);
        const auto inPlace = loadBytes(readFile(out), out).transcript;
        QVERIFY(inPlace && inPlace->format == Format::ClaudeCode);
        QVERIFY(readFile(out).size() < input.size()); // rewritten in place: smaller, no appended copy

        // --to anthropic: a valid Messages API request.
        const std::string api = path("out.anthropic.json");
        r = runCli({"compact", m_session, "-s", "trim-tools", "-o", api, "--to", "anthropic"});
        QCOMPARE(r.code, 0);
        LoadOptions lo;
        lo.format = Format::Anthropic;
        const auto a = loadFile(api, lo).transcript;
        QVERIFY(a && a->format == Format::Anthropic);
        QVERIFY(a->messages.size() > 10);
        const auto v = validate(*a, Format::Anthropic);
        QVERIFY2(v.empty(), v.empty() ? "" : v.front().reason.c_str());
        QCOMPARE(runCli({"compact", m_session, "-s", "trim-tools", "-o", path("x.json"), "--to", "klingon"}).code, 2);
    }

    // A result with violations exits 1. Strategies never add violations (tst_strategies), so the
    // input carries one the result keeps: a tool result answering no call.
    void violationsExitOne()
    {
        std::string bytes = readFile(m_session);
        std::string lastUuid;
        {
            const auto t = loadBytes(bytes, "x.jsonl").transcript;
            for (std::size_t i = t->messages.size(); i-- > 0 && lastUuid.empty();)
                lastUuid = t->messages[i].sidechain ? std::string() : t->messages[i].id;
        }
        QVERIFY(!lastUuid.empty());
        // clang-format off
        json line = {{"parentUuid", lastUuid}, {"isSidechain", false}, {"type", "user"},
                     {"message", {{"role", "user"}, {"content", json::array({{{"type", "tool_result"},
                         {"tool_use_id", "toolu_answering_nothing"}, {"content", "late output"}}})}}},
                     {"uuid", "0e0e0e0e-0000-4000-8000-000000000001"}, {"timestamp", "2031-01-01T00:00:00.000Z"}};
        // clang-format on
        bytes += line.dump() + "\n";
        const std::string bad = path("orphan.jsonl");
        writeFile(bad, bytes);
        Run r = runCli({"compact", bad, "-s", "trim-tools", "--json"});
        QCOMPARE(r.code, 1);
        const json j = json::parse(r.out);
        QCOMPARE(j["valid"].get<bool>(), false);
        QVERIFY(!j["violations"].empty());
        QVERIFY(j["violations"][0]["reason"].get<std::string>().find("toolu_answering_nothing") != std::string::npos);
        r = runCli({"compact", bad, "-s", "trim-tools"});
        QCOMPARE(r.code, 1);
        QVERIFY(r.out.find("INVALID") != std::string::npos);
        QCOMPARE(runCli({"compare", bad, "--only", "trim-tools"}).code, 1);
    }

    void compareMatchesEngine()
    {
        const Run r = runCli({"compare", m_session, "--json"});
        QCOMPARE(r.code, 0);
        const json j = json::parse(r.out);
        QCOMPARE(j["format"].get<std::string>(), std::string("claude-code"));
        Input in(*m_t);
        const auto rows = compare(in);
        QCOMPARE(j["rows"].size(), all().size());
        QCOMPARE(rows.size(), all().size());
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const json &row = j["rows"][i];
            QCOMPARE(row["strategy"].get<std::string>(), std::string(all()[i]->name()));
            QCOMPARE(row["strategy"].get<std::string>(), rows[i].strategy);
            QCOMPARE(row["changed"].get<bool>(), rows[i].result.changed);
            QCOMPARE(row["note"].get<std::string>(), rows[i].result.note);
            QCOMPARE(row["valid"].get<bool>(), true);
            const QString bad = statsMismatch(row["stats"], rows[i].result);
            QVERIFY2(bad.isEmpty(), (rows[i].strategy + ": " + bad.toStdString()).c_str());
        }
    }

    void compareOnlyAndSort()
    {
        Run r = runCli({"compare", m_session, "--only", "snip,trim-tools", "--json"});
        QCOMPARE(r.code, 0);
        json j = json::parse(r.out);
        QCOMPARE(j["rows"].size(), std::size_t(2));
        // Exactly the listed ones (compare.h promises registry order, compare.cpp keeps the listed
        // order: only the set is checked here).
        const std::set<std::string> names{j["rows"][0]["strategy"].get<std::string>(), j["rows"][1]["strategy"].get<std::string>()};
        QVERIFY((names == std::set<std::string>{"snip", "trim-tools"}));
        for (const auto &row : j["rows"])
            QVERIFY(row["stats"]["tokensBefore"].get<std::int64_t>() > 0);

        r = runCli({"compare", m_session, "--sort", "reduction", "--json"});
        QCOMPARE(r.code, 0);
        j = json::parse(r.out);
        QCOMPARE(j["rows"].size(), all().size());
        double previous = 2;
        bool anyReduction = false;
        for (const auto &row : j["rows"]) {
            const double red = row["stats"]["liveReduction"].get<double>(); // of the live context
            QVERIFY2(red <= previous, row["strategy"].get<std::string>().c_str());
            previous = red;
            anyReduction = anyReduction || red > 0;
        }
        QVERIFY(anyReduction);
        r = runCli({"compare", m_session, "--sort", "tokens", "--json"});
        j = json::parse(r.out);
        for (std::size_t i = 1; i < j["rows"].size(); ++i)
            QVERIFY(j["rows"][i - 1]["stats"]["liveAfter"].get<std::int64_t>() <= j["rows"][i]["stats"]["liveAfter"].get<std::int64_t>());

        // Text: the header, then one line per strategy, starting with its name.
        r = runCli({"compare", m_session});
        QCOMPARE(r.code, 0);
        std::vector<std::string> lines;
        std::istringstream ss(r.out);
        for (std::string l; std::getline(ss, l);)
            if (!l.empty())
                lines.push_back(l);
        QCOMPARE(lines.size(), all().size() + 1);
        QVERIFY(lines[0].rfind("strategy", 0) == 0);
        for (const char *h : {"live", "after", "reduct.", "conv.", "effic.", "facts", "cache", "valid", "note"})
            QVERIFY2(lines[0].find(h) != std::string::npos, h);
        for (std::size_t i = 0; i < all().size(); ++i)
            QVERIFY2(lines[i + 1].rfind(std::string(all()[i]->name()) + " ", 0) == 0, lines[i + 1].c_str());
    }

    // --exempt, --pin and --window reach the engine: the same numbers as an Input set up by hand.
    void commonOptions()
    {
        Input in(*m_t);
        in.exemptTools = {"Read", "Bash"};
        in.pinned = {0, 3};
        in.options.contextWindow = 50000;
        const json params{{"keepLastToolRounds", 0}};
        const Result want = run(*find("trim-tools"), in, params);
        const Result plain = run(*find("trim-tools"), Input(*m_t), params);
        QVERIFY(want.stats.tokensAfter > plain.stats.tokensAfter); // the exemption keeps something
        Run r = runCli({"compact", m_session, "-s", "trim-tools", "-p", "keepLastToolRounds=0", "--exempt", "Read,,Bash,",
                        "--pin", "0,3", "--window", "50000", "--json"});
        QCOMPARE(r.code, 0);
        QString bad = statsMismatch(json::parse(r.out)["stats"], want);
        QVERIFY2(bad.isEmpty(), qPrintable(bad));
        r = runCli({"compare", m_session, "--only", "trim-tools", "--exempt", "Read,Bash", "--pin", "0,3", "--window", "50000",
                    "--json"});
        QCOMPARE(r.code, 0);
        const Result defaults = run(*find("trim-tools"), in);
        bad = statsMismatch(json::parse(r.out)["rows"][0]["stats"], defaults);
        QVERIFY2(bad.isEmpty(), qPrintable(bad));
        // A pin that is not an index is an error, not message 0.
        r = runCli({"compact", m_session, "-s", "trim-tools", "--pin", "first"});
        QCOMPARE(r.code, 2);
        QVERIFY(mentions(r, "first"));
    }
};

QTEST_GUILESS_MAIN(TestStrategyCli)
#include "tst_strategycli.moc"
