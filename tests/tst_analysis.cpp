// SPDX-License-Identifier: MIT
// The seed rules of core/analysis/analysis.h on small hand-built transcripts; every expected number below
// was worked out by hand from the rules (see the comments), not copied from a run.
#include "core/analysis/analysis.h"
#include "cli/cli.h"
#include "core/generator/generator.h"
#include "core/io/loader.h"

#include "test_support.h"

#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace cl;
using namespace cl::analysis;

namespace {

struct Builder {
    Transcript t;
    Message &add(Role r, std::string text = {}, std::int64_t timeMs = kNoTime)
    {
        Message m;
        m.role = r;
        m.timeMs = timeMs;
        if (!text.empty()) {
            Block b;
            b.text = std::move(text);
            m.blocks.push_back(std::move(b));
        }
        t.messages.push_back(std::move(m));
        return t.messages.back();
    }
    Message &use(std::string text, std::string id, std::string name, nlohmann::json input, std::int64_t timeMs = kNoTime)
    {
        Message &m = add(Role::Assistant, std::move(text), timeMs);
        Block b;
        b.type = BlockType::ToolUse;
        b.toolId = std::move(id);
        b.toolName = std::move(name);
        b.input = std::move(input);
        m.blocks.push_back(std::move(b));
        return m;
    }
    Message &result(std::string id, std::string text, bool error = false, std::int64_t timeMs = kNoTime)
    {
        Message &m = add(Role::User, {}, timeMs);
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

template <class Rs> bool hasRule(const Rs &rs, std::string_view rule)
{
    for (const auto &r : rs)
        if (r.rule == rule)
            return true;
    return false;
}

// Seed 002: one system message, `history` messages with the given sizes, then recent ones.
Transcript zoneCase(std::int32_t system, const std::vector<std::int32_t> &history, const std::vector<std::int32_t> &recent)
{
    Builder b;
    b.add(Role::System, "system prompt").cache.tokenEstimate = system;
    int k = 0;
    for (auto v : history)
        b.add(k++ % 2 ? Role::Assistant : Role::User, "history").cache.tokenEstimate = v;
    for (auto v : recent)
        b.add(k++ % 2 ? Role::Assistant : Role::User, "recent").cache.tokenEstimate = v;
    return b.done();
}

} // namespace

class TestAnalysis : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void seed002Zones()
    {
        // Case 1: 5000 + 4000 (7 msgs) + 2000 (3) -> old 11000 >= 10000, new 4000 < 10000.
        Transcript c1 = zoneCase(5000, {500, 500, 500, 500, 500, 500, 1000}, {700, 700, 600});
        Zones z = zones(c1, conversationView(c1), 10000, 3);
        QCOMPARE(z.system.size(), std::size_t(1));
        QCOMPARE(z.compressible.size(), std::size_t(7));
        QCOMPARE(z.recent.size(), std::size_t(3));
        QCOMPARE(z.totalTokens, std::int64_t(11000));
        QCOMPARE(z.compressibleTokens, std::int64_t(4000));
        QVERIFY(z.oldTrigger);
        QVERIFY(!z.newTrigger);
        // Case 2: 1000 + 25000 (50) + 2000 (3) -> both.
        Transcript c2 = zoneCase(1000, std::vector<std::int32_t>(50, 500), {700, 700, 600});
        z = zones(c2, conversationView(c2), 10000, 3);
        QCOMPARE(z.compressible.size(), std::size_t(50));
        QCOMPARE(z.totalTokens, std::int64_t(28000));
        QCOMPARE(z.compressibleTokens, std::int64_t(25000));
        QVERIFY(z.oldTrigger);
        QVERIFY(z.newTrigger);
        // Case 3: 8000 + 3000 (5) + 1000 (3) -> old 12000 triggers, new 3000 does not.
        Transcript c3 = zoneCase(8000, {600, 600, 600, 600, 600}, {400, 300, 300});
        z = zones(c3, conversationView(c3), 10000, 3);
        QCOMPARE(z.totalTokens, std::int64_t(12000));
        QCOMPARE(z.compressibleTokens, std::int64_t(3000));
        QCOMPARE(z.recentTokens, std::int64_t(1000));
        QVERIFY(z.oldTrigger);
        QVERIFY(!z.newTrigger);
    }

