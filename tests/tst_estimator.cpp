// SPDX-License-Identifier: MIT
// The seed 001 estimator (core/tokens/estimator.cpp and tokens/estimator_scan.cpp: one pass of 32- or 16-byte chunks as
// bit masks, trimmed lines hashed), in both its widths, against a plain
// reading of its definition (docs/design/mechanisms.md §2 and core/tokens/estimator.h), one character at a time with a
// std::regex for URLs and a std::set for lines, on generated texts that mix ASCII, 2-, 3- and 4-byte
// characters, URLs, fences, repeated and blank lines, CR/LF and tabs, and single long lines.
#include "core/tokens/estimator.h"

#include <QtTest>

#include <cmath>
#include <random>
#include <regex>
#include <set>
#include <string>

namespace {

bool space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

double referenceRepetition(const std::string &text)
{
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos)
            end = text.size();
        std::size_t a = start, b = end;
        while (a < b && space(text[a]))
            ++a;
        while (b > a && space(text[b - 1]))
            --b;
        if (b - a >= 8)
            lines.push_back(text.substr(a, b - a));
        start = end + 1;
    }
    std::set<std::string> seen;
    std::size_t repeated = 0, total = 0;
    if (lines.size() >= 2) {
        for (const auto &l : lines)
            repeated += seen.insert(l).second ? 0 : 1;
        return double(repeated) / double(lines.size());
    }
    if (text.size() < 256)
        return 0.0;
    for (std::size_t p = 0; p + 8 <= text.size(); p += 8, ++total)
        repeated += seen.insert(text.substr(p, 8)).second ? 0 : 1;
    return double(repeated) / double(total);
}

std::int64_t referenceEstimate(const std::string &text)
{
    if (text.empty())
        return 0;
    std::int64_t units = 0;
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        units += (c & 0xC0) != 0x80 ? 1 : 0; // a code point starts
        units += c >= 0xF0 ? 1 : 0;          // outside the BMP: a surrogate pair
    }
    const std::int64_t base = (units + 3) / 4;
    std::int64_t fences = 0;
    for (std::size_t p = text.find("```"); p != std::string::npos; p = text.find("```", p + 3))
        ++fences;
    static const std::regex url("https?://[^ \\t\\n\\r\\f\\v]+");
    const auto urls = std::distance(std::sregex_iterator(text.begin(), text.end(), url), std::sregex_iterator());
    const auto discount = static_cast<std::int64_t>(std::floor(double(base) * referenceRepetition(text) * 0.1));
    return std::max<std::int64_t>(0, base + fences / 2 * 50 - std::int64_t(urls) * 10 - discount);
}

std::string generate(std::mt19937 &rng)
{
    static const std::vector<std::string> pieces = {
        "word ", "longer words here", "\n", "\n", "\r\n", "\t", "  ", ":", "://", "http://example.com/a",
        "https://x.y ", "http:// ", "```", "```cpp\n", "\xC3\xA9", "\xE4\xBD\xA0\xE5\xA5\xBD", "\xF0\x9F\x98\x80",
        "0123456789abcdef", "}", "        return value;\n", "    if (x) {\n",
        // Blank runs longer than a chunk (trimming across chunk ends), lines of 7 and 8 characters.
        std::string(40, ' '), " \t \r \f \v  \t\t  \t    \t\t\t  \t   \t\t \n", "abcdefg\n", "abcdefgh\n"};
    static const std::vector<std::string> repeats = {"the same line again\n", "duplicate entry: 42\n", "  padded line  \n",
                                                     "\f\vform-fed line\v\n", "form-fed line\n", "\x1f"
                                                                                                 "control line\n"};
    std::string s;
    const int shape = int(rng() % 4);
    const std::size_t length = rng() % 6000;
    while (s.size() < length) {
        if (shape == 0) { // one long line: shingles
            s += pieces[rng() % 2] + (rng() % 3 ? "abcdefgh" : "xyz");
            continue;
        }
        if (shape == 1 && rng() % 3 == 0)
            s += repeats[rng() % repeats.size()];
        else
            s += pieces[rng() % pieces.size()];
    }
    return s;
}

} // namespace

