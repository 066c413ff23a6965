// SPDX-License-Identifier: MIT
// The seed 000 / 001 / 004 strategies on small hand-built transcripts. Every expected position,
// fate and number below is worked out by hand from the rules (comments say how); token sums are
// computed here with tokens::estimateMessage, never copied from a strategy run.
#include "core/strategies/exchanges.h"
#include "core/strategy/strategy.h"
#include "core/strategy/editor.h"
#include "core/tokens/contextfigure.h"
#include "core/tokens/estimator.h"
#include "core/strategies/registry.h"

#include <QtTest>

using namespace cl;
using namespace cl::strategy;

namespace {

struct Builder {
    Transcript t;
    explicit Builder(Format f = Format::ClaudeCode) { t.format = f; }
    Message &add(Role r, std::string text = {}, MessageKind kind = MessageKind::Conversation)
    {
        Message m;
        m.role = r;
        m.kind = kind;
        m.type = std::string(roleName(r));
        if (!text.empty()) {
            Block b;
            b.text = std::move(text);
            m.blocks.push_back(std::move(b));
        }
        t.messages.push_back(std::move(m));
        return t.messages.back();
    }
    Message &use(std::string text, std::string id, std::string name, nlohmann::json input)
    {
        Message &m = add(Role::Assistant, std::move(text));
        Block b;
        b.type = BlockType::ToolUse;
        b.toolId = std::move(id);
        b.toolName = std::move(name);
        b.input = std::move(input);
        m.blocks.push_back(std::move(b));
        return m;
    }
    Message &result(std::string id, std::string text, bool error = false)
    {
        Message &m = add(Role::User);
        Block b;
        b.type = BlockType::ToolResult;
        b.toolId = std::move(id);
        b.text = std::move(text);
        b.isError = error;
        m.blocks.push_back(std::move(b));
        return m;
    }
    Transcript &done()
    {
        linkToolPairs(t);
        return t;
    }
};

// Pseudo-random lower-case words: no repeated lines or shingles, so the estimate is ceil(len / 4).
std::string noise(std::size_t len, std::uint32_t seed)
{
    std::string s;
    s.reserve(len);
    for (std::size_t i = 0; i < len; ++i) {
        seed = seed * 1664525u + 1013904223u;
        s += (i % 7 == 6) ? ' ' : char('a' + (seed >> 24) % 26);
    }
    return s;
}

// Sets block `b` of the message to noise so that the message estimates exactly `target` tokens.
bool fit(Message &m, std::size_t b, std::int64_t target, std::uint32_t seed)
{
    std::int64_t len = std::max<std::int64_t>(4, (target - 7) * 4);
    for (int step = 0; step < 60; ++step) {
        m.blocks[b].text = noise(std::size_t(len), seed);
        m.cache.tokenEstimate = -1;
        const std::int64_t est = tokens::estimateMessage(m);
        if (est == target)
            return true;
        len = std::max<std::int64_t>(1, len + (target - est) * 4 + (est > target ? -1 : 1));
    }
    return false;
}

std::int64_t total(const Transcript &t)
{
    std::int64_t s = 0;
    for (const auto &m : t.messages)
        if (m.isConversation() && !m.sidechain)
            s += tokens::estimateMessage(m);
    return s;
}

bool plainMessage(Builder &b, Role r, std::int64_t tokens, std::uint32_t seed)
{
    return fit(b.add(r, "x"), 0, tokens, seed);
}

Result runNamed(const char *name, const Input &in, const nlohmann::json &params = nlohmann::json::object())
{
    const Strategy *s = find(name);
    if (!s)
        qFatal("strategy %s not registered", name);
    return run(*s, in, params);
}

const std::string kWords = "alpha beta gamma delta epsilon zeta theta ";
std::string words(std::size_t repeats)
{
    std::string s;
    for (std::size_t k = 0; k < repeats; ++k)
        s += kWords;
    return s;
}

} // namespace

