// SPDX-License-Identifier: MIT
// Seed 003 tiers (snip, snip-seed004, microcompact, auto-compact, hard-truncate, progressive), the
// microcompact extractor, the seed 003 summary, the context manager and the turn-by-turn simulation,
// on small transcripts built here with hand-computed expectations.
#include "core/contextmanager.h"
#include "core/generator.h"
#include "core/loader.h"
#include "core/simulation.h"
#include "core/strategies/extract.h"
#include "core/strategies/tier_ops.h"
#include "core/strategy.h"
#include "core/strategy_edit.h"
#include "core/summary.h"
#include "core/tokens.h"
#include "core/validity.h"
#include "core/writer.h"

#include <QtTest>

#include <random>

using namespace cl;
using namespace cl::strategy;

namespace {

// Distinct words so the estimator's repetition discount stays out of the way.
std::string prose(std::size_t chars, std::uint32_t seed)
{
    static const char *words[] = {"parser", "config", "schema", "value", "token", "module", "render", "buffer",
                                  "stream", "queue", "index", "vector", "signal", "thread", "socket", "layout"};
    std::string s;
    std::uint32_t x = seed * 2654435761u + 1;
    std::size_t line = 0;
    while (s.size() < chars) {
        x = x * 1664525u + 1013904223u;
        s += words[(x >> 16) % 16];
        s += (x >> 8) % 11 == 0 ? "\n" + std::to_string(++line) + " " : std::string(" ");
    }
    s.resize(chars);
    return s;
}

Block use(std::string name, nlohmann::json input, std::string id = "call_1")
{
    Block b;
    b.type = BlockType::ToolUse;
    b.toolName = std::move(name);
    b.input = std::move(input);
    b.toolId = std::move(id);
    return b;
}

Block result(std::string text, bool error = false, std::string id = "call_1")
{
    Block b;
    b.type = BlockType::ToolResult;
    b.text = std::move(text);
    b.isError = error;
    b.toolId = std::move(id);
    return b;
}

// OpenAI chat transcript builder: system prompt, then turns.
struct Builder {
    Transcript t;
    int calls = 0;
    Builder() { t.format = Format::OpenAIChat; }
    std::size_t text(Role r, std::string s)
    {
        Message m = makeTextMessage(r, std::move(s));
        m.edited = false;
        t.messages.push_back(std::move(m));
        return t.messages.size() - 1;
    }
    // assistant call + tool result; returns the result's index
    std::size_t tool(std::string name, nlohmann::json input, std::string out, bool error = false)
    {
        const std::string id = "call_" + std::to_string(++calls);
        Message a;
        a.role = Role::Assistant;
        a.type = "assistant";
        a.blocks.push_back(use(std::move(name), std::move(input), id));
        t.messages.push_back(std::move(a));
        Message r;
        r.role = Role::Tool;
        r.type = "tool";
        r.blocks.push_back(result(std::move(out), error, id));
        t.messages.push_back(std::move(r));
        return t.messages.size() - 1;
    }
    Transcript &done()
    {
        linkToolPairs(t);
        return t;
    }
};

std::int64_t est(const Message &m)
{
    m.tokenEstimate = -1;
    return tokens::estimateMessage(m);
}

std::int64_t total(const Transcript &t)
{
    std::int64_t n = 0;
    for (const auto &m : t.messages)
        n += est(m);
    return n;
}

Message withText(const Message &m, std::size_t block, std::string text)
{
    Message c = m;
    c.blocks[block].text = std::move(text);
    c.tokenEstimate = -1;
    return c;
}

std::string hundredLines(const std::string &first)
{
    std::string s = first;
    for (int k = 0; k < 99; ++k)
        s += "\nline " + std::to_string(k);
    return s;
}

} // namespace

class TestTierStrategies : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void snipTextExact();
    void snipStrategy();
    void extractorLines();
    void microcompactOldestHalfAboveTrigger();
    void autoCompactCutAndSummary();
    void hardTruncateBudget();
    void progressiveRunsTiersOneToThree();
    void progressiveCompactsSnippedFromOriginal();
    void contextManager();
    void simulationOnGeneratedSession();
    void tiersOverEveryFormat_data();
    void tiersOverEveryFormat();
};

