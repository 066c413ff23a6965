// SPDX-License-Identifier: MIT
#pragma once
// The fake upstream of tst_recordproxy.cpp (a model provider on 127.0.0.1, built on QTcpServer, that
// streams, stalls, fails or resets as a test asks) and the helpers that read what the proxy answered
// and recorded.
#include "core/util/json.h"
#include "net/httprequestparser.h"

#include <QDir>
#include <QElapsedTimer>
#include <QList>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>
#include <QtTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <map>
#include <vector>

using Json = nlohmann::json;

namespace cl::test {

const QByteArray kSecret = "sk-secret";
const QList<QByteArray> kStreamChunks{"event: message_start\ndata: {\"type\":\"message_start\"}\n\n",
                                      "event: content_block_delta\ndata: {\"text\":\"Hallo \xc3\xa9\\u00e9\"}\n\n",
                                      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"};

// 6 MB, more than the proxy lets wait for a slow client: the rest must follow as the client reads.
inline const QByteArray &bigBody()
{
    static const QByteArray b = [] {
        QByteArray x;
        for (int i = 0; x.size() < (6 << 20); ++i)
            x += "line " + QByteArray::number(i) + " of a long answer\n";
        return x;
    }();
    return b;
}

const QByteArray kGzipBody("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03raw bytes", 19);

// The upstream: answers by path. /stream: three SSE chunks, at 0, 0.3 and 1.5 s (the long pause
// leaves a loaded machine time to pass the first on); /gzip: a compressed body; /NNN/error: that
// status with a JSON body; /reset: one chunk, then a TCP reset; HEAD: a head; else the body echoed.
class FakeUpstream : public QObject
{
public:
    bool start() { return m_server.listen(QHostAddress::LocalHost, 0); }
    QString url() const { return QStringLiteral("http://127.0.0.1:") + QString::number(m_server.serverPort()); }

    bool lastChunkSent = false;
    bool streamClientGone = false; // the proxy closed its connection before the stream ended
    QList<net::HttpRequest> requests;

    FakeUpstream()
    {
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *s = m_server.nextPendingConnection()) {
                s->setParent(this);
                connect(s, &QTcpSocket::readyRead, this, [this, s] { read(s); });
            }
        });
    }

private:
    void read(QTcpSocket *s)
    {
        net::HttpRequestParser &parser = m_parsers[s];
        parser.feed(s->readAll());
        while (parser.hasRequest()) {
            net::HttpRequest r = parser.takeRequest();
            requests.append(r);
            answer(s, r);
        }
    }

    void answer(QTcpSocket *s, const net::HttpRequest &r)
    {
        const QByteArray path = r.target.left(r.target.indexOf('?') < 0 ? r.target.size() : r.target.indexOf('?'));
        QPointer<QTcpSocket> socket(s);
        if (path.endsWith("/stream") || path.endsWith("/reset")) {
            s->write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nSet-Cookie: session=" + kSecret + "\r\n\r\n");
            auto chunk = [socket](const QByteArray &bytes) {
                if (socket)
                    socket->write(QByteArray::number(bytes.size(), 16) + "\r\n" + bytes + "\r\n");
            };
            chunk(kStreamChunks[0]);
            if (path.endsWith("/reset")) {
                QTimer::singleShot(300, this, [socket] {
                    if (socket) {
                        socket->flush();
                        socket->abort(); // closing with unread data pending: an RST, as a crash would
                    }
                });
                return;
            }
            connect(s, &QTcpSocket::disconnected, this, [this] { streamClientGone = !lastChunkSent; });
            QTimer::singleShot(300, this, [chunk] { chunk(kStreamChunks[1]); });
            QTimer::singleShot(1500, this, [this, chunk, socket] {
                chunk(kStreamChunks[2]);
                if (socket)
                    socket->write("0\r\n\r\n");
                lastChunkSent = true;
            });
        } else if (path.endsWith("/gzip")) {
            // Compressed as the client allowed (not valid gzip past its magic number: a proxy that
            // decompressed would fail or change it).
            s->write("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: " + QByteArray::number(kGzipBody.size()) + "\r\n\r\n" + kGzipBody);
        } else if (path.endsWith("/big")) {
            s->write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " + QByteArray::number(bigBody().size()) + "\r\n\r\n" + bigBody());
        } else if (r.method == "HEAD") {
            s->write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 42\r\n\r\n");
        } else if (path.endsWith("/error")) {
            // The status is in the path: 500, 429, 401 (with a challenge Qt could act on).
            const QByteArray status = path.split('/').value(2); // "/v1/429/error"
            const QByteArray body = R"({"type":"error","error":{"type":"api_error","message":"Overloaded"}})";
            s->write("HTTP/1.1 " + status + " Whatever\r\nContent-Type: application/json\r\nWWW-Authenticate: Basic realm=\"x\"\r\nRetry-After: 7\r\nContent-Length: "
                     + QByteArray::number(body.size()) + "\r\n\r\n" + body);
        } else {
            s->write("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: " + QByteArray::number(r.body.size()) + "\r\n\r\n" + r.body);
        }
    }

    QTcpServer m_server;
    std::map<QTcpSocket *, net::HttpRequestParser> m_parsers;
};

