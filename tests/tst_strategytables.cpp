// SPDX-License-Identifier: MIT
// The per-transcript strategy tables (core/strategy/tables.h): every entry equals the function it
// stands for (utf8Length, line counts, tokens::estimateBlock, tooldigest::compactLine), digests
// are the same whichever thread makes them first, tables handed to a later Input are reused and
// rebuilt for another transcript, and strategies give the same results with cold or warm tables.
// Also the summary digest, whose long ranges are read on two threads: the same as read in pieces.
#include "core/util/allocator.h"
#include "core/strategy/summary/tooldigest.h"
#include "core/tokens/contentchars.h"
#include "core/strategy/summary/summary.h"
#include "core/strategy/strategy.h"
#include "core/strategy/editor.h"
#include "core/tokens/estimator.h"
#include "core/strategies/registry.h"
#include "test_support.h"

#include <QtTest>

#include <algorithm>

#include <cstdlib>
#include <set>
#include <thread>

#ifdef CL_HAVE_MIMALLOC
#include <mimalloc.h>
#endif

using namespace cl;
using namespace cl::strategy;

namespace {

// The line count the table must give, by its definition (Python's str.splitlines() for \n and
// \r\n endings): line feeds, plus a last line without one.
std::size_t referenceLines(std::string_view s)
{
    if (s.empty())
        return 0;
    return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')) + (s.back() != '\n' ? 1 : 0);
}

// Texts the fast counters must get right: multi-byte and 4-byte characters, CR LF, a last line
// with and without a line feed, empty, exactly 16 and 17 bytes, and one long enough for the
// 255-step fold of the per-lane counters.
Transcript edgeTranscript()
{
    Transcript t;
    t.format = Format::Anthropic;
    const std::vector<std::string> texts = {
        "", "\n", "a", "abc\n", "line1\r\nline2\r\n", "no feed at the end", "ünïcödé\nтекст\n日本語\n🙂🙂\n",
        "0123456789abcdef", "0123456789abcdef\n", std::string(16 * 300 + 7, 'x') + "\n" + std::string(5000, '\n'),
        []() {
            std::string s;
            for (int i = 0; i < 2000; ++i)
                s += "→ é 🙂 line " + std::to_string(i) + "\n";
            return s;
        }()};
    Message call, results;
    call.role = Role::Assistant;
    results.role = Role::User;
    for (std::size_t k = 0; k < texts.size(); ++k) { // call k and its result
        Block use, r;
        use.type = BlockType::ToolUse;
        use.toolName = k % 2 ? "Bash" : "Read";
        use.input = k % 2 ? nlohmann::json{{"command", "ls -la"}} : nlohmann::json{{"file_path", "/src/a.py"}};
        r.type = BlockType::ToolResult;
        r.text = texts[k];
        use.toolId = r.toolId = "t" + std::to_string(k);
        call.blocks.push_back(use);
        results.blocks.push_back(r);
    }
    Message ask;
    ask.role = Role::User;
    Block text;
    text.type = BlockType::Text;
    text.text = "please look";
    ask.blocks.push_back(text);
    t.messages = {ask, call, results};
    linkToolPairs(t);
    tokens::estimateAll(t);
    return t;
}

void checkTables(const Transcript &t, std::size_t *distinctOut = nullptr)
{
    TranscriptTables tables;
    const auto lengths = tables.textLengths(t);
    const auto estimates = tables.blockTokens(t);
    const auto contentChars = tables.contentChars(t);
    QCOMPARE(contentChars->size(), t.messages.size());
    std::size_t checked = 0, distinctTexts = 0;
    for (std::size_t i = 0; i < t.messages.size(); ++i) {
        QCOMPARE((*contentChars)[i], cl::contentChars(t.messages[i]));
        const auto &blocks = t.messages[i].blocks;
        for (std::size_t b = 0; b < blocks.size(); ++b) {
            const std::string &text = blocks[b].text;
            QCOMPARE(lengths->values[lengths->first[i] + b], utf8Length(text));
            QCOMPARE(lengths->lines(t, i, b), referenceLines(text));
            // Marked distinct: long enough, and no counted line equals another (tokens::repetition is
            // then 0 from lines; the estimator test checks linesAreDistinct itself).
            const bool distinct = lengths->distinct[lengths->first[i] + b] != 0;
            QCOMPARE(distinct, text.size() >= TextLengths::kDistinctMin && tokens::linesAreDistinct(text));
            if (distinct)
                QCOMPARE(tokens::repetition(text), 0.0);
            distinctTexts += distinct ? 1 : 0;
            if (blocks.size() > 1)
                QCOMPARE(estimates->values[estimates->first[i] + b], tokens::estimateBlock(blocks[b]));
            ++checked;
        }
    }
    QVERIFY(checked > 0);
    if (distinctOut)
        *distinctOut = distinctTexts;
}

const Block &callOf(const Transcript &t, const Block &result)
{
    static const Block none;
    if (result.pairMessage < 0)
        return none;
    return t.messages[std::size_t(result.pairMessage)].blocks[std::size_t(result.pairBlock)];
}

// Everything a strategy result says, in one string (fates, reasons, slot texts, stats).
std::string fingerprint(const Result &r)
{
    std::string out = r.note + "|" + std::to_string(r.stats.tokensAfter) + "|";
    for (const MessageFate &f : r.fates)
        out += std::to_string(int(f.fate)) + f.reason + std::to_string(f.slot) + ";";
    for (const Slot &s : r.slots)
        if (s.message)
            for (const Block &b : s.message->blocks)
                out += b.text + "#";
    return out;
}

} // namespace

