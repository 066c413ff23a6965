// SPDX-License-Identifier: MIT
// Seed 003 tiers one by one (snip, snip-seed004, microcompact, auto-compact, hard-truncate), the
// microcompact extractor and the seed 003 summary, on small transcripts built here with
// hand-computed expectations. The progressive manager, the context manager and the simulation are
// in tst_tiermanager.cpp; the builders in strategy_fixture.h.
#include "strategy_fixture.h"
#include "test_support.h"

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

class TestTierStrategies : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void snipTextExact();
    void snipStrategy();
    void snipLongSessionOnTwoThreads();
    void deferredSnipEqualsWritten();
    void extractorLines();
    void microcompactOldestHalfAboveTrigger();
    void autoCompactCutAndSummary();
    void hardTruncateBudget();
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
        wide += k < 3000 ? "é" : k < 7001 ? "中"
                                          : "ü";
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

// A session long enough for the snip pass to run on two threads: every tool result over the limit
// is cut exactly as snipText() cuts it, with the estimate of its new block, except in the pinned
// messages and for the exempt tool; the tallies in the note add up over both threads.
void TestTierStrategies::snipLongSessionOnTwoThreads()
{
    const Transcript t = test::generatedTranscript(Format::Anthropic, 6000, 17);
    Input in(t);
    const std::size_t limit = 2000;
    std::size_t expectedCuts = 0, expectedRefused = 0;
    std::vector<std::size_t> pinned;
    for (std::size_t i = 0; i < t.messages.size(); ++i)
        for (const Block &b : t.messages[i].blocks)
            if (b.type == BlockType::ToolResult && utf8Length(b.text) > limit && i % 5 == 0 && pinned.size() < 40) {
                pinned.push_back(i);
                break;
            }
    in.pinned = pinned;
    in.exemptTools = {"Grep"};
    std::vector<char> isPinned(t.messages.size(), 0);
    for (const std::size_t i : pinned)
        isPinned[i] = 1;
    const Result r = run(*find("snip"), in, {{"snipMaxChars", int(limit)}});
    QVERIFY(r.changed);
    for (std::size_t i = 0; i < t.messages.size(); ++i) {
        const Message &orig = t.messages[i];
        bool cut = false;
        for (std::size_t b = 0; b < orig.blocks.size(); ++b) {
            const Block &blk = orig.blocks[b];
            if (blk.type != BlockType::ToolResult)
                continue;
            const auto expected = tiers::snipText(blk.text, limit, tiers::seed003Snip());
            if (!expected || expected->size() >= blk.text.size())
                continue;
            if (isPinned[i] || blk.toolName == "Grep") { // refused: pinned message, exempt tool's block
                ++expectedRefused;
                continue;
            }
            cut = true;
            ++expectedCuts;
            const Message &now = r.message(t, std::size_t(r.fates[i].slot));
            QCOMPARE(now.blocks[b].text, *expected);
            QCOMPARE(r.fates[i].blocks[b], Fate::Snipped);
        }
        if (cut) {
            QCOMPARE(r.fates[i].fate, Fate::Snipped);
            const Message &now = r.message(t, std::size_t(r.fates[i].slot));
            Message copy = now; // the estimate the editor gave the copy equals a fresh one
            copy.cache.tokenEstimate = -1;
            QCOMPARE(tokens::estimateMessage(now), tokens::estimateMessage(copy));
        } else if (isPinned[i]) {
            QCOMPARE(r.fates[i].fate, Fate::Kept);
            QVERIFY(r.slots[std::size_t(r.fates[i].slot)].message == nullptr); // the original, untouched
        }
    }
    QVERIFY(expectedCuts > 500);
    QVERIFY(expectedRefused > pinned.size()); // the pinned ones and some Grep results
    QCOMPARE(r.note.rfind("snipped " + std::to_string(expectedCuts) + " tool result(s) over 2000 characters ("
                              + std::to_string(expectedRefused) + " protected)",
                          0),
             std::size_t(0));
    // Snipping changes no structure: the result breaks no rule the input did not break already.
    QCOMPARE(r.violations.size(), validate(t, t.format).size());
}