class TestSeedStrategies : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void registered()
    {
        for (const char *n : {"trim-tools", "middle", "oldest", "hybrid", "auto-select", "microcompaction", "sliding-window"})
            QVERIFY2(find(n) != nullptr, n);
    }

    // Seed 000 §3 on three rounds: sys, u, A(t1), R(t1), a, u, A(t2), R(t2), u, A(t3), R(t3), a.
    void trimTools_data()
    {
        QTest::addColumn<int>("keep");
        QTest::addColumn<QList<int>>("removed");
        QTest::newRow("keep 0") << 0 << QList<int>{2, 3, 6, 7, 9, 10};
        QTest::newRow("keep 1") << 1 << QList<int>{2, 3, 6, 7};
        QTest::newRow("keep 2") << 2 << QList<int>{2, 3};
    }
    void trimTools()
    {
        QFETCH(int, keep);
        QFETCH(QList<int>, removed);
        Builder b;
        b.add(Role::System, "You are a careful coding assistant.");
        b.add(Role::User, "Read the configuration file please");
        b.use("Reading it.", "t1", "Read", {{"file_path", "/a.txt"}});
        b.result("t1", noise(400, 1));
        b.add(Role::Assistant, "The configuration sets the port to 8080.");
        b.add(Role::User, "Now list the source directory");
        b.use("Listing.", "t2", "Bash", {{"command", "ls src"}});
        b.result("t2", noise(300, 2));
        b.add(Role::User, "And show the main file");
        b.use("Showing.", "t3", "Read", {{"file_path", "/src/main.c"}});
        b.result("t3", noise(500, 3));
        b.add(Role::Assistant, "That is the whole program.");
        const Transcript &t = b.done();
        Input in(t);
        const Result r = runNamed("trim-tools", in, {{"keepLastToolRounds", keep}});
        std::int64_t gone = 0;
        for (std::size_t i = 0; i < t.messages.size(); ++i) {
            const bool expect = removed.contains(int(i));
            QCOMPARE(r.fates[i].fate, expect ? Fate::Removed : Fate::Kept);
            if (expect) {
                QVERIFY(!r.fates[i].reason.empty());
                gone += tokens::estimateMessage(t.messages[i]);
            }
        }
        QCOMPARE(r.stats.tokensBefore, total(t));
        QCOMPARE(r.stats.tokensAfter, total(t) - gone);
        QCOMPARE(r.extra["removedCount"].get<std::size_t>(), std::size_t(removed.size()));
        QCOMPARE(r.extra["originalCount"].get<std::size_t>(), t.messages.size());
        QVERIFY(r.note.find("removed " + std::to_string(removed.size() / 2) + " of 3 tool rounds") != std::string::npos);
        QVERIFY(r.violations.empty());
    }

    // Seed 000 §4.4 arithmetic: 9000 -> middle 6200 / 12 kept, oldest 5800 / 10 kept of 15.
    void efficiencyNumbers()
    {
        const double middle = exchanges::efficiency(9000, 6200, 12, 15);
        const double oldest = exchanges::efficiency(9000, 5800, 10, 15);
        QCOMPARE(exchanges::fixed(middle, 4), std::string("0.5067"));
        QCOMPARE(exchanges::fixed(oldest, 4), std::string("0.4800"));
        QVERIFY(middle >= oldest);
    }

    // The same worked example end to end. 15 messages, 9000 tokens:
    //   S 600 | E1 u200 a1200 | E2 u200 A300 R1300 | E3 u200 a600 | E4 u200 A300 R2300 | E5 u200 a600 | E6 u200 a600
    // keepFirst 3, keepLast 2: the middle region is E4 alone -> 9000 - 2800 = 6200, 12 kept (target
    // not reached: the region is exhausted). Oldest: E1 (7600 > 6000), then E2 -> 5800, 10 kept.
    // The analysis recommends middle (recent_heavy 0.7: last 5 = 2300 + 4 x 200/600 = 3900 > 40 %),
    // below minConfidence 0.95 -> adaptive -> middle (0.5067) beats oldest (0.4800).
    void seed000WorkedExample()
    {
        Builder b;
        std::uint32_t seed = 10;
        auto plain = [&](Role r, std::int64_t tok) {
            Message &m = b.add(r, "x");
            QVERIFY(fit(m, 0, tok, ++seed));
        };
        auto round = [&](const std::string &id, std::int64_t u, std::int64_t a, std::int64_t res) {
            plain(Role::User, u);
            Message &call = b.use("x", id, "Read", {{"file_path", "/f/" + id}});
            QVERIFY(fit(call, 0, a, ++seed));
            Message &r = b.result(id, "x");
            QVERIFY(fit(r, 0, res, ++seed));
        };
        plain(Role::System, 600);
        plain(Role::User, 200), plain(Role::Assistant, 1200);
        round("e2", 200, 300, 1300);
        plain(Role::User, 200), plain(Role::Assistant, 600);
        round("e4", 200, 300, 2300);
        plain(Role::User, 200), plain(Role::Assistant, 600);
        plain(Role::User, 200), plain(Role::Assistant, 600);
        const Transcript &t = b.done();
        QCOMPARE(t.messages.size(), std::size_t(15));
        QCOMPARE(total(t), std::int64_t(9000));

        // Targets are live context sizes: the seed's conversation figures plus the fixed part sent
        // with every request, counted by the seed estimator, as the seed counts.
        analysis::AnalysisOptions o;
        o.estimator = tokens::Estimator::Seed;
        const std::int64_t fixed = tokens::contextFigure(t, o.estimator).fixed;
        o.targetTokens = fixed + 6000;
        o.minConfidence = 0.95;
        Input in(t, o);
        const nlohmann::json params = {{"keepFirst", 3}, {"keepLast", 2}};

        const Result middle = runNamed("middle", in, params);
        QCOMPARE(middle.stats.tokensAfter, std::int64_t(6200));
        QCOMPARE(middle.stats.messagesAfter, std::size_t(12));
        for (std::size_t i : {8, 9, 10})
            QCOMPARE(middle.fates[i].fate, Fate::Removed);
        QVERIFY(middle.note.find("not reached") != std::string::npos);

        const Result oldest = runNamed("oldest", in, params);
        QCOMPARE(oldest.stats.tokensAfter, std::int64_t(5800));
        QCOMPARE(oldest.stats.messagesAfter, std::size_t(10));
        for (std::size_t i = 0; i < 15; ++i)
            QCOMPARE(oldest.fates[i].fate, i >= 1 && i <= 5 ? Fate::Removed : Fate::Kept);

        QCOMPARE(in.analysis().recommendation.strategy, std::string("adaptive"));
        const Result pick = runNamed("auto-select", in, params);
        QCOMPARE(pick.extra["adaptive"]["chosen"].get<std::string>(), std::string("middle"));
        QCOMPARE(exchanges::fixed(pick.extra["adaptive"]["middle"]["efficiency"].get<double>(), 4), std::string("0.5067"));
        QCOMPARE(exchanges::fixed(pick.extra["adaptive"]["oldest"]["efficiency"].get<double>(), 4), std::string("0.4800"));
        QCOMPARE(pick.stats.tokensAfter, std::int64_t(6200));
        QCOMPARE(exchanges::fixed(pick.stats.efficiency, 4), std::string("0.5067"));
        bool logged = false;
        for (const auto &l : pick.log)
            logged = logged || (l.find("0.5067") != std::string::npos && l.find("0.4800") != std::string::npos);
        QVERIFY(logged);
        QVERIFY(pick.violations.empty());

        // Defaults (keepFirst 1, keepLast 1): middle region E2..E5, centre between E3 and E4 -> E3
        // first (older on ties): 9000 - 800 = 8200, then E4: 5400 <= 6000.
        const Result mid = runNamed("middle", in);
        QCOMPARE(mid.stats.tokensAfter, std::int64_t(9000 - 800 - 2800));
        // Hybrid: middle region oldest first: E2 (7200), E3 (6400), E4 (3600).
        const Result hyb = runNamed("hybrid", in);
        QCOMPARE(hyb.stats.tokensAfter, std::int64_t(9000 - 1800 - 800 - 2800));
        QCOMPARE(hyb.fates[1].fate, Fate::Kept);
        QCOMPARE(hyb.fates[0].fate, Fate::Kept); // system prompt
        // Below target: unchanged with a note; force previews against half the tokens.
        const Result none = runNamed("oldest", in, {{"targetTokens", fixed + 9000}});
        QVERIFY(!none.changed);
        QVERIFY(none.note.find("below target") != std::string::npos);
        const Result forced = runNamed("oldest", in, {{"targetTokens", fixed + 9000}, {"force", true}});
        QVERIFY(forced.changed);
        QVERIFY(forced.stats.tokensAfter <= 4500);
    }

    // 30 messages: 10 exchanges [u, A(call), R]. Exchange 0 writes a file (Write, critical); exchange
    // 3 runs "npm test", which fails (position 11, critical error_context); others read.
    // Scores: u at 3k: 100 + 50 (after a tool result); A: 100; R: 100 + 30 - 100 (tool sequence).
    // An agent's session: one request, then twelve tool rounds (a call and its result), then the
    // answer. No exchange is removable; the rounds are, in each mode's order, every call staying with
    // its result, the request, the first round (keepFirst 1) and the answer kept.
    void agenticSessionShrinksByToolRounds()
    {
        Builder b;
        std::uint32_t seed = 40;
        QVERIFY(plainMessage(b, Role::System, 300, ++seed));
        QVERIFY(plainMessage(b, Role::User, 100, ++seed));
        for (int k = 0; k < 12; ++k) {
            const std::string id = "r" + std::to_string(k);
            QVERIFY(fit(b.use("x", id, "Read", {{"file_path", "/f/" + id}}), 0, 100, ++seed));
            QVERIFY(fit(b.result(id, "x"), 0, 500, ++seed));
        }
        QVERIFY(plainMessage(b, Role::Assistant, 200, ++seed));
        const Transcript &t = b.done();
        const std::int64_t all = total(t);
        QCOMPARE(all, std::int64_t(300 + 100 + 12 * 600 + 200));
        analysis::AnalysisOptions o;
        o.estimator = tokens::Estimator::Seed;
        o.targetTokens = tokens::contextFigure(t, o.estimator).fixed + 3000; // a live context size
        Input in(t, o);
        const std::size_t last = t.messages.size() - 1;
        for (const char *name : {"middle", "oldest", "hybrid", "auto-select"}) {
            const Result whole = runNamed(name, in, {{"rounds", false}});
            QVERIFY2(!whole.changed && whole.note.find("not reached") != std::string::npos, name);
            const Result r = runNamed(name, in);
            QVERIFY2(r.changed, name);
            QVERIFY2(r.violations.empty(), name);
            // Removing whole rounds of 600 tokens from 7 800 down to 3 000 or less: 8 of them.
            QVERIFY2(r.stats.tokensAfter == all - 8 * 600, (std::string(name) + ": " + r.note).c_str());
            QVERIFY(r.note.find("8 tool round(s)") != std::string::npos);
            for (const std::size_t keep : {std::size_t(0), std::size_t(1), last})
                QCOMPARE(r.fates[keep].fate, Fate::Kept);
            for (std::size_t i = 2; i + 1 < last; i += 2) // a call goes with its result
                QCOMPARE(r.fates[i].fate == Fate::Kept, r.fates[i + 1].fate == Fate::Kept);
            // The request's own first call is no round; keepLast 1: the round before the answer
            // stays, and middle and hybrid also keep the first round (keepFirst 1).
            QCOMPARE(r.fates[2].fate, Fate::Kept);
            QCOMPARE(r.fates[last - 2].fate, Fate::Kept);
            QCOMPARE(r.fates[4].fate == Fate::Kept, r.extra.value("mode", "") != "oldest");
        }
    }

    // Ratio 0.5 -> target 15, range [max(10, 10), min(25, 20)] = [10, 20]; u positions 12, 15, 18
    // score 150, but 12 has the error at 11 within 2 -> 120; the first best is 15.
    void microcompaction()
    {
        Builder b;
        for (int k = 0; k < 10; ++k) {
            const std::string id = "c" + std::to_string(k);
            b.add(Role::User, "Please look at the next part: " + words(4));
            if (k == 0) {
                b.use(words(8), "w1", "Write", {{"file_path", "/src/app.ts"}, {"content", "export const x = 1;"}});
                b.result("w1", "File created successfully at: /src/app.ts");
            } else if (k == 3) {
                b.use(words(8), "b3", "Bash", {{"command", "npm test"}});
                b.result("b3", "Error: Cannot find module 'left-pad'", true);
            } else {
                b.use(words(8), id, "Read", {{"file_path", "/src/part" + std::to_string(k) + ".ts"}});
                b.result(id, noise(3000, std::uint32_t(k)));
            }
        }
        const Transcript &t = b.done();
        QCOMPARE(t.messages.size(), std::size_t(30));
        Input in(t);

        const Result idle = runNamed("microcompaction", in);
        QVERIFY(!idle.changed);
        QVERIFY(idle.note.find("below trigger") != std::string::npos);

        const Result r = runNamed("microcompaction", in, {{"threshold", 1000}});
        QVERIFY2(r.changed, r.note.c_str());
        // Shares: code 1/30 (the Bash call; Write is code too: 2/30), chat 10/30, errors 1/10 = 0.1
        // (not > 0.1): the ratio stays 0.5.
        QCOMPARE(r.extra["adaptive"]["ratio"].get<double>(), 0.5);
        QCOMPARE(r.extra["adaptive"]["errorRate"].get<double>(), 0.1);
        QCOMPARE(r.extra["boundary"]["position"].get<std::size_t>(), std::size_t(15));
        for (std::size_t i = 0; i < 30; ++i)
            QCOMPARE(r.fates[i].fate, i < 15 ? Fate::Summarized : Fate::Kept);
        // [marker, summary, acknowledgement (15 is a user request), 15 kept].
        QCOMPARE(r.slots.size(), std::size_t(18));
        const Message &marker = r.message(t, 0);
        QCOMPARE(marker.kind, MessageKind::CompactBoundary);
        QCOMPARE(marker.type, std::string("system/compact_boundary"));
        const Message &summary = r.message(t, 1);
        QCOMPARE(summary.kind, MessageKind::CompactSummary);
        QCOMPARE(r.message(t, 2).role, Role::Assistant);
        QCOMPARE(r.slots[3].origin, 15);
        const std::string text = summary.plainText();
        const auto at = [&](const char *s) { return text.find(s); };
        QVERIFY(at("# Previous conversation summary") == 0);
        QVERIFY(at("Compacted 15 messages") != std::string::npos);
        QVERIFY(at("- Tool calls: 5") != std::string::npos);
        QVERIFY(at("- Errors encountered: 1") != std::string::npos);
        QVERIFY(at("## Tool usage summary") > at("## Token reduction"));
        QVERIFY(at("- Read: 3 calls") != std::string::npos);
        QVERIFY(at("## Conversation summary") > at("## Tool usage summary"));
        QVERIFY(at("## Critical information") > at("## Conversation summary"));
        QVERIFY(at("[preserved tool result: w1]\nFile created successfully at: /src/app.ts") != std::string::npos);
        QVERIFY(at("[preserved tool result: b3]\nError: Cannot find module 'left-pad'") != std::string::npos);
        QVERIFY(at("not found: 1 occurrence") != std::string::npos);
        const auto &sections = r.extra["summary"]["sections"];
        for (const char *k : {"system", "tools", "narrative", "critical"})
            QVERIFY2(sections.contains(k), k);
        // The seed's result fields.
        std::int64_t kept = 0;
        for (std::size_t i = 15; i < 30; ++i)
            kept += tokens::estimateMessage(t.messages[i]);
        const std::int64_t post = kept + tokens::estimateMessage(summary) + tokens::estimateMessage(r.message(t, 2));
        QCOMPARE(r.extra["preCompactTokenCount"].get<std::int64_t>(), total(t));
        QCOMPARE(r.extra["postCompactTokenCount"].get<std::int64_t>(), post);
        QCOMPARE(r.stats.tokensAfter, post);
        QCOMPARE(r.extra["tokenSavings"].get<std::int64_t>(), total(t) - post);
        QCOMPARE(r.extra["originalCount"].get<std::size_t>(), std::size_t(30));
        QCOMPARE(r.extra["compactedCount"].get<std::size_t>(), std::size_t(17));
        QCOMPARE(r.extra["history"].size(), std::size_t(1));
        QVERIFY(r.violations.empty());
    }

    void adaptiveRatio_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<double>("ratio");
        QTest::newRow("code > 0.5 -> 0.7") << QStringLiteral("code") << 0.7;
        QTest::newRow("chat > 0.7 -> 0.3") << QStringLiteral("chat") << 0.3;
        QTest::newRow("errors > 0.1 -> 0.6") << QStringLiteral("errors") << 0.6;
    }
    void adaptiveRatio()
    {
        QFETCH(QString, kind);
        QFETCH(double, ratio);
        Builder b;
        for (int k = 0; k < 8; ++k) {
            if (kind == QLatin1String("code")) { // every message has a fence: code 1.0, chat 0
                b.add(Role::User, "Fix this:\n```\nint x = " + std::to_string(k) + ";\n```");
                b.add(Role::Assistant, "Here:\n```\nint x = 0;\n```");
            } else if (kind == QLatin1String("chat")) { // plain text: chat 1.0
                b.add(Role::User, "How are you today, my friend? " + words(20));
                b.add(Role::Assistant, "Fine, thank you for asking. " + words(30));
            } else { // 8 requests, 8 Read calls, 8 results of which 2 fail: chat 8/24, error rate 0.25
                const std::string id = "r" + std::to_string(k);
                b.add(Role::User, "Read file number " + std::to_string(k));
                b.use("Reading.", id, "Read", {{"file_path", "/f" + std::to_string(k)}});
                b.result(id, k % 4 == 0 ? "Error: no such file" : noise(2000, std::uint32_t(k)), k % 4 == 0);
            }
        }
        const Transcript &t = b.done();
        Input in(t);
        const Result r = runNamed("microcompaction", in, {{"force", true}});
        QVERIFY2(r.changed, r.note.c_str()); // refused results lose their extra
        QCOMPARE(r.extra["adaptive"]["ratio"].get<double>(), ratio);
        bool logged = false;
        for (const auto &l : r.log)
            logged = logged || l.rfind("adaptive ratio:", 0) == 0;
        QVERIFY(logged);
        const Result fixedRatio = runNamed("microcompaction", in, {{"force", true}, {"adaptiveRatio", false}});
        QVERIFY(!fixedRatio.extra.contains("adaptive"));
    }

    // 12 plain messages, an earlier compaction (boundary marker + summary at 12 + ack at 13), then
    // 24 more: 38 conversation positions (the marker is not one). Scores: a user request after an
    // assistant 130, an assistant 100.
    // Incremental: candidates 13..37 (25), target 13 + 12 = 25, range [max(23, 20, 14), min(33, 30)]
    //   -> first 130 is 24. Whole: target 19, range [14, 24] -> 14.
    void incremental()
    {
        Builder b;
        auto pair = [&](int k) {
            b.add(Role::User, "Question " + std::to_string(k) + ": " + words(6));
            b.add(Role::Assistant, "Answer: " + words(12));
        };
        for (int k = 0; k < 6; ++k)
            pair(k);
        Message &marker = b.add(Role::System, "Conversation compacted", MessageKind::CompactBoundary);
        marker.type = "system/compact_boundary";
        marker.timestamp = "2025-01-01T10:00:00Z";
        marker.meta = {{"trigger", "auto"}, {"preTokens", 150000}};
        b.add(Role::User, "Summary: " + words(6), MessageKind::CompactSummary);
        b.add(Role::Assistant, "Understood: " + words(6));
        for (int k = 6; k < 18; ++k)
            pair(k);
        const Transcript &t = b.done();
        QCOMPARE(t.messages.size(), std::size_t(39));
        Input in(t);
        const nlohmann::json base = {{"force", true}, {"adaptiveRatio", false}};

        nlohmann::json inc = base;
        inc["incremental"] = true;
        const Result r = runNamed("microcompaction", in, inc);
        QCOMPARE(r.extra["lastCompactionIndex"].get<std::size_t>(), std::size_t(13));
        QCOMPARE(r.extra["boundary"]["position"].get<std::size_t>(), std::size_t(24));
        // History: the earlier compaction (12 conversation messages before it) and this one.
        QCOMPARE(r.extra["history"].size(), std::size_t(2));
        QCOMPARE(r.extra["history"][0]["messagesCompacted"].get<std::size_t>(), std::size_t(12));
        QCOMPARE(r.extra["history"][0]["timestamp"].get<std::string>(), std::string("2025-01-01T10:00:00Z"));
        QCOMPARE(r.extra["history"][1]["messagesCompacted"].get<std::size_t>(), std::size_t(24 - 13));
        for (std::size_t i = 0; i < t.messages.size(); ++i) {
            // transcript index = position + 1 from the summary on (the marker at 12 is no position)
            const bool summarized = i >= 14 && i <= 24;
            QCOMPARE(r.fates[i].fate, summarized ? Fate::Summarized : Fate::Kept);
        }
        QVERIFY(r.violations.empty());

        const Result whole = runNamed("microcompaction", in, base);
        QCOMPARE(whole.extra["boundary"]["position"].get<std::size_t>(), std::size_t(14));
        QCOMPARE(whole.fates[13].fate, Fate::Summarized); // the earlier summary is summarized again
        QCOMPARE(whole.fates[12].fate, Fate::Kept);       // the old marker stays where it is

        // Apply, then run on the result: our own marker is read back as history with its numbers.
        const Transcript applied = r.materialize(t);
        Input again(applied);
        const Result second = runNamed("microcompaction", again, inc);
        QCOMPARE(second.extra["history"].size(), std::size_t(3));
        QCOMPARE(second.extra["history"][1]["messagesCompacted"].get<std::size_t>(), std::size_t(11));
        QCOMPARE(second.extra["history"][1]["tokensSaved"].get<std::int64_t>(), r.extra["tokenSavings"].get<std::int64_t>());
    }

    // 5 turns; keepRecent 2: turns 4-5 stay whole. Importance (base 0.5): plain request 0.7,
    // "Remember ..." request 0.9 (keyword), plain answer 0.5, Read round max(0.5, result 0.3) = 0.5.
    // With threshold 0.75 only the "Remember" request (turn 2) survives among the old turns.
    void slidingWindow()
    {
        Builder b;
        b.add(Role::User, "Set up the build for the project please");                        // 0 turn 1
        b.add(Role::Assistant, "The build is configured with cmake and ninja.");             // 1
        b.add(Role::User, "Remember: the API key goes in the vault only");                   // 2 turn 2
        b.add(Role::Assistant, "Understood, I will keep it in the vault.");                  // 3
        b.add(Role::User, "Open the parser source file now");                                // 4 turn 3
        b.use("Opening the parser.", "p1", "Read", {{"file_path", "/src/parser.ts"}});       // 5
        b.result("p1", "export function parse(input: string) { return input.split(','); }"); // 6
        b.add(Role::User, "Run the unit tests for the parser");                              // 7 turn 4
        b.use("Running the tests.", "t1", "Bash", {{"command", "ctest -R parser"}});         // 8
        b.result("t1", noise(1000, 5));                                                      // 9
        b.add(Role::User, "Thanks, please summarise the results for me");                    // 10 turn 5
        b.add(Role::Assistant, "All parser tests pass now after the change.");               // 11
        const Transcript &t = b.done();
        Input in(t);
        const nlohmann::json params = {{"keepRecent", 2}, {"importanceThreshold", 0.75}, {"maxToolOutput", 100}};
        const Result r = runNamed("sliding-window", in, params);
        QVERIFY2(r.changed, r.note.c_str());
        for (std::size_t i = 0; i < t.messages.size(); ++i) {
            const Fate want = (i == 2 || i >= 7) ? (i == 9 ? Fate::Snipped : Fate::Kept) : Fate::Summarized;
            QCOMPARE(r.fates[i].fate, want);
        }
        // [summary, ack (next kept is the user request 2), 2, 7..11]
        QCOMPARE(r.message(t, 0).kind, MessageKind::CompactSummary);
        QCOMPARE(r.message(t, 1).role, Role::Assistant);
        QCOMPARE(r.slots[2].origin, 2);
        QCOMPARE(r.slots[3].origin, 7);
        const auto &s = r.extra["summary"];
        QCOMPARE(s["turnRange"][0].get<int>(), 1);
        QCOMPARE(s["turnRange"][1].get<int>(), 3);
        QVERIFY(s["content"].get<std::string>().size() <= 500);
        QVERIFY(s["keyPoints"].is_array() && !s["keyPoints"].empty());
        QVERIFY(s.contains("timestamp"));
        const std::string cut = r.message(t, std::size_t(r.fates[9].slot)).blocks[0].text;
        QVERIFY(cut.find("... [truncated 900 characters] ...") != std::string::npos);
        QCOMPARE(cut.substr(0, 50), noise(1000, 5).substr(0, 50));
        QVERIFY(r.violations.empty());

        // maxTurns 3: only the newest old turn (3) may keep messages: the "Remember" request goes too.
        nlohmann::json narrow = params;
        narrow["maxTurns"] = 3;
        const Result n = runNamed("sliding-window", in, narrow);
        QCOMPARE(n.fates[2].fate, Fate::Summarized);
        // Below the trigger: 12 messages <= keepRecent 10 x 2.
        const Result idle = runNamed("sliding-window", in);
        QVERIFY(!idle.changed);
        QVERIFY(idle.note.find("below trigger") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestSeedStrategies)
#include "tst_seedstrategies.moc"
