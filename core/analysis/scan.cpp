// SPDX-License-Identifier: MIT
// Multi-needle ASCII case-insensitive search for the text scans (keywords, break phrases, code
// fences). One pass per text prefix finds candidate positions by each needle's first two bytes
// (16 positions at a time with SSE2, which every x86-64 has), then verifies the candidates; a
// 100 000-message transcript holds ~11 MB of scanned prefixes, so per-needle find() calls were
// the largest single cost of analyze().
#include "core/analysis/internal.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#define CL_SCAN_SSE2 1
#endif

namespace cl::analysis::detail {

namespace {
inline unsigned char lowerByte(unsigned char c) { return (c >= 'A' && c <= 'Z') ? static_cast<unsigned char>(c + 32) : c; }
} // namespace

Scanner::Scanner(const std::vector<std::string> &needles)
{
    needles_.reserve(needles.size());
    for (std::size_t k = 0; k < needles.size(); ++k) {
        std::string n = needles[k];
        for (char &c : n)
            c = char(lowerByte(static_cast<unsigned char>(c)));
        needles_.push_back(std::move(n));
        const std::string &l = needles_.back();
        if (l.empty())
            continue; // never matches (as the plain find() it replaces)
        if (l.size() == 1) {
            singles_.push_back(k);
            continue;
        }
        // Prefix of up to three bytes: common pairs ("re", "er") would flood the verification.
        Pair key{static_cast<unsigned char>(l[0]), static_cast<unsigned char>(l[1]), l.size() > 2 ? static_cast<unsigned char>(l[2]) : std::uint8_t(0), l.size() > 2, {}};
        auto it = std::find_if(pairs_.begin(), pairs_.end(), [&key](const Pair &p) {
            return p.b0 == key.b0 && p.b1 == key.b1 && p.hasB2 == key.hasB2 && (!p.hasB2 || p.b2 == key.b2);
        });
        if (it == pairs_.end()) {
            pairs_.push_back(std::move(key));
            it = pairs_.end() - 1;
        }
        it->needles.push_back(k);
    }
}

bool Scanner::matchAt(std::string_view hay, std::size_t pos, std::size_t k) const
{
    const std::string &n = needles_[k];
    if (pos + n.size() > hay.size())
        return false;
    for (std::size_t j = 0; j < n.size(); ++j)
        if (lowerByte(static_cast<unsigned char>(hay[pos + j])) != static_cast<unsigned char>(n[j]))
            return false;
    return true;
}

int Scanner::find(std::string_view hay) const
{
    int best = -1;
    auto better = [&best](std::size_t k) { return best < 0 || int(k) < best; };
    // One-byte needles: a plain byte search each (rare; not in the defaults).
    for (std::size_t k : singles_) {
        if (!better(k))
            continue;
        const unsigned char c = static_cast<unsigned char>(needles_[k][0]);
        const unsigned char u = (c >= 'a' && c <= 'z') ? static_cast<unsigned char>(c - 32) : c;
        if (std::memchr(hay.data(), c, hay.size()) || (u != c && std::memchr(hay.data(), u, hay.size())))
            best = int(k);
    }
    if (pairs_.empty() || hay.size() < 2 || best == 0)
        return best;
    // Verify candidate start position pos (its lower-cased first bytes are a needle prefix).
    auto verify = [&](std::size_t pos) {
        const unsigned char c0 = lowerByte(static_cast<unsigned char>(hay[pos]));
        const unsigned char c1 = lowerByte(static_cast<unsigned char>(hay[pos + 1]));
        for (const Pair &p : pairs_) {
            if (p.b0 != c0 || p.b1 != c1)
                continue;
            for (std::size_t k : p.needles)
                if (better(k) && matchAt(hay, pos, k)) {
                    best = int(k);
                    break; // needles are in ascending index order
                }
        }
    };
    std::size_t i = 0;
    const std::size_t n = hay.size();
#ifdef CL_SCAN_SSE2
    if (pairs_.size() <= kMaxSimdPairs) {
        __m128i first[kMaxSimdPairs], second[kMaxSimdPairs], third[kMaxSimdPairs], any[kMaxSimdPairs];
        for (std::size_t p = 0; p < pairs_.size(); ++p) {
            first[p] = _mm_set1_epi8(char(pairs_[p].b0));
            second[p] = _mm_set1_epi8(char(pairs_[p].b1));
            third[p] = _mm_set1_epi8(char(pairs_[p].b2));
            any[p] = pairs_[p].hasB2 ? _mm_setzero_si128() : _mm_set1_epi8(char(0xff));
        }
        const __m128i shift = _mm_set1_epi8(0x3f), limit = _mm_set1_epi8(-102), bit = _mm_set1_epi8(0x20);
        auto lower = [&](__m128i x) {
            // 'A'..'Z' + 0x3f = 0x80..0x99, i.e. -128..-103 signed: below -102.
            const __m128i upper = _mm_cmpgt_epi8(limit, _mm_add_epi8(x, shift));
            return _mm_add_epi8(x, _mm_and_si128(upper, bit));
        };
        const char *s = hay.data();
        // Positions i..i+15 need bytes up to i+17 (a candidate whose needle is longer than the rest
        // of hay fails in matchAt()).
        for (; i + 18 <= n; i += 16) {
            const __m128i a = lower(_mm_loadu_si128(reinterpret_cast<const __m128i *>(s + i)));
            const __m128i b = lower(_mm_loadu_si128(reinterpret_cast<const __m128i *>(s + i + 1)));
            const __m128i c = lower(_mm_loadu_si128(reinterpret_cast<const __m128i *>(s + i + 2)));
            __m128i m = _mm_setzero_si128();
            for (std::size_t p = 0; p < pairs_.size(); ++p)
                m = _mm_or_si128(m, _mm_and_si128(_mm_and_si128(_mm_cmpeq_epi8(a, first[p]), _mm_cmpeq_epi8(b, second[p])),
                                                  _mm_or_si128(_mm_cmpeq_epi8(c, third[p]), any[p])));
            unsigned bits = unsigned(_mm_movemask_epi8(m));
            while (bits) {
                verify(i + std::size_t(__builtin_ctz(bits)));
                bits &= bits - 1;
            }
            if (best == 0)
                return best;
        }
    }
#endif
    for (; i + 1 < n; ++i) {
        verify(i);
        if (best == 0)
            return best;
    }
    return best;
}

int Scanner::findInText(const Message &m, std::size_t limit) const
{
    for (const auto &b : m.blocks) {
        if (b.type != BlockType::Text)
            continue;
        if (const int k = find(std::string_view(b.text).substr(0, std::min(limit, b.text.size()))); k >= 0)
            return k;
    }
    return -1;
}

} // namespace cl::analysis::detail
