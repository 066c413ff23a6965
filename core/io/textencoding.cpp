// SPDX-License-Identifier: MIT
#include "core/io/textencoding.h"

#include <algorithm>

namespace cl::text {

namespace {

constexpr std::size_t kHead = 4096;

bool isControl(unsigned char c)
{
    return c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f';
}

void appendUtf8(std::string &out, char32_t cp)
{
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += char(0xE0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    } else {
        out += char(0xF0 | (cp >> 18));
        out += char(0x80 | ((cp >> 12) & 0x3F));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    }
}

} // namespace

Sniff sniff(std::string_view bytes)
{
    Sniff s;
    const std::string_view head = bytes.substr(0, kHead);
    s.headBytes = head.size();
    const auto at = [&](std::size_t i) { return static_cast<unsigned char>(head[i]); };
    if (head.size() >= 4 && ((at(0) == 0xFF && at(1) == 0xFE && at(2) == 0 && at(3) == 0) || (at(0) == 0 && at(1) == 0 && at(2) == 0xFE && at(3) == 0xFF))) {
        s.encoding = Encoding::Utf32;
        s.byteOrderMark = true;
        return s;
    }
    if (head.size() >= 2 && at(0) == 0xFF && at(1) == 0xFE) {
        s.encoding = Encoding::Utf16LE;
        s.byteOrderMark = true;
        return s;
    }
    if (head.size() >= 2 && at(0) == 0xFE && at(1) == 0xFF) {
        s.encoding = Encoding::Utf16BE;
        s.byteOrderMark = true;
        return s;
    }
    std::size_t evenNul = 0, oddNul = 0;
    for (std::size_t i = 0; i < head.size(); ++i) {
        const unsigned char c = at(i);
        if (c == 0) {
            if (s.firstNul == std::string_view::npos)
                s.firstNul = i;
            ++(i % 2 ? oddNul : evenNul);
        }
        s.controlBytes += isControl(c);
    }
    if (s.firstNul == std::string_view::npos)
        return s;
    // Without a mark, UTF-16 text of mostly ASCII has a NUL in one of every two bytes, always on
    // the same side.
    const std::size_t pairs = head.size() / 2;
    if (pairs >= 2) {
        if (oddNul * 4 >= pairs * 3 && evenNul * 20 <= pairs) {
            s.encoding = Encoding::Utf16LE;
            return s;
        }
        if (evenNul * 4 >= pairs * 3 && oddNul * 20 <= pairs) {
            s.encoding = Encoding::Utf16BE;
            return s;
        }
    }
    // A stray NUL in text (a corrupted line) is a problem of that line; a head full of control
    // bytes is not text.
    if (s.controlBytes * 10 > head.size() || s.controlBytes >= 64)
        s.encoding = Encoding::Binary;
    return s;
}

std::string decodeUtf16(std::string_view bytes, bool bigEndian)
{
    std::string out;
    out.reserve(bytes.size() / 2 + bytes.size() / 8);
    std::size_t i = 0;
    if (bytes.size() >= 2) {
        const unsigned char a = static_cast<unsigned char>(bytes[0]), b = static_cast<unsigned char>(bytes[1]);
        if ((a == 0xFF && b == 0xFE && !bigEndian) || (a == 0xFE && b == 0xFF && bigEndian))
            i = 2;
    }
    const auto unit = [&](std::size_t k) -> char16_t {
        const auto lo = static_cast<unsigned char>(bytes[k]), hi = static_cast<unsigned char>(bytes[k + 1]);
        return bigEndian ? char16_t((lo << 8) | hi) : char16_t((hi << 8) | lo);
    };
    for (; i + 1 < bytes.size(); i += 2) {
        const char16_t u = unit(i);
        if (u >= 0xD800 && u <= 0xDBFF && i + 3 < bytes.size()) {
            const char16_t v = unit(i + 2);
            if (v >= 0xDC00 && v <= 0xDFFF) {
                appendUtf8(out, 0x10000 + ((char32_t(u) - 0xD800) << 10) + (char32_t(v) - 0xDC00));
                i += 2;
                continue;
            }
        }
        appendUtf8(out, (u >= 0xD800 && u <= 0xDFFF) ? char32_t(0xFFFD) : char32_t(u));
    }
    if (i < bytes.size())
        appendUtf8(out, 0xFFFD); // an odd last byte
    return out;
}

std::string_view encodingName(Encoding e)
{
    switch (e) {
    case Encoding::Utf8: return "UTF-8";
    case Encoding::Utf16LE: return "UTF-16LE";
    case Encoding::Utf16BE: return "UTF-16BE";
    case Encoding::Utf32: return "UTF-32";
    case Encoding::Binary: return "binary";
    }
    return "binary";
}

std::size_t lineOfOffset(std::string_view bytes, std::size_t offset)
{
    offset = std::min(offset, bytes.size());
    return std::size_t(std::count(bytes.begin(), bytes.begin() + std::ptrdiff_t(offset), '\n')) + 1;
}

std::string binaryReason(std::string_view bytes, const Sniff &s)
{
    std::string why = "binary file (" + std::to_string(s.controlBytes) + " NUL or control bytes in the first "
                      + std::to_string(s.headBytes) + " bytes";
    if (s.firstNul != std::string_view::npos)
        why += ", the first NUL at byte " + std::to_string(s.firstNul) + ", line " + std::to_string(lineOfOffset(bytes, s.firstNul));
    return why + "), not a transcript";
}

} // namespace cl::text