// One HTTP/1.1 response read off a raw socket: status, headers, de-chunked body, and whether it ended.
struct Response {
    int status = 0;
    QByteArray head;
    QByteArray body;
    bool complete = false;
};

// Parses what `raw` holds of the responses in it, in order; the last may be incomplete.
inline QList<Response> parseResponses(QByteArray raw)
{
    QList<Response> list;
    while (!raw.isEmpty()) {
        Response r;
        const qsizetype headEnd = raw.indexOf("\r\n\r\n");
        if (headEnd < 0)
            break;
        r.head = raw.left(headEnd);
        r.status = r.head.mid(9, 3).toInt();
        raw.remove(0, headEnd + 4);
        const QByteArray lower = r.head.toLower();
        if (lower.contains("transfer-encoding: chunked")) {
            while (true) {
                const qsizetype lineEnd = raw.indexOf("\r\n");
                if (lineEnd < 0)
                    break;
                const qsizetype size = raw.left(lineEnd).toLongLong(nullptr, 16);
                if (raw.size() < lineEnd + 2 + size + 2)
                    break;
                r.body += raw.mid(lineEnd + 2, size);
                raw.remove(0, lineEnd + 2 + size + 2);
                if (size == 0) {
                    r.complete = true;
                    break;
                }
            }
        } else {
            const qsizetype at = lower.indexOf("content-length: ");
            const qsizetype length = at < 0 ? 0 : lower.mid(at + 16, lower.indexOf("\r\n", at) < 0 ? -1 : lower.indexOf("\r\n", at) - at - 16).toLongLong();
            r.body = raw.left(length);
            r.complete = raw.size() >= length;
            raw.remove(0, std::min(length, raw.size()));
        }
        list.append(r);
        if (!r.complete)
            break;
    }
    return list;
}

inline QByteArray post(const QByteArray &target, const QByteArray &body, const QByteArray &extraHeaders = {})
{
    return "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" + extraHeaders
           + "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body;
}

inline std::vector<Json> recordingLines(const QString &path)
{
    QFile f(path);
    std::vector<Json> lines;
    if (!f.open(QIODevice::ReadOnly))
        return lines;
    for (const QByteArray &line : f.readAll().split('\n'))
        if (!line.isEmpty())
            lines.push_back(Json::parse(line.toStdString()));
    return lines;
}

inline const Json *find(const std::vector<Json> &lines, const std::string &type, std::int64_t id)
{
    for (const Json &j : lines)
        if (j.value("type", "") == type && j.value("id", std::int64_t(-1)) == id)
            return &j;
    return nullptr;
}

// TCP_NODELAY (0 or 1) of this process's TCP sockets whose peer (or, peer false, own) port is `port`.
inline std::vector<int> noDelayOfSockets(quint16 port, bool peer)
{
    std::vector<int> out;
    for (const QString &name : QDir(QStringLiteral("/proc/self/fd")).entryList(QDir::System | QDir::Files | QDir::NoDotAndDotDot)) {
        const int fd = name.toInt();
        sockaddr_in address{};
        socklen_t size = sizeof address;
        const int found = peer ? ::getpeername(fd, reinterpret_cast<sockaddr *>(&address), &size)
                               : ::getsockname(fd, reinterpret_cast<sockaddr *>(&address), &size);
        if (found != 0 || address.sin_family != AF_INET || ntohs(address.sin_port) != port)
            continue;
        int on = 0;
        socklen_t onSize = sizeof on;
        if (::getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, &onSize) == 0)
            out.push_back(on);
    }
    return out;
}

} // namespace cl::test