class TestStrategyTables : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void entriesEqualTheFunctions()
    {
        checkTables(edgeTranscript());
        std::size_t distinct = 0;
        checkTables(test::generatedTranscript(Format::ClaudeCode, 1500, 7), &distinct);
        QVERIFY(distinct > 10); // numbered file reads
        checkTables(test::generatedTranscript(Format::Codex, 1200, 3));
    }

    void digestsEqualCompactLines()
    {
        for (const Transcript &t : {edgeTranscript(), test::generatedTranscript(Format::Anthropic, 2000, 11)}) {
            const CompactDigests digests(t);
            QCOMPARE(digests.made(), std::size_t(0));
            std::size_t results = 0;
            for (std::size_t i = 0; i < t.messages.size(); ++i)
                for (std::size_t b = 0; b < t.messages[i].blocks.size(); ++b) {
                    const Block &blk = t.messages[i].blocks[b];
                    if (blk.type != BlockType::ToolResult)
                        continue;
                    ++results;
                    const CompactDigest d = digests.get(i, b);
                    QCOMPARE(d.line, tooldigest::compactLine(callOf(t, blk), blk));
                    Block asResult;
                    asResult.type = BlockType::ToolResult;
                    asResult.text = d.line;
                    QCOMPARE(d.tokens, tokens::estimateBlock(asResult));
                    QCOMPARE(digests.get(i, b).line, d.line); // the kept entry
                }
            QVERIFY(results > 5);
            QCOMPARE(digests.made(), results);
        }
    }

    void digestsFromTwoThreadsAgree()
    {
        const Transcript t = test::generatedTranscript(Format::Anthropic, 3000, 5);
        std::vector<std::pair<std::size_t, std::size_t>> results;
        for (std::size_t i = 0; i < t.messages.size(); ++i)
            for (std::size_t b = 0; b < t.messages[i].blocks.size(); ++b)
                if (t.messages[i].blocks[b].type == BlockType::ToolResult)
                    results.emplace_back(i, b);
        const CompactDigests shared(t);
        std::vector<std::string> first(results.size()), second(results.size());
        // Both threads walk every entry, one from each end, so they race for the same entries.
        std::thread other([&] {
            for (std::size_t k = results.size(); k-- > 0;)
                second[k] = shared.get(results[k].first, results[k].second).line;
        });
        for (std::size_t k = 0; k < results.size(); ++k)
            first[k] = shared.get(results[k].first, results[k].second).line;
        other.join();
        QCOMPARE(first, second);
        QCOMPARE(shared.made(), results.size());
        const CompactDigests filled(t);
        filled.fill();
        QCOMPARE(filled.made(), results.size());
        for (std::size_t k = 0; k < results.size(); k += 37)
            QCOMPARE(filled.get(results[k].first, results[k].second).line, first[k]);
    }

    void tablesAreSharedAndRebuiltForAnotherTranscript()
    {
        const Transcript a = test::generatedTranscript(Format::Anthropic, 800, 1);
        const Transcript b = test::generatedTranscript(Format::Anthropic, 900, 2);
        Input first(a);
        const auto lengths = first.textLengths();
        const auto digests = first.digests();
        Input later(a);
        later.setTables(first.tables());
        QCOMPARE(later.textLengths().get(), lengths.get());
        QCOMPARE(later.digests().get(), digests.get());
        Input fresh(a);
        QVERIFY(fresh.textLengths().get() != lengths.get());
        // The same tables asked about another transcript are rebuilt for that one.
        QVERIFY(!first.tables()->prepared(a)); // only asked for two of the tables so far
        first.tables()->prepare(a);
        QVERIFY(first.tables()->prepared(a));
        QVERIFY(!first.tables()->prepared(b));
        Input other(b);
        other.setTables(first.tables());
        const auto otherLengths = other.textLengths();
        QVERIFY(!first.tables()->prepared(a)); // now the tables of b, not all built
        QVERIFY(otherLengths.get() != lengths.get());
        QCOMPARE(otherLengths->first.size(), b.messages.size() + 1);
        QCOMPARE(otherLengths->values.back(), utf8Length(b.messages.back().blocks.back().text));
        other.setTables(nullptr);
        QVERIFY(other.tables() != nullptr);
    }

    void strategiesAgreeWithColdAndWarmTables()
    {
        const Transcript t = test::generatedTranscript(Format::Anthropic, 4000, 9);
        Input warm(t);
        warm.tables()->prepare(t);
        QVERIFY(warm.digests()->made() > 100);
        for (const char *name : {"microcompact", "progressive", "swe-agent", "snip", "snip-seed004", "gemini-cli"}) {
            const Strategy *s = find(name);
            QVERIFY2(s, name);
            nlohmann::json params = nlohmann::json::object();
            for (const ParamSpec &spec : s->params())
                if (spec.name == "force")
                    params["force"] = true;
            Input cold(t);
            const Result a = run(*s, cold, params);
            const Result b = run(*s, warm, params);
            QVERIFY2(a.changed, name);
            QVERIFY2(a.stats.tokensAfter < a.stats.tokensBefore, name);
            QCOMPARE(fingerprint(b), fingerprint(a));
        }
    }

    // digest() reads a range of 4096 messages or more in two halves on two threads and merges them;
    // the reference reads it in pieces of 1000 (each on one thread) and merges them here by the
    // definition: lists concatenated, the first-seen lists without the items an earlier piece had.
    void digestOfALongRangeEqualsItsPieces()
    {
        const Transcript t = test::generatedTranscript(Format::ClaudeCode, 12000, 21);
        std::vector<std::size_t> all;
        for (std::size_t i = 0; i < t.messages.size(); ++i)
            if (i % 7 != 3) // a range with gaps, as the conversation positions of a compaction
                all.push_back(i);
        QVERIFY(all.size() >= 8192);
        const Digest d = digest(t, all);

        std::vector<std::string> calls, inputs, responses, errors, media, read, modified, commands;
        std::set<std::string> seenRead, seenModified, seenCommands;
        std::int64_t first = kNoTime, last = kNoTime;
        for (std::size_t from = 0; from < all.size(); from += 1000) {
            const std::vector<std::size_t> piece(all.begin() + std::ptrdiff_t(from),
                                                 all.begin() + std::ptrdiff_t(std::min(all.size(), from + 1000)));
            const Digest p = digest(t, piece);
            for (const auto &c : p.toolCalls)
                calls.push_back(std::to_string(c.message) + std::string(c.id) + std::string(c.name));
            for (const auto &[i, text] : p.userInputs)
                inputs.push_back(std::to_string(i) + std::string(text));
            for (const auto &[i, text] : p.assistantResponses)
                responses.push_back(std::to_string(i) + std::string(text));
            for (const auto &e : p.errors)
                errors.push_back(std::to_string(e.message) + std::string(e.toolUseId) + e.error);
            for (const auto &m : p.images)
                media.push_back("i" + std::to_string(m.message));
            for (const auto &m : p.documents)
                media.push_back("d" + std::to_string(m.message));
            auto unique = [](const std::vector<std::string_view> &from, std::set<std::string> &seen,
                             std::vector<std::string> &into) {
                for (const std::string_view v : from)
                    if (seen.insert(std::string(v)).second)
                        into.emplace_back(v);
            };
            unique(p.filesRead, seenRead, read);
            unique(p.filesModified, seenModified, modified);
            unique(p.commands, seenCommands, commands);
            if (first == kNoTime)
                first = p.firstTimeMs;
            if (p.lastTimeMs != kNoTime)
                last = p.lastTimeMs;
        }
        auto strings = [](const std::vector<std::string_view> &v) { return std::vector<std::string>(v.begin(), v.end()); };
        std::vector<std::string> got;
        for (const auto &c : d.toolCalls)
            got.push_back(std::to_string(c.message) + std::string(c.id) + std::string(c.name));
        QCOMPARE(got, calls);
        got.clear();
        for (const auto &[i, text] : d.userInputs)
            got.push_back(std::to_string(i) + std::string(text));
        QCOMPARE(got, inputs);
        got.clear();
        for (const auto &[i, text] : d.assistantResponses)
            got.push_back(std::to_string(i) + std::string(text));
        QCOMPARE(got, responses);
        got.clear();
        for (const auto &e : d.errors)
            got.push_back(std::to_string(e.message) + std::string(e.toolUseId) + e.error);
        QCOMPARE(got, errors);
        got.clear();
        for (const auto &m : d.images)
            got.push_back("i" + std::to_string(m.message));
        for (const auto &m : d.documents)
            got.push_back("d" + std::to_string(m.message));
        QCOMPARE(got, media);
        QCOMPARE(strings(d.filesRead), read);
        QCOMPARE(strings(d.filesModified), modified);
        QCOMPARE(strings(d.commands), commands);
        QCOMPARE(d.firstTimeMs, first);
        QCOMPARE(d.lastTimeMs, last);
        // The generated session has all of these, in both halves.
        QVERIFY(calls.size() > 1000 && inputs.size() > 100 && responses.size() > 100 && !errors.empty());
        QVERIFY(read.size() > 10 && modified.size() > 10 && commands.size() >= 2 && first != kNoTime);
        // The halves share paths and commands, so the merge had duplicates to drop.
        const std::vector<std::size_t> upper(all.begin() + std::ptrdiff_t(all.size() / 2), all.end());
        const Digest later = digest(t, std::vector<std::size_t>(upper.begin(), upper.begin() + 4000));
        QVERIFY(std::any_of(later.filesRead.begin(), later.filesRead.end(), [&](std::string_view v) {
            return std::find(read.begin(), read.begin() + 5, std::string(v)) != read.begin() + 5;
        }));
        QVERIFY(std::any_of(later.commands.begin(), later.commands.end(),
                            [&](std::string_view v) { return std::string(v) == commands.front(); }));
        QVERIFY(d.toolCalls.back().message > all[all.size() / 2]);
    }

    void batchEditsEqualOneByOne_data()
    {
        QTest::addColumn<int>("messages");
        QTest::newRow("below the two-thread threshold") << 300;
        QTest::newRow("two threads") << 6000;
    }
    void batchEditsEqualOneByOne()
    {
        // setBlockTexts() against the same edits made one by one with setBlockText(): a pinned
        // message and an exempt tool refuse theirs, two results of one message and a block edited
        // twice (the later text wins) keep their order, and the estimates given are used.
        QFETCH(int, messages);
        const Transcript t = test::generatedTranscript(Format::Anthropic, std::size_t(messages), 21);
        std::vector<Editor::TextEdit> edits;
        std::size_t pinned = 0;
        for (std::size_t i = 0; i < t.messages.size(); ++i)
            for (std::size_t b = 0; b < t.messages[i].blocks.size(); ++b)
                if (t.messages[i].blocks[b].type == BlockType::ToolResult) {
                    if (!pinned && i > 10)
                        pinned = i;
                    const std::string text = "[cleared " + std::to_string(i) + "." + std::to_string(b) + "]";
                    Block probe;
                    probe.type = BlockType::ToolResult;
                    probe.text = text;
                    // Every third one with its estimate given, as the strategies give them.
                    const std::int64_t given = edits.size() % 3 == 0 ? tokens::estimateBlock(probe) : -1;
                    edits.push_back({i, b, text, Fate::Cleared, "reason " + std::to_string(i), given});
                    if (i % 7 == 0) // the same block again: the later text wins
                        edits.push_back({i, b, text + " again", Fate::Cleared, "second " + std::to_string(i)});
                }
        QVERIFY(edits.size() > std::size_t(messages) / 8);
        Input in(t);
        in.pinned = {pinned};
        in.exemptTools = {"Glob"};
        Editor one(in), batch(in);
        std::vector<char> expected;
        for (const auto &x : edits)
            expected.push_back(one.setBlockText(x.index, x.block, x.text, x.fate, x.reason, x.tokens) ? 1 : 0);
        std::vector<Editor::TextEdit> copy = edits;
        const std::vector<char> applied = batch.setBlockTexts(copy);
        QCOMPARE(applied, expected);
        QVERIFY(std::count(applied.begin(), applied.end(), 0) > 0); // the pinned and exempt ones
        Result a = one.finish(), b = batch.finish();
        computeStats(in, a, false);
        computeStats(in, b, false);
        QCOMPARE(fingerprint(b), fingerprint(a));
        QCOMPARE(b.stats.tokensAfter, a.stats.tokensAfter);
        // The given estimates are the ones estimateBlock makes: the totals equal a fresh estimate.
        std::int64_t fresh = 0;
        for (std::size_t k = 0; k < b.slots.size(); ++k)
            if (const Message &m = b.message(t, k); m.isConversation() && !m.sidechain) {
                Message plain = m;
                plain.cache.tokenEstimate = -1;
                fresh += tokens::estimateMessage(plain);
            }
        QCOMPARE(b.stats.tokensAfter, fresh);
    }

    void mallocIsMimallocWhenLinked()
    {
        // CMakeLists.txt links mimalloc first so that it replaces malloc for the whole process
        // (the strategy timings in bench/results.md depend on it): check that it really does.
#ifdef CL_HAVE_MIMALLOC
        void *probe = std::calloc(1, 100); // (zeroed: the check reads no uninitialized byte)
        const bool ours = mi_is_in_heap_region(probe);
        std::free(probe);
        auto *object = new std::string(200, 'x'); // operator new goes through malloc too
        const bool objectOurs = mi_is_in_heap_region(object->data());
        delete object;
        QVERIFY(ours);
        QVERIFY(objectOurs);
        // tuneAllocator() asks for 2 MiB pages unless the environment already decides.
        if (qEnvironmentVariableIsSet("MIMALLOC_LARGE_OS_PAGES"))
            QSKIP("MIMALLOC_LARGE_OS_PAGES set: the environment decides the page size");
        // (Before: off with mimalloc 2.0, Debian 12; newer versions allow large pages by default.)
        tuneAllocator();
        QVERIFY(mi_option_is_enabled(mi_option_large_os_pages));
        QVERIFY(allocatorDescription().find("mimalloc") == 0);
        QVERIFY(allocatorDescription().find("2 MiB pages") != std::string::npos);
        // Memory from the large pages works as any other (a fresh 64 MiB block, written and read).
        std::vector<char> big(64 << 20, 'a');
        big[big.size() - 1] = 'z';
        QCOMPARE(big.front(), 'a');
        QCOMPARE(big.back(), 'z');
        QVERIFY(mi_is_in_heap_region(big.data()));
#else
        // Built without mimalloc (CONTEXTLENS_WITH_MIMALLOC off, the sanitizer build, not installed):
        // the C library's malloc, and tuning leaves it so (it used to skip here, a skip in CI).
        QCOMPARE(allocatorDescription(), std::string("C library malloc"));
        tuneAllocator();
        QCOMPARE(allocatorDescription(), std::string("C library malloc"));
#endif
    }

    void sweAgentNotesCountLinesOfTheOutput()
    {
        // The omission note's count comes from the table: it must be the line count of the original.
        const Transcript t = test::generatedTranscript(Format::ClaudeCode, 1500, 4);
        Input in(t);
        const Result r = run(*find("swe-agent"), in, nlohmann::json{{"n", 2}});
        std::size_t notes = 0;
        for (std::size_t i = 0; i < t.messages.size(); ++i) {
            if (r.fates[i].slot < 0 || !r.slots[std::size_t(r.fates[i].slot)].message)
                continue;
            const Message &m = *r.slots[std::size_t(r.fates[i].slot)].message;
            for (std::size_t b = 0; b < m.blocks.size() && b < t.messages[i].blocks.size(); ++b) {
                if (m.blocks[b].text.rfind("Old environment output: (", 0) != 0)
                    continue;
                const std::string expected = "Old environment output: ("
                                             + std::to_string(referenceLines(t.messages[i].blocks[b].text))
                                             + " lines omitted)";
                QCOMPARE(m.blocks[b].text, expected);
                ++notes;
            }
        }
        QVERIFY(notes > 20);
    }
};

QTEST_GUILESS_MAIN(TestStrategyTables)
#include "tst_strategytables.moc"
