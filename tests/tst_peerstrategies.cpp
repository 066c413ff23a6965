// SPDX-License-Identifier: MIT
// The peer policies (docs/design/agents.md) on small transcripts built here, with expectations worked out by
// hand from each agent's rules: split points, kept counts, placeholders, budgets, orphan counts.
// The Claude Code and Anthropic API policies are in tst_peerclaude.cpp; the builders in
// strategy_fixture.h.
#include "strategy_fixture.h"

#include "core/strategy/strategy.h"
#include "core/strategy/editor.h"
#include "core/strategy/summary/summary.h"
#include "core/tokens/estimator.h"
#include "core/model/transcript.h"
#include "core/strategies/registry.h"

#include <QtTest>

using namespace cl;
using namespace cl::strategy;
using namespace cl::test::peerfix;

class TestPeerStrategies : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void registered();
    void geminiSplit();
    void geminiRejects();
    void codexBudget();
    void langchainLast();
    void langchainFirst();
    void langchainAnthropicStart();
    void openhandsAmortized();
    void openhandsMasking();
    void cline();
    void sweAgent();
    void summaryStyles();
    void copilotCli();
};

void TestPeerStrategies::registered()
{
    for (const char *n : {"gemini-cli", "claude-code-compact", "claude-code-microcompact", "anthropic-clear-tool-uses",
                          "anthropic-clear-thinking", "codex", "langchain-trim-first", "langchain-trim-last",
                          "openhands-amortized", "openhands-observation-masking", "cline", "swe-agent", "qwen-code",
                          "qwen-code-clear-tool-results", "copilot-cli"}) {
        const Strategy *s = find(n);
        QVERIFY2(s, n);
        QVERIFY(!s->description().empty());
        QVERIFY(s->source().rfind("peer:", 0) == 0);
    }
}

// Ten turns of 1000 characters each: about 1038 JSON characters per turn, 10385 in all. 70 % is
// 7270: before turn 6 lie ~6231 characters (too few), before turn 8 ~8308, so the split is turn 8.
// With preserveFraction 0.5 the target is 5192: turn 4 has ~4154 before it, turn 6 ~6231 -> 6.
void TestPeerStrategies::geminiSplit()
{
    std::vector<Message> ms;
    for (int k = 0; k < 10; ++k)
        ms.push_back(text(k % 2 ? Role::Assistant : Role::User, std::string(1000, k % 2 ? 'b' : 'a')));
    Transcript t = make(Format::GeminiCli, ms);
    {
        Input in(t, window(10000000));
        Result r = runNamed("gemini-cli", in);
        QVERIFY(!r.changed);
        QVERIFY2(r.note.find("below trigger") != std::string::npos, r.note.c_str());
    }
    Input in(t, window(1000));
    Result r = runNamed("gemini-cli", in);
    QVERIFY2(r.changed, r.note.c_str());
    QCOMPARE(r.extra["splitTurn"].get<int>(), 8);
    for (std::size_t i = 0; i < 8; ++i)
        QCOMPARE(r.fates[i].fate, Fate::Summarized);
    QCOMPARE(r.fates[8].fate, Fate::Kept);
    QCOMPARE(r.fates[9].fate, Fate::Kept);
    const auto out = resultMessages(r, t);
    QCOMPARE(out.size(), std::size_t(4));
    QCOMPARE(out[0]->kind, MessageKind::CompactSummary);
    QCOMPARE(out[0]->role, Role::User);
    QVERIFY(out[0]->plainText().rfind("<state_snapshot>", 0) == 0);
    QCOMPARE(out[1]->role, Role::Assistant);
    QVERIFY(r.violations.empty());
    // Tokens: the kept tail plus the two inserted messages.
    const std::int64_t after = est(t, 8) + est(t, 9) + tokens::estimateMessage(*out[0]) + tokens::estimateMessage(*out[1]);
    QCOMPARE(r.stats.tokensAfter, after);

    Result half = runNamed("gemini-cli", in, {{"preserveFraction", 0.5}});
    QCOMPARE(half.extra["splitTurn"].get<int>(), 6);

    // A tool result at the would-be split is skipped: turn 8 becomes a functionResponse, turn 7 its call.
    ms[7] = call("c1", "read_file", {{"absolute_path", "/x"}});
    ms[8] = result("c1", std::string(1000, 'r'));
    Transcript t2 = make(Format::GeminiCli, ms);
    Input in2(t2, window(1000));
    Result r2 = runNamed("gemini-cli", in2);
    // No clean user turn after 70 %, and the last turn is a model answer: everything is compressed.
    QCOMPARE(r2.extra["splitTurn"].get<int>(), 10);
    QVERIFY(r2.violations.empty());
}

