// SPDX-License-Identifier: MIT
// `contextlens-cli sessions` on the fake home of tests/sessions_fixture.h: the text (grouped by
// project, one line per session) and the JSON, filters, orders and bad usage; and the scan cache it
// uses (a warm scan reads nothing, a touched or appended file is the only one read, removed files
// leave it, a cache of another version or a broken one means reading everything), its default place.
#include "core/sessions/sessions.h"

#include "sessions_fixture.h"
#include "test_support.h"

#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

using namespace cl;
using namespace cl::test::sessions;
using nlohmann::json;
namespace fx = cl::test::sessions;

namespace {

std::string usageText(const sessions::Session &s)
{
    std::string out;
    for (const auto &u : s.usage)
        out += u.model + ":" + std::to_string(u.responses) + ":" + std::to_string(u.tokens.input) + "," + std::to_string(u.tokens.cacheWrite5m)
               + "," + std::to_string(u.tokens.cacheWrite1h) + "," + std::to_string(u.tokens.cacheRead) + "," + std::to_string(u.tokens.output) + ";";
    return out;
}

// Every field, to compare two scans.
std::string describe(const sessions::Session &s)
{
    return s.path + "|" + std::string(formatName(s.format)) + "|" + std::string(sessions::agentName(s.agent)) + "|" + std::to_string(s.checkpoint) + "|"
           + s.sessionId + "|" + s.project + "|" + s.title + "|" + s.firstRequest + "|" + std::to_string(s.startMs) + "|" + std::to_string(s.lastMs) + "|"
           + std::to_string(s.bytes) + "|" + std::to_string(s.subagentFiles) + "|" + std::to_string(s.subagentBytes) + "|" + std::to_string(s.messages) + "|"
           + std::to_string(s.peakContext) + "|" + std::to_string(s.compactions) + "|" + s.model + "|" + usageText(s) + "|"
           + std::to_string(s.cost) + "|" + std::to_string(s.unpricedTokens);
}

std::vector<std::string> describeAll(const sessions::ScanResult &r)
{
    std::vector<std::string> out;
    for (const auto &s : r.sessions)
        out.push_back(describe(s));
    return out;
}

std::vector<std::string> paths(const json &list)
{
    std::vector<std::string> out;
    for (const auto &s : list)
        out.push_back(s["path"].get<std::string>());
    return out;
}

// "12.3 KiB" as the CLI prints sizes.
std::string kib(std::uint64_t bytes)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f KiB", double(bytes) / 1024.0);
    return buf;
}

} // namespace