    void needsCompactionSeed001()
    {
        const AnalysisOptions o;
        QVERIFY(needsCompaction(150000, 10, o).needed);
        QVERIFY(needsCompaction(149999, 501, o).needed);
        QVERIFY(!needsCompaction(149999, 500, o).needed);
        QVERIFY(!needsCompaction(200000, 9, o).needed);
    }

    void boundaryScores()
    {
        const std::int64_t T = 1'700'000'000'000;
        Builder b;
        b.add(Role::User, "Please fix the parser bug in parser.cpp", T);                 // 0
        b.use("Let me look", "a", "Read", {{"file_path", "/src/parser.cpp"}}, T + 1000); // 1
        b.result("a", "int parse();", false, T + 2000);                                  // 2
        b.add(Role::Assistant, "The parser looks fine now.", T + 3000);                  // 3
        b.add(Role::User, "new question: how do I bake bread?", T + 3000 + 600000);      // 4
        b.add(Role::Assistant, "Mix flour water yeast", T + 3000 + 601000);              // 5
        Transcript &t = b.done();
        const AnalysisOptions o;
        const auto s = scoreBoundaries(t, conversationView(t), o);
        QCOMPARE(s.size(), std::size_t(5));
        // Cut 1: Jaccard({please,fix,the,parser,bug,cpp}, {let,look,the,parser,looks,fine,now}) = 2/11.
        QCOMPARE(s[0].score, 100.0);
        QVERIFY(std::abs(s[0].topicSimilarity - 2.0 / 11) < 1e-9);
        // Cut 2: after an assistant (+30), separates call from result (-100).
        QCOMPARE(s[1].score, 30.0);
        QVERIFY(s[1].inToolSequence);
        QVERIFY(hasRule(reasonsFor(s[1], o), "tool_sequence_call_result"));
        // Cut 3: after a tool result (+50); Jaccard 2/20 = 0.1 is not < 0.1.
        QCOMPARE(s[2].score, 150.0);
        QVERIFY(!s[2].topicChange);
        // Cut 4: after an assistant (+30), 10-minute pause (+20), no shared words (+25).
        QCOMPARE(s[3].score, 175.0);
        QVERIFY(s[3].conversationBreak);
        QVERIFY(s[3].topicChange);
        QCOMPARE(s[3].breakRule, BreakRule::Pause);
        QCOMPARE(s[3].pauseMs, std::int64_t(600000));
        {
            // The reasons built on demand: in rule order, with the instance's numbers, summing to the score.
            const Reasons r = reasonsFor(s[3], o);
            QCOMPARE(r.size(), std::size_t(4));
            QCOMPARE(r[0].rule, std::string_view("base"));
            QCOMPARE(r[1].rule, std::string_view("after_assistant"));
            QCOMPARE(r[2].rule, std::string_view("conversation_break"));
            QCOMPARE(r[2].detail, std::string("600 s"));
            QCOMPARE(r[3].rule, std::string_view("topic_change"));
            QCOMPARE(r[3].detail, std::string("Jaccard 0.000"));
            QCOMPARE(r[0].points + r[1].points + r[2].points + r[3].points, s[3].score);
        }
        // Cut 5: no shared words (+25) only.
        QCOMPARE(s[4].score, 125.0);
        QCOMPARE(s[4].index, std::size_t(5));

        // The same with a failed result at position 2: cuts 1..4 have it within 2 messages (-30).
        t.messages[2].blocks[0].isError = true;
        const auto e = scoreBoundaries(t, conversationView(t), o);
        QCOMPARE(e[0].score, 70.0);
        QCOMPARE(e[1].score, 0.0);
        QCOMPARE(e[2].score, 120.0);
        QCOMPARE(e[3].score, 145.0);
        QCOMPARE(e[4].score, 125.0);
        QVERIFY(hasRule(reasonsFor(e[3], o), "error_near"));
    }