void TestTierStrategies::snipTextExact()
{
    const tiers::SnipStyle s3 = tiers::seed003Snip();
    // 10 000 characters: not over the limit.
    QVERIFY(!tiers::snipText(std::string(10000, 'x'), 10000, s3));
    // 3000 h + 4001 m + 3000 t = 10 001: keeps 3000 + 3000, snips 4001.
    const std::string text = std::string(3000, 'h') + std::string(4001, 'm') + std::string(3000, 't');
    const auto out = tiers::snipText(text, 10000, s3);
    QVERIFY(out);
    QCOMPARE(*out, std::string(3000, 'h') + "\n\n[... 4001 characters snipped ...]\n\n" + std::string(3000, 't'));
    // Code points, not bytes: 10 001 two-byte characters are snipped like ASCII ones.
    std::string wide;
    for (int k = 0; k < 10001; ++k)
        wide += k < 3000 ? "é" : k < 7001 ? "中" : "ü";
    std::string wideHead, wideTail;
    for (int k = 0; k < 3000; ++k) {
        wideHead += "é";
        wideTail += "ü";
    }
    QCOMPARE(*tiers::snipText(wide, 10000, s3), wideHead + "\n\n[... 4001 characters snipped ...]\n\n" + wideTail);
    // 10 000 code points in 30 000 bytes: not over the limit.
    std::string cjk;
    for (int k = 0; k < 10000; ++k)
        cjk += "中";
    QVERIFY(!tiers::snipText(cjk, 10000, s3));
    // A boundary falling inside a code point never splits it: head of 3 chars of "a中中中中..." is "a中中".
    QCOMPARE(*tiers::snipText("a中中中中中中中中中中", 10, s3), std::string("a中中\n\n[... 5 characters snipped ...]\n\n中中中"));
    // seed 004: 5000 characters, max 3000: 1500 + 1500 kept, 2000 truncated.
    const std::string long4 = std::string(1500, 'a') + std::string(2000, 'b') + std::string(1500, 'c');
    QCOMPARE(*tiers::snipText(long4, 3000, tiers::seed004Snip()),
             std::string(1500, 'a') + "\n\n... [truncated 2000 characters] ...\n\n" + std::string(1500, 'c'));
}

void TestTierStrategies::snipStrategy()
{
    Builder b;
    b.text(Role::System, "You are a coding agent.");
    b.text(Role::User, "Read the log.");
    const std::string big = prose(12000, 1), small = prose(900, 2);
    const std::size_t r1 = b.tool("Read", {{"file_path", "/var/log/app.log"}}, big);
    const std::size_t r2 = b.tool("Read", {{"file_path", "/src/a.ts"}}, small);
    b.text(Role::Assistant, "The log shows a timeout.");
    Transcript &t = b.done();
    Input in(t);
    const Result r = run(*find("snip"), in);
    QVERIFY(r.changed);
    QCOMPARE(r.fates[r1].fate, Fate::Snipped);
    QVERIFY(r.fates[r1].reason.find("12000 characters > 10000") != std::string::npos);
    QCOMPARE(r.fates[r2].fate, Fate::Kept);
    const std::string expected = big.substr(0, 3000) + "\n\n[... 6000 characters snipped ...]\n\n" + big.substr(9000);
    QCOMPARE(r.message(t, std::size_t(r.fates[r1].slot)).blocks[0].text, expected);
    QCOMPARE(r.note.rfind("snipped 1 tool result(s) over 10000 characters", 0), std::size_t(0));
    QCOMPARE(r.stats.tokensAfter, total(t) - est(t.messages[r1]) + est(withText(t.messages[r1], 0, expected)));
    QVERIFY(r.violations.empty());

    // seed 004 variant: both results over 3000... only the first (the second has 900 chars).
    const Result r4 = run(*find("snip-seed004"), in);
    const std::string expected4 = big.substr(0, 1500) + "\n\n... [truncated 9000 characters] ...\n\n" + big.substr(10500);
    QCOMPARE(r4.message(t, std::size_t(r4.fates[r1].slot)).blocks[0].text, expected4);
    QCOMPARE(r4.fates[r2].fate, Fate::Kept);
    // The snip trigger: at 40 % (the band table) with usage far below, nothing happens unless forced.
    in.options.contextWindow = 1000000;
    QVERIFY(!run(*find("snip"), in, {{"triggerRatio", 0.4}}).changed);
    QVERIFY(run(*find("snip"), in, {{"triggerRatio", 0.4}, {"force", true}}).changed);
}

