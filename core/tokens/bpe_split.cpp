// SPDX-License-Identifier: MIT
// Pre-tokenization: tiktoken's split regexes run by PCRE2 (UTF + UCP + JIT), and the safe cut points
// that let countParallel() split a text without changing the result. For o200k_base, ASCII text is
// split by the hand-coded o200k::match (bpe_internal.h) and PCRE2 runs only where it gives up.

#include "core/tokens/bpe_internal.h"

#include <algorithm>

namespace cl::bpe::detail {

namespace {

// Rust's regex (which tiktoken uses) defines \s as the Unicode White_Space property. PCRE2's \s with
// UCP also takes U+180E, so the class is spelled out to be exact.
#define CL_WS R"(\t\n\x{0B}\f\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000})"

// tiktoken_ext/openai_public.py, cl100k_base (with \s spelled out and $ as \z: Rust's $ without
// multi-line mode is the end of the text only).
constexpr const char *kCl100kPattern =
    R"('(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^)" CL_WS
    R"(\p{L}\p{N}]++[\r\n]*+|[)" CL_WS R"(]++\z|[)" CL_WS R"(]*[\r\n]|[)" CL_WS R"(]+(?![^)" CL_WS
    R"(])|[)" CL_WS R"(])";

// tiktoken_ext/openai_public.py, o200k_base: the seven alternatives joined with '|'.
constexpr const char *kO200kPattern =
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?)"
    R"(|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?)"
    R"(|\p{N}{1,3})"
    R"(| ?[^)" CL_WS R"(\p{L}\p{N}]+[\r\n/]*)"
    R"(|[)" CL_WS R"(]*[\r\n]+)"
    R"(|[)" CL_WS R"(]+(?![^)" CL_WS R"(]))"
    R"(|[)" CL_WS R"(]+)";

#undef CL_WS

// Match data, match context and JIT stack belong to the thread: pcre2 objects are not shareable
// while matching, and allocating per call would cost more than the match.
struct ThreadMatch {
    pcre2_match_data *data = nullptr;
    pcre2_match_context *context = nullptr;
    pcre2_jit_stack *stack = nullptr;
    ThreadMatch()
    {
        data = pcre2_match_data_create(1, nullptr);
        context = pcre2_match_context_create(nullptr);
        stack = pcre2_jit_stack_create(32 * 1024, 4 * 1024 * 1024, nullptr);
        if (context && stack)
            pcre2_jit_stack_assign(context, nullptr, stack);
    }
    ~ThreadMatch()
    {
        pcre2_jit_stack_free(stack);
        pcre2_match_context_free(context);
        pcre2_match_data_free(data);
    }
    ThreadMatch(const ThreadMatch &) = delete;
    ThreadMatch &operator=(const ThreadMatch &) = delete;
};

ThreadMatch &threadMatch()
{
    thread_local ThreadMatch m;
    return m;
}

bool isAsciiLetter(unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }

// Decodes the code point at text[p] when it is valid UTF-8; returns false otherwise.
bool codePointAt(std::string_view text, std::size_t p, char32_t &cp)
{
    const auto at = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char c = at(p);
    std::size_t len = 0;
    if (c < 0x80) {
        cp = c;
        return true;
    } else if (c >= 0xC2 && c <= 0xDF) {
        cp = c & 0x1F;
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        cp = c & 0x0F;
        len = 3;
    } else if (c >= 0xF0 && c <= 0xF4) {
        cp = c & 0x07;
        len = 4;
    } else {
        return false;
    }
    if (p + len > text.size())
        return false;
    for (std::size_t i = 1; i < len; ++i) {
        if ((at(p + i) & 0xC0) != 0x80)
            return false;
        cp = (cp << 6) | (at(p + i) & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
        return false;
    return true;
}

bool isWhiteSpace(char32_t c)
{
    return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680
           || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F
           || c == 0x3000;
}

// Whether both patterns are guaranteed to end a piece exactly at p and start a fresh one there.
// (A) text[p-1] == '\n' and text[p] is a valid non-white-space character other than '/': every
//     alternative that can contain the '\n' stops in front of such a character (the white-space runs
//     end there, ` ?[^\s..]+[\r\n]*` and o200k's `[\r\n/]*` cannot take it), and the only alternatives
//     that behave differently at the end of a chunk (cl100k `\s++$`, `\s+(?!\S)`) either give the
//     same span or come after one that already matches (`\s*[\r\n]`).
// (B) "x y" with ASCII letters x, y and p at the space: the piece holding x is a letter run (or a
//     contraction) that the space ends, and the space starts the piece " y...".
// (C) an ASCII digit and an ASCII letter side by side, either way round (hex, base64, identifiers:
//     long lines without a space): in both patterns a digit is only ever in a \p{N}{1,3} piece, and
//     no piece that holds a letter (letter runs with their optional non-letter, non-digit prefix,
//     contractions) can hold a digit, so the piece holding text[p-1] ends at p and one starts there.
// No pattern has look-behind, so what follows p is matched the same in the chunk and in the whole.
bool isCut(std::string_view text, std::size_t p)
{
    const auto c = static_cast<unsigned char>(text[p]);
    const auto before = static_cast<unsigned char>(text[p - 1]);
    if (before == '\n') {
        char32_t cp = 0;
        return codePointAt(text, p, cp) && !isWhiteSpace(cp) && cp != '/';
    }
    const auto digit = [](unsigned char x) { return x >= '0' && x <= '9'; };
    if ((digit(before) && isAsciiLetter(c)) || (isAsciiLetter(before) && digit(c)))
        return true;
    return c == ' ' && p + 1 < text.size() && isAsciiLetter(before)
           && isAsciiLetter(static_cast<unsigned char>(text[p + 1]));
}

} // namespace

Splitter::Splitter(Encoding e)
    : m_encoding(e)
{
    const char *pattern = e == Encoding::O200kBase ? kO200kPattern : kCl100kPattern;
    int err = 0;
    PCRE2_SIZE offset = 0;
    m_code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern), PCRE2_ZERO_TERMINATED,
                           PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &err, &offset, nullptr);
    if (!m_code) {
        PCRE2_UCHAR buf[256];
        pcre2_get_error_message(err, buf, sizeof buf);
        m_error = "pcre2_compile failed at " + std::to_string(offset) + ": " + reinterpret_cast<char *>(buf);
        return;
    }
    // Without JIT (e.g. a PCRE2 built without it) the interpreter gives the same matches, slower.
    m_jit = pcre2_jit_compile(m_code, PCRE2_JIT_COMPLETE) == 0;
}

