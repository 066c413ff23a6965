// SPDX-License-Identifier: MIT
// The session browser's engine (core/sessions/): a fake home with the Claude Code, Codex and Gemini
// CLI layouts and an added folder (tests/sessions_fixture.h), every figure computed by hand from the
// records; unreadable lines; the title rules; the real samples against the loader.
// `contextlens-cli sessions` and the scan cache: tst_sessionscli.cpp.
#include "core/cost/sessioncost.h"
#include "core/io/loader.h"
#include "core/sessions/internal.h"
#include "core/sessions/sessions.h"

#include "sessions_fixture.h"
#include "test_support.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace cl;
using namespace cl::test::sessions;
namespace fx = cl::test::sessions;

class TestSessions : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::string m_home, m_extra;
    sessions::ScanResult m_scan; // the home and the added folder, no cache

    const sessions::Session &session(const std::string &path)
    {
        const sessions::Session *s = find(m_scan.sessions, path);
        if (!s)
            qFatal("session %s not listed", path.c_str());
        return *s;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_home = m_dir.filePath(QStringLiteral("home")).toStdString();
        m_extra = m_dir.filePath(QStringLiteral("extra")).toStdString();
        fx::writeHome(m_home);
        fx::writeExtraFolder(m_extra);
        sessions::ScanOptions options;
        options.home = m_home;
        options.folders = {m_extra};
        m_scan = sessions::scan(options);
        QVERIFY2(m_scan.warnings.empty(), m_scan.warnings.empty() ? "" : m_scan.warnings.front().c_str());
    }

    // Each session once, subagent files never, the settings file not at all.
    void everySessionListedOnce()
    {
        std::vector<std::string> listed;
        for (const auto &s : m_scan.sessions)
            listed.push_back(s.path);
        const std::vector<std::string> expected{
            fx::extraChat(m_extra),
            fx::extraClaude(m_extra),
            m_home + "/.claude/projects/-work-blog/agent-orphan.jsonl",
            m_home + "/.claude/projects/-work-blog/s-claude-2.jsonl",
            fx::claudeShop(m_home),
            fx::codexRollout(m_home),
            fx::geminiLegacy(m_home),
            fx::geminiBlog(m_home),
            fx::geminiShopSession(m_home),
            fx::geminiCheckpoint(m_home),
        };
        QCOMPARE(list(listed), list(expected));
        // Candidates: 4 Claude Code files of the home (2 sessions, 2 agent files beside them), 1 rollout,
        // 4 Gemini CLI files, and 3 files of the added folder (its subagent file is not one).
        QCOMPARE(m_scan.stats.files, std::size_t(12));
        QCOMPARE(m_scan.stats.parsed, std::size_t(12));
        QCOMPARE(m_scan.stats.fromCache, std::size_t(0));
    }

    void claudeCodeSessions()
    {
        const auto &s = session(fx::claudeShop(m_home));
        QCOMPARE(s.format, Format::ClaudeCode);
        QCOMPARE(s.agent, sessions::Agent::ClaudeCode);
        QCOMPARE(s.sessionId, std::string("s-claude-1"));
        QCOMPARE(s.project, std::string("/work/shop"));
        // 4 user lines (meta, request, tool result, compaction summary) + 3 responses (msg_A on two lines).
        QCOMPARE(s.messages, std::size_t(7));
        // msg_B's 5 + 2000 + 10203; msg_A counts its last line (10203), not its first (14003).
        QCOMPARE(s.peakContext, std::int64_t(12208));
        QCOMPARE(s.compactions, std::size_t(1));
        QCOMPARE(s.model, std::string("claude-opus-4-1")); // the <synthetic> response after it is not a model
        QCOMPARE(s.title, std::string("Checkout fix"));    // the user's name beats the AI title
        QCOMPARE(s.firstRequest, std::string("Fix the failing checkout test"));
        QCOMPARE(s.startMs, ms("2025-06-01T09:00:00.000Z"));
        QCOMPARE(s.lastMs, ms("2025-06-01T09:02:01.500Z"));
        QCOMPARE(s.bytes, sizeOf(fx::claudeShop(m_home)));
        const std::string sub = m_home + "/.claude/projects/-work-shop/s-claude-1/subagents/";
        QCOMPARE(s.subagentFiles, std::uint64_t(2)); // agent-a1.meta.json is not a transcript
        QCOMPARE(s.subagentBytes, sizeOf(sub + "agent-a1.jsonl") + sizeOf(sub + "agent-a2.jsonl"));
        QVERIFY(!s.checkpoint);

        const auto &blog = session(m_home + "/.claude/projects/-work-blog/s-claude-2.jsonl");
        QCOMPARE(blog.firstRequest, std::string("/review PR 12")); // the slash command, not its wrapper
        QCOMPARE(blog.title, blog.firstRequest);
        QCOMPARE(blog.messages, std::size_t(2));
        QCOMPARE(blog.peakContext, std::int64_t(100));
        QCOMPARE(blog.model, std::string("claude-haiku-4-5"));
        // The older layout: agent-old1.jsonl beside it carries its sessionId.
        QCOMPARE(blog.subagentFiles, std::uint64_t(1));
        QCOMPARE(blog.subagentBytes, sizeOf(m_home + "/.claude/projects/-work-blog/agent-old1.jsonl"));

        const auto &orphan = session(m_home + "/.claude/projects/-work-blog/agent-orphan.jsonl");
        QCOMPARE(orphan.sessionId, std::string("gone"));
        QCOMPARE(orphan.firstRequest, std::string("Search the docs"));
        QCOMPARE(orphan.messages, std::size_t(1));
        QCOMPARE(orphan.peakContext, std::int64_t(0));
    }

    void codexSession()
    {
        const auto &s = session(fx::codexRollout(m_home));
        QCOMPARE(s.format, Format::Codex);
        QCOMPARE(s.agent, sessions::Agent::Codex);
        QCOMPARE(s.sessionId, std::string("0197aaaa-0000-7000-8000-000000000001"));
        QCOMPARE(s.project, std::string("/work/shop"));
        QCOMPARE(s.messages, std::size_t(7));         // response items, the injected context included
        QCOMPARE(s.peakContext, std::int64_t(15500)); // last_token_usage, never the running total
        QCOMPARE(s.compactions, std::size_t(1));      // `compacted`, not its context_compacted event too
        QCOMPARE(s.model, std::string("gpt-5"));      // the last turn_context
        QCOMPARE(s.firstRequest, std::string("Add a retry to the payment client"));
        QCOMPARE(s.title, s.firstRequest);
        QCOMPARE(s.startMs, ms("2025-06-02T10:00:00.000Z"));
        QCOMPARE(s.lastMs, ms("2025-06-02T10:21:05.000Z"));
        QCOMPARE(s.subagentFiles, std::uint64_t(0));
    }

    void geminiSessions()
    {
        const auto &s = session(fx::geminiShopSession(m_home));
        QCOMPARE(s.format, Format::GeminiCli);
        QCOMPARE(s.agent, sessions::Agent::Gemini);
        QCOMPARE(s.project, std::string("/work/shop")); // its folder's .project_root
        // g1 g2 (g3 g4 rewound) g5 g6 (written twice, once) c1 c2 (the compression's); g7 is an info line.
        QCOMPARE(s.messages, std::size_t(6));
        QCOMPARE(s.peakContext, std::int64_t(9500));
        QCOMPARE(s.compactions, std::size_t(1));
        QCOMPARE(s.model, std::string("gemini-2.5-flash")); // g6's later copy
        QCOMPARE(s.title, std::string("Cart module walkthrough"));
        QCOMPARE(s.firstRequest, std::string("Explain the cart module"));
        QCOMPARE(s.startMs, ms("2025-06-03T08:00:00.000Z"));
        QCOMPARE(s.lastMs, ms("2025-06-03T08:05:10.000Z"));
        QVERIFY(!s.checkpoint);

        const auto &cp = session(fx::geminiCheckpoint(m_home));
        QVERIFY(cp.checkpoint);
        QCOMPARE(cp.project, std::string("/work/shop"));
        QCOMPARE(cp.messages, std::size_t(5));
        QCOMPARE(cp.firstRequest, std::string("Refactor the cart totals")); // not Gemini CLI's setup context
        QCOMPARE(cp.startMs, kNoTime);
        QCOMPARE(cp.lastMs, fx::kFixedMtime * 1000); // no timestamps inside: the file's time
        QCOMPARE(cp.peakContext, std::int64_t(0));

        const auto &legacy = session(fx::geminiLegacy(m_home));
        QVERIFY(!legacy.checkpoint);
        QCOMPARE(legacy.project, std::string(fx::kGeminiHash)); // no .project_root, not in projects.json
        QCOMPARE(legacy.messages, std::size_t(2));
        QCOMPARE(legacy.peakContext, std::int64_t(5000)); // (5000 - 4000) + 4000
        QCOMPARE(legacy.model, std::string("gemini-2.5-pro"));
        QCOMPARE(legacy.firstRequest, std::string("Why is the build slow?"));
        QCOMPARE(legacy.startMs, ms("2025-05-30T07:00:00.000Z"));
        QCOMPARE(legacy.lastMs, ms("2025-05-30T07:03:00.000Z"));

        const auto &blog = session(fx::geminiBlog(m_home));
        QCOMPARE(blog.project, std::string("/work/blog")); // ~/.gemini/projects.json
        QCOMPARE(blog.messages, std::size_t(2));
        QCOMPARE(blog.peakContext, std::int64_t(700));
    }

    void addedFolder()
    {
        const auto &chat = session(fx::extraChat(m_extra));
        QCOMPARE(chat.format, Format::OpenAIChat); // recognised by the format detection, read by the loader
        QCOMPARE(chat.agent, sessions::Agent::Api);
        QCOMPARE(chat.messages, std::size_t(3));
        QCOMPARE(chat.model, std::string("gpt-4o"));
        QCOMPARE(chat.firstRequest, std::string("Summarise this log"));
        QCOMPARE(chat.project, m_extra + "/api"); // no working directory recorded: its folder
        QCOMPARE(chat.lastMs, fx::kFixedMtime * 1000);

        const auto &copied = session(fx::extraClaude(m_extra));
        QCOMPARE(copied.format, Format::ClaudeCode);
        QCOMPARE(copied.project, std::string("/work/shop"));
        QCOMPARE(copied.subagentFiles, std::uint64_t(1));
        QCOMPARE(copied.messages, std::size_t(1));
    }

    // Each session's cost from its measured usage, priced with sessions_fixture.h's kPrices (in
    // millionths of a dollar):
    //   s-claude-1: msg_A's last line (sonnet) 3 x 3 + 1200 x 3.75 + 9000 x 0.3 + 80 x 15 = 8409;
    //     msg_B (opus) 5 x 15 + 2000 x 18.75 + 10203 x 1.5 + 40 x 75 = 55879.5; msg_sub of its
    //     subagent file (haiku) 50 + 10 x 5 = 100; the synthetic msg_C nothing: 64388.5
    //   s-claude-2: msg_D (haiku) 100 + 9 x 5 = 145; msg_old of agent-old1.jsonl beside it 20 + 4 x 5
    //     = 40: 185
    //   Codex (gpt-5-codex; each response's last token_count): the call (4000 + 8000 x 0.1 + 300 x 10
    //     = 7800); the answer, whose report the one after the compaction replaced (3000 + 10 x 10 =
    //     3100): 10900
    //   Gemini shop: g2 (pro) 9000 + 200 x 10 = 11000; g4 rewound; g6's later copy (flash) 9400 x 0.5
    //     + 32 x 2 = 4764: 15764. Legacy: m2 (pro) 1000 + 4000 x 0.25 + 20 x 10 = 2200. Blog: h2
    //     (flash) 350 + 180 = 530.
    //   No usage at all: the checkpoint, the chat, the copied session, the orphan agent file.
    void costFromMeasuredUsage()
    {
        llm::PriceTable prices;
        std::string error;
        QVERIFY2(prices.merge(fx::kPrices, &error, "test"), error.c_str());
        sessions::ScanOptions options;
        options.home = m_home;
        options.folders = {m_extra};
        options.prices = &prices;
        const auto r = sessions::scan(options);
        auto micro = [&](const std::string &path) {
            const sessions::Session *s = find(r.sessions, path);
            if (!s)
                qFatal("session %s not listed", path.c_str());
            return s->costComplete() ? s->cost * 1e6 : -1.0; // every model here has a price
        };
        auto near = [](double a, double b) { return std::fabs(a - b) < 1e-6; };
        QVERIFY(near(micro(fx::claudeShop(m_home)), 64388.5));
        QVERIFY(near(micro(m_home + "/.claude/projects/-work-blog/s-claude-2.jsonl"), 185));
        QVERIFY(near(micro(fx::codexRollout(m_home)), 10900));
        QVERIFY(near(micro(fx::geminiShopSession(m_home)), 15764));
        QVERIFY(near(micro(fx::geminiLegacy(m_home)), 2200));
        QVERIFY(near(micro(fx::geminiBlog(m_home)), 530));
        for (const std::string &path : {fx::geminiCheckpoint(m_home), fx::extraChat(m_extra), fx::extraClaude(m_extra),
                                        m_home + "/.claude/projects/-work-blog/agent-orphan.jsonl"}) {
            const sessions::Session *s = find(r.sessions, path);
            QVERIFY(s && !s->hasCost() && s->cost == 0);
        }
        // By model, in order of first response; responses counted once.
        const sessions::Session &shop = *find(r.sessions, fx::claudeShop(m_home));
        QCOMPARE(shop.usage.size(), std::size_t(3));
        QCOMPARE(shop.usage[0].model, std::string("claude-sonnet-4-5"));
        QCOMPARE(shop.usage[0].responses, std::size_t(1));
        QCOMPARE(shop.usage[0].tokens.cacheWrite5m, std::int64_t(1200));
        QCOMPARE(shop.usage[2].model, std::string("claude-haiku-4-5"));
        // The split per subagent file: agent-a1 no usage, agent-a2 its haiku response (100); the
        // older agent file beside s-claude-2 its 40.
        QCOMPARE(shop.subagents.size(), std::size_t(2));
        for (const sessions::SubagentUsage &sub : shop.subagents) {
            QVERIFY(sub.name == "agent-a1" || sub.name == "agent-a2");
            QCOMPARE(sub.usage.empty(), sub.name == "agent-a1");
            QVERIFY(near(sub.cost * 1e6, sub.name == "agent-a2" ? 100 : 0));
            // Its meta file: the call's description and the agent that started it (a1's has neither).
            QCOMPARE(sub.description, std::string(sub.name == "agent-a2" ? "Run the tests" : ""));
            QCOMPARE(sub.startedBy, std::string(sub.name == "agent-a2" ? "agent-a1" : ""));
        }
        const sessions::Session &blogSession = *find(r.sessions, m_home + "/.claude/projects/-work-blog/s-claude-2.jsonl");
        QCOMPARE(blogSession.subagents.size(), std::size_t(1));
        QCOMPARE(blogSession.subagents[0].name, std::string("agent-old1"));
        QVERIFY(near(blogSession.subagents[0].cost * 1e6, 40));
        // Kept by the cache: a second scan takes the session from it with the same split.
        options.cachePath = m_dir.filePath(QStringLiteral("split-cache.json")).toStdString();
        sessions::scan(options);
        const auto again = sessions::scan(options);
        QVERIFY(again.stats.fromCache > 0);
        const sessions::Session &cachedShop = *find(again.sessions, fx::claudeShop(m_home));
        QVERIFY(!std::count(again.stats.parsedPaths.begin(), again.stats.parsedPaths.end(), fx::claudeShop(m_home)));
        QCOMPARE(cachedShop.subagents.size(), std::size_t(2));
        for (std::size_t k = 0; k < 2; ++k) {
            QCOMPARE(cachedShop.subagents[k].name, shop.subagents[k].name);
            QCOMPARE(cachedShop.subagents[k].cost, shop.subagents[k].cost);
            QCOMPARE(cachedShop.subagents[k].description, shop.subagents[k].description);
            QCOMPARE(cachedShop.subagents[k].startedBy, shop.subagents[k].startedBy);
        }
        const sessions::Session &codex = *find(r.sessions, fx::codexRollout(m_home));
        QCOMPARE(codex.usage.size(), std::size_t(1));
        QCOMPARE(codex.usage[0].responses, std::size_t(2));

        // A model without a price (claude-x, 7 input tokens): its tokens said, no dollars.
        sessions::ScanOptions bad;
        bad.home = m_dir.filePath(QStringLiteral("costbadhome")).toStdString();
        fx::write(bad.home + "/.claude/projects/p/bad.jsonl", fx::badLines());
        bad.prices = &prices;
        const auto unknown = sessions::scan(bad);
        QCOMPARE(unknown.sessions.size(), std::size_t(1));
        QVERIFY(unknown.sessions[0].hasCost());
        QCOMPARE(unknown.sessions[0].unpricedTokens, std::int64_t(7));
        QVERIFY(!unknown.sessions[0].costComplete());
        QCOMPARE(unknown.sessions[0].cost, 0.0);
    }

    // The scan's cost is contextlens-cli cost's (core/cost on the loaded session with its subagents).
    void costAgreesWithCostCommand()
    {
        llm::PriceTable prices;
        QVERIFY(prices.merge(fx::kPrices));
        sessions::ScanOptions options;
        options.home = m_home;
        options.prices = &prices;
        for (const auto &s : sessions::scan(options).sessions) {
            const LoadResult loaded = loadFile(s.path);
            QVERIFY2(loaded.ok(), s.path.c_str());
            const cost::SessionCost c = cost::sessionCost(*loaded.transcript, prices);
            std::size_t responses = 0;
            for (const auto &u : s.usage)
                responses += u.responses;
            QCOMPARE(responses, c.responses);
            QVERIFY2(std::fabs(s.cost - c.dollars.total()) < 1e-12, s.path.c_str());
        }
    }

    void textRules()
    {
        using sessions::detail::firstLine;
        using sessions::detail::typedRequest;
        QCOMPARE(firstLine("\n\n  Fix it  \nmore"), std::string("Fix it"));
        QCOMPARE(firstLine(std::string(150, 'a')), std::string(100, 'a') + "\u2026");
        std::string accents;
        for (int i = 0; i < 120; ++i)
            accents += "\u00e9";
        std::string hundred;
        for (int i = 0; i < 100; ++i)
            hundred += "\u00e9";
        QCOMPARE(firstLine(accents), hundred + "\u2026"); // cut between characters, not inside one
        QCOMPARE(firstLine(std::string(100, 'b')), std::string(100, 'b'));
        QCOMPARE(typedRequest("<command-name>/model</command-name>\n<command-args></command-args>"), std::string("/model"));
        QCOMPARE(typedRequest("<command-message>review</command-message><command-name>review</command-name><command-args>now</command-args>"),
                 std::string("/review now"));
        QCOMPARE(typedRequest("<system-reminder>Remember the todo list</system-reminder>"), std::string());
        QCOMPARE(typedRequest("<environment_context><cwd>/x</cwd></environment_context>"), std::string());
        QCOMPARE(typedRequest("  <div> is misaligned"), std::string("<div> is misaligned"));
    }

    // A line that is cut off or not an object is skipped; invalid UTF-8 is read with it replaced, a
    // byte-order mark before the first line ignored.
    void unreadableLines()
    {
        const std::string home = m_dir.filePath(QStringLiteral("badhome")).toStdString();
        fx::write(home + "/.claude/projects/p/bad.jsonl", fx::badLines());
        sessions::ScanOptions options;
        options.home = home;
        const auto r = sessions::scan(options);
        QCOMPARE(r.sessions.size(), std::size_t(1));
        const auto &s = r.sessions.front();
        QCOMPARE(s.messages, std::size_t(2));
        QCOMPARE(s.peakContext, std::int64_t(7));
        QCOMPARE(s.firstRequest, std::string("first \uFFFD request"));
        QCOMPARE(s.lastMs, ms("2025-01-01T00:00:01.000Z"));
    }

    // Where the scan and the loader count the same thing, on the real samples: Claude Code
    // responses deduplicated per message.id, measured usage, Codex compactions, the cost.
    void samplesAgreeWithLoader()
    {
        CL_REQUIRE_SAMPLES();
        const std::string home = m_dir.filePath(QStringLiteral("samplehome")).toStdString();
        const std::string claude = home + "/.claude/projects/-path-to-Demo/5c0375b4.jsonl";
        const std::string codex = home + "/.codex/sessions/2026/08/03/rollout-2026-08-03T10-48-56-019fc8be.jsonl";
        const std::string gemini = home + "/.gemini/tmp/sample/chats/session-2026-04-29T21-39-gemini00.jsonl";
        fx::writeBytes(claude, test::readFile(CL_SAMPLES_DIR "/claude-code/viewer-sample-edits.jsonl"));
        fx::writeBytes(codex, test::readFile(CL_SAMPLES_DIR "/codex/fixture-rollout.jsonl"));
        fx::writeBytes(gemini, test::readFile(CL_SAMPLES_DIR "/gemini/fixture-session.jsonl"));
        sessions::ScanOptions options;
        options.home = home;
        const auto r = sessions::scan(options);
        QCOMPARE(r.sessions.size(), std::size_t(3));
        for (const auto &path : {claude, codex, gemini}) {
            LoadOptions lo;
            lo.wholeHistory = true;
            const LoadResult loaded = loadFile(path, lo);
            QVERIFY(loaded.ok());
            const Transcript &t = *loaded.transcript;
            std::int64_t peak = 0;
            std::size_t turns = 0, compactions = 0;
            for (const auto &m : t.messages) {
                if (m.usage)
                    peak = std::max(peak, m.usage->contextTokens());
                turns += m.kind == MessageKind::Conversation && (m.role == Role::User || m.role == Role::Assistant);
                compactions += m.kind == MessageKind::CompactBoundary;
            }
            const auto *s = find(r.sessions, path);
            QVERIFY(s);
            QCOMPARE(s->format, t.format);
            QVERIFY(s->peakContext > 0);
            QCOMPARE(s->peakContext, peak);
            QCOMPARE(s->compactions, compactions);
            if (path != codex) // Codex: the scan counts every response item, the loader also events
                QCOMPARE(s->messages, turns);
            // The cost, as contextlens-cli cost prices it (the shipped table: the test's HOME has no other).
            const cost::SessionCost c = cost::sessionCost(t, llm::PriceTable());
            QVERIFY(s->costComplete() && c.complete());
            QVERIFY2(std::fabs(s->cost - c.dollars.total()) < 1e-12, path.c_str());
        }
        QCOMPARE(find(r.sessions, claude)->project, std::string("/path/to/Demo"));
        QCOMPARE(find(r.sessions, codex)->project, std::string("/tmp/repo"));
        QCOMPARE(find(r.sessions, codex)->firstRequest, std::string("List the files"));
        QCOMPARE(find(r.sessions, gemini)->firstRequest, std::string("Say hello and list files."));
    }
};

QTEST_GUILESS_MAIN(TestSessions)
#include "tst_sessions.moc"
