// SPDX-License-Identifier: MIT
// The exact BPE counter: tiktoken's test vectors, the merge paths against each other, the parallel
// cut points, invalid UTF-8, and the loading errors. Vocabulary tests skip when the files are absent.

#include "core/tokens/bpe.h"

#include "test_support.h"

#include <QtTest>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

using namespace cl::bpe;

namespace {

constexpr const char *kFetchHint = "vocabularies not installed: run scripts/fetch-vocab.sh build/vocab";

std::string base64(std::string_view bytes)
{
    static const char *abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8)
                           | static_cast<unsigned char>(bytes[i + 2]);
        out += {abc[v >> 18], abc[(v >> 12) & 63], abc[(v >> 6) & 63], abc[v & 63]};
    }
    if (i + 1 == bytes.size()) {
        const unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
        out += {abc[v >> 18], abc[(v >> 12) & 63], '=', '='};
    } else if (i + 2 == bytes.size()) {
        const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8);
        out += {abc[v >> 18], abc[(v >> 12) & 63], abc[(v >> 6) & 63], '='};
    }
    return out;
}

// A synthetic vocabulary: every byte is its own token (rank = byte value), plus a few merges.
std::string syntheticVocab(const std::vector<std::pair<std::string, int>> &merges)
{
    std::string out;
    for (int b = 0; b < 256; ++b)
        out += base64(std::string(1, static_cast<char>(b))) + " " + std::to_string(b) + "\n";
    for (const auto &[bytes, rank] : merges)
        out += base64(bytes) + " " + std::to_string(rank) + "\n";
    return out;
}

std::vector<std::uint32_t> ids(std::initializer_list<std::uint32_t> l) { return l; }

// Text mixing everything the split pattern distinguishes: cases, contractions, digits, punctuation,
// CRLF, runs of blank lines and spaces, '/' after newlines, non-Latin scripts, emoji.
std::string trickyText(std::size_t bytes, unsigned seed)
{
    static const std::vector<std::string> atoms = {
        "Hello", " world", "it's", " THEY'RE", " we'll", "ſ'S", "\n", "\n\n", "\r\n", "  \n", " \n\n ", "\t",
        "   ", "/", "\n/", "//comment", "12345", " 3.14159", "!!", "?\n", "}\n", "{\"key\": [1, 2]}", " ",
        "日本語のテキスト", "Привет", " мир", "🌍", "👩‍⚕️", "e\xcc\x81", " café", "CamelCaseWord", "x", "\u00a0",
        "\u3000", "\u2028", "<|endoftext|>", "    return x;\n", "a/b", "\n\n\n", "'", "'ll", "ABC", "\nA", "\n日"};
    std::mt19937 rng(seed);
    std::string out;
    while (out.size() < bytes)
        out += atoms[rng() % atoms.size()];
    return out;
}

// Random text from the characters the o200k split rules tell apart: mostly ASCII (all of it, control
// characters included, with runs), plus the non-ASCII characters that can continue an ASCII match
// (letters of every case class, a mark, digits, white space, symbols, U+017F and U+212A which match
// 's' and 'k' caselessly) and invalid UTF-8.
std::string splitTortureText(std::size_t chars, unsigned seed)
{
    static const std::vector<std::string> other = {
        "ſ", "\u212a", "é", "É", "ǅ", "ʰ", "ª", "\u0301", "٣", "²", "→", "日", "\u00a0", "\u0085", "\u2028", "\u3000",
        "\u180e", "\u200b", "\xff", "\xc3", "\xed\xa0\x80"};
    static const std::string common = "aeiostlrdmvkAEISTLRDMVK0123456789 '\n\r\t/.,;{}()\"-";
    std::mt19937 rng(seed);
    std::string out;
    for (std::size_t i = 0; i < chars; ++i) {
        const unsigned r = rng() % 100;
        std::string c = r < 70   ? std::string(1, common[rng() % common.size()])
                        : r < 90 ? std::string(1, static_cast<char>(rng() % 128))
                                 : other[rng() % other.size()];
        for (unsigned k = rng() % 10 == 0 ? 1 + rng() % 5 : 0; k > 0; --k)
            out += c;
        out += c;
    }
    return out;
}

