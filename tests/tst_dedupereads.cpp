// SPDX-License-Identifier: MIT
// dedupe-reads (core/strategies/dedupe_reads.cpp): an older read becomes a pointer to the latest
// read that covers its lines, saying when the file was edited in between; ranged reads that do not
// cover each other, failed reads, small reads, other files (with `paths`) and pinned messages stay;
// calls stay, so pairs stay; the composition's repeated-read suggestions run it.
#include "core/strategies/registry.h"
#include "core/strategy/strategy.h"
#include "core/workflow/composition.h"

#include "strategy_fixture.h"
#include "test_support.h"

#include <QtTest>

using namespace cl;
using namespace cl::strategy;
using cl::test::tierfix::Builder;
using cl::test::tierfix::prose;

namespace {

struct Scenario {
    Transcript t;
    std::size_t aFirst = 0, aSecond = 0, aRanged = 0, bHead = 0, bTail = 0, bHeadAgain = 0, failed = 0, small = 0,
                smallAgain = 0, cFirst = 0, cSecond = 0;
    Scenario()
    {
        Builder b;
        b.text(Role::System, "You are a coding agent.");
        b.text(Role::User, "Fix the parser.");
        aFirst = b.tool("Read", {{"file_path", "/src/a.py"}}, prose(4000, 1));
        b.tool("Edit", {{"file_path", "/src/a.py"}, {"old_string", "x"}, {"new_string", "y"}}, "edited");
        aSecond = b.tool("Read", {{"file_path", "/src/a.py"}}, prose(4100, 2));
        aRanged = b.tool("Read", {{"file_path", "/src/a.py"}, {"offset", 10}, {"limit", 20}}, prose(800, 3));
        bHead = b.tool("Read", {{"file_path", "/src/b.py"}, {"offset", 0}, {"limit", 100}}, prose(3000, 4));
        bTail = b.tool("Read", {{"file_path", "/src/b.py"}, {"offset", 500}, {"limit", 100}}, prose(3000, 5));
        bHeadAgain = b.tool("Read", {{"file_path", "/src/b.py"}, {"offset", 0}, {"limit", 200}}, prose(5000, 6));
        failed = b.tool("Read", {{"file_path", "/src/c.py"}}, "File does not exist.", true);
        cFirst = b.tool("Read", {{"file_path", "/src/c.py"}}, prose(2000, 7));
        small = b.tool("Read", {{"file_path", "/src/tiny.py"}}, "x = 1");
        smallAgain = b.tool("Read", {{"file_path", "/src/tiny.py"}}, "x = 1");
        cSecond = b.tool("Read", {{"file_path", "/src/c.py"}}, prose(2000, 7));
        b.text(Role::Assistant, "Done.");
        t = b.done();
    }
};

Result run(const Transcript &t, nlohmann::json params = nlohmann::json::object(), std::vector<std::size_t> pinned = {})
{
    Input in(t);
    in.pinned = std::move(pinned);
    return strategy::run(*find("dedupe-reads"), in, params);
}

const Block &resultBlock(const Transcript &t, std::size_t message)
{
    return t.messages[message].blocks.front();
}

} // namespace

