// SPDX-License-Identifier: MIT
// Seed 003 progressive manager (the four tiers in sequence), the context manager and the
// turn-by-turn simulation, and every tier over every format; split from tst_tierstrategies.cpp.
#include "strategy_fixture.h"

#include "core/strategies/context_manager.h"
#include "core/generator/generator.h"
#include "core/io/loader.h"
#include "core/strategy/simulation.h"
#include "core/strategy/summary/tooldigest.h"
#include "core/strategies/tiers.h"
#include "core/strategy/strategy.h"
#include "core/strategy/editor.h"
#include "core/strategy/summary/summary.h"
#include "core/tokens/estimator.h"
#include "core/io/validity.h"
#include "core/io/writer.h"
#include "core/strategies/registry.h"

#include <QtTest>

#include <random>

using namespace cl;
using namespace cl::strategy;
using namespace cl::test::tierfix;

class TestTierManager : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void progressiveRunsTiersOneToThree();
    void progressiveCompactsSnippedFromOriginal();
    void contextManager();
    void simulationOnGeneratedSession();
    void tiersOverEveryFormat_data();
    void tiersOverEveryFormat();
};

void TestTierManager::progressiveRunsTiersOneToThree()
{
    SeedScenario sc;
    const Transcript &t = sc.t;
    // Independent computation of each tier's effect with the public helpers.
    const std::int64_t raw = total(t);
    std::int64_t snipped = raw, compacted = 0;
    for (std::size_t k = 0; k < 8; ++k) {
        const Message &m = t.messages[sc.results[k]];
        const Message s = withText(m, 0, *tiers::snipText(m.blocks[0].text, 10000, tiers::seed003Snip()));
        snipped += est(s) - est(m);
        if (k < 4) // positions 1..16 of 32: turns 1-4
            compacted += est(withText(m, 0, tooldigest::compactLine(t.messages[sc.results[k] - 1].blocks[0], m.blocks[0]))) - est(s);
    }
    const std::int64_t afterTier2 = snipped + compacted;
    Input in(t);
    // Window so that tier 2 leaves usage at 84 %: above 80 % (tier 3 runs), and tier 1 leaves it above 60 %.
    in.options.contextWindow = static_cast<std::int64_t>(double(afterTier2) / 0.84);
    QVERIFY(double(snipped) / double(in.options.contextWindow) > 0.6);
    const Result r = run(*find("progressive"), in);
    QVERIFY(r.changed);
    const auto &tiersRan = r.extra["tiers"];
    QCOMPARE(tiersRan.size(), std::size_t(3));
    for (std::size_t k = 0; k < 3; ++k)
        QCOMPARE(tiersRan[k]["tier"].get<int>(), int(k + 1));
    QCOMPARE(tiersRan[0]["before"].get<std::int64_t>(), raw);
    QCOMPARE(tiersRan[0]["after"].get<std::int64_t>(), snipped);
    QCOMPARE(tiersRan[1]["before"].get<std::int64_t>(), snipped);
    QCOMPARE(tiersRan[1]["after"].get<std::int64_t>(), afterTier2);
    QCOMPARE(tiersRan[2]["before"].get<std::int64_t>(), afterTier2);
    QVERIFY(tiersRan[2]["after"].get<std::int64_t>() < afterTier2);
    QCOMPARE(r.stats.tokensAfter, tiersRan[2]["after"].get<std::int64_t>());
    QCOMPARE(r.extra["skipped"].size(), std::size_t(1));
    QCOMPARE(r.extra["skipped"][0]["tier"].get<int>(), 4);
    QVERIFY(r.note.rfind("tiers 1, 2, 3 ran: " + std::to_string(raw) + " -> ", 0) == 0);
    // Tier 3 cut at a turn start; what follows it is kept, the newest results only snipped.
    const auto cut = r.extra["summary"]["cut"].get<std::size_t>();
    QVERIFY(std::find(sc.turnStart.begin(), sc.turnStart.end(), cut) != sc.turnStart.end());
    for (std::size_t i = 1; i < cut; ++i)
        QCOMPARE(r.fates[i].fate, Fate::Summarized);
    QCOMPARE(r.fates[sc.results[7]].fate, Fate::Snipped);
    bool loggedSkip = false;
    for (const auto &line : r.log)
        loggedSkip = loggedSkip || line.rfind("tier 4 hard-truncate skipped", 0) == 0;
    QVERIFY(loggedSkip);
    QVERIFY(r.violations.empty());
}

