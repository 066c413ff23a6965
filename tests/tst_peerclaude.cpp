// SPDX-License-Identifier: MIT
// The Claude Code (compact, microcompact) and Anthropic API context-editing (clear tool uses, clear
// thinking) policies on small transcripts built here, with expectations worked out by hand from
// each rule; split from tst_peerstrategies.cpp.
#include "strategy_fixture.h"

#include "core/strategy/strategy.h"
#include "core/strategy/editor.h"
#include "core/strategy/summary/summary.h"
#include "core/tokens/estimator.h"
#include "core/model/transcript.h"

#include <QtTest>

using namespace cl;
using namespace cl::strategy;
using namespace cl::test::peerfix;

class TestPeerClaude : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void claudeCompact();
    void microcompact();
    void clearToolUses();
    void clearThinking();
};

void TestPeerClaude::claudeCompact()
{
    const std::string big = repeatLines("big", 5000); // far above 10K tokens
    Transcript t = make(Format::Anthropic,
                        {text(Role::System, "You are a coding agent."), text(Role::User, "Please fix the parser in src"),
                         call("r1", "Read", {{"file_path", "/src/a.cpp"}}), result("r1", "content A v1"),
                         call("r2", "Read", {{"file_path", "/src/b.cpp"}}), result("r2", "content B"),
                         call("r3", "Read", {{"file_path", "/src/a.cpp"}}), result("r3", "content A v2"),
                         call("r4", "Read", {{"file_path", "/src/big.cpp"}}), result("r4", big),
                         text(Role::Assistant, "Done reading.")});
    QVERIFY(tokens::estimateText(big) > 10000);
    Input in(t, window(200000));
    Result below = runNamed("claude-code-compact", in);
    QVERIFY(!below.changed);
    Result r = runNamed("claude-code-compact", in, {{"force", true}, {"instructions", "focus on the parser"}});
    QVERIFY2(r.changed, r.note.c_str());
    QCOMPARE(r.fates[0].fate, Fate::Kept); // system prompt stays
    for (std::size_t i = 1; i < t.messages.size(); ++i)
        QCOMPARE(r.fates[i].fate, Fate::Summarized);
    const auto out = resultMessages(r, t);
    // system, summary, ack, a.cpp (newest read), ack, b.cpp; big.cpp is above 10K tokens.
    QCOMPARE(out.size(), std::size_t(6));
    QCOMPARE(out[1]->kind, MessageKind::CompactSummary);
    const std::string s = out[1]->plainText();
    QVERIFY(s.rfind("This session continues", 0) == 0);
    for (const char *h : {"1. Primary Request and Intent", "2. Key Technical Concepts", "3. Files and Code Sections",
                          "4. Errors and fixes", "5. Problem Solving", "6. All user messages", "7. Pending Tasks",
                          "8. Current Work", "9. Optional Next Step", "focus on the parser", "/src/a.cpp"})
        QVERIFY2(s.find(h) != std::string::npos, h);
    QVERIFY(out[3]->plainText().find("/src/a.cpp") != std::string::npos);
    QVERIFY(out[3]->plainText().find("content A v2") != std::string::npos);
    QVERIFY(out[3]->plainText().find("content A v1") == std::string::npos);
    QVERIFY(out[5]->plainText().find("content B") != std::string::npos);
    QCOMPARE(r.extra["rereadFiles"].size(), std::size_t(2));
    QCOMPARE(r.extra["compactMetadata"]["trigger"].get<std::string>(), std::string("manual"));
    // In the agent's count, as Claude Code records them: the live figure before and after.
    const std::int64_t pre = r.extra["compactMetadata"]["preTokens"].get<std::int64_t>();
    const std::int64_t post = r.extra["compactMetadata"]["postTokens"].get<std::int64_t>();
    QCOMPARE(pre, r.stats.liveBefore);
    std::int64_t conversation = 0;
    for (std::size_t i = 0; i < t.messages.size(); ++i)
        conversation += est(t, i);
    QVERIFY(pre > conversation); // the fixed part is in it
    QVERIFY2(std::abs(double(post - r.stats.liveAfter)) <= 0.02 * double(pre),
             qPrintable(QStringLiteral("%1 vs %2").arg(post).arg(r.stats.liveAfter)));
    QVERIFY2(r.violations.empty(), r.violations.empty() ? "" : r.violations[0].reason.c_str());

    Result one = runNamed("claude-code-compact", in, {{"force", true}, {"maxFiles", 1}});
    QCOMPARE(one.extra["rereadFiles"].size(), std::size_t(1));
    // A total budget below the two small files' size: none fits... each is a few tokens, so 1 token admits none.
    Result none = runNamed("claude-code-compact", in, {{"force", true}, {"maxTotalFileTokens", 1}});
    QCOMPARE(none.extra["rereadFiles"].size(), std::size_t(0));
}