void TestTierStrategies::extractorLines()
{
    using extract::compactLine;
    // Read of a TypeScript module: the seed's example shape.
    std::string ts = "import { z } from 'zod';\nexport interface Config {\n  name: string;\n}\nexport type Schema = z.infer<typeof s>;\n"
                     "export enum Mode { A, B }\ninterface Internal { x: number }\n"
                     "export function parseConfig(text: string): Config {\n  return JSON.parse(text);\n}\n"
                     "export async function validateSchema(s: Schema) {\n}\nfunction helper() {}\n";
    for (int k = 13; k < 245; ++k)
        ts += "// " + std::to_string(k) + "\n";
    QCOMPARE(compactLine(use("Read", {{"file_path", "/src/utils/parser.ts"}}), result(ts)),
             std::string("[Compacted: Read /src/utils/parser.ts — 245 lines TypeScript, exports parseConfig(), "
                         "validateSchema(), 3 type definitions]"));
    // Claude Code's numbered Read output, Python, no exports: the first 3 definitions + "N more".
    const std::string py = "     1→import os\n     2→def load():\n     3→    pass\n     4→class Store:\n     5→    def get(self):\n"
                           "     6→async def fetch():\n     7→def save():\n";
    QCOMPARE(compactLine(use("Read", {{"file_path", "/app/store.py"}}), result(py)),
             std::string("[Compacted: Read /app/store.py — 7 lines Python, defines load(), Store, get() + 2 more]"));
    QCOMPARE(compactLine(use("Read", {{"file_path", "/nope"}}), result("File does not exist.", true)),
             std::string("[Compacted: Read /nope — failed: File does not exist.]"));
    // Grep: content mode, files mode, nothing.
    QCOMPARE(compactLine(use("Grep", {{"pattern", "parseConfig"}}),
                         result("src/a.ts:12:parseConfig(x)\nsrc/a.ts:40:  parseConfig(y)\nsrc/b.ts:3:import { parseConfig }")),
             std::string("[Compacted: Grep parseConfig — 3 matches in 2 files]"));
    QCOMPARE(compactLine(use("Grep", {{"pattern", "TODO"}}), result("Found 2 files\nsrc/a.ts\nsrc/b.ts")),
             std::string("[Compacted: Grep TODO — 2 files with matches]"));
    QCOMPARE(compactLine(use("Grep", {{"pattern", "zzz"}}), result("No matches found")),
             std::string("[Compacted: Grep zzz — no matches]"));
    QCOMPARE(compactLine(use("Glob", {{"pattern", "src/**/*.ts"}}), result("/p/src/a.ts\n/p/src/b.ts\n/p/src/c/d.ts\n")),
             std::string("[Compacted: Glob src/**/*.ts — 3 files]"));
    // Shell: exit code and last meaningful line; failure without a code; success.
    QCOMPARE(compactLine(use("Bash", {{"command", "npm test"}}),
                         result("Exit code 1\n> test\nFAIL src/a.test.ts\n\nTests: 1 failed, 3 passed\n-----\n", true)),
             std::string("[Compacted: Bash npm test — exit 1, 6 lines, last: Tests: 1 failed, 3 passed]"));
    QCOMPARE(compactLine(use("Bash", {{"command", "frob --all"}}), result("bash: frob: command not found", true)),
             std::string("[Compacted: Bash frob --all — failed: bash: frob: command not found, 1 line, last: bash: frob: "
                         "command not found]"));
    QCOMPARE(compactLine(use("shell", {{"command", nlohmann::json::array({"bash", "-lc", "ls"})}}), result("a\nb\n")),
             std::string("[Compacted: shell ls — ok, 2 lines, last: b]"));
    // Edit / Write / MultiEdit / apply_patch.
    QCOMPARE(compactLine(use("Edit", {{"file_path", "/src/a.ts"}, {"old_string", "a\nb"}, {"new_string", "a\nc\nd"}}),
                         result("The file /src/a.ts has been updated.")),
             std::string("[Compacted: Edit /src/a.ts — +3/−2 lines]"));
    QCOMPARE(compactLine(use("MultiEdit", {{"file_path", "/m.go"},
                                           {"edits", {{{"old_string", "x"}, {"new_string", "y\nz"}},
                                                      {{"old_string", "p\nq"}, {"new_string", ""}}}}}),
                         result("ok")),
             std::string("[Compacted: MultiEdit /m.go — +2/−3 lines]"));
    QCOMPARE(compactLine(use("apply_patch", nlohmann::json("*** Begin Patch\n*** Update File: x.py\n@@\n-a\n+b\n+c\n*** End Patch")),
                         result("Done")),
             std::string("[Compacted: apply_patch x.py — +2/−1 lines]"));
    QCOMPARE(compactLine(use("Write", {{"file_path", "/src/b.ts"}, {"content", "x\ny\nz\n"}}), result("File created")),
             std::string("[Compacted: Write /src/b.ts — 3 lines written]"));
    // Web: first heading, characters as code points ("# Getting Started\nSome text é" = 17 + 1 + 11).
    QCOMPARE(compactLine(use("WebFetch", {{"url", "https://x.dev/docs"}}), result("# Getting Started\nSome text é")),
             std::string("[Compacted: WebFetch https://x.dev/docs — title: Getting Started, 29 chars]"));
    QCOMPARE(compactLine(use("WebFetch", {{"url", "https://y.dev"}}), result("<html><title> Y Docs </title></html>")),
             std::string("[Compacted: WebFetch https://y.dev — title: Y Docs, 36 chars]"));
    // Generic: first meaningful line and the line count; an orphan result names its own tool.
    QCOMPARE(compactLine(use("TodoWrite", {}), result("\n\n===\nTodos updated successfully\nline2")),
             std::string("[Compacted: TodoWrite — Todos updated successfully, 3 lines]"));
    Block orphan = result("done");
    orphan.toolName = "mcp__db__query";
    QCOMPARE(compactLine(Block{}, orphan), std::string("[Compacted: mcp__db__query — done, 1 line]"));
    // Long excerpts are cut at 80 code points with "…".
    const std::string line = compactLine(use("Bash", {{"command", std::string(100, 'c')}}), result("x"));
    QVERIFY(line.find(std::string(80, 'c') + "… — ok") != std::string::npos);
    QVERIFY(extract::isCompacted("  [Compacted: x]"));
    QVERIFY(!extract::isCompacted("Compacted: x"));
    QCOMPARE(extract::languageForPath("/a/B.TSX"), std::string("TypeScript"));
    QCOMPARE(extract::languageForPath("/a/noext"), std::string());
}