void TestTierManager::progressiveCompactsSnippedFromOriginal()
{
    SeedScenario sc;
    Input in(sc.t);
    in.options.contextWindow = 32000; // after the snip about 75 %: above 60 %, below 100 %
    // Tier 3 and 4 off: tier 2 compacts the snipped results of the oldest half, counting the original lines.
    const Result r = run(*find("progressive"), in, {{"autoCompactTrigger", 1.0}, {"hardTruncateTrigger", 1.0}});
    for (std::size_t k = 0; k < 8; ++k) {
        const std::size_t i = sc.results[k];
        const std::string &now = r.message(sc.t, std::size_t(r.fates[i].slot)).blocks[0].text;
        if (k < 4) {
            QCOMPARE(r.fates[i].fate, Fate::Microcompacted);
            QCOMPARE(now, tooldigest::compactLine(sc.t.messages[i - 1].blocks[0], sc.t.messages[i].blocks[0]));
        } else {
            QCOMPARE(r.fates[i].fate, Fate::Snipped);
            QVERIFY(now.find("[... 9000 characters snipped ...]") != std::string::npos);
        }
    }
}

void TestTierManager::contextManager()
{
    CompressionThresholds th;
    th.maxContextTokens = 8000;
    ContextManager cm(th, Format::OpenAIChat);
    cm.add(makeTextMessage(Role::System, "You are a coding agent."));
    SeedScenario sc;
    std::size_t snips = 0;
    for (std::size_t i = 1; i < sc.t.messages.size(); ++i) {
        Message m = sc.t.messages[i];
        for (auto &b : m.blocks)
            b.pairMessage = b.pairBlock = -1;
        snips += cm.add(std::move(m)) ? 1 : 0;
    }
    QCOMPARE(snips, std::size_t(8)); // every 15 000-character result snipped on insert
    const Message &firstResult = cm.getMessages()[sc.results[0]];
    QVERIFY(firstResult.blocks[0].text.find("[... 9000 characters snipped ...]") != std::string::npos);
    const auto usage = cm.getUsage();
    QCOMPARE(usage.tokens, tokens::totalEstimate(cm.transcript()));
    QCOMPARE(usage.percentage, double(usage.tokens) / 8000.0);
    QVERIFY(usage.percentage > 0.95);
    const Result r = cm.compact();
    QVERIFY(r.changed);
    QVERIFY(!r.extra["tiers"].empty());
    QCOMPARE(cm.getMessages().front().role, Role::System);
    QCOMPARE(cm.getUsage().tokens, r.stats.tokensAfter);
    QVERIFY(cm.getUsage().percentage < 0.95);
    QCOMPARE(cm.getMessages().size(), r.slots.size());
}

void TestTierManager::simulationOnGeneratedSession()
{
    gen::Options o;
    o.format = Format::ClaudeCode;
    o.messages = 160;
    o.seed = 3;
    o.maxReadLines = 400;
    o.compactAt = 100; // no compaction: the whole session is live context
    auto loaded = loadBytes(gen::generate(o), "sim.jsonl", LoadOptions{});
    QVERIFY(loaded.transcript);
    const Transcript &t = *loaded.transcript;
    const std::int64_t all = tokens::totalEstimate(t);
    sim::SimulationOptions so;
    so.step = sim::Step::Turn;
    so.analysis.contextWindow = all / 2; // the session outgrows its window half-way
    const sim::Simulation s = sim::simulate(t, *find("progressive"), {}, so);
    QVERIFY(s.error.empty());
    QCOMPARE(s.window, all / 2);
    // One turn per user request.
    std::size_t requests = 0;
    bool seenConversation = false;
    for (const auto &m : t.messages) {
        if (!m.isConversation() || m.sidechain)
            continue;
        requests += seenConversation && m.kind == MessageKind::Conversation && !m.isMeta && analysis::isUserRequest(m) ? 1 : 0;
        seenConversation = true;
    }
    QCOMPARE(s.turns.size(), requests + 1);
    std::int32_t exceeds = -1;
    for (std::size_t k = 0; k < s.turns.size(); ++k) {
        const auto &p = s.turns[k];
        if (k > 0)
            QVERIFY(p.without >= s.turns[k - 1].without);
        QVERIFY(p.with <= p.beforeStrategy);
        QVERIFY(p.with <= p.without);
        if (exceeds < 0 && p.liveWithout > s.window)
            exceeds = std::int32_t(k + 1);
    }
    QCOMPARE(s.turns.back().without, all);
    QVERIFY(exceeds > 0);
    QCOMPARE(s.exceedsWithout, exceeds);
    QVERIFY(s.compactions > 0);
    QVERIFY(s.turns.back().with < s.turns.back().without);
    // Any registered strategy; unknown parameters are reported.
    QVERIFY(sim::simulate(t, *find("trim-tools"), {}, so).error.empty());
    QVERIFY(!sim::simulate(t, *find("snip"), {{"bogus", 1}}, so).error.empty());
}