    void breaksAndSequences()
    {
        Builder b;
        b.add(Role::User, "hi there friend");                               // 0
        b.add(Role::User, "are you there?");                                // 1
        b.add(Role::Assistant, "hello");                                    // 2
        b.add(Role::User, "Moving on, something else");                     // 3
        b.use("", "A", "Read", {{"file_path", "/a"}});                      // 4
        b.use("", "B", "Read", {{"file_path", "/b"}});                      // 5
        b.result("A", "a");                                                 // 6
        b.result("B", "b");                                                 // 7
        b.use("Feeding call_7 into grep", "C", "Grep", {{"pattern", "x"}}); // 8
        Transcript &t = b.done();
        t.messages[7].blocks[0].toolId = "call_7"; // result 7 now answers nothing; its id is referenced by 8
        const auto s = scoreBoundaries(t, conversationView(t), AnalysisOptions{});
        const AnalysisOptions o;
        QVERIFY(s[0].conversationBreak); // user -> user
        QCOMPARE(s[0].breakRule, BreakRule::UserFollowsUser);
        QVERIFY(s[2].conversationBreak); // break phrase, case-insensitive
        QCOMPARE(s[2].breakRule, BreakRule::Phrase);
        {
            const Reasons r = reasonsFor(s[2], o); // base, after_assistant, the break, topic change
            const auto brk = std::find_if(r.begin(), r.end(), [](const Reason &x) { return x.rule == "conversation_break"; });
            QVERIFY(brk != r.end());
            QCOMPARE(brk->detail, std::string("moving on"));
            QCOMPARE(brk->text, std::string_view("conversation break: break phrase"));
        }
        QVERIFY(!s[1].conversationBreak);
        QVERIFY(hasRule(reasonsFor(s[4], o), "pair_spans_cut"));            // cut 5: A (4) answered at 6
        QVERIFY(hasRule(reasonsFor(s[5], o), "tool_sequence_call_result")); // cut 6
        QCOMPARE(s[7].sequence, SequenceRule::Chained);                     // cut 8
        QCOMPARE(s[7].chainedId, std::string_view("call_7"));
        QVERIFY(hasRule(reasonsFor(s[7], o), "tool_sequence_chained"));
        QVERIFY(!s[3].inToolSequence); // cut 4: before the calls
    }

    void boundarySearchWindowAndTies()
    {
        AnalysisOptions o;
        auto scores = [](std::size_t n) {
            std::vector<BoundaryScore> s(n - 1);
            for (std::size_t i = 0; i + 1 < n; ++i) {
                s[i].position = i + 1;
                s[i].score = 100;
            }
            return s;
        };
        // n = 30: target 15, range [max(10, 10), min(25, 20)] = [10, 20].
        auto s = scores(30);
        s[12 - 1].score = 200;
        s[18 - 1].score = 200;
        s[9 - 1].score = 500;  // outside
        s[21 - 1].score = 500; // outside
        QCOMPARE(findCompactionBoundary(s, 30, o).value(), std::size_t(12));
        // All equal: the first of the range.
        QCOMPARE(findCompactionBoundary(scores(30), 30, o).value(), std::size_t(10));
        // n = 14: target 7, range [10, 9] is empty.
        QVERIFY(!findCompactionBoundary(scores(14), 14, o));
        // n = 22: target 11, range [10, 16]; 17 is outside.
        auto s22 = scores(22);
        s22[17 - 1].score = 300;
        s22[16 - 1].score = 200;
        QCOMPARE(findCompactionBoundary(s22, 22, o).value(), std::size_t(16));
    }