// The progressive manager snips with deferred texts (Editor::setBlockSplice): the same result as
// written texts, message headers included, whether the copies are kept, read, or removed after.
void TestTierStrategies::deferredSnipEqualsWritten()
{
    const Transcript t = test::generatedTranscript(Format::ClaudeCode, 6000, 23);
    Input in(t);
    std::vector<std::size_t> pinned;
    for (std::size_t i = 0; i < t.messages.size() && pinned.size() < 20; i += 97)
        pinned.push_back(i);
    in.pinned = pinned;
    in.exemptTools = {"Grep"};
    const std::size_t limit = 1500;
    auto runSnip = [&](bool defer, bool readSome, bool removeSome) {
        Editor e(in);
        tiers::TierRun run(e);
        const tiers::TierOutcome o = tiers::snip(run, limit, tiers::seed003Snip(), defer);
        const std::int64_t after = run.tokens();
        std::size_t read = 0;
        for (std::size_t p = 0; p < e.size(); ++p) {
            const std::size_t i = e.at(p);
            const Message &orig = t.messages[i];
            for (std::size_t b = 0; b < orig.blocks.size(); ++b) {
                if (!e.isBlockChanged(i, b))
                    continue;
                // Size and head are answered from the pieces; they equal the written text's.
                const std::size_t size = e.currentSize(i, b);
                const std::string head(e.currentHead(i, b, 40));
                if (readSome && p % 3 == 0) {
                    const std::string &text = e.currentText(i, b);
                    if (text.size() != size || text.compare(0, head.size(), head) != 0)
                        return std::make_tuple(o, after, Result(), std::size_t(-1));
                    ++read;
                }
            }
            if (removeSome && p % 7 == 0 && e.isEdited(i))
                e.remove(i, "test removal");
        }
        return std::make_tuple(o, after, e.finish(), read);
    };
    for (const bool readSome : {false, true})
        for (const bool removeSome : {false, true}) {
            const auto [written, writtenAfter, expected, n0] = runSnip(false, readSome, removeSome);
            const auto [deferred, deferredAfter, got, n1] = runSnip(true, readSome, removeSome);
            QVERIFY(n0 != std::size_t(-1) && n1 != std::size_t(-1));
            QVERIFY(written.changed > 300);
            QCOMPARE(deferred.changed, written.changed);
            QCOMPARE(deferred.note, written.note);
            QCOMPARE(deferredAfter, writtenAfter);
            QCOMPARE(got.slots.size(), expected.slots.size());
            for (std::size_t k = 0; k < got.slots.size(); ++k) {
                const Message &a = got.message(t, k), &b = expected.message(t, k);
                QCOMPARE(got.slots[k].origin, expected.slots[k].origin);
                QVERIFY(got.slots[k].origin >= 0);                               // snipping inserts nothing
                const Message &o = t.messages[std::size_t(got.slots[k].origin)]; // an edited copy keeps its header
                for (const Message *m : {&a, &b}) {
                    QCOMPARE(m->id, o.id);
                    QCOMPARE(m->parentId, o.parentId);
                    QCOMPARE(m->type, o.type);
                    QCOMPARE(m->timestamp, o.timestamp);
                    QCOMPARE(m->records, o.records);
                    QVERIFY(m->meta == o.meta);
                    QCOMPARE(m->blocks.size(), o.blocks.size());
                    for (std::size_t j = 0; j < o.blocks.size(); ++j) {
                        QCOMPARE(m->blocks[j].toolId, o.blocks[j].toolId);
                        QCOMPARE(m->blocks[j].toolName, o.blocks[j].toolName);
                        QCOMPARE(m->blocks[j].isError, o.blocks[j].isError);
                    }
                }
                QCOMPARE(a.blocks.size(), b.blocks.size());
                for (std::size_t j = 0; j < a.blocks.size(); ++j) {
                    QCOMPARE(a.blocks[j].text, b.blocks[j].text);
                    QCOMPARE(a.blocks[j].input, b.blocks[j].input);
                }
                QCOMPARE(tokens::estimateMessage(a), tokens::estimateMessage(b));
            }
            for (std::size_t i = 0; i < t.messages.size(); ++i) {
                QCOMPARE(got.fates[i].fate, expected.fates[i].fate);
                QCOMPARE(got.fates[i].reason, expected.fates[i].reason);
                QCOMPARE(got.fates[i].blocks, expected.fates[i].blocks);
            }
        }
}

void TestTierStrategies::extractorLines()
{
    using tooldigest::compactLine;
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
                                           {"edits", {{{"old_string", "x"}, {"new_string", "y\nz"}}, {{"old_string", "p\nq"}, {"new_string", ""}}}}}),
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
    QVERIFY(tooldigest::isCompacted("  [Compacted: x]"));
    QVERIFY(!tooldigest::isCompacted("Compacted: x"));
    QCOMPARE(tooldigest::languageForPath("/a/B.TSX"), std::string("TypeScript"));
    QCOMPARE(tooldigest::languageForPath("/a/noext"), std::string());
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
    QVERIFY(s.size() > 40 && s.substr(s.size() - std::string("[End Summary — recent messages follow]").size()) == "[End Summary — recent messages follow]");
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

QTEST_GUILESS_MAIN(TestTierStrategies)
#include "tst_tierstrategies.moc"