void TestTierManager::tiersOverEveryFormat_data()
{
    QTest::addColumn<int>("format");
    for (const Format f : allFormats())
        QTest::newRow(std::string(formatName(f)).c_str()) << int(f);
}

// The lead's property test (tst_strategies) restricted to this family, so a hang or failure in
// another family does not hide ours: consistent fates, valid results, pins and exempt tools kept,
// never larger, and the written result reloads valid.
void TestTierManager::tiersOverEveryFormat()
{
    QFETCH(int, format);
    const Format f = static_cast<Format>(format);
    gen::Options o;
    o.format = f;
    o.messages = 160;
    o.seed = 22;
    o.maxReadLines = 400;
    o.contextWindow = 60000;
    LoadOptions lo;
    lo.format = f;
    auto loaded = loadBytes(gen::generate(o), "generated." + std::string(formatName(f)), lo);
    QVERIFY(loaded.transcript);
    const Transcript &t = *loaded.transcript;
    const bool validBefore = validate(t, f).empty();
    std::mt19937 rng(7);
    for (const char *name : {"snip", "snip-seed004", "microcompact", "auto-compact", "hard-truncate", "progressive"}) {
        const Strategy *s = find(name);
        QVERIFY(s);
        for (int variant = 0; variant < 4; ++variant) {
            Input in(t);
            in.options.contextWindow = variant == 3 ? tokens::totalEstimate(t) / 3 : 60000;
            nlohmann::json params = nlohmann::json::object();
            for (const auto &spec : s->params())
                if (spec.name == "force" && variant > 0)
                    params["force"] = true;
            if (std::string_view(name).rfind("snip", 0) == 0)
                params[std::string_view(name) == "snip" ? "snipMaxChars" : "maxToolOutput"] = 2000;
            if (variant == 2) {
                const auto &conv = in.analysis().view.index;
                for (int k = 0; k < 3; ++k)
                    in.pinned.push_back(conv[rng() % conv.size()]);
                if (!in.analysis().rounds.empty())
                    in.exemptTools = {in.analysis().rounds.front().calls.front().name};
            }
            const Result r = run(*s, in, params);
            const std::string where = std::string(name) + " variant " + std::to_string(variant) + ": ";
            QVERIFY2(r.fates.size() == t.messages.size(), where.c_str());
            for (std::size_t i = 0; i < t.messages.size(); ++i) {
                const MessageFate &mf = r.fates[i];
                QVERIFY2((mf.slot < 0) == (mf.fate == Fate::Removed || mf.fate == Fate::Summarized), (where + std::to_string(i)).c_str());
                if (mf.fate != Fate::Kept && mf.slot >= 0)
                    QVERIFY2(!mf.reason.empty(), (where + "no reason at " + std::to_string(i)).c_str());
            }
            for (const std::size_t p : in.pinned)
                QVERIFY2(r.fates[p].slot >= 0 && !r.slots[std::size_t(r.fates[p].slot)].message, (where + "pinned").c_str());
            QVERIFY2(r.stats.tokensAfter <= r.stats.tokensBefore, (where + "larger").c_str());
            QVERIFY2(!r.note.empty(), (where + "no note").c_str());
            if (validBefore)
                QVERIFY2(r.violations.empty(), (where + (r.violations.empty() ? "" : r.violations[0].reason)).c_str());
            if (r.changed && variant != 2) {
                const WriteResult w = writeTranscript(r.materialize(t), f);
                QVERIFY2(w.ok, (where + w.error).c_str());
                auto back = loadBytes(w.bytes, t.path, lo);
                QVERIFY(back.transcript);
                if (validBefore)
                    QVERIFY2(validate(*back.transcript, f).empty(), (where + "after reload").c_str());
            }
        }
    }
}

QTEST_GUILESS_MAIN(TestTierManager)
#include "tst_tiermanager.moc"