    void priorityClasses()
    {
        Builder b;
        b.add(Role::System, "You are helpful");                    // 0 sacred
        b.add(Role::User, "first request");                        // 1 medium old_user_request
        b.use("", "r1", "Read", {{"file_path", "/big"}});          // 2 low
        b.result("r1", "big file").cache.tokenEstimate = 3007;     // 3 lowest (3000 > 2000)
        b.use("", "r2", "Bash", {{"command", "make"}});            // 4 low
        b.result("r2", "failed", true);                            // 5 medium error_result
        b.add(Role::User, "second request");                       // 6 critical
        Message &m7 = b.use("", "r3", "Grep", {{"pattern", "x"}}); // 7 low
        Block extra = m7.blocks.back();
        extra.toolId = "r4";
        m7.blocks.push_back(extra);
        b.result("r3", "hit");                          // 8 high
        b.result("r4", "hit");                          // 9 high
        b.use("", "r5", "Glob", {{"pattern", "*"}});    // 10 low
        b.result("r5", "files");                        // 11 high
        b.add(Role::Assistant, "done");                 // 12 low
        b.add(Role::User, "third");                     // 13 critical
        b.add(Role::User, "fourth");                    // 14 critical
        b.use("", "r6", "Read", {{"file_path", "/x"}}); // 15 critical (last assistant)
        b.result("r6", "x");                            // 16 high
        Transcript &t = b.done();
        const auto p = priorities(t, conversationView(t), AnalysisOptions{});
        const Priority expected[] = {Priority::Sacred, Priority::Medium, Priority::Low, Priority::Lowest, Priority::Low,
                                     Priority::Medium, Priority::Critical, Priority::Low, Priority::High, Priority::High, Priority::Low, Priority::High,
                                     Priority::Low, Priority::Critical, Priority::Critical, Priority::Critical, Priority::High};
        for (std::size_t i = 0; i < 17; ++i)
            QVERIFY2(p[i].priority == expected[i], (std::to_string(i) + ": " + std::string(priorityName(p[i].priority))).c_str());
        QCOMPARE(p[3].rule, std::string_view("large_read"));
        QCOMPARE(p[5].rule, std::string_view("error_result"));
        QCOMPARE(p[15].rule, std::string_view("last_assistant_message"));
        QCOMPARE(p[3].blocks.size(), std::size_t(1));
        QVERIFY(p[3].blocks[0] == Priority::Lowest);
    }

    void importanceScores()
    {
        const std::int64_t T = 1'700'000'000'000;
        Builder b;
        b.add(Role::User, "hi");                                             // 0
        b.add(Role::User, "Remember: always run the tests", T - 40 * 60000); // 1
        b.use("ok", "b1", "Bash", {{"command", "ls"}}, T - 25 * 60000);      // 2
        b.result("b1", "command failed: boom", true, T);                     // 3
        Transcript &t = b.done();
        const auto im = importance(t, conversationView(t), AnalysisOptions{});
        // 0: 0.5 + 0.2 user - 0.1 short = 0.6; points 30 (no timestamp: no recency).
        QVERIFY(std::abs(im[0].score - 0.6) < 1e-9);
        QCOMPARE(im[0].points, 30);
        // 1: 0.5 + 0.2 user + 0.2 keyword = 0.9; points 30 + max(0, 30 - 40) = 30.
        QVERIFY(std::abs(im[1].score - 0.9) < 1e-9);
        QCOMPARE(im[1].points, 30);
        QVERIFY(hasRule(reasonsFor(im[1], AnalysisOptions{}), "keyword"));
        // 2: 0.5 + 0.1 command - 0.1 short ("ok") = 0.5; points 20 code + 5 recency + 40 referenced = 65.
        QVERIFY(std::abs(im[2].score - 0.5) < 1e-9);
        QCOMPARE(im[2].points, 65);
        QVERIFY(hasRule(pointReasonsFor(im[2]), "referenced_later"));
        {
            const PointReasons pr = pointReasonsFor(im[2]); // code 20, recency 30 - 25 = 5, referenced 40
            QCOMPARE(pr.size(), std::size_t(3));
            QCOMPARE(pr[1].rule, std::string_view("recency"));
            QCOMPARE(pr[1].points, 5.0);
            QCOMPARE(pr[1].detail, std::string("25 min before the last message"));
            const Reasons r = reasonsFor(im[1], AnalysisOptions{});
            QCOMPARE(r[2].detail, std::string("remember"));
        }
        // 3: 0.5 - 0.2 tool result = 0.3 (20 chars, not short) -> important at 0.3; points 50 + 30 = 80.
        QVERIFY(std::abs(im[3].score - 0.3) < 1e-9);
        QVERIFY(im[3].important);
        QCOMPARE(im[3].points, 80);
    }