void TestTierStrategies::microcompactOldestHalfAboveTrigger()
{
    // system + 4 turns of [user, call, result, answer] = 16 messages after the system prompt;
    // the oldest half is positions 1..8 (turns 1-2), so results at indices 3 and 7 are compacted.
    Builder b;
    b.text(Role::System, "You are a coding agent.");
    std::vector<std::size_t> results;
    for (int k = 0; k < 4; ++k) {
        b.text(Role::User, "Look at file " + std::to_string(k));
        results.push_back(b.tool("Read", {{"file_path", "/src/f" + std::to_string(k) + ".ts"}},
                                 hundredLines("export function f" + std::to_string(k) + "() {")));
        b.text(Role::Assistant, "Done with file " + std::to_string(k));
    }
    Transcript &t = b.done();
    QCOMPARE(results, (std::vector<std::size_t>{3, 7, 11, 15}));
    const std::int64_t before = total(t);
    Input in(t);
    in.options.contextWindow = static_cast<std::int64_t>(double(before) / 0.7); // usage ~70 % > 60 %
    const Result r = run(*find("microcompact"), in);
    QVERIFY(r.changed);
    std::int64_t after = before;
    for (std::size_t k = 0; k < 4; ++k) {
        const std::size_t i = results[k];
        const Message &m = r.message(t, std::size_t(r.fates[i].slot));
        if (k < 2) {
            QCOMPARE(r.fates[i].fate, Fate::Microcompacted);
            const std::string line = "[Compacted: Read /src/f" + std::to_string(k) + ".ts — 100 lines TypeScript, exports f"
                                     + std::to_string(k) + "()]";
            QCOMPARE(m.blocks[0].text, line);
            after += est(withText(t.messages[i], 0, line)) - est(t.messages[i]);
        } else {
            QCOMPARE(r.fates[i].fate, Fate::Kept);
            QCOMPARE(m.blocks[0].text, t.messages[i].blocks[0].text);
        }
    }
    QCOMPARE(r.stats.tokensAfter, after);
    QVERIFY(r.note.find("compacted 2 tool result(s) in the oldest 8 of 16 messages") != std::string::npos);
    QVERIFY(r.violations.empty());
    // Below the trigger (50 %): unchanged, and the note says why; force runs it anyway.
    in.options.contextWindow = before * 2;
    const Result below = run(*find("microcompact"), in);
    QVERIFY(!below.changed);
    QCOMPARE(below.note, std::string("below trigger: 50 % <= 60 %"));
    QVERIFY(run(*find("microcompact"), in, {{"force", true}}).changed);
    // A result that already is a compact line is not compacted again.
    Builder c;
    c.text(Role::User, "go");
    const std::size_t pre = c.tool("Read", {{"file_path", "/x.ts"}}, "[Compacted: Read /x.ts — 900 lines]" + std::string(400, ' '));
    c.text(Role::Assistant, "ok");
    c.text(Role::User, "again");
    c.text(Role::Assistant, "ok");
    Transcript &t2 = c.done();
    Input in2(t2);
    const Result again = run(*find("microcompact"), in2, {{"force", true}});
    QCOMPARE(again.fates[pre].fate, Fate::Kept);
    QVERIFY(again.note.find("1 already compacted") != std::string::npos);
}