void TestPeerClaude::microcompact()
{
    std::vector<Message> ms{text(Role::User, "look around")};
    const char *tools[] = {"Read", "Read", "Grep", "Read", "Read", "Read", "Custom"};
    for (int k = 0; k < 7; ++k) {
        const std::string id = "t" + std::to_string(k);
        ms.push_back(call(id, tools[k], {{"file_path", "/f" + std::to_string(k)}}));
        ms.push_back(result(id, repeatLines(tools[k], 40)));
    }
    ms.push_back(text(Role::Assistant, "ok"));
    Transcript t = make(Format::ClaudeCode, ms);
    Input in(t, window(200000));
    Result below = runNamed("claude-code-microcompact", in);
    QVERIFY(!below.changed);
    QVERIFY(below.note.find("below trigger") != std::string::npos);
    Result r = runNamed("claude-code-microcompact", in, {{"triggerTokens", 0}, {"minSavings", 0}});
    QVERIFY2(r.changed, r.note.c_str());
    // 6 compactable results (messages 2,4,6,8,10,12); the last 3 (8,10,12) stay; Custom (14) is never touched.
    for (std::size_t i : {2, 4, 6})
        QCOMPARE(r.fates[i].fate, Fate::Microcompacted);
    for (std::size_t i : {8, 10, 12, 14})
        QCOMPARE(r.fates[i].fate, Fate::Kept);
    QCOMPARE(r.extra["microcompactMetadata"]["compactedToolIds"], nlohmann::json({"t0", "t1", "t2"}));
    QVERIFY(r.extra["microcompactMetadata"]["tokensSaved"].get<std::int64_t>() > 0);
    QVERIFY(r.violations.empty());
    Result r1 = runNamed("claude-code-microcompact", in, {{"triggerTokens", 0}, {"minSavings", 0}, {"keepRecent", 1}});
    QCOMPARE(r1.extra["microcompactMetadata"]["compactedToolIds"].size(), std::size_t(5));
    Result lazy = runNamed("claude-code-microcompact", in, {{"triggerTokens", 0}, {"minSavings", 100000000}});
    QVERIFY(!lazy.changed);
    QVERIFY(lazy.note.find("not worth it") != std::string::npos);
}