    void featuresAndRules()
    {
        Builder b;
        b.add(Role::System, "s").cache.tokenEstimate = 100;
        b.add(Role::User, "u").cache.tokenEstimate = 50;
        b.add(Role::Assistant, "a").cache.tokenEstimate = 400;
        b.result("x", "r").cache.tokenEstimate = 200;
        b.add(Role::User, "u").cache.tokenEstimate = 150;
        b.add(Role::Assistant, "a").cache.tokenEstimate = 100;
        Transcript &t = b.done();
        const Features f = features(t, conversationView(t), 700);
        QCOMPARE(f.totalTokens, std::int64_t(1000));
        QCOMPARE(f.recentTokens, std::int64_t(900));
        QVERIFY(std::abs(f.recentRatio - 0.9) < 1e-9);
        QVERIFY(std::abs(f.compressionRatio - 0.7) < 1e-9);
        QVERIFY(std::abs(f.avgMessageLength - 1000.0 / 6) < 1e-9);
        QCOMPARE(f.severity, std::string("moderate"));
        QVERIFY(f.hasLongMessages && f.hasSystem && f.hasTool);

        AnalysisOptions o;
        auto rec = [&o](const char *sev, std::size_t n, double recent, bool lng, bool tool, const std::string &model = "x") {
            Features g;
            g.severity = sev;
            g.totalMessages = n;
            g.recentRatio = recent;
            g.hasLongMessages = lng;
            g.hasTool = tool;
            return recommend(g, model, Format::Unknown, o);
        };
        auto r = rec("light", 10, 0.1, false, false);
        QCOMPARE(r.strategy, std::string("middle"));
        QCOMPARE(r.confidence, 0.8);
        QCOMPARE(rec("heavy", 31, 0.1, false, false).strategy, std::string("oldest"));
        QCOMPARE(rec("heavy", 31, 0.1, false, false).confidence, 0.9);
        QCOMPARE(rec("moderate", 10, 0.5, false, false).rule, std::string("recent_heavy"));
        QCOMPARE(rec("moderate", 10, 0.1, true, false).strategy, std::string("oldest"));
        QCOMPARE(rec("heavy", 10, 0.1, false, true).rule, std::string("tool_or_system"));
        r = rec("heavy", 10, 0.1, false, false);
        QCOMPARE(r.strategy, std::string("adaptive"));
        QCOMPARE(r.adaptiveReason, std::string("no_rule_fired"));
        // Provider table: Anthropic decides; GPT-4 is hybrid and defers to the features.
        r = rec("heavy", 10, 0.1, false, false, "claude-opus-4-1");
        QCOMPARE(r.strategy, std::string("oldest"));
        QCOMPARE(r.rule, std::string("provider"));
        QCOMPARE(rec("light", 10, 0.1, false, false, "gpt-4o").strategy, std::string("middle"));
        QCOMPARE(rec("light", 10, 0.1, false, false, "o1-preview").strategy, std::string("middle"));
        o.minConfidence = 0.65;
        r = rec("moderate", 10, 0.1, true, false, "gpt-4o");
        QCOMPARE(r.strategy, std::string("adaptive"));
        QCOMPARE(r.adaptiveReason, std::string("low_confidence"));
    }

