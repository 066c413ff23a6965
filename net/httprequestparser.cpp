// SPDX-License-Identifier: MIT
#include "net/httprequestparser.h"

namespace cl::net {

namespace {

constexpr qsizetype kMaxHeaderBytes = 64 << 10;

bool hasToken(const QByteArray &value, const QByteArray &token)
{
    for (const QByteArray &part : value.split(','))
        if (part.trimmed().compare(token, Qt::CaseInsensitive) == 0)
            return true;
    return false;
}

} // namespace

QByteArray HttpRequest::header(const QByteArray &name) const
{
    for (const auto &[n, v] : headers)
        if (n.compare(name, Qt::CaseInsensitive) == 0)
            return v;
    return {};
}

HttpRequest HttpRequestParser::takeRequest()
{
    HttpRequest r = std::move(m_ready.front());
    m_ready.pop_front();
    return r;
}

bool HttpRequestParser::takeContinueRequest()
{
    const bool c = m_continue;
    m_continue = false;
    return c;
}

bool HttpRequestParser::readLine(QByteArray &line)
{
    const qsizetype end = m_buffer.indexOf('\n', m_pos);
    if (end < 0) {
        if (m_buffer.size() - m_pos > kMaxHeaderBytes)
            fail(431);
        return false;
    }
    line = m_buffer.mid(m_pos, end - m_pos);
    if (line.endsWith('\r'))
        line.chop(1);
    m_headerBytes += end + 1 - m_pos;
    m_pos = end + 1;
    if (m_headerBytes > kMaxHeaderBytes)
        fail(431);
    return true;
}

// After the blank line: how the body is framed.
bool HttpRequestParser::parseHeadersDone()
{
    const QByteArray transfer = m_current.header("transfer-encoding");
    const QByteArray length = m_current.header("content-length");
    const QByteArray connection = m_current.header("connection");
    m_current.keepAlive = m_current.version == "HTTP/1.1" ? !hasToken(connection, "close") : hasToken(connection, "keep-alive");
    if (!transfer.isEmpty()) {
        if (!hasToken(transfer, "chunked") || !length.isEmpty()) { // ambiguous framing: request smuggling
            fail(transfer.isEmpty() ? 400 : 501);
            return false;
        }
        m_state = State::ChunkSize;
    } else if (!length.isEmpty()) {
        bool ok = false;
        const qlonglong n = length.trimmed().toLongLong(&ok);
        if (!ok || n < 0) {
            fail(400);
            return false;
        }
        if (n > m_maxBody) {
            fail(413);
            return false;
        }
        m_remaining = qsizetype(n);
        m_state = State::Body;
    } else {
        m_state = State::Body;
        m_remaining = 0;
    }
    m_continue = hasToken(m_current.header("expect"), "100-continue") && (m_state == State::ChunkSize || m_remaining > 0);
    return true;
}

void HttpRequestParser::feed(const QByteArray &data)
{
    if (m_error)
        return;
    m_buffer.append(data);
    QByteArray line;
    while (!m_error) {
        if (m_state == State::RequestLine) {
            if (!readLine(line))
                break;
            if (line.isEmpty()) { // stray CRLF between requests is allowed
                m_headerBytes = 0;
                continue;
            }
            const QList<QByteArray> parts = line.split(' ');
            if (parts.size() != 3 || parts[0].isEmpty() || parts[1].isEmpty() || !parts[2].startsWith("HTTP/1.")) {
                fail(400);
                break;
            }
            m_current = HttpRequest{parts[0], parts[1], parts[2], {}, {}, true};
            m_state = State::Headers;
        } else if (m_state == State::Headers || m_state == State::Trailers) {
            if (!readLine(line))
                break;
            if (!line.isEmpty()) {
                const qsizetype colon = line.indexOf(':');
                if (colon <= 0) {
                    fail(400);
                    break;
                }
                if (m_state == State::Headers)
                    m_current.headers.append({line.left(colon).trimmed(), line.mid(colon + 1).trimmed()});
                continue;
            }
            if (m_state == State::Trailers || (parseHeadersDone() && m_state == State::Body && m_remaining == 0)) {
                m_ready.push_back(std::move(m_current));
                m_current = {};
                m_state = State::RequestLine;
                m_headerBytes = 0;
            }
        } else if (m_state == State::Body || m_state == State::ChunkData) {
            const qsizetype n = std::min(m_remaining, m_buffer.size() - m_pos);
            m_current.body.append(m_buffer.constData() + m_pos, n);
            m_pos += n;
            m_remaining -= n;
            if (m_remaining > 0)
                break;
            if (m_state == State::ChunkData) {
                m_state = State::ChunkEnd;
                continue;
            }
            m_ready.push_back(std::move(m_current));
            m_current = {};
            m_state = State::RequestLine;
            m_headerBytes = 0;
        } else if (m_state == State::ChunkSize || m_state == State::ChunkEnd) {
            if (!readLine(line))
                break;
            m_headerBytes = 0; // the 64 KB bound is per line here, not for the whole body
            if (m_state == State::ChunkEnd) {
                if (!line.isEmpty())
                    fail(400);
                m_state = State::ChunkSize;
                continue;
            }
            bool ok = false;
            const qsizetype extensions = line.indexOf(';'); // ignored
            const qlonglong size = (extensions < 0 ? line : line.left(extensions)).trimmed().toLongLong(&ok, 16);
            if (!ok || size < 0 || m_current.body.size() + size > m_maxBody) {
                fail(ok && size >= 0 ? 413 : 400);
                break;
            }
            m_remaining = qsizetype(size);
            m_state = size == 0 ? State::Trailers : State::ChunkData;
        }
    }
    // What was consumed goes; a large body in progress does not pile up twice.
    if (m_pos > 0) {
        m_buffer.remove(0, m_pos);
        m_pos = 0;
    }
}

} // namespace cl::net