void TestTierStrategies::autoCompactCutAndSummary()
{
    // system + 8 turns of [user, call, result, answer], every turn about the same size.
    Builder b;
    b.text(Role::System, "You are a coding agent.");
    std::vector<std::size_t> turnStart;
    for (int k = 0; k < 8; ++k) {
        turnStart.push_back(b.text(Role::User, "Task " + std::to_string(k) + ": improve module " + std::to_string(k)));
        if (k == 1)
            b.tool("Edit", {{"file_path", "/src/app.ts"}, {"old_string", "a"}, {"new_string", "b\nc"}}, "Updated /src/app.ts");
        else if (k == 2)
            b.tool("Bash", {{"command", "npm test"}}, "Exit code 1\nError: cannot find module 'zod'", true);
        else
            b.tool("Bash", {{"command", "npm test"}}, "Exit code 0\nall passed");
        b.text(Role::Assistant, (k == 1 ? std::string("I'll use a hash map instead because lookups are O(1). ") : std::string())
                                    + prose(2400, 10 + std::uint32_t(k)));
    }
    Transcript &t = b.done();
    const std::int64_t system = est(t.messages[0]), all = total(t), body = all - system;
    Input in(t);
    in.options.contextWindow = static_cast<std::int64_t>(double(all) / 0.9); // usage 90 % > 80 %
    const std::int64_t threshold = static_cast<std::int64_t>(0.8 * double(in.options.contextWindow));
    const std::int64_t target = body - threshold / 2; // about 0.56 of the body: four and a half turns
    // Hand check of the arithmetic: the oldest messages reach the target inside turn 5 (index 4).
    std::int64_t acc = 0;
    std::size_t reach = 0;
    for (std::size_t i = 1; i < t.messages.size(); ++i)
        if ((acc += est(t.messages[i])) >= target) {
            reach = i;
            break;
        }
    QVERIFY(reach > turnStart[4] && reach < turnStart[5]);
    const Result r = run(*find("auto-compact"), in);
    QVERIFY(r.changed);
    // Cut moved to the next safe point: the user request that starts turn 6.
    QCOMPARE(r.extra["summary"]["cut"].get<std::size_t>(), turnStart[5]);
    QCOMPARE(r.extra["summary"]["wantedCut"].get<std::size_t>(), reach + 1);
    QCOMPARE(r.extra["summary"]["targetReduction"].get<std::int64_t>(), target);
    QCOMPARE(r.fates[0].fate, Fate::Kept);
    for (std::size_t i = 1; i < turnStart[5]; ++i)
        QCOMPARE(r.fates[i].fate, Fate::Summarized);
    for (std::size_t i = turnStart[5]; i < t.messages.size(); ++i)
        QCOMPARE(r.fates[i].fate, Fate::Kept);
    // Slots: system, summary (user, CompactSummary), acknowledgement, then turns 6-8.
    QCOMPARE(r.slots.size(), std::size_t(3 + 12));
    QCOMPARE(r.slots[1].fate, Fate::Inserted);
    const Message &summary = r.message(t, 1);
    QCOMPARE(summary.role, Role::User);
    QCOMPARE(summary.kind, MessageKind::CompactSummary);
    const std::string &s = summary.blocks[0].text;
    QCOMPARE(s.rfind("[Conversation History Summary]\n", 0), std::size_t(0));
    QVERIFY(s.size() > 40 && s.substr(s.size() - std::string("[End Summary — recent messages follow]").size())
                                 == "[End Summary — recent messages follow]");
    QVERIFY(s.find("Compacted 20 messages (5 user requests, 5 assistant responses, 5 tool calls, 1 errors") != std::string::npos);
    QVERIFY(s.find("Decisions and rationale:\n- I'll use a hash map instead because lookups are O(1).") != std::string::npos);
    QVERIFY(s.find("Files modified and key changes:\n- /src/app.ts: edited (+2/−1 lines)") != std::string::npos);
    QVERIFY(s.find("Latest request: Task 4: improve module 4") != std::string::npos);
    // The digest's error is the first line of the failed result.
    QVERIFY(s.find("Errors and resolutions:\n- Bash npm test: Exit code 1 — resolved: a later Bash call succeeded")
            != std::string::npos);
    QCOMPARE(r.message(t, 2).role, Role::Assistant);
    std::int64_t after = system + est(r.message(t, 1)) + est(r.message(t, 2));
    for (std::size_t i = turnStart[5]; i < t.messages.size(); ++i)
        after += est(t.messages[i]);
    QCOMPARE(r.stats.tokensAfter, after);
    QVERIFY(r.violations.empty());
    // Below 80 %: nothing.
    in.options.contextWindow = all * 2;
    QCOMPARE(run(*find("auto-compact"), in).note, std::string("below trigger: 50 % <= 80 %"));
    // The summary honours maxChars and keeps both markers.
    SummaryRequest req;
    req.transcript = &t;
    for (std::size_t i = 1; i < t.messages.size(); ++i)
        req.messages.push_back(i);
    req.style = "seed003";
    req.maxChars = 400;
    const std::string small = ruleSummarizer().summarize(req).text;
    QVERIFY(small.size() <= 400);
    QVERIFY(small.find("[End Summary — recent messages follow]") != std::string::npos);
}