class TestDedupeReads : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void olderReadsPointToTheLatest()
    {
        Scenario s;
        const Result r = run(s.t);
        QVERIFY2(r.changed, r.note.c_str());
        const Transcript out = r.materialize(s.t);
        // /src/a.py: the first read (edited in between) is superseded by the second, whole-file read.
        const std::string &a = resultBlock(out, std::size_t(r.fates[s.aFirst].slot)).text;
        QVERIFY2(a.find("/src/a.py") != std::string::npos && a.find("edited in between") != std::string::npos, a.c_str());
        QCOMPARE(r.fates[s.aFirst].fate, Fate::Cleared);
        // The second whole read is not covered by the later ranged read: it stays, and so does that.
        QCOMPARE(r.fates[s.aSecond].fate, Fate::Kept);
        QCOMPARE(r.fates[s.aRanged].fate, Fate::Kept);
        // /src/b.py: lines 0-99 are covered by the later 0-199 read; 500-599 are not.
        QCOMPARE(r.fates[s.bHead].fate, Fate::Cleared);
        const std::string &bh = resultBlock(out, std::size_t(r.fates[s.bHead].slot)).text;
        QVERIFY2(bh.find("edited") == std::string::npos, bh.c_str()); // no edit of b.py in between
        QCOMPARE(r.fates[s.bTail].fate, Fate::Kept);
        QCOMPARE(r.fates[s.bHeadAgain].fate, Fate::Kept);
        // /src/c.py: the failed read stays; the first good read is the same file read twice.
        QCOMPARE(r.fates[s.failed].fate, Fate::Kept);
        QCOMPARE(r.fates[s.cFirst].fate, Fate::Cleared);
        QCOMPARE(r.fates[s.cSecond].fate, Fate::Kept);
        // Reads below minTokens stay.
        QCOMPARE(r.fates[s.small].fate, Fate::Kept);
        QCOMPARE(r.extra["dedupedReads"].get<int>(), 3);
        QCOMPARE(r.extra["files"].get<int>(), 3);
        // Calls stay, so every pair does.
        QCOMPARE(out.messages.size(), s.t.messages.size());
        QVERIFY(r.violations.empty());
        QVERIFY(r.stats.tokensAfter < r.stats.tokensBefore);
        // The saving is the three results' tokens minus their pointers'.
        std::int64_t freed = 0;
        for (const std::size_t i : {s.aFirst, s.bHead, s.cFirst})
            freed += tokens::estimateBlock(resultBlock(s.t, i)) - tokens::estimateBlock(resultBlock(out, std::size_t(r.fates[i].slot)));
        QCOMPARE(r.stats.tokensBefore - r.stats.tokensAfter, freed);
    }

    void parametersNarrowIt()
    {
        Scenario s;
        // Only /src/c.py.
        Result r = run(s.t, {{"paths", {"/src/c.py"}}});
        QVERIFY(r.changed);
        QCOMPARE(r.fates[s.cFirst].fate, Fate::Cleared);
        QCOMPARE(r.fates[s.aFirst].fate, Fate::Kept);
        QCOMPARE(r.fates[s.bHead].fate, Fate::Kept);
        // minTokens 0: the tiny file's first read goes too... unless its pointer is not smaller.
        r = run(s.t, {{"minTokens", 0}});
        QCOMPARE(r.fates[s.small].fate, Fate::Kept); // "x = 1" is shorter than any pointer
        // A pinned read stays; the rest still goes.
        r = run(s.t, nlohmann::json::object(), {s.aFirst});
        QCOMPARE(r.fates[s.aFirst].fate, Fate::Kept);
        QCOMPARE(r.fates[s.cFirst].fate, Fate::Cleared);
        // Nothing read twice: unchanged, and the note says why.
        Builder b;
        b.text(Role::User, "Read it.");
        b.tool("Read", {{"file_path", "/src/a.py"}}, prose(4000, 1));
        r = run(b.done());
        QVERIFY(!r.changed);
        QVERIFY2(r.note.find("no file was read again") != std::string::npos, r.note.c_str());
        // A custom pointer text.
        r = run(s.t, {{"placeholder", "[see later read of {path}]"}});
        QCOMPARE(resultBlock(r.materialize(s.t), std::size_t(r.fates[s.cFirst].slot)).text, std::string("[see later read of /src/c.py]"));
    }

    void compositionSuggestsItPerFile()
    {
        Scenario s;
        const composition::Composition c = composition::compose(s.t);
        QCOMPARE(c.repeatedReads.size(), std::size_t(4)); // a, b, c and tiny
        const auto suggestions = composition::suggest(s.t, c);
        int perFile = 0, overall = 0;
        for (const auto &g : suggestions) {
            if (g.strategy != "dedupe-reads")
                continue;
            const Result r = run(s.t, g.params);
            QCOMPARE(g.frees, r.changed ? r.stats.tokensBefore - r.stats.tokensAfter : 0);
            if (g.params.contains("paths"))
                ++perFile;
            else
                ++overall;
        }
        QCOMPARE(perFile, 4);
        QCOMPARE(overall, 1);
    }
};

QTEST_GUILESS_MAIN(TestDedupeReads)
#include "tst_dedupereads.moc"