// "" when equal, else where the two lists of pieces first differ.
std::string firstDifference(const std::vector<std::string_view> &a, const std::vector<std::string_view> &b,
                            std::string_view text)
{
    for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
        if (i < a.size() && i < b.size() && a[i] == b[i] && a[i].data() == b[i].data())
            continue;
        const auto at = [&](const std::vector<std::string_view> &v) {
            return i < v.size() ? "[" + std::to_string(v[i].data() - text.data()) + ", +" + std::to_string(v[i].size()) + "]"
                                : std::string("none");
        };
        return "piece " + std::to_string(i) + ": fast " + at(a) + ", regex " + at(b);
    }
    return {};
}

std::string testPlansPath()
{
    for (const std::string &dir : vocabSearchDirs()) {
        const std::string p = dir + "/TestPlans.txt";
        if (std::filesystem::is_regular_file(p))
            return p;
    }
    return {};
}

} // namespace

class TestBpe : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // ---- no vocabulary needed ----

    void missingFileIsAnError()
    {
        std::string error;
        const std::string path = "/nonexistent/contextlens/o200k_base.tiktoken";
        QVERIFY(!Tokenizer::loadFile(Encoding::O200kBase, path, &error));
        QVERIFY2(error.find(path) != std::string::npos, error.c_str());
        QVERIFY2(error.find("scripts/fetch-vocab.sh") != std::string::npos, error.c_str());
    }

    void searchOrderStartsWithEnvironment()
    {
        const QByteArray old = qgetenv("CONTEXTLENS_VOCAB_DIR");
        qputenv("CONTEXTLENS_VOCAB_DIR", "/tmp/cl-vocab-first");
        const auto dirs = vocabSearchDirs();
        if (old.isNull())
            qunsetenv("CONTEXTLENS_VOCAB_DIR");
        else
            qputenv("CONTEXTLENS_VOCAB_DIR", old);
        QVERIFY(dirs.size() >= 3);
        QCOMPARE(dirs.front(), std::string("/tmp/cl-vocab-first"));
        QVERIFY(dirs[1].size() > 6 && dirs[1].substr(dirs[1].size() - 6) == "/vocab");
        QVERIFY(dirs[2].find("/../share/contextlens/vocab") != std::string::npos);
    }

    void malformedVocabularies()
    {
        std::string error;
        const std::string good = syntheticVocab({});
        QVERIFY2(Tokenizer::fromTiktoken(Encoding::Cl100kBase, good, &error), error.c_str());
        QVERIFY(!Tokenizer::fromTiktoken(Encoding::Cl100kBase, good + "!!notbase64 300\n", &error));
        QVERIFY2(error.find("line 257") != std::string::npos, error.c_str());
        QVERIFY(!Tokenizer::fromTiktoken(Encoding::Cl100kBase, good + "YWI=\n", &error)); // no rank
        QVERIFY(!Tokenizer::fromTiktoken(Encoding::Cl100kBase, good + "YWI= 12x\n", &error));
        QVERIFY(!Tokenizer::fromTiktoken(Encoding::Cl100kBase, good + "YWI= 5\n", &error));   // rank 5 twice
        QVERIFY(!Tokenizer::fromTiktoken(Encoding::Cl100kBase, good + "YQ== 300\n", &error)); // "a" twice
        QVERIFY(!Tokenizer::fromTiktoken(Encoding::Cl100kBase, good + "YQ=a 300\n", &error)); // '=' inside
        QVERIFY(!Tokenizer::fromTiktoken(Encoding::Cl100kBase, good + "Y=== 300\n", &error));
        QVERIFY(!Tokenizer::fromTiktoken(Encoding::Cl100kBase, good + "YQ==YQ== 300\n", &error));
        QVERIFY(!Tokenizer::fromTiktoken(Encoding::Cl100kBase, good + " 300\n", &error)); // no token
        QVERIFY(!Tokenizer::fromTiktoken(Encoding::Cl100kBase, good + "YQ== 1234567890\n", &error));
        const std::string five = base64("abcde");
        QVERIFY(!Tokenizer::fromTiktoken(Encoding::Cl100kBase, good + five + " 300\n" + five + " 301\n", &error));
        QVERIFY2(error.find("two ranks") != std::string::npos, error.c_str());
        // Windows line ends and blank lines are fine.
        std::string crlf;
        for (char c : good + five + " 300\n\n")
            crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
        auto tok = Tokenizer::fromTiktoken(Encoding::Cl100kBase, crlf, &error);
        QVERIFY2(tok, error.c_str());
        QCOMPARE(tok->encode("abcde"), ids({300}));
        // Without byte 'z' some pieces could not be encoded at all.
        std::string noZ;
        std::istringstream in(good);
        for (std::string line; std::getline(in, line);)
            if (line != base64("z") + " 122")
                noZ += line + "\n";
        QVERIFY(!Tokenizer::fromTiktoken(Encoding::Cl100kBase, noZ, &error));
        QVERIFY2(error.find("122") != std::string::npos, error.c_str());
    }

    void syntheticMerges()
    {
        std::string error;
        auto tok = Tokenizer::fromTiktoken(
            Encoding::O200kBase, syntheticVocab({{"ab", 256}, {"bc", 257}, {"abc", 258}, {"aa", 259}, {"aaaa", 260}}),
            &error);
        QVERIFY2(tok, error.c_str());
        QCOMPARE(tok->vocabSize(), std::size_t(261));
        // "abcd": ab(256) < bc(257) merges first, then ab+c = abc(258); cd is no token.
        QCOMPARE(tok->encode("abcd"), ids({258, 'd'}));
        QCOMPARE(tok->encode("abc"), ids({258})); // whole-piece lookup
        // Ties go to the leftmost pair: "aaa" -> aa, a.
        QCOMPARE(tok->encode("aaa"), ids({259, 'a'}));
        QCOMPARE(tok->mergeHeap("aaa"), ids({259, 'a'}));
        // The regex splits before the merge: "ab cd" is "ab" + " cd".
        QCOMPARE(tok->encode("ab cd"), ids({256, ' ', 'c', 'd'}));
        // 1001 x 'a' (one piece, heap path): 500 aa + a, then 250 aaaa + a.
        const auto many = tok->encode(std::string(1001, 'a'));
        QCOMPARE(many.size(), std::size_t(251));
        QVERIFY(std::all_of(many.begin(), many.end() - 1, [](std::uint32_t id) { return id == 260; }));
        QCOMPARE(many.back(), std::uint32_t('a'));
        QCOMPARE(tok->mergeSimple(std::string(1001, 'a')), many);
    }

    // ---- real vocabularies ----

    void testPlans_data()
    {
        QTest::addColumn<int>("encoding");
        QTest::newRow("o200k_base") << int(Encoding::O200kBase);
        QTest::newRow("cl100k_base") << int(Encoding::Cl100kBase);
    }

    void testPlans()
    {
        QFETCH(int, encoding);
        const auto e = Encoding(encoding);
        auto tok = Tokenizer::load(e);
        const std::string plans = testPlansPath();
        CL_REQUIRE(tok || plans.empty(), kFetchHint);
        // Parsed like gpt-tokenizer's own test: blocks split at blank lines, fields after ": ".
        std::ifstream in(plans, std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        const std::string all = ss.str();
        int checked = 0;
        std::size_t pos = 0;
        while (pos < all.size()) {
            std::size_t end = all.find("\n\n", pos);
            if (end == std::string::npos)
                end = all.size();
            const std::string block = all.substr(pos, end - pos);
            pos = end + 2;
            const std::size_t l1 = block.find('\n');
            const std::size_t l2 = l1 == std::string::npos ? l1 : block.find('\n', l1 + 1);
            if (l2 == std::string::npos)
                continue;
            const std::string name = block.substr(block.find(": ") + 2, l1 - block.find(": ") - 2);
            if (name != encodingName(e))
                continue;
            const std::string sample = block.substr(l1 + 1 + 8, l2 - l1 - 1 - 8); // after "Sample: "
            QVERIFY(block.compare(l1 + 1, 8, "Sample: ") == 0);
            std::string list = block.substr(l2 + 1 + 9); // after "Encoded: "
            std::vector<std::uint32_t> expected;
            for (char &c : list)
                if (c == '[' || c == ']' || c == ',')
                    c = ' ';
            std::istringstream nums(list);
            for (std::uint32_t v; nums >> v;)
                expected.push_back(v);
            const auto got = tok->encode(sample);
            QVERIFY2(got == expected, sample.c_str());
            QCOMPARE(tok->count(sample), expected.size());
            QCOMPARE(tok->decode(got), sample);
            ++checked;
        }
        QVERIFY(checked >= 50);
    }

    void knownVectors()
    {
        // From gpt-tokenizer 4.0.0 (an independent implementation): whitespace, newline, '/' and
        // contraction handling, which TestPlans barely covers.
        auto cl = Tokenizer::load(Encoding::Cl100kBase);
        auto o2 = Tokenizer::load(Encoding::O200kBase);
        CL_REQUIRE(cl || !o2, kFetchHint);
        QCOMPARE(cl->encode("hello world"), ids({15339, 1917}));
        QCOMPARE(cl->encode("<|endoftext|>"), ids({27, 91, 8862, 728, 428, 91, 29})); // ordinary text
        QCOMPARE(cl->encode("a  \n\n b"), ids({64, 19124, 293}));
        QCOMPARE(cl->encode("}\n/y\n"), ids({534, 27589, 198}));
        QCOMPARE(cl->encode("  \nfoo  "), ids({2355, 8134, 256}));
        QCOMPARE(cl->encode("x \r\n\r\n\tit'S"), ids({87, 24226, 24263, 13575}));
        QCOMPARE(o2->encode("a  \n\n b"), ids({64, 11691, 287}));
        QCOMPARE(o2->encode("}\n/y\n"), ids({46248, 88, 198})); // o200k keeps "/" after "}\n"
        QCOMPARE(o2->encode("  \nfoo  "), ids({4066, 16660, 256}));
        QCOMPARE(o2->encode("x \r\n\r\n\tit'S"), ids({87, 41840, 52428, 31233}));
    }

    void countMatchesEncode_data() { testPlans_data(); }
    void countMatchesEncode()
    {
        QFETCH(int, encoding);
        auto tok = Tokenizer::load(Encoding(encoding));
        CL_REQUIRE(tok, kFetchHint);
        for (unsigned seed = 1; seed <= 20; ++seed) {
            const std::string text = trickyText(seed * 500, seed);
            const auto enc = tok->encode(text);
            QCOMPARE(tok->count(text), enc.size());
            QCOMPARE(tok->decode(enc), text);
        }
    }

    void fastSplitEqualsRegex_data() { testPlans_data(); }
    void fastSplitEqualsRegex()
    {
        // o200k_base splits ASCII without PCRE2: the pieces must be exactly the regex's.
        QFETCH(int, encoding);
        auto tok = Tokenizer::load(Encoding(encoding));
        CL_REQUIRE(tok, kFetchHint);
        std::vector<std::string> texts = {"", "a", " ", "\n", "'", "1", "x'", "x'l", "x'LL", "x're", "x'ſ", "ab'\xc5",
                                          "  ", " \t", "a\u00a0b", "a \xc2\x85", "12\xd9\xa3", "123\xd9\xa3", " !\xe2\x86\x92"};
        for (unsigned seed = 1; seed <= 400; ++seed)
            texts.push_back(splitTortureText(50 + seed * 5, seed));
        for (unsigned seed = 1; seed <= 20; ++seed)
            texts.push_back(trickyText(2000, seed));
        for (const std::string &text : texts) {
            const std::string diff = firstDifference(tok->split(text), tok->split(text, true), text);
            QVERIFY2(diff.empty(), (diff + " in \"" + text + "\"").c_str());
        }
    }

    void heapEqualsSimple_data() { testPlans_data(); }
    void heapEqualsSimple()
    {
        QFETCH(int, encoding);
        auto tok = Tokenizer::load(Encoding(encoding));
        CL_REQUIRE(tok, kFetchHint);
        std::mt19937 rng(7);
        const std::string alphabets[] = {"ab", "abcdefgh ", "etaoinshrdlu", "0123456789", "+/=Aa09xyz"};
        for (int round = 0; round < 300; ++round) {
            const std::string &abc = alphabets[round % 5];
            std::string piece(2 + rng() % 300, ' ');
            for (char &c : piece)
                c = abc[rng() % abc.size()];
            QCOMPARE(tok->mergeHeap(piece), tok->mergeSimple(piece));
        }
        const std::string b64 = base64(trickyText(6000, 3));
        for (std::size_t len : {64, 200, 1000, 8000})
            QCOMPARE(tok->mergeHeap(b64.substr(0, len)), tok->mergeSimple(b64.substr(0, len)));
    }

    void longUnsplittableInput_data() { testPlans_data(); }
    void longUnsplittableInput()
    {
        QFETCH(int, encoding);
        auto tok = Tokenizer::load(Encoding(encoding));
        CL_REQUIRE(tok, kFetchHint);
        std::mt19937 rng(11);
        std::string random(750 * 1000, '\0');
        for (char &c : random)
            c = static_cast<char>(rng());
        const std::string inputs[] = {std::string(1000 * 1000, 'a'), base64(random)};
        for (const std::string &text : inputs) {
            const auto t0 = std::chrono::steady_clock::now();
            const auto enc = tok->encode(text);
            const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            QVERIFY2(secs < 20.0, qPrintable(QStringLiteral("took %1 s").arg(secs))); // quadratic would take hours
            QCOMPARE(tok->count(text), enc.size());
            QCOMPARE(tok->decode(enc), text);
            // The heap merge used for long pieces agrees with the quadratic reference on a prefix.
            const std::string prefix = text.substr(0, 4000);
            QCOMPARE(tok->mergeHeap(prefix), tok->mergeSimple(prefix));
        }
        // A letter run is one piece, so 'a' * N must be few tokens, far less than N.
        QVERIFY(tok->count(std::string(1000 * 1000, 'a')) < 200 * 1000);
    }

    void cutPointsNeverChangeTheResult_data() { testPlans_data(); }
    void cutPointsNeverChangeTheResult()
    {
        QFETCH(int, encoding);
        auto tok = Tokenizer::load(Encoding(encoding));
        CL_REQUIRE(tok, kFetchHint);
        int cutsChecked = 0;
        for (unsigned seed = 1; seed <= 40; ++seed) {
            const std::string text = trickyText(3000, seed * 31);
            const auto whole = tok->encode(text);
            for (std::size_t cut : tok->splitPoints(text, 200)) {
                auto left = tok->encode(text.substr(0, cut));
                const auto right = tok->encode(text.substr(cut));
                left.insert(left.end(), right.begin(), right.end());
                QVERIFY2(left == whole, qPrintable(QStringLiteral("seed %1 cut %2").arg(seed).arg(cut)));
                ++cutsChecked;
            }
        }
        QVERIFY(cutsChecked > 1000);
    }

    void countParallelEqualsCount_data() { testPlans_data(); }
    void countParallelEqualsCount()
    {
        QFETCH(int, encoding);
        auto tok = Tokenizer::load(Encoding(encoding));
        CL_REQUIRE(tok, kFetchHint);
        for (unsigned seed = 1; seed <= 6; ++seed) {
            const std::string text = trickyText(300 * 1000 + seed * 777, seed);
            QVERIFY(tok->splitPoints(text, 4).size() == 3);
            const std::size_t expected = tok->count(text);
            for (int threads : {2, 3, 4})
                QCOMPARE(tok->countParallel(text, threads), expected);
        }
        const std::string noCuts(300 * 1000, 'x'); // no safe cut: falls back to one thread
        QCOMPARE(tok->countParallel(noCuts, 2), tok->count(noCuts));
        // Hex, base64 and identifiers without a space or newline: cut where a digit meets a letter
        // (one 100 MB line of hex counted on one thread took 2 s in the GUI benchmark).
        std::mt19937 rng(7);
        for (const char *alphabet : {"0123456789abcdef", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
                                     "abc_XYZ09"}) {
            const std::string letters(alphabet);
            std::string line(200 * 1000, ' ');
            for (char &c : line)
                c = letters[rng() % letters.size()];
            const auto cuts = tok->splitPoints(line, 4);
            QCOMPARE(cuts.size(), std::size_t(3));
            const auto whole = tok->encode(line);
            for (const std::size_t cut : cuts) {
                auto left = tok->encode(line.substr(0, cut));
                const auto right = tok->encode(line.substr(cut));
                left.insert(left.end(), right.begin(), right.end());
                QVERIFY2(left == whole, alphabet);
            }
            QCOMPARE(tok->countParallel(line, 2), whole.size());
        }
    }

    void invalidUtf8_data() { testPlans_data(); }
    void invalidUtf8()
    {
        // Documented behaviour: bytes the regex cannot match (invalid sequences) form pieces of their
        // own, byte-pair encoded; everything round-trips.
        QFETCH(int, encoding);
        auto tok = Tokenizer::load(Encoding(encoding));
        CL_REQUIRE(tok, kFetchHint);
        auto concat = [](std::vector<std::vector<std::uint32_t>> parts) {
            std::vector<std::uint32_t> out;
            for (auto &p : parts)
                out.insert(out.end(), p.begin(), p.end());
            return out;
        };
        QCOMPARE(tok->encode("abc\xff"
                             "def"),
                 concat({tok->encode("abc"), tok->mergeSimple("\xff"), tok->encode("def")}));
        const std::string bad[] = {"\xff\xfe", "\xe2\x82", "abc\xed\xa0\x80"
                                                           "def",
                                   "\xc0\xaf", "x\xf4\x90\x80\x80",
                                   "\n\xff", "  \xc3", std::string("a\0b", 3)};
        for (const std::string &s : bad) {
            const auto enc = tok->encode(s);
            QCOMPARE(tok->decode(enc), s);
            QCOMPARE(tok->count(s), enc.size());
        }
        std::mt19937 rng(5);
        std::string noise(300 * 1000, '\0');
        for (char &c : noise)
            c = (rng() % 4 == 0) ? '\n' : static_cast<char>(rng());
        const auto enc = tok->encode(noise);
        QCOMPARE(tok->decode(enc), noise);
        QCOMPARE(tok->countParallel(noise, 2), enc.size());
    }

    void loadIsSharedAcrossThreads()
    {
        CL_REQUIRE(available(Encoding::O200kBase), kFetchHint);
        std::vector<std::shared_ptr<const Tokenizer>> got(4);
        std::vector<std::thread> threads;
        for (int i = 0; i < 4; ++i)
            threads.emplace_back([&got, i] { got[i] = Tokenizer::load(Encoding::O200kBase); });
        for (auto &t : threads)
            t.join();
        for (const auto &t : got)
            QCOMPARE(t.get(), got[0].get());
        QCOMPARE(got[0]->encoding(), Encoding::O200kBase);
        QCOMPARE(got[0]->vocabSize(), std::size_t(199998));
    }
};

QTEST_GUILESS_MAIN(TestBpe)
#include "tst_bpe.moc"
