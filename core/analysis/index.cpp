// SPDX-License-Identifier: MIT
// The per-message text scans of the analysis (important keywords, ``` fences, break phrases, topic
// words) and their cache in Message::textIndex. Scanning the first kilobytes of every text block is
// the one part of analyze() that grows with the text rather than with the message count (about
// 70 ms of a 100 000-message session), so the loader does it once, on its threads, right after
// the token estimate; analyze() then reads the cached results when they match its options.
#include "core/analysis/analysis.h"
#include "core/analysis/internal.h"

#include <algorithm>
#include <thread>

namespace cl::analysis {

namespace detail {

namespace {

inline bool wordByte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Appends the raw word hashes of one text block to w (analysis.h "topic change"): ASCII
// [a-z0-9_] runs of >= 3 chars (lower-cased) and every non-ASCII code point, stopping once w holds
// `cap` raw words (counted over the message's blocks).
void blockWords(std::string_view s, std::size_t cap, std::vector<std::uint64_t> &w)
{
    std::size_t i = 0;
    while (i < s.size() && w.size() < cap) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if (wordByte(c)) {
            std::uint64_t h = 1469598103934665603ull;
            std::size_t len = 0;
            while (i < s.size()) {
                unsigned char ch = static_cast<unsigned char>(s[i]);
                if (!wordByte(ch))
                    break;
                if (ch >= 'A' && ch <= 'Z')
                    ch = static_cast<unsigned char>(ch - 'A' + 'a');
                h = (h ^ ch) * 1099511628211ull;
                ++len;
                ++i;
            }
            if (len >= 3)
                w.push_back(h);
        } else if (c >= 0x80) {
            // One UTF-8 code point: lead byte plus continuation bytes.
            std::uint64_t h = 0x9e3779b97f4a7c15ull;
            do {
                h = (h ^ static_cast<unsigned char>(s[i])) * 1099511628211ull;
                ++i;
            } while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80);
            w.push_back(h);
        } else {
            ++i;
        }
    }
}

std::uint64_t mix(std::uint64_t h, std::string_view s)
{
    for (const char c : s)
        h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    return (h ^ 0xff) * 1099511628211ull; // separator, so that {"ab","c"} != {"a","bc"}
}

std::uint64_t mix(std::uint64_t h, std::uint64_t v)
{
    for (int k = 0; k < 8; ++k, v >>= 8)
        h = (h ^ (v & 0xff)) * 1099511628211ull;
    return h;
}

} // namespace

TextScanner::TextScanner(const AnalysisOptions &o)
    : o_(o)
    , keywords_(o.importantKeywords)
    , breaks_(o.breakPhrases)
{
    // The cache holds TextIndex::kMaxWords words and 16-bit needle indices.
    if (o.topicMaxWords > TextIndex::kMaxWords || o.importantKeywords.size() > 32000 || o.breakPhrases.size() > 32000)
        return;
    std::uint64_t h = 1469598103934665603ull;
    h = mix(h, std::uint64_t(o.scanBytes));
    h = mix(h, std::uint64_t(o.topicScanBytes));
    h = mix(h, std::uint64_t(o.topicMaxWords));
    h = mix(h, std::uint64_t(o.importantKeywords.size()));
    for (const auto &k : o.importantKeywords)
        h = mix(h, k);
    h = mix(h, std::uint64_t(o.breakPhrases.size()));
    for (const auto &k : o.breakPhrases)
        h = mix(h, k);
    key_ = std::uint32_t(h ^ (h >> 32));
    if (key_ == 0)
        key_ = 1;
}

std::size_t TextScanner::scan(const Message &m, TextIndex &out, std::vector<Word> &words) const
{
    out.keyword = -1;
    out.breakPhrase = -1;
    out.fence = false;
    words.clear();
    raw_.clear();
    std::size_t bytes = 0;
    int keyword = -1;
    bool results = false;
    const std::size_t cap = o_.topicMaxWords * 2;
    for (const auto &b : m.blocks) {
        if (b.type == BlockType::ToolResult) {
            bytes += b.text.size();
            results = true;
        }
        if (b.type != BlockType::Text)
            continue;
        bytes += b.text.size();
        const std::string_view text(b.text);
        const std::string_view head = text.substr(0, std::min(o_.scanBytes, text.size()));
        if (keyword < 0)
            keyword = keywords_.find(head);
        if (!out.fence && head.find("```") != std::string_view::npos)
            out.fence = true;
        blockWords(text.substr(0, std::min(o_.topicScanBytes, text.size())), cap, raw_);
    }
    out.keyword = std::int16_t(keyword);
    // Break phrases only matter for user requests (analysis/boundary.cpp).
    if (m.role == Role::User && !results)
        out.breakPhrase = std::int16_t(breaks_.findInText(m, o_.scanBytes));
    // Sorted unique 64-bit hashes, the first topicMaxWords of them, kept as their high halves.
    std::sort(raw_.begin(), raw_.end());
    raw_.erase(std::unique(raw_.begin(), raw_.end()), raw_.end());
    if (raw_.size() > o_.topicMaxWords)
        raw_.resize(o_.topicMaxWords);
    words.reserve(raw_.size());
    for (const std::uint64_t h : raw_)
        if (words.empty() || words.back() != Word(h >> 32))
            words.push_back(Word(h >> 32));
    return bytes;
}

} // namespace detail

void indexText(Transcript &t, const AnalysisOptions &o, int threads)
{
    const detail::TextScanner probe(o);
    if (probe.key() == 0)
        return;
    auto work = [&t, &o](std::size_t begin, std::size_t end) {
        const detail::TextScanner scanner(o);
        std::vector<detail::Word> words;
        for (std::size_t i = begin; i < end; ++i) {
            Message &m = t.messages[i];
            TextIndex &x = m.cache.textIndex;
            x.key = 0;
            if (!m.isConversation())
                continue;
            const std::size_t bytes = scanner.scan(m, x, words);
            std::copy(words.begin(), words.end(), x.words.begin());
            x.wordCount = std::uint8_t(words.size());
            x.bytes = std::uint32_t(bytes);
            x.key = scanner.key();
        }
    };
    const std::size_t n = t.messages.size();
    if (threads < 2 || n < 2000) {
        work(0, n);
        return;
    }
    // Two halves by message count: text sizes are spread evenly enough over a session.
    const std::size_t mid = n / 2;
    std::thread other(work, mid, n);
    work(0, mid);
    other.join();
}

} // namespace cl::analysis
