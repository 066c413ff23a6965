// SPDX-License-Identifier: MIT
#include "core/tokens/contentchars.h"

#include <array>
#include <cstdint>
#include <memory>

#if defined(__SSE2__)
#include <emmintrin.h> // quotedAscii
#endif

namespace cl {

namespace {

// JSON string literal length (quotes included). Escapes are not counted: scanning every byte of a
// 100 MB session for them costs more than the few characters they add to the measure.
std::size_t jsonQuoted(std::string_view s)
{
    return 2 + s.size();
}

// Counts what the serializer writes instead of storing it: json::dump().size() without building
// the string (tool inputs of a long session add up to megabytes of throw-away dumps).
class CharCounter final : public nlohmann::detail::output_adapter_protocol<char>
{
public:
    std::size_t count = 0;
    void write_character(char) override { ++count; }
    void write_characters(const char *, std::size_t length) override { count += length; }
};

std::size_t dumpSize(const nlohmann::json &j)
{
    auto counter = std::make_shared<CharCounter>();
    // The same serializer and settings as j.dump() (no indent, no ensure_ascii, strict).
    nlohmann::detail::serializer<nlohmann::json> s(counter, ' ', nlohmann::detail::error_handler_t::strict);
    s.dump(j, false, false, 0);
    return counter->count;
}

// Characters of s as a JSON string literal (quotes and escapes included, as the serializer writes
// it without ensure_ascii), or npos when s has non-ASCII bytes: the serializer then validates and
// counts it. SSE2 skips 16 plain bytes at a time; tool inputs carry whole files.
std::size_t quotedAscii(std::string_view s)
{
    static const auto extra = [] {
        std::array<std::uint8_t, 128> e{};
        for (int c = 0; c < 0x20; ++c)
            e[std::size_t(c)] = 5; // \u00XX
        for (const char c : {'\b', '\t', '\n', '\f', '\r', '"', '\\'})
            e[std::size_t(c)] = 1;
        return e;
    }();
    std::size_t n = 2 + s.size(), i = 0;
#if defined(__SSE2__)
    const __m128i space = _mm_set1_epi8(0x20), quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
    for (; s.size() - i >= 16; i += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(s.data() + i));
        // Signed: bytes >= 0x80 are negative, so "< 0x20" also catches them.
        const __m128i special = _mm_or_si128(_mm_cmplt_epi8(v, space),
                                             _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
        if (_mm_movemask_epi8(special) == 0)
            continue;
        for (std::size_t k = i; k < i + 16; ++k) {
            const auto c = static_cast<unsigned char>(s[k]);
            if (c >= 0x80)
                return std::string_view::npos;
            n += extra[c];
        }
    }
#endif
    for (; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x80)
            return std::string_view::npos;
        n += extra[c];
    }
    return n;
}

std::size_t digits(std::uint64_t v)
{
    std::size_t n = 1;
    for (; v >= 10; v /= 10)
        ++n;
    return n;
}

// json::dump().size() by walking the value: strings, integers and containers are measured here,
// anything else (floats, non-ASCII strings, binary) by the serializer, so the result is the same.
std::size_t dumpLength(const nlohmann::json &j)
{
    using V = nlohmann::json::value_t;
    switch (j.type()) {
    case V::null: return 4;
    case V::boolean: return j.get<bool>() ? 4 : 5;
    case V::number_integer: {
        const auto v = j.get<std::int64_t>();
        return v < 0 ? 1 + digits(0 - static_cast<std::uint64_t>(v)) : digits(static_cast<std::uint64_t>(v));
    }
    case V::number_unsigned: return digits(j.get<std::uint64_t>());
    case V::string: {
        const std::size_t n = quotedAscii(j.get_ref<const std::string &>());
        return n != std::string_view::npos ? n : dumpSize(j);
    }
    case V::array: {
        std::size_t n = 2;
        for (std::size_t k = 0; k < j.size(); ++k)
            n += (k ? 1 : 0) + dumpLength(j[k]);
        return n;
    }
    case V::object: {
        std::size_t n = 2;
        bool first = true;
        for (auto it = j.begin(); it != j.end(); ++it) {
            std::size_t key = quotedAscii(it.key());
            if (key == std::string_view::npos)
                key = dumpSize(nlohmann::json(it.key()));
            n += (first ? 0 : 1) + key + 1 + dumpLength(it.value());
            first = false;
        }
        return n;
    }
    default: return dumpSize(j);
    }
}

} // namespace

std::size_t contentChars(const Message &m)
{
    // {"role":"user","parts":[...]} : 10 + role + 10 + parts, parts separated by commas.
    std::size_t n = 21 + jsonQuoted(m.role == Role::Assistant ? "model" : "user");
    for (std::size_t b = 0; b < m.blocks.size(); ++b) {
        const Block &blk = m.blocks[b];
        n += b ? 1 : 0;
        switch (blk.type) {
        case BlockType::ToolUse:
            // {"functionCall":{"id":..,"name":..,"args":{...}}}
            n += 40 + jsonQuoted(blk.toolId) + jsonQuoted(blk.toolName) + (blk.input.is_null() ? 2 : dumpLength(blk.input));
            break;
        case BlockType::ToolResult:
            // {"functionResponse":{"id":..,"name":..,"response":{"output":".."}}}
            n += 64 + jsonQuoted(blk.toolId) + jsonQuoted(blk.toolName) + jsonQuoted(blk.text);
            break;
        case BlockType::Thinking:
            n += 26 + jsonQuoted(blk.text); // {"text":..,"thought":true}
            break;
        case BlockType::Image:
        case BlockType::Document:
            n += 40 + jsonQuoted(blk.mediaType) + blk.dataSize; // {"inlineData":{"mimeType":..,"data":..}}
            break;
        default:
            n += 9 + jsonQuoted(blk.text); // {"text":..}
            break;
        }
    }
    return n;
}

} // namespace cl