Splitter::~Splitter() { pcre2_code_free(m_code); }

bool Splitter::next(PCRE2_SPTR s, std::size_t n, std::size_t pos, std::size_t &b, std::size_t &e) const
{
    ThreadMatch &tm = threadMatch();
    const int rc = m_jit ? pcre2_jit_match(m_code, s, n, pos, 0, tm.data, tm.context)
                         : pcre2_match(m_code, s, n, pos, 0, tm.data, tm.context);
    if (rc < 0)
        return false;
    const PCRE2_SIZE *ov = pcre2_get_ovector_pointer(tm.data);
    b = ov[0];
    e = ov[1];
    return true;
}

std::vector<std::size_t> Splitter::cutPoints(std::string_view text, int parts) const
{
    std::vector<std::size_t> cuts;
    const std::size_t n = text.size();
    if (parts < 2 || n < 2)
        return cuts;
    std::size_t last = 0;
    for (int k = 1; k < parts; ++k) {
        const std::size_t target = n / static_cast<std::size_t>(parts) * static_cast<std::size_t>(k);
        const std::size_t limit = n / static_cast<std::size_t>(parts) * static_cast<std::size_t>(k + 1);
        for (std::size_t p = std::max(target, last + 1); p < std::min(limit, n); ++p) {
            if (isCut(text, p)) {
                cuts.push_back(p);
                last = p;
                break;
            }
        }
    }
    return cuts;
}

} // namespace cl::bpe::detail