void TestTierStrategies::hardTruncateBudget()
{
    Builder b;
    b.text(Role::System, "You are a coding agent.");
    std::vector<std::size_t> turnStart;
    for (int k = 0; k < 8; ++k) {
        turnStart.push_back(b.text(Role::User, "Question " + std::to_string(k)));
        b.text(Role::Assistant, prose(1200, 40 + std::uint32_t(k)));
    }
    Transcript &t = b.done();
    const std::int64_t system = est(t.messages[0]);
    std::int64_t tail3 = 0;
    for (std::size_t i = turnStart[5]; i < t.messages.size(); ++i)
        tail3 += est(t.messages[i]);
    // budget = window - system - 1000 = tail3 + tokens of turn 5's answer + 1: that answer fits but
    // its question does not, so the kept tail would start at an answer; it moves on to turn 6.
    const std::int64_t answer5 = est(t.messages[turnStart[5] - 1]);
    Input in(t);
    in.options.contextWindow = system + 1000 + tail3 + answer5 + 1;
    QVERIFY(double(total(t)) / double(in.options.contextWindow) >= 0.95);
    const Result r = run(*find("hard-truncate"), in);
    QVERIFY(r.changed);
    QCOMPARE(r.extra["truncate"]["budget"].get<std::int64_t>(), tail3 + answer5 + 1);
    QCOMPARE(r.extra["truncate"]["fitsFrom"].get<std::size_t>(), turnStart[5] - 1);
    QCOMPARE(r.extra["truncate"]["keptFrom"].get<std::size_t>(), turnStart[5]);
    QCOMPARE(r.fates[0].fate, Fate::Kept);
    for (std::size_t i = 1; i < turnStart[5]; ++i) {
        QCOMPARE(r.fates[i].fate, Fate::Removed);
        QVERIFY(r.fates[i].reason.find("budget") != std::string::npos);
    }
    QCOMPARE(r.stats.tokensAfter, system + tail3);
    QVERIFY(r.violations.empty());
    // safetyMargin is a parameter: with 0 the same window leaves 1000 more tokens, turns 2-5 fit again partly.
    const Result loose = run(*find("hard-truncate"), in, {{"safetyMargin", 0}});
    QVERIFY(loose.extra["truncate"]["keptFrom"].get<std::size_t>() < turnStart[5]);
    // Below 95 %: nothing.
    in.options.contextWindow = total(t) * 2;
    QCOMPARE(run(*find("hard-truncate"), in).note, std::string("below trigger: 50 % < 95 %"));
}