void TestPeerStrategies::geminiRejects()
{
    Transcript t = make(Format::GeminiCli, {text(Role::User, "hi"), text(Role::Assistant, "ok"), text(Role::User, "go"),
                                            text(Role::Assistant, "done")});
    Input in(t, window(1000));
    Result r = runNamed("gemini-cli", in, {{"force", true}});
    QVERIFY(!r.changed);
    QVERIFY2(r.note.find("rejected") != std::string::npos, r.note.c_str());
}

void TestPeerStrategies::codexBudget()
{
    const std::string u2 = repeatLines("second", 30);
    const std::string u3 = "third request: run the tests";
    Transcript t = make(Format::Codex, {text(Role::System, "developer instructions"),
                                        text(Role::User, "<environment_context>cwd=/w</environment_context>"),
                                        text(Role::User, "first request " + repeatLines("first", 10)),
                                        text(Role::Assistant, "answer one"), text(Role::User, u2),
                                        call("c1", "shell", {{"command", "ls"}}), result("c1", "a\nb"),
                                        text(Role::Assistant, "answer two"), text(Role::User, u3),
                                        text(Role::Assistant, "answer three")});
    const std::int64_t t3 = tokens::estimateText(u3), t2 = tokens::estimateText(u2);
    const std::int64_t budget = t3 + t2 / 2;
    Input in(t, window(200000));
    QVERIFY(!runNamed("codex", in).changed);
    Result r = runNamed("codex", in, {{"force", true}, {"userMessageBudget", budget}});
    QVERIFY2(r.changed, r.note.c_str());
    QCOMPARE(r.fates[0].fate, Fate::Kept);
    QCOMPARE(r.fates[1].fate, Fate::Kept);
    QCOMPARE(r.fates[2].fate, Fate::Summarized); // oldest request: beyond the budget
    QCOMPARE(r.fates[4].fate, Fate::Snipped);    // overflowing one, truncated
    QCOMPARE(r.fates[8].fate, Fate::Kept);
    for (std::size_t i : {3, 5, 6, 7, 9})
        QCOMPARE(r.fates[i].fate, Fate::Summarized);
    const auto out = resultMessages(r, t);
    QCOMPARE(out.size(), std::size_t(5));
    const std::string cut = out[2]->plainText();
    const std::string marker = "\n[… older part of this message truncated]";
    QVERIFY(cut.size() > marker.size());
    QVERIFY(cut.compare(cut.size() - marker.size(), marker.size(), marker) == 0);
    QVERIFY(u2.rfind(cut.substr(0, cut.size() - marker.size()), 0) == 0);
    QVERIFY(tokens::estimateText(cut) <= budget - t3);
    QCOMPARE(out[3]->plainText(), u3);
    QCOMPARE(out[4]->kind, MessageKind::CompactSummary);
    QVERIFY(out[4]->plainText().rfind("Another language model", 0) == 0);
    QVERIFY(out[4]->plainText().find("## What remains") != std::string::npos);
    QVERIFY(r.violations.empty());
}

// sys, u1, a1 (call X), t1 (result X), a2, u2, a3 with tokens computed here.
static Transcript langchainTranscript(Format f)
{
    return make(f, {text(Role::System, "system prompt"), text(Role::User, "first question about things"),
                    call("X", "Read", {{"file_path", "/a"}}), result("X", repeatLines("out", 5)),
                    text(Role::Assistant, "line one\nline two\nline three"), text(Role::User, "second question"),
                    text(Role::Assistant, "final answer")});
}