    void usageAndWindows()
    {
        const std::vector<double> bands{0.40, 0.60, 0.80, 0.95};
        QCOMPARE(usageBand(0.39, bands), std::string("none"));
        QCOMPARE(usageBand(0.40, bands), std::string("snip"));
        QCOMPARE(usageBand(0.60, bands), std::string("microcompact"));
        QCOMPARE(usageBand(0.80, bands), std::string("auto_compact"));
        QCOMPARE(usageBand(0.95, bands), std::string("hard_truncate"));
        const auto w = defaultWindowTable();
        QCOMPARE(contextWindowFor("gpt-4o-mini", w), std::int64_t(128000));
        QCOMPARE(contextWindowFor("gpt-4.1-mini", w), std::int64_t(1047576));
        QCOMPARE(contextWindowFor("claude-opus-4-1", w), std::int64_t(200000));
        QCOMPARE(contextWindowFor("gemini-2.5-pro", w), std::int64_t(1048576));
        QCOMPARE(contextWindowFor("unknown-model", w), std::int64_t(0));
        auto providers = defaultProviderTable();
        auto windows = w;
        std::string error;
        QVERIFY(loadTables(nlohmann::json::parse(R"({"windows":[{"pattern":"my-model","window":32000}]})"), providers, windows, error));
        QCOMPARE(contextWindowFor("my-model-7b", windows), std::int64_t(32000));
        QCOMPARE(providers.size(), defaultProviderTable().size());
        QVERIFY(!loadTables(nlohmann::json::parse(R"({"providers":[{"pattern":1}]})"), providers, windows, error));
    }

    void factsAndCriticalTools()
    {
        Builder b;
        b.add(Role::User, "Fix the build");                                                                                         // 0
        b.use("", "1", "Read", {{"file_path", "/src/a.cpp"}});                                                                      // 1
        b.result("1", "code");                                                                                                      // 2
        b.use("", "2", "Edit", {{"file_path", "/src/a.cpp"}, {"old_string", "a"}, {"new_string", "b"}});                            // 3
        b.result("2", "ok");                                                                                                        // 4
        b.use("", "3", "Bash", {{"command", "npm install && make"}});                                                               // 5
        b.result("3", "make: *** [all] Error 2\nmore", true);                                                                       // 6
        b.use("", "4", "shell", {{"command", {"bash", "-lc", "git commit -m x"}}});                                                 // 7
        b.result("4", "ok");                                                                                                        // 8
        b.use("", "5", "apply_patch", "*** Begin Patch\n*** Update File: src/b.py\n@@\n*** Add File: src/c.py\n+x\n*** End Patch"); // 9
        b.result("5", "ok");                                                                                                        // 10
        b.use("", "6", "read_file", {{"absolute_path", "/x/y.md"}});                                                                // 11
        b.result("6", "text");                                                                                                      // 12
        b.add(Role::User, "Now run tests");                                                                                         // 13
        b.use("Running them now.", "7", "run_shell_command", {{"command", "ctest"}});                                               // 14
        Transcript &t = b.done();
        const auto v = conversationView(t);
        const Facts f = facts(t, v);
        QCOMPARE(f.userRequests.size(), std::size_t(2));
        QCOMPARE(f.filesRead, (std::vector<std::string>{"/src/a.cpp", "/x/y.md"}));
        QCOMPARE(f.filesModified, (std::vector<std::string>{"/src/a.cpp", "src/b.py", "src/c.py"}));
        QCOMPARE(f.commands.size(), std::size_t(3));
        QCOMPARE(f.commands[0].second, std::string("npm install && make"));
        QCOMPARE(f.commands[1].second, std::string("git commit -m x"));
        QCOMPARE(f.commands[2].second, std::string("ctest"));
        QCOMPARE(f.errors.size(), std::size_t(1));
        QCOMPARE(f.errors[0].second, std::string("make: *** [all] Error 2"));
        QCOMPARE(f.pendingTask, std::string("Now run tests"));
        QCOMPARE(f.pendingTaskIndex, 13);
        QCOMPARE(f.currentWork, std::string("Running them now."));

        const auto rounds = toolRounds(t, v);
        QCOMPARE(rounds.size(), std::size_t(7));
        QCOMPARE(rounds[0].chain, std::size_t(0));
        QCOMPARE(rounds[5].chain, std::size_t(0));
        QCOMPARE(rounds[6].chain, std::size_t(1)); // after "Now run tests"
        QVERIFY(rounds[2].failed);
        QCOMPARE(std::vector<std::size_t>(rounds[0].results.begin(), rounds[0].results.end()), (std::vector<std::size_t>{2}));

        const auto c = criticalTools(t, rounds, AnalysisOptions{});
        std::vector<std::string> cats;
        for (const auto &x : c)
            cats.push_back(x.toolName + ":" + x.category);
        QCOMPARE(cats, (std::vector<std::string>{"Edit:file_modification", "Bash:system_change", "Bash:error_context",
                                                 "shell:system_change", "apply_patch:file_modification"}));
    }

