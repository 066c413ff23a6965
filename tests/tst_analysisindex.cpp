// SPDX-License-Identifier: MIT
// The load-time text index of the analysis (analysis::indexText, Message::textIndex): analyze()
// gives the same result with and without it, really reads it when it is current, and ignores it
// when the message changed or the options differ.
#include "core/analysis/analysis.h"
#include "core/generator/generator.h"
#include "core/io/loader.h"
#include "core/tokens/estimator.h"
#include "core/io/writer.h"

#include "test_support.h"

#include <QtTest>

#include <sstream>

using namespace cl;
using namespace cl::analysis;

namespace {

// Everything the text scans feed: boundary scores with reasons and topic similarity, importance
// with reasons, the chosen boundary.
std::string fingerprint(const Analysis &a)
{
    std::ostringstream out;
    out.precision(17);
    for (const auto &b : a.boundaries) {
        out << 'b' << b.position << ' ' << b.score << ' ' << b.topicSimilarity << ' ' << b.conversationBreak
            << b.topicChange << b.inToolSequence << b.errorNear;
        for (const auto &r : reasonsFor(b, a.options))
            out << " [" << r.rule << '|' << r.detail << ']';
        out << '\n';
    }
    for (const auto &im : a.importance) {
        out << 'i' << im.index << ' ' << im.score << ' ' << im.points;
        for (const auto &r : reasonsFor(im, a.options))
            out << " [" << r.rule << '|' << r.detail << ']';
        for (const auto &r : pointReasonsFor(im))
            out << " {" << r.rule << '|' << r.detail << '}';
        out << '\n';
    }
    out << "boundary " << (a.boundary ? std::int64_t(*a.boundary) : -1) << '\n';
    return out.str();
}

Transcript generated(Format f, std::size_t messages, std::uint64_t seed)
{
    return test::generatedTranscript(f, messages, seed);
}

std::size_t indexed(const Transcript &t)
{
    std::size_t n = 0;
    for (const auto &m : t.messages)
        n += m.cache.textIndex.key != 0;
    return n;
}

} // namespace

class TestAnalysisIndex : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void sameResultWithAndWithoutIndex_data()
    {
        QTest::addColumn<int>("format");
        QTest::addColumn<int>("seed");
        for (const Format f : {Format::ClaudeCode, Format::Anthropic, Format::OpenAIChat, Format::GeminiCli, Format::Codex, Format::CopilotCli})
            for (const int seed : {1, 7})
                QTest::newRow((std::string(formatName(f)) + "-" + std::to_string(seed)).c_str()) << int(f) << seed;
    }
    void sameResultWithAndWithoutIndex()
    {
        QFETCH(int, format);
        QFETCH(int, seed);
        Transcript t = generated(Format(format), 600, std::uint64_t(seed));
        QCOMPARE(indexed(t), std::size_t(0));
        const std::string plain = fingerprint(analyze(t));
        indexText(t);
        QVERIFY(indexed(t) > 500);
        QCOMPARE(fingerprint(analyze(t)), plain);
        // Single-threaded indexing fills the same index.
        Transcript u = generated(Format(format), 600, std::uint64_t(seed));
        indexText(u, {}, 1);
        for (std::size_t i = 0; i < t.messages.size(); ++i) {
            const TextIndex &a = t.messages[i].cache.textIndex, &b = u.messages[i].cache.textIndex;
            QCOMPARE(a.key, b.key);
            QCOMPARE(a.keyword, b.keyword);
            QCOMPARE(a.wordCount, b.wordCount);
            QVERIFY(a.words == b.words);
        }
        // Other options: the index (made for the defaults) must not be used.
        AnalysisOptions o;
        o.topicScanBytes = 40;
        o.topicMaxWords = 3;
        o.scanBytes = 12;
        o.importantKeywords.push_back("the");
        Transcript fresh = generated(Format(format), 600, std::uint64_t(seed));
        QCOMPARE(fingerprint(analyze(t, o)), fingerprint(analyze(fresh, o)));
        // An index made for those options is used and agrees too.
        indexText(fresh, o);
        QCOMPARE(fingerprint(analyze(fresh, o)), fingerprint(analyze(t, o)));
    }

    void indexIsReadAndStaleIndexIgnored()
    {
        Transcript t = generated(Format::Anthropic, 200, 3);
        indexText(t);
        // A plain user request without any important keyword.
        std::size_t target = t.messages.size();
        for (std::size_t i = 0; i < t.messages.size(); ++i) {
            const Message &m = t.messages[i];
            if (m.role == Role::User && !m.hasToolResult() && m.cache.textIndex.key != 0 && m.cache.textIndex.keyword < 0
                && !m.blocks.empty() && m.blocks.front().type == BlockType::Text && m.blocks.front().text.size() >= 9) {
                target = i;
                break;
            }
        }
        QVERIFY(target < t.messages.size());
        auto keywordReason = [](const Analysis &a, std::size_t index) {
            for (const auto &im : a.importance)
                if (im.index == index)
                    for (const auto &r : reasonsFor(im, a.options))
                        if (r.rule == "keyword")
                            return std::string(r.detail);
            return std::string("none");
        };
        QCOMPARE(keywordReason(analyze(t), target), std::string("none"));
        // Tamper with the index: analyze() must take it as it is (it does not rescan current entries).
        t.messages[target].cache.textIndex.keyword = 0;
        QCOMPARE(keywordReason(analyze(t), target), AnalysisOptions{}.importantKeywords[0]);
        // Change the text: the index no longer matches the message's bytes and is ignored.
        t.messages[target].blocks.front().text += " (edited)";
        QCOMPARE(keywordReason(analyze(t), target), std::string("none"));
        // Same-length edit bringing a keyword in: caught by the scan once the index is cleared.
        t.messages[target].cache.textIndex.key = 0;
        std::string &text = t.messages[target].blocks.front().text;
        text.replace(0, 9, "important");
        QCOMPARE(keywordReason(analyze(t), target), std::string("important"));
    }

    void loaderFillsIndex()
    {
        Transcript t = generated(Format::ClaudeCode, 300, 5);
        const WriteResult w = writeTranscript(t, Format::ClaudeCode);
        QVERIFY(w.ok);
        LoadResult r = loadBytes(w.bytes, "session.jsonl");
        QVERIFY(r.ok());
        const Transcript &loaded = *r.transcript;
        std::size_t conversation = 0;
        for (const auto &m : loaded.messages)
            conversation += m.isConversation();
        QCOMPARE(indexed(loaded), conversation);
        // The loaded transcript analyses as one without an index.
        Transcript copy = loaded;
        for (auto &m : copy.messages)
            m.cache.textIndex = TextIndex{};
        QCOMPARE(fingerprint(analyze(loaded)), fingerprint(analyze(copy)));
    }

    void optionsThatDoNotFitAreNotIndexed()
    {
        Transcript t = generated(Format::OpenAIChat, 100, 2);
        AnalysisOptions o;
        o.topicMaxWords = TextIndex::kMaxWords + 1;
        indexText(t, o);
        QCOMPARE(indexed(t), std::size_t(0));
    }
};

QTEST_GUILESS_MAIN(TestAnalysisIndex)
#include "tst_analysisindex.moc"