void TestPeerStrategies::langchainLast()
{
    Transcript t = langchainTranscript(Format::ClaudeCode);
    Input in(t, window(200000));
    const std::int64_t budget = est(t, 6) + est(t, 5) + est(t, 4) + est(t, 3);
    Result r = runNamed("langchain-trim-last", in, {{"maxTokens", budget}});
    // LangChain keeps t1, a2, u2, a3: t1 answers a call it dropped -> 1 orphan, closed here.
    QCOMPARE(r.extra["langchainOrphans"].get<int>(), 1);
    QCOMPARE(r.fates[3].fate, Fate::Removed);
    for (std::size_t i : {4, 5, 6})
        QCOMPARE(r.fates[i].fate, Fate::Kept);
    for (std::size_t i : {0, 1, 2})
        QCOMPARE(r.fates[i].fate, Fate::Removed);
    QVERIFY(r.violations.empty());
    // start_on human: the kept list starts on u2.
    Result s = runNamed("langchain-trim-last", in, {{"maxTokens", budget}, {"startOn", "human"}});
    QCOMPARE(s.extra["langchainOrphans"].get<int>(), 0);
    QCOMPARE(s.fates[4].fate, Fate::Removed);
    QCOMPARE(s.fates[5].fate, Fate::Kept);
    // include_system: the system message's tokens come off the budget, so t1 no longer fits.
    Result sys = runNamed("langchain-trim-last", in, {{"maxTokens", budget}, {"includeSystem", true}});
    QCOMPARE(sys.fates[0].fate, Fate::Kept);
    QCOMPARE(sys.extra["langchainOrphans"].get<int>(), 0);
    QCOMPARE(sys.fates[3].fate, Fate::Removed);
    QCOMPARE(sys.fates[4].fate, Fate::Kept);
    // allow_partial: room for a3, u2 and one line of a2 ("line three", the last line).
    const std::int64_t room = est(t, 6) + est(t, 5) + tokens::kRoleTokens + tokens::kStructureTokens
                              + tokens::estimateText("line three");
    QVERIFY(room < est(t, 6) + est(t, 5) + est(t, 4));
    Result part = runNamed("langchain-trim-last", in, {{"maxTokens", room}, {"allowPartial", true}});
    QCOMPARE(part.fates[4].fate, Fate::Snipped);
    QCOMPARE(part.materialize(t).messages[part.fates[4].slot].plainText(), std::string("line three"));
}

void TestPeerStrategies::langchainFirst()
{
    Transcript t = langchainTranscript(Format::ClaudeCode);
    Input in(t, window(200000));
    const std::int64_t budget = est(t, 0) + est(t, 1) + est(t, 2);
    Result r = runNamed("langchain-trim-first", in, {{"maxTokens", budget}});
    // LangChain keeps sys, u1, a1: a1's call has no result -> 1 orphan; closing it removes a1.
    QCOMPARE(r.extra["langchainOrphans"].get<int>(), 1);
    QCOMPARE(r.fates[0].fate, Fate::Kept);
    QCOMPARE(r.fates[1].fate, Fate::Kept);
    QCOMPARE(r.fates[2].fate, Fate::Removed);
    QVERIFY(r.violations.empty());
    Result end = runNamed("langchain-trim-first", in, {{"maxTokens", budget}, {"endOn", "human"}});
    QCOMPARE(end.extra["langchainOrphans"].get<int>(), 0);
    // allow_partial on a2 from the front: budget up to t1 plus "line one".
    const std::int64_t room = est(t, 0) + est(t, 1) + est(t, 2) + est(t, 3) + tokens::kRoleTokens
                              + tokens::kStructureTokens + tokens::estimateText("line one\n"); // LangChain's splitter keeps the newline
    Result part = runNamed("langchain-trim-first", in, {{"maxTokens", room}, {"allowPartial", true}});
    QCOMPARE(part.fates[4].fate, Fate::Snipped);
    QCOMPARE(part.materialize(t).messages[part.fates[4].slot].plainText(), std::string("line one"));
    QCOMPARE(part.fates[5].fate, Fate::Removed);
    Result all = runNamed("langchain-trim-first", in);
    QVERIFY(!all.changed); // half of 200K holds everything
}

