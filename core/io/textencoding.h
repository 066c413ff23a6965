// SPDX-License-Identifier: MIT
#pragma once

// What kind of bytes a file holds before any format is guessed: UTF-8 text (possibly with a stray
// NUL), UTF-16 text (with or without a byte-order mark, decoded to UTF-8 for the loaders), UTF-32
// (refused, named) or binary data (refused, with where the NUL bytes are).

#include <cstddef>
#include <string>
#include <string_view>

namespace cl::text {

enum class Encoding {
    Utf8,
    Utf16LE,
    Utf16BE,
    Utf32,
    Binary
};

struct Sniff {
    Encoding encoding = Encoding::Utf8;
    bool byteOrderMark = false;
    std::size_t firstNul = std::string_view::npos; // byte offset of the first NUL in the head
    std::size_t controlBytes = 0;                  // NUL and other control bytes in the head
    std::size_t headBytes = 0;                     // how many bytes were looked at
};

// Looks at the first 4 KB.
Sniff sniff(std::string_view bytes);

// UTF-16 (byte-order mark skipped) as UTF-8; unpaired surrogates become U+FFFD.
std::string decodeUtf16(std::string_view bytes, bool bigEndian);

std::string_view encodingName(Encoding e); // "UTF-16LE", ...

// "binary file (37 NUL or control bytes in the first 4096, the first NUL at byte 12, line 1), not a transcript"
std::string binaryReason(std::string_view bytes, const Sniff &s);

// 1-based line of a byte offset.
std::size_t lineOfOffset(std::string_view bytes, std::size_t offset);

} // namespace cl::text
