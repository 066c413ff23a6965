// SPDX-License-Identifier: MIT
#pragma once

// The padding every loaded Transcript::buffer carries, so that SIMD parsers (simdjson) may read past
// the last byte of what they parse without a copy.

#include <cstddef>
#include <string>
#include <string_view>

namespace cl {

// Transcript::buffer always has at least this many readable bytes of capacity after its end, all
// initialized (spaces), so that SIMD parsers may read past the last line in place.
constexpr std::size_t kBufferPadding = 64;
// Adds that padding to bytes (without a copy when their capacity already allows it).
void padBuffer(std::string &bytes);
// Bytes readable after `text`, a view into `buffer`: the rest of the buffer, and its padding when it
// has one (for parsers that read past the end of what they parse).
inline std::size_t readableAfter(const std::string &buffer, std::string_view text)
{
    const std::size_t end = std::size_t(text.data() + text.size() - buffer.data());
    const std::size_t limit = buffer.size() + (buffer.capacity() >= buffer.size() + kBufferPadding ? kBufferPadding : 0);
    return end <= limit ? limit - end : 0;
}

} // namespace cl