void TestPeerStrategies::langchainAnthropicStart()
{
    Transcript t = langchainTranscript(Format::Anthropic);
    Input in(t, window(200000));
    const std::int64_t budget = est(t, 6) + est(t, 5) + est(t, 4);
    Result r = runNamed("langchain-trim-last", in, {{"maxTokens", budget}});
    // LangChain starts on a2 (an assistant turn); Anthropic needs a user turn first, so a2 goes.
    QCOMPARE(r.fates[4].fate, Fate::Removed);
    QCOMPARE(r.fates[5].fate, Fate::Kept);
    QVERIFY2(r.violations.empty(), r.violations.empty() ? "" : r.violations[0].reason.c_str());
}

void TestPeerStrategies::openhandsAmortized()
{
    std::vector<Message> ms;
    for (int k = 0; k < 130; ++k)
        ms.push_back(text(k % 2 ? Role::Assistant : Role::User, "event " + std::to_string(k)));
    Transcript t = make(Format::ClaudeCode, ms);
    Input in(t, window(200000));
    Result r = runNamed("openhands-amortized", in);
    // 130 > 120: keep 4 + 56 = 60; positions 4..73 go.
    QCOMPARE(r.stats.messagesAfter, std::size_t(60));
    QCOMPARE(r.fates[3].fate, Fate::Kept);
    QCOMPARE(r.fates[4].fate, Fate::Removed);
    QCOMPARE(r.fates[73].fate, Fate::Removed);
    QCOMPARE(r.fates[74].fate, Fate::Kept);
    // With a summary: 4 + summary + 55; positions 4..74 summarized; position 75 is an assistant turn,
    // so no acknowledgement is needed.
    Result s = runNamed("openhands-amortized", in, {{"summarize", true}});
    QCOMPARE(s.stats.messagesAfter, std::size_t(60));
    QCOMPARE(s.fates[74].fate, Fate::Summarized);
    QCOMPARE(s.fates[75].fate, Fate::Kept);
    QCOMPARE(resultMessages(s, t)[4]->kind, MessageKind::CompactSummary);
    // A call at 73 answered at 74 (the first tail event): the orphaned result goes too.
    ms[73] = call("p", "Read", {{"file_path", "/p"}});
    ms[74] = result("p", "text");
    Transcript t2 = make(Format::ClaudeCode, ms);
    Input in2(t2, window(200000));
    Result p = runNamed("openhands-amortized", in2);
    QCOMPARE(p.fates[74].fate, Fate::Removed);
    QCOMPARE(p.stats.messagesAfter, std::size_t(59));
    QCOMPARE(p.extra["pairDrops"].get<int>(), 1);
    QVERIFY(p.violations.empty());
    Transcript small = make(Format::ClaudeCode, {text(Role::User, "a"), text(Role::Assistant, "b")});
    Input in3(small, window(200000));
    QVERIFY(!runNamed("openhands-amortized", in3).changed);
}

void TestPeerStrategies::openhandsMasking()
{
    std::vector<Message> ms;
    for (int k = 0; k < 110; ++k)
        ms.push_back(text(k % 2 ? Role::Assistant : Role::User, "event " + std::to_string(k)));
    for (int k : {4, 49, 104}) {
        ms[std::size_t(k)] = call("m" + std::to_string(k), "Bash", {{"command", "ls"}});
        ms[std::size_t(k) + 1] = result("m" + std::to_string(k), "file list");
    }
    Transcript t = make(Format::ClaudeCode, ms);
    Input in(t, window(200000));
    Result r = runNamed("openhands-observation-masking", in);
    // Positions below 110 - 100 = 10: only the result at 5.
    QCOMPARE(r.fates[5].fate, Fate::Cleared);
    QCOMPARE(r.fates[50].fate, Fate::Kept);
    QCOMPARE(r.fates[105].fate, Fate::Kept);
    QCOMPARE(r.materialize(t).messages[5].blocks[0].text, std::string("<MASKED>"));
    Result wide = runNamed("openhands-observation-masking", in, {{"attentionWindow", 10}});
    QCOMPARE(wide.fates[50].fate, Fate::Cleared);
    QCOMPARE(wide.fates[105].fate, Fate::Kept);
}

