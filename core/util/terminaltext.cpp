// SPDX-License-Identifier: MIT
#include "core/util/terminaltext.h"

#include <cstdint>
#include <cstdio>

namespace cl::util {

namespace {

// Length of the valid UTF-8 sequence at s[i] (1..4) and its code point; 0 when it is not one.
std::size_t utf8At(std::string_view s, std::size_t i, std::uint32_t &cp)
{
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    std::size_t n = 0;
    if (c < 0x80) {
        cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        cp = c & 0x1Fu;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        cp = c & 0x0Fu;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        cp = c & 0x07u;
    } else {
        return 0;
    }
    if (i + n > s.size())
        return 0;
    for (std::size_t k = 1; k < n; ++k) {
        if ((b(i + k) & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (b(i + k) & 0x3Fu);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are no UTF-8.
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

bool isControl(std::uint32_t cp, LineBreaks breaks)
{
    if (breaks == LineBreaks::Keep && (cp == '\n' || cp == '\t'))
        return false;
    return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F);
}

template <typename Emit>
bool walk(std::string_view text, LineBreaks breaks, Emit &&emit)
{
    bool changed = false;
    for (std::size_t i = 0; i < text.size();) {
        std::uint32_t cp = 0;
        const std::size_t n = utf8At(text, i, cp);
        if (n == 0) {
            emit(std::string_view("\xEF\xBF\xBD")); // U+FFFD
            changed = true;
            ++i;
            continue;
        }
        if (isControl(cp, breaks)) {
            char buf[8];
            std::snprintf(buf, sizeof buf, cp < 0x80 ? "\\x%02x" : "\\u%04x", unsigned(cp));
            emit(std::string_view(buf));
            changed = true;
        } else {
            emit(text.substr(i, n));
        }
        i += n;
    }
    return changed;
}

} // namespace

std::string terminalSafe(std::string_view text, LineBreaks breaks)
{
    std::string out;
    out.reserve(text.size());
    walk(text, breaks, [&](std::string_view piece) { out += piece; });
    return out;
}

bool isTerminalSafe(std::string_view text, LineBreaks breaks)
{
    return !walk(text, breaks, [](std::string_view) {});
}

std::string jsonTerminalSafe(std::string_view json)
{
    std::string out;
    out.reserve(json.size());
    for (std::size_t i = 0; i < json.size();) {
        std::uint32_t cp = 0;
        const std::size_t n = utf8At(json, i, cp);
        if (n == 0) {
            out += "\\ufffd"; // the writers replace invalid UTF-8 already; never a raw byte
            ++i;
            continue;
        }
        if (cp == 0x7F || (cp >= 0x80 && cp <= 0x9F)) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(cp));
            out += buf;
        } else {
            out.append(json.substr(i, n));
        }
        i += n;
    }
    return out;
}

} // namespace cl::util
