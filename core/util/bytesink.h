// SPDX-License-Identifier: MIT
#pragma once

// Where a writer puts its bytes: in memory (writeTranscript's result), or a file descriptor that
// receives them in pieces of about a megabyte, so that writing a large transcript never holds a
// second copy of it.

#include <cstddef>
#include <string>
#include <string_view>

namespace cl {

class ByteSink
{
public:
    ByteSink() = default; // keeps everything in memory; take() hands it over
    explicit ByteSink(int fd)
        : m_fd(fd)
    {} // writes to fd (not closed here)
    ByteSink(const ByteSink &) = delete;
    ByteSink &operator=(const ByteSink &) = delete;

    ByteSink &operator+=(std::string_view s) { return append(s); }
    ByteSink &operator+=(char c) { return append(std::string_view(&c, 1)); }
    ByteSink &append(std::string_view s);
    void reserve(std::size_t n); // a hint for the in-memory sink

    std::size_t size() const { return m_flushed + m_buffer.size(); } // bytes written so far
    bool empty() const { return size() == 0; }
    char back() const { return m_last; } // the last byte written ('\0' when none)

    // Hands the buffered bytes to the descriptor. After a write error every later append is dropped
    // and ok() is false with error() saying why.
    bool flush();
    bool ok() const { return m_error.empty(); }
    const std::string &error() const { return m_error; }

    std::string take(); // in-memory sink: the bytes (the sink is empty afterwards)

private:
    bool writeAll(std::string_view s);
    static constexpr std::size_t kChunk = std::size_t(1) << 20;
    int m_fd = -1;
    std::string m_buffer;
    std::size_t m_flushed = 0;
    char m_last = '\0';
    std::string m_error;
};

} // namespace cl