class TestSessionsCli : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::string m_home, m_extra, m_prices;

    std::string fresh(const char *name)
    {
        const std::string dir = m_dir.filePath(QString::fromUtf8(name)).toStdString();
        fx::writeHome(dir);
        return dir;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_home = m_dir.filePath(QStringLiteral("home")).toStdString();
        m_extra = m_dir.filePath(QStringLiteral("extra")).toStdString();
        fx::writeHome(m_home);
        fx::writeExtraFolder(m_extra);
        m_prices = m_dir.filePath(QStringLiteral("prices.json")).toStdString();
        fx::writeBytes(m_prices, fx::kPrices);
    }

    void cliText()
    {
        const auto r = test::runCli({"sessions", "--home", m_home, "--no-cache", "--agent", "codex", "--prices", m_prices});
        QCOMPARE(r.code, 0);
        QCOMPARE(r.err, std::string());
        const std::string size = kib(sizeOf(fx::codexRollout(m_home)));
        // Columns: times (36), agent (12), messages (5) " msgs  ", peak (12), compactions (15), size (12) " ",
        // cost (10; $0.0109 by hand in tst_sessions).
        const std::string expected = "/work/shop  (1 session)\n"
                                     "  2025-06-02 10:00 → 10:21"
                                     + std::string(12, ' ') + "codex" + std::string(7, ' ') + "    7 msgs  peak 15.5k  1 compaction   " + size
                                     + std::string(12 - size.size(), ' ') + " $0.0109   gpt-5  \"Add a retry to the payment client\"  "
                                     + fx::codexRollout(m_home) + "\n\n1 session in 1 project; 9 files found, 9 read, 0 from the cache\n";
        QCOMPARE(r.out, expected);

        // Everything, newest activity first, grouped by project in the order of their newest session.
        const auto all = test::runCli({"sessions", "--home", m_home, "--folder", m_extra, "--no-cache"});
        QCOMPARE(all.code, 0);
        std::vector<std::string> headers;
        std::size_t lines = 0;
        for (std::size_t pos = 0; pos < all.out.size();) {
            const std::size_t nl = all.out.find('\n', pos);
            const std::string line = all.out.substr(pos, nl - pos);
            pos = nl + 1;
            if (line.rfind("  ", 0) == 0)
                ++lines;
            else if (!line.empty() && line.find(" in ") == std::string::npos)
                headers.push_back(line);
        }
        QCOMPARE(lines, std::size_t(10));
        // Newest activity per project: /work/shop (s-claude-3, 06-07), /work/blog (the Gemini CLI session,
        // 06-06), the chat's folder (its file time, 06-04), the hash-named Gemini CLI folder (05-30).
        const std::vector<std::string> expectedHeaders{"/work/shop  (5 sessions)", "/work/blog  (3 sessions)",
                                                       m_extra + "/api  (1 session)", std::string(fx::kGeminiHash) + "  (1 session)"};
        QCOMPARE(list(headers), list(expectedHeaders));
        QVERIFY(all.out.find("[checkpoint] \"Refactor the cart totals\"") != std::string::npos);
        QVERIFY(all.out.find("7 msgs  peak 12.2k  1 compaction   ") != std::string::npos);
        QVERIFY(all.out.find(" +2 subagents ") != std::string::npos);
        QVERIFY(all.out.find(" -         gpt-4o  \"Summarise this log\"") != std::string::npos); // no usage recorded
        QVERIFY(all.out.find("10 sessions in 4 projects; 12 files found, 12 read, 0 from the cache\n") != std::string::npos);
    }

    void cliJsonFiltersAndSort()
    {
        auto runJson = [&](std::vector<std::string> extra) {
            std::vector<std::string> args{"sessions", "--home", m_home, "--folder", m_extra, "--no-cache", "--json", "--prices", m_prices};
            args.insert(args.end(), extra.begin(), extra.end());
            const auto r = test::runCli(args);
            if (r.code != 0)
                qFatal("sessions failed: %s", r.err.c_str());
            return json::parse(r.out);
        };
        const json all = runJson({});
        QCOMPARE(all["sessions"].size(), std::size_t(10));
        QCOMPARE(all["scan"]["read"].get<int>(), 12);
        QVERIFY(all["cache"].is_null());
        json shop;
        for (const auto &s : all["sessions"])
            if (s["path"] == fx::claudeShop(m_home))
                shop = s;
        QCOMPARE(shop["agent"].get<std::string>(), std::string("claude-code"));
        QCOMPARE(shop["format"].get<std::string>(), std::string("claude-code"));
        QCOMPARE(shop["messages"].get<int>(), 7);
        QCOMPARE(shop["peakContext"].get<int>(), 12208);
        QCOMPARE(shop["compactions"].get<int>(), 1);
        QCOMPARE(shop["title"].get<std::string>(), std::string("Checkout fix"));
        QCOMPARE(shop["firstRequest"].get<std::string>(), std::string("Fix the failing checkout test"));
        QCOMPARE(shop["start"].get<std::string>(), std::string("2025-06-01T09:00:00.000Z"));
        QCOMPARE(shop["last"].get<std::string>(), std::string("2025-06-01T09:02:01.500Z"));
        QCOMPARE(shop["subagentFiles"].get<int>(), 2);
        QCOMPARE(shop["project"].get<std::string>(), std::string("/work/shop"));
        QCOMPARE(shop["checkpoint"].get<bool>(), false);
        QVERIFY(std::fabs(shop["cost"].get<double>() - 0.0643885) < 1e-6); // by hand in tst_sessions, rounded to 1e-6
        QVERIFY(shop["costComplete"].get<bool>());
        QCOMPARE(shop["usage"].size(), std::size_t(3));
        QCOMPARE(shop["usage"][1]["model"].get<std::string>(), std::string("claude-opus-4-1"));
        // Each subagent file's share: agent-a1 records no usage, agent-a2 one haiku response.
        QCOMPARE(shop["subagents"].size(), std::size_t(2));
        const auto &a1 = shop["subagents"][0]["name"] == "agent-a1" ? shop["subagents"][0] : shop["subagents"][1];
        const auto &a2 = shop["subagents"][0]["name"] == "agent-a2" ? shop["subagents"][0] : shop["subagents"][1];
        QCOMPARE(a1["name"].get<std::string>(), std::string("agent-a1"));
        QVERIFY(a1["cost"].is_null() && a1["usage"].empty());
        QCOMPARE(a2["name"].get<std::string>(), std::string("agent-a2"));
        QVERIFY(std::fabs(a2["cost"].get<double>() - 0.0001) < 1e-9);
        QCOMPARE(a2["usage"][0]["model"].get<std::string>(), std::string("claude-haiku-4-5"));
        QCOMPARE(a2["description"].get<std::string>(), std::string("Run the tests"));
        QCOMPARE(a2["startedBy"].get<std::string>(), std::string("agent-a1"));
        QVERIFY(a1["startedBy"].is_null());
        QCOMPARE(shop["usage"][1]["tokens"]["cacheRead"].get<int>(), 10203);

        // Largest peak first; sessions without usage data last, by path.
        const std::vector<std::string> byPeak{
            fx::codexRollout(m_home), fx::claudeShop(m_home), fx::geminiShopSession(m_home), fx::geminiLegacy(m_home), fx::geminiBlog(m_home),
            m_home + "/.claude/projects/-work-blog/s-claude-2.jsonl", fx::extraChat(m_extra), fx::extraClaude(m_extra),
            m_home + "/.claude/projects/-work-blog/agent-orphan.jsonl", fx::geminiCheckpoint(m_home)};
        QCOMPARE(list(paths(runJson({"--sort", "peak"})["sessions"])), list(byPeak));
        // Most messages first: 7, 7 (by path), 6, 5, 3, then the rest.
        const auto byMessages = paths(runJson({"--sort", "messages"})["sessions"]);
        const std::vector<std::string> firstFive{fx::claudeShop(m_home), fx::codexRollout(m_home), fx::geminiShopSession(m_home),
                                                 fx::geminiCheckpoint(m_home), fx::extraChat(m_extra)};
        QCOMPARE(list(std::vector<std::string>(byMessages.begin(), byMessages.begin() + 5)), list(firstFive));
        // Earliest start last; the checkpoint and the chat have none and come after it.
        const auto byStart = paths(runJson({"--sort", "start"})["sessions"]);
        QCOMPARE(byStart.front(), fx::extraClaude(m_extra));
        QCOMPARE(byStart[7], fx::geminiLegacy(m_home));
        const auto bySize = runJson({"--sort", "size"})["sessions"];
        for (std::size_t i = 1; i < bySize.size(); ++i)
            QVERIFY(bySize[i - 1]["bytes"].get<std::uint64_t>() + bySize[i - 1]["subagentBytes"].get<std::uint64_t>()
                    >= bySize[i]["bytes"].get<std::uint64_t>() + bySize[i]["subagentBytes"].get<std::uint64_t>());

        // Most expensive first; sessions without usage last, by path.
        const std::vector<std::string> byCost{
            fx::claudeShop(m_home), fx::geminiShopSession(m_home), fx::codexRollout(m_home), fx::geminiLegacy(m_home), fx::geminiBlog(m_home),
            m_home + "/.claude/projects/-work-blog/s-claude-2.jsonl", fx::extraChat(m_extra), fx::extraClaude(m_extra),
            m_home + "/.claude/projects/-work-blog/agent-orphan.jsonl", fx::geminiCheckpoint(m_home)};
        const json cost = runJson({"--sort", "cost"})["sessions"];
        QCOMPARE(list(paths(cost)), list(byCost));
        QVERIFY(cost[9]["cost"].is_null());

        const json gemini = runJson({"--agent", "gemini"});
        QCOMPARE(gemini["sessions"].size(), std::size_t(4));
        for (const auto &s : gemini["sessions"])
            QCOMPARE(s["agent"].get<std::string>(), std::string("gemini"));
        const json shopOnly = runJson({"--project", "SHOP"});
        QCOMPARE(shopOnly["sessions"].size(), std::size_t(5));
        QCOMPARE(shopOnly["projects"].size(), std::size_t(1));
        QCOMPARE(runJson({"--project", "shop", "--agent", "claude-code"})["sessions"].size(), std::size_t(2));
        const json checkpoint = runJson({"--agent", "gemini", "--sort", "messages"})["sessions"][1];
        QCOMPARE(checkpoint["checkpoint"].get<bool>(), true);
        QVERIFY(checkpoint["start"].is_null());
        QVERIFY(checkpoint["peakContext"].is_null());
    }

    void cliUsage()
    {
        QCOMPARE(test::runCli({"sessions", "--agent", "cursor", "--no-cache"}).code, 2);
        QCOMPARE(test::runCli({"sessions", "--sort", "name", "--no-cache"}).code, 2);
        QCOMPARE(test::runCli({"sessions", "--cache", "x.json", "--no-cache"}).code, 2);
        QCOMPARE(test::runCli({"sessions", "somefile.jsonl"}).code, 2);
        QCOMPARE(test::runCli({"sessions", "--folder"}).code, 2);
        QCOMPARE(test::runCli({"sessions", "--no-cache", "--prices", m_dir.filePath(QStringLiteral("none.json")).toStdString()}).code, 2);
        const auto missing = test::runCli({"sessions", "--home", m_home, "--folder", m_dir.filePath(QStringLiteral("nowhere")).toStdString(), "--no-cache"});
        QCOMPARE(missing.code, 0);
        QVERIFY(missing.err.find("nowhere: not a folder") != std::string::npos);
        const auto help = test::runCli({"sessions", "--help"});
        QCOMPARE(help.code, 0);
        QVERIFY(help.out.find("Usage: contextlens-cli sessions") == 0);
        QVERIFY(test::runCli({"help", "--json"}).out.find("\"sessions\"") != std::string::npos);
    }

    // A warm scan reads nothing; a touched or appended file is the only one read; a removed one
    // leaves the cache; a cache of another version or a broken one means reading everything.
    void cache()
    {
        const std::string home = fresh("cachehome");
        const std::string cachePath = m_dir.filePath(QStringLiteral("cache/sessions.json")).toStdString();
        sessions::ScanOptions options;
        options.home = home;
        options.cachePath = cachePath;
        const auto cold = sessions::scan(options);
        QCOMPARE(cold.stats.files, std::size_t(9));
        QCOMPARE(cold.stats.parsed, std::size_t(9));
        QVERIFY(QFileInfo::exists(QString::fromStdString(cachePath)));

        const auto warm = sessions::scan(options);
        QCOMPARE(warm.stats.parsed, std::size_t(0));
        QCOMPARE(warm.stats.fromCache, std::size_t(9));
        QCOMPARE(list(describeAll(warm)), list(describeAll(cold)));
        QVERIFY(warm.warnings.empty());

        fx::setMtime(fx::codexRollout(home), fx::kFixedMtime); // touched: same bytes, another time
        const auto touched = sessions::scan(options);
        QCOMPARE(list(touched.stats.parsedPaths), QStringList{QString::fromStdString(fx::codexRollout(home))});
        QCOMPARE(touched.stats.fromCache, std::size_t(8));
        QCOMPARE(find(touched.sessions, fx::codexRollout(home))->messages, std::size_t(7));

        // A subagent file that grew: its session is read again (the cost counts it).
        std::ofstream(home + "/.claude/projects/-work-shop/s-claude-1/subagents/agent-a1.jsonl", std::ios::app)
            << R"({"type":"assistant","isSidechain":true,"agentId":"a1","sessionId":"s-claude-1","message":{"id":"msg_a1","role":"assistant","model":"claude-haiku-4-5","content":[],"usage":{"input_tokens":1000,"output_tokens":1}},"uuid":"x2","timestamp":"2025-06-01T09:00:21.000Z"})"
            << '\n';
        const double before = find(touched.sessions, fx::claudeShop(home))->cost;
        const auto subagent = sessions::scan(options);
        QCOMPARE(list(subagent.stats.parsedPaths), QStringList{QString::fromStdString(fx::claudeShop(home))});
        QCOMPARE(find(subagent.sessions, fx::claudeShop(home))->usage.back().responses, std::size_t(2));
        QVERIFY(find(subagent.sessions, fx::claudeShop(home))->cost > before);

        std::ofstream(fx::geminiShopSession(home), std::ios::app)
            << R"({"id":"g8","timestamp":"2025-06-03T08:06:00.000Z","type":"user","content":[{"text":"Thanks"}]})" << '\n';
        const auto appended = sessions::scan(options);
        QCOMPARE(list(appended.stats.parsedPaths), QStringList{QString::fromStdString(fx::geminiShopSession(home))});
        const auto *grown = find(appended.sessions, fx::geminiShopSession(home));
        QCOMPARE(grown->messages, std::size_t(7));
        QCOMPARE(grown->lastMs, ms("2025-06-03T08:06:00.000Z"));
        QCOMPARE(sessions::scan(options).stats.parsed, std::size_t(0));

        std::filesystem::remove(fx::geminiLegacy(home));
        const auto removed = sessions::scan(options);
        QCOMPARE(removed.stats.parsed, std::size_t(0));
        QCOMPARE(removed.sessions.size(), cold.sessions.size() - 1);
        QVERIFY(test::readFile(cachePath).find("11112222") == std::string::npos);

        // Entries of files another scan found stay while those files exist.
        sessions::ScanOptions other;
        other.folders = {m_extra};
        other.cachePath = cachePath;
        QCOMPARE(sessions::scan(other).stats.parsed, std::size_t(3));
        QCOMPARE(sessions::scan(options).stats.parsed, std::size_t(0));
        QCOMPARE(sessions::scan(other).stats.parsed, std::size_t(0));

        json doc = json::parse(test::readFile(cachePath));
        doc["version"] = 999;
        test::writeFile(cachePath, doc.dump());
        QCOMPARE(sessions::scan(options).stats.parsed, std::size_t(8));

        test::writeFile(cachePath, "{ not json");
        const auto broken = sessions::scan(options);
        QCOMPARE(broken.stats.parsed, std::size_t(8));
        QCOMPARE(broken.warnings.size(), std::size_t(1));
        QCOMPARE(sessions::scan(options).stats.parsed, std::size_t(0)); // rewritten

        // The CLI reports the same through its cache option.
        const auto viaCli = json::parse(test::runCli({"sessions", "--home", home, "--cache", cachePath, "--json"}).out);
        QCOMPARE(viaCli["scan"]["read"].get<int>(), 0);
        QCOMPARE(viaCli["scan"]["fromCache"].get<int>(), 8);
        QCOMPARE(viaCli["cache"].get<std::string>(), cachePath);
    }

    void defaultCache()
    {
        // tests/test_environment.cpp gives the process a HOME of its own and unsets XDG_CACHE_HOME.
        const std::string home = qEnvironmentVariable("HOME").toStdString();
        QCOMPARE(sessions::defaultCachePath(), home + "/.cache/contextlens/sessions.json");
        QCOMPARE(test::runCli({"sessions", "--home", m_home}).code, 0);
        QVERIFY(QFileInfo::exists(QString::fromStdString(home + "/.cache/contextlens/sessions.json")));
        const std::string xdg = m_dir.filePath(QStringLiteral("xdg")).toStdString();
        qputenv("XDG_CACHE_HOME", QByteArray::fromStdString(xdg));
        QCOMPARE(sessions::defaultCachePath(), xdg + "/contextlens/sessions.json");
        const auto r = json::parse(test::runCli({"sessions", "--home", m_home, "--json"}).out);
        qunsetenv("XDG_CACHE_HOME");
        QCOMPARE(r["cache"].get<std::string>(), xdg + "/contextlens/sessions.json");
        QVERIFY(QFileInfo::exists(QString::fromStdString(xdg + "/contextlens/sessions.json")));
    }
};

QTEST_GUILESS_MAIN(TestSessionsCli)
#include "tst_sessionscli.moc"