    void sampleFile()
    {
        const std::string path = std::string(CL_SAMPLES_DIR) + "/claude-code/viewer-sample-small.jsonl";
        CL_REQUIRE(std::filesystem::exists(path), "samples not present");
        const auto r = loadFile(path);
        QVERIFY(r.ok());
        const Analysis a = analyze(*r.transcript);
        // The sample writes CLAUDE.md with one Write call and runs two Bash commands (checked in the file).
        QCOMPARE(a.facts.filesModified, (std::vector<std::string>{"/path/to/Demo/CLAUDE.md"}));
        QCOMPARE(a.facts.commands.size(), std::size_t(2));
        bool write = false;
        for (const auto &c : a.critical)
            write = write || (c.toolName == "Write" && c.category == "file_modification");
        QVERIFY(write);
        QCOMPARE(a.boundaries.size(), a.view.size() - 1);
        QCOMPARE(a.recommendation.strategy, std::string("oldest")); // claude model
        QCOMPARE(a.usage.window, std::int64_t(200000));
    }

    void cliJson()
    {
        const std::string dir = QDir::tempPath().toStdString() + "/tst_analysis_cli";
        std::filesystem::create_directories(dir);
        const std::string path = dir + "/gen.jsonl";
        gen::Options g;
        g.messages = 200;
        {
            std::ofstream(path, std::ios::binary) << gen::generate(g);
        }
        std::string out, err;
        const int rc = cli::run({"analyze", path, "--json", "--window", "100000"}, out, err);
        QVERIFY2(rc == 0 || rc == 1, err.c_str());
        const auto j = nlohmann::json::parse(out);
        for (const char *k : {"toolRounds", "boundary", "priorities", "importance", "features", "recommendation", "zones",
                              "needsCompaction", "usage", "facts"})
            QVERIFY2(j.contains(k), k);
        QCOMPARE(j["usage"]["window"].get<std::int64_t>(), std::int64_t(100000));
        QVERIFY(j["boundary"]["top"].size() <= 5);
        QVERIFY(!j["boundary"]["chosen"].is_null());
        out.clear();
        QCOMPARE(cli::run({"analyze", path, "--window", "abc"}, out, err), 2);
        std::filesystem::remove_all(dir);
    }
};

QTEST_GUILESS_MAIN(TestAnalysis)
#include "tst_analysis.moc"
