// SPDX-License-Identifier: MIT
#include "core/util/bytesink.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace cl {

ByteSink &ByteSink::append(std::string_view s)
{
    if (s.empty() || !m_error.empty())
        return *this;
    m_last = s.back();
    if (m_fd < 0) {
        m_buffer.append(s);
        return *this;
    }
    if (m_buffer.size() + s.size() < kChunk) {
        m_buffer.append(s);
        return *this;
    }
    // A big piece (a 50 MB line) goes straight to the descriptor instead of through the buffer.
    if (flush()) {
        if (s.size() >= kChunk) {
            if (writeAll(s))
                m_flushed += s.size();
        } else {
            m_buffer.append(s);
        }
    }
    return *this;
}

bool ByteSink::writeAll(std::string_view s)
{
    std::size_t done = 0;
    while (done < s.size()) {
        const ssize_t n = ::write(m_fd, s.data() + done, s.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            m_error = std::string("write failed: ") + std::strerror(errno);
            m_buffer.clear();
            return false;
        }
        done += std::size_t(n);
    }
    return true;
}

void ByteSink::reserve(std::size_t n)
{
    if (m_fd < 0)
        m_buffer.reserve(n);
}

bool ByteSink::flush()
{
    if (m_fd < 0 || !m_error.empty())
        return m_error.empty();
    if (!writeAll(m_buffer))
        return false;
    m_flushed += m_buffer.size();
    m_buffer.clear();
    if (m_buffer.capacity() > 4 * kChunk)
        m_buffer.shrink_to_fit();
    return true;
}

std::string ByteSink::take()
{
    std::string out = std::move(m_buffer);
    m_buffer.clear();
    m_flushed = 0;
    m_last = '\0';
    return out;
}

} // namespace cl