namespace {

// system + 8 turns of [request, Read call, 15 000-character result, 6 000-character answer].
struct SeedScenario {
    Transcript t;
    std::vector<std::size_t> results, turnStart;
    SeedScenario()
    {
        Builder b;
        b.text(Role::System, "You are a coding agent.");
        for (int k = 0; k < 8; ++k) {
            turnStart.push_back(b.text(Role::User, "Step " + std::to_string(k)));
            results.push_back(b.tool("Read", {{"file_path", "/src/m" + std::to_string(k) + ".py"}},
                                     prose(15000, 100 + std::uint32_t(k))));
            b.text(Role::Assistant, prose(6000, 200 + std::uint32_t(k)));
        }
        t = b.done();
    }
};

} // namespace

void TestTierStrategies::progressiveRunsTiersOneToThree()
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
            compacted += est(withText(m, 0, extract::compactLine(t.messages[sc.results[k] - 1].blocks[0], m.blocks[0]))) - est(s);
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

void TestTierStrategies::progressiveCompactsSnippedFromOriginal()
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
            QCOMPARE(now, extract::compactLine(sc.t.messages[i - 1].blocks[0], sc.t.messages[i].blocks[0]));
        } else {
            QCOMPARE(r.fates[i].fate, Fate::Snipped);
            QVERIFY(now.find("[... 9000 characters snipped ...]") != std::string::npos);
        }
    }
}

void TestTierStrategies::contextManager()
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

void TestTierStrategies::simulationOnGeneratedSession()
{
    gen::Options o;
    o.format = Format::ClaudeCode;
    o.messages = 160;
    o.seed = 3;
    o.maxReadLines = 400;
    auto loaded = loadBytes(gen::generate(o), "sim.jsonl", LoadOptions{});
    QVERIFY(loaded.transcript);
    const Transcript &t = *loaded.transcript;
    const std::int64_t all = tokens::totalEstimate(t);
    sim::SimulationOptions so;
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
        if (exceeds < 0 && p.without > s.window)
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

void TestTierStrategies::tiersOverEveryFormat_data()
{
    QTest::addColumn<int>("format");
    for (const Format f : allFormats())
        QTest::newRow(std::string(formatName(f)).c_str()) << int(f);
}

// The lead's property test (tst_strategies) restricted to this family, so a hang or failure in
// another family does not hide ours: consistent fates, valid results, pins and exempt tools kept,
// never larger, and the written result reloads valid.
void TestTierStrategies::tiersOverEveryFormat()
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

QTEST_GUILESS_MAIN(TestTierStrategies)
#include "tst_tierstrategies.moc"