void TestPeerStrategies::cline()
{
    std::vector<Message> ms{text(Role::System, "sys")};
    for (int k = 0; k < 20; ++k)
        ms.push_back(text(k % 2 ? Role::Assistant : Role::User, "message " + std::to_string(k)));
    Transcript t = make(Format::Anthropic, ms);
    {
        Input in(t, window(64000));
        Result r = runNamed("cline", in);
        QVERIFY(!r.changed);
        QVERIFY2(r.note.find("37000") != std::string::npos, r.note.c_str()); // 64K - 27K
    }
    Input in(t, window(200)); // max(200 - 40K, 160) = 160 < total
    Result r = runNamed("cline", in);
    QVERIFY2(r.changed, r.note.c_str());
    // 20 messages, rest 18: floor(18 / 4) * 2 = 8 removed: apiMessages 2..9 (transcript 3..10), 9 is an assistant.
    QCOMPARE(r.extra["deletedRange"], nlohmann::json({2, 9}));
    for (std::size_t i = 3; i <= 10; ++i)
        QCOMPARE(r.fates[i].fate, Fate::Removed);
    QCOMPARE(r.fates[1].fate, Fate::Kept);
    QCOMPARE(r.fates[2].fate, Fate::Kept);
    QCOMPARE(r.fates[11].fate, Fate::Kept);
    QVERIFY(r.violations.empty());
    // quarter: floor(18 * 3 / 4 / 2) * 2 = 12 -> 2..13.
    QCOMPARE(runNamed("cline", in, {{"keep", "quarter"}}).extra["deletedRange"], nlohmann::json({2, 13}));
    // Message 9 a user turn: the range ends one earlier, on the assistant at 8 (7 removed).
    ms[10] = text(Role::User, "extra user turn");
    Transcript t2 = make(Format::ClaudeCode, ms);
    Input in2(t2, window(200));
    QCOMPARE(runNamed("cline", in2).extra["deletedRange"], nlohmann::json({2, 8}));
}

void TestPeerStrategies::sweAgent()
{
    std::vector<Message> ms{text(Role::User, "task")};
    for (int k = 0; k < 8; ++k) {
        const std::string id = "s" + std::to_string(k);
        ms.push_back(call(id, k == 2 ? "keepme" : "bash", {{"command", "ls"}}));
        std::string out;
        for (int l = 0; l <= k; ++l)
            out += "row " + std::to_string(l) + " of a fairly long output line with details\n"; // k + 1 lines
        ms.push_back(result(id, out));
    }
    Transcript t = make(Format::ClaudeCode, ms);
    Input in(t, window(200000));
    Result r = runNamed("swe-agent", in);
    // 8 observations (messages 2,4,...,16); keep the first and the last 5: observations 1 and 2 go.
    QCOMPARE(r.fates[2].fate, Fate::Kept);
    QCOMPARE(r.fates[4].fate, Fate::Cleared);
    QCOMPARE(r.fates[6].fate, Fate::Cleared);
    QCOMPARE(r.fates[8].fate, Fate::Kept);
    const Transcript out = r.materialize(t);
    QCOMPARE(out.messages[4].blocks[0].text, std::string("Old environment output: (2 lines omitted)"));
    QCOMPARE(out.messages[6].blocks[0].text, std::string("Old environment output: (3 lines omitted)"));
    Result tag = runNamed("swe-agent", in, {{"keepOutputTools", "keepme"}, {"removeOutputTools", "nothing,bash"}});
    QCOMPARE(tag.fates[6].fate, Fate::Kept);     // keep_output
    QCOMPARE(tag.fates[16].fate, Fate::Cleared); // remove_output even when recent
    QCOMPARE(tag.fates[2].fate, Fate::Kept);     // the first observation always stays
}