void TestPeerClaude::clearToolUses()
{
    std::vector<Message> ms{text(Role::User, "start")};
    const char *tools[] = {"Read", "Bash", "Read", "Read", "Bash", "Read"};
    for (int k = 0; k < 6; ++k) {
        const std::string id = "u" + std::to_string(k);
        ms.push_back(call(id, tools[k], {{"command", "cat /f" + std::to_string(k)}}));
        ms.push_back(result(id, repeatLines(tools[k], 20)));
    }
    ms.push_back(text(Role::Assistant, "done"));
    Transcript t = make(Format::Anthropic, ms);
    Input in(t, window(200000));
    Result below = runNamed("anthropic-clear-tool-uses", in);
    QVERIFY(!below.changed);
    // keep 3: uses 0,1,2 are candidates (results at 2,4,6); Bash (use 1, result 4) is excluded.
    Result r = runNamed("anthropic-clear-tool-uses", in,
                        {{"triggerTokens", 0}, {"excludeTools", nlohmann::json::array({"Bash"})}, {"clearToolInputs", true}});
    QVERIFY2(r.changed, r.note.c_str());
    QCOMPARE(r.fates[2].fate, Fate::Cleared);
    QCOMPARE(r.fates[4].fate, Fate::Kept);
    QCOMPARE(r.fates[6].fate, Fate::Cleared);
    QCOMPARE(r.fates[8].fate, Fate::Kept);
    QCOMPARE(r.fates[1].fate, Fate::Cleared); // input cleared
    QCOMPARE(r.fates[3].fate, Fate::Kept);
    QCOMPARE(r.extra["cacheInvalidatedFrom"].get<int>(), 1);
    const Transcript out = r.materialize(t);
    QCOMPARE(out.messages[2].blocks[0].text, std::string("[Tool result cleared by context editing]"));
    QVERIFY(out.messages[1].blocks[0].input.empty());
    QVERIFY(r.violations.empty());
    // Inputs only for Read via the list form; results cleared for all candidates when nothing is excluded.
    Result list = runNamed("anthropic-clear-tool-uses", in,
                           {{"triggerTokens", 0}, {"clearToolInputsFor", nlohmann::json::array({"Bash"})}});
    QCOMPARE(list.fates[3].fate, Fate::Cleared); // Bash input
    QCOMPARE(list.fates[1].fate, Fate::Kept);    // Read input untouched
    QCOMPARE(list.extra["cacheInvalidatedFrom"].get<int>(), 2);
    Result few = runNamed("anthropic-clear-tool-uses", in, {{"triggerTokens", 0}, {"clearAtLeast", 100000000}});
    QVERIFY(!few.changed);
    QVERIFY(few.note.find("clear_at_least") != std::string::npos);
    // Trigger by tool uses: 6 uses > 5.
    Result uses = runNamed("anthropic-clear-tool-uses", in, {{"triggerToolUses", 5}});
    QVERIFY(uses.changed);
    Result notYet = runNamed("anthropic-clear-tool-uses", in, {{"triggerToolUses", 6}});
    QVERIFY(!notYet.changed);
}

void TestPeerClaude::clearThinking()
{
    auto thinking = [](std::string thought, std::string answer) {
        Message m = text(Role::Assistant, std::move(answer));
        Block b;
        b.type = BlockType::Thinking;
        b.text = std::move(thought);
        m.blocks.insert(m.blocks.begin(), std::move(b));
        return m;
    };
    Transcript t = make(Format::Anthropic, {text(Role::User, "q1"), thinking("think one about it", "a1"),
                                            text(Role::User, "q2"), thinking("think two about it", "a2"),
                                            text(Role::User, "q3"), thinking("think three about it", "a3")});
    Input in(t, window(200000));
    Result r = runNamed("anthropic-clear-thinking", in);
    QVERIFY(r.changed);
    QCOMPARE(r.fates[1].fate, Fate::Cleared);
    QCOMPARE(r.fates[3].fate, Fate::Cleared);
    QCOMPARE(r.fates[5].fate, Fate::Kept);
    const Transcript out = r.materialize(t);
    QCOMPARE(out.messages[1].blocks.size(), std::size_t(1));
    QCOMPARE(out.messages[1].blocks[0].text, std::string("a1"));
    QCOMPARE(out.messages[5].blocks.size(), std::size_t(2));
    QVERIFY(r.violations.empty());
    QCOMPARE(runNamed("anthropic-clear-thinking", in, {{"keepTurns", 2}}).fates[3].fate, Fate::Kept);
    QCOMPARE(runNamed("anthropic-clear-thinking", in, {{"keepTurns", 0}}).fates[5].fate, Fate::Cleared);
    QVERIFY(!runNamed("anthropic-clear-thinking", in, {{"keepAll", true}}).changed);
}

QTEST_GUILESS_MAIN(TestPeerClaude)
#include "tst_peerclaude.moc"