class TestEstimator : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Both passes (the AVX2 one where the processor has it, then the 16-byte one) against the reference.
    void matchesThePlainReading_data()
    {
        QTest::addColumn<bool>("wide");
        QTest::newRow("widest available") << true;
        QTest::newRow("narrow") << false;
    }

    void matchesThePlainReading()
    {
        QFETCH(bool, wide);
        cl::tokens::setWideScan(wide);
        qInfo("scan: %s", std::string(cl::tokens::scanName()).c_str());
        if (!wide)
            QCOMPARE(cl::tokens::scanName() == "avx2", false);
        std::mt19937 rng(20261127);
        for (int k = 0; k < 600; ++k) {
            const std::string text = generate(rng);
            const std::string label = "text " + std::to_string(k) + " (" + std::to_string(text.size()) + " bytes)";
            QVERIFY2(cl::tokens::repetition(text) == referenceRepetition(text), label.c_str());
            QVERIFY2(cl::tokens::estimateText(text) == referenceEstimate(text), label.c_str());
            // Every cut point of the chunks: prefixes end anywhere, characters included.
            if (k % 50 == 0)
                for (std::size_t n = 0; n < std::min<std::size_t>(text.size(), 80); ++n)
                    QCOMPARE(cl::tokens::estimateText(std::string_view(text).substr(0, n)),
                             referenceEstimate(text.substr(0, n)));
        }
        cl::tokens::setWideScan(true);
    }

    // estimateTextDistinctOutside on snips of texts whose lines all differ: head + marker + tail,
    // cut anywhere (inside lines and characters), with lines built from a few words so that partial
    // lines, the marker and whole lines often coincide, the marker sometimes on the head's or the
    // tail's line, sometimes a copy of a line, sometimes many lines.
    void distinctOutsideMatchesTheFullEstimate()
    {
        std::mt19937 rng(1127);
        static const std::vector<std::string> words = {"alpha", "beta", "gamma", "delta", "\xC3\xA9t\xC3\xA9", "x",
                                                       "  ", "\t", "12345678"};
        std::size_t checked = 0, zoneRepeats = 0;
        for (int k = 0; k < 400; ++k) {
            std::set<std::string> seen;
            std::vector<std::string> lines;
            const std::size_t count = 2 + rng() % 60;
            while (lines.size() < count) {
                std::string line;
                for (std::size_t w = 1 + rng() % 5; w-- > 0;)
                    line += words[rng() % words.size()] + (rng() % 2 ? " " : "");
                std::string trimmed = line;
                trimmed.erase(0, trimmed.find_first_not_of(" \t"));
                trimmed.erase(trimmed.find_last_not_of(" \t") + 1);
                if (trimmed.size() >= 8 && !seen.insert(trimmed).second)
                    continue; // the original's counted lines all differ
                lines.push_back(line);
            }
            // A line that is another one behind a short word: a tail cut just after that word
            // starts with a copy of the other line (behind a space the trim removes).
            const std::size_t echo = rng() % lines.size();
            const std::string prefixed = "x " + lines[rng() % lines.size()];
            if (std::string t = prefixed.substr(2); !seen.count("x " + t))
                lines.insert(lines.begin() + std::ptrdiff_t(echo), prefixed);
            else
                lines.insert(lines.begin() + std::ptrdiff_t(echo), "x");
            // And one that is another line with a word behind: a head cut before that word ends
            // with a copy of the other line.
            const std::size_t echo2 = rng() % lines.size();
            const std::string base = lines[rng() % lines.size()];
            const bool suffixed = !seen.count(base + " y") && echo2 != echo;
            if (suffixed)
                lines.insert(lines.begin() + std::ptrdiff_t(echo2), base + " y");
            std::string original;
            std::size_t echoAt = 0, echo2At = 0;
            for (std::size_t n = 0; n < lines.size(); ++n) {
                if (n == echo + (suffixed && echo2 <= echo ? 1 : 0))
                    echoAt = original.size();
                if (suffixed && n == echo2)
                    echo2At = original.size() + base.size();
                original += lines[n] + "\n";
            }
            if (rng() % 2)
                original.pop_back(); // no final line feed
            if (!cl::tokens::linesAreDistinct(original))
                continue; // fewer than two counted lines
            QCOMPARE(cl::tokens::estimateText(original) >= 0, true);
            auto boundary = [&](std::size_t at) { // never inside a character
                while (at < original.size() && (static_cast<unsigned char>(original[at]) & 0xC0) == 0x80)
                    ++at;
                return at;
            };
            const std::size_t head = suffixed && rng() % 2 ? echo2At : boundary(rng() % (original.size() + 1));
            std::size_t tail = boundary(head + rng() % (original.size() - head + 1));
            if (rng() % 2 && echoAt + 1 >= head)
                tail = echoAt + 1; // just after the "x"
            std::string marker;
            switch (rng() % 5) {
            case 0: marker = "\n\n[... " + std::to_string(tail - head) + " characters snipped ...]\n\n"; break;
            case 1: marker = lines[rng() % lines.size()]; break;                             // on the head's and tail's lines
            case 2: marker = "\n" + lines[rng() % lines.size()] + "\n"; break;               // a copy of a whole line
            case 3: marker = "\n" + words[rng() % 4] + " " + words[rng() % 4] + "\n"; break; // often a line's part
            default:
                for (int n = 0; n < 20; ++n) // more lines than the zone walk takes: the plain estimate
                    marker += "\nmarker line " + std::to_string(n % 3);
                break;
            }
            const std::string cut = original.substr(0, head) + marker + original.substr(tail);
            const std::int64_t expected = cl::tokens::estimateText(cut);
            const std::string label = "text " + std::to_string(k) + ": head " + std::to_string(head) + ", tail "
                                      + std::to_string(tail) + " of " + std::to_string(original.size());
            QVERIFY2(cl::tokens::estimateTextDistinctOutside(cut, head, head + marker.size()) == expected, label.c_str());
            ++checked;
            zoneRepeats += cl::tokens::repetition(cut) > 0 ? 1 : 0;
        }
        QVERIFY(checked > 300);
        QVERIFY(zoneRepeats > 50); // the cuts do make lines that repeat others
        // The premise: a text with a repeated line is not distinct.
        QVERIFY(!cl::tokens::linesAreDistinct("first line here\nsecond line\nfirst line here\n"));
        QVERIFY(cl::tokens::linesAreDistinct("first line here\nsecond line\n"));
        QVERIFY(!cl::tokens::linesAreDistinct("only one line of text"));
    }
};

QTEST_GUILESS_MAIN(TestEstimator)
#include "tst_estimator.moc"
