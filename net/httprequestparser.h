// SPDX-License-Identifier: MIT
#pragma once

// The requests a client sends on one HTTP/1.1 connection, parsed as its bytes arrive: request line,
// headers, a body by Content-Length or chunked, several requests in a row (keep-alive, pipelining).
// Bounded: headers over 64 KB or a body over maxBody bytes stop the parse with an error status.

#include <QByteArray>
#include <QList>
#include <QPair>

#include <deque>

namespace cl::net {

struct HttpRequest {
    QByteArray method;
    QByteArray target; // as sent: path and query ("/v1/messages?beta=true")
    QByteArray version;
    QList<QPair<QByteArray, QByteArray>> headers; // in order, names as sent
    QByteArray body;                              // de-chunked
    bool keepAlive = true;                        // the client wants the connection kept open after this one

    QByteArray header(const QByteArray &name) const; // the first with this name (any case), or empty
};

class HttpRequestParser
{
public:
    explicit HttpRequestParser(qsizetype maxBody = qsizetype(256) << 20)
        : m_maxBody(maxBody)
    {
    }

    // Parses what it can of data; complete requests wait in order for takeRequest.
    void feed(const QByteArray &data);
    bool hasRequest() const { return !m_ready.empty(); }
    HttpRequest takeRequest();

    // 0 while the input is well-formed; else the status to answer with (400, 413, 431, 501).
    int errorStatus() const { return m_error; }
    // True once per request whose headers asked "Expect: 100-continue" and whose body is still to come.
    bool takeContinueRequest();

private:
    enum class State {
        RequestLine,
        Headers,
        Body,
        ChunkSize,
        ChunkData,
        ChunkEnd,
        Trailers
    };
    bool parseHeadersDone();
    void fail(int status) { m_error = status; }
    bool readLine(QByteArray &line); // one CRLF- (or LF-) terminated line from the buffer

    qsizetype m_maxBody;
    QByteArray m_buffer;
    qsizetype m_pos = 0;
    State m_state = State::RequestLine;
    HttpRequest m_current;
    qsizetype m_headerBytes = 0;
    qsizetype m_remaining = 0; // body or chunk bytes still expected
    bool m_continue = false;
    int m_error = 0;
    std::deque<HttpRequest> m_ready;
};

} // namespace cl::net