void TestPeerStrategies::summaryStyles()
{
    Transcript t = make(Format::ClaudeCode,
                        {text(Role::User, "Build the importer. You must never touch the database."),
                         call("e1", "Edit", {{"file_path", "/src/imp.cpp"}, {"old_string", "a"}, {"new_string", "b"}}),
                         result("e1", "ok"), call("b1", "Bash", {{"command", "ctest -R importer"}}),
                         result("b1", "1 test failed", true), text(Role::Assistant, "The importer test fails; fixing.")});
    SummaryRequest req;
    req.transcript = &t;
    for (std::size_t i = 0; i < t.messages.size(); ++i)
        req.messages.push_back(i);
    auto summarize = [&](const char *style) {
        req.style = style;
        return ruleSummarizer().summarize(req);
    };
    const Summary g = summarize("gemini");
    for (const char *tag : {"<overall_goal>", "<active_constraints>", "<key_knowledge>", "<artifact_trail>",
                            "<file_system_state>", "<recent_actions>", "<task_state>"})
        QVERIFY2(g.text.find(tag) != std::string::npos, tag);
    QVERIFY(g.text.find("never touch the database") != std::string::npos);
    QVERIFY(g.text.find("MODIFIED: /src/imp.cpp") != std::string::npos);
    const Summary c = summarize("codex");
    for (const char *h : {"## Goal", "## Progress and decisions", "## Constraints and preferences", "## What remains",
                          "## Critical data", "ctest -R importer", "1 test failed"})
        QVERIFY2(c.text.find(h) != std::string::npos, h);
    const Summary o = summarize("openhands");
    for (const char *h : {"USER_CONTEXT:", "COMPLETED:", "PENDING:", "CURRENT_STATE:", "CODE_STATE:", "TESTS:", "ERRORS:"})
        QVERIFY2(o.text.find(h) != std::string::npos, h);
    QVERIFY(o.text.find("ctest -R importer") != std::string::npos);
    const Summary cc = summarize("claude-code");
    QVERIFY(cc.text.find("Bash: 1 test failed") != std::string::npos);
    QCOMPARE(cc.sections["files"], nlohmann::json({"/src/imp.cpp (modified)"}));
}

QTEST_GUILESS_MAIN(TestPeerStrategies)
// Copilot CLI: below 80 % of the prompt limit nothing; above (or forced), the system prompt stays and
// everything else becomes one user message listing both requests as typed, then the summary.
void TestPeerStrategies::copilotCli()
{
    Transcript t = make(Format::CopilotCli, {text(Role::System, "You are a terminal assistant."),
                                             text(Role::User, "Create a.txt with hello"),
                                             call("c1", "bash", {{"command", "echo hello > a.txt"}}),
                                             result("c1", repeatLines("created", 400)),
                                             text(Role::Assistant, "Created a.txt."),
                                             text(Role::User, "Now count its lines"),
                                             text(Role::Assistant, "It has one line.")});
    Input roomy(t, window(10000000));
    QVERIFY(!runNamed("copilot-cli", roomy).changed);
    Input in(t, window(1000));
    const Result r = runNamed("copilot-cli", in);
    QVERIFY2(r.changed, r.note.c_str());
    const auto out = resultMessages(r, t);
    QCOMPARE(out.size(), std::size_t(2));
    QCOMPARE(out[0]->role, Role::System);
    QCOMPARE(out[1]->kind, MessageKind::CompactSummary);
    const std::string summary = out[1]->plainText();
    QVERIFY(summary.find("- Create a.txt with hello\n- Now count its lines\n") != std::string::npos);
    QVERIFY(summary.find("<summary>") != std::string::npos);
    for (std::size_t i = 1; i < t.messages.size(); ++i)
        QCOMPARE(r.fates[i].fate, Fate::Summarized);
    QVERIFY(r.stats.tokensAfter < r.stats.tokensBefore);
}

#include "tst_peerstrategies.moc"
