// SPDX-License-Identifier: MIT
#include "net/proxyconnection.h"

#include "core/formats/recording/answer.h"
#include "core/formats/recording/recording.h"
#include "core/util/json.h"
#include "core/workflow/requestrewrite.h"
#include "net/recordingproxy.h"
#include "net/tcpnodelay.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTcpSocket>
#include <QUrl>

namespace cl::net {

namespace {

constexpr qint64 kClientBacklog = qint64(1) << 20; // bytes waiting for a slow client before the upstream waits too

// Headers that describe one connection, not the message: never passed on in either direction.
bool isHopByHop(const QByteArray &name, const QByteArray &connectionHeader)
{
    static const QList<QByteArray> hop{"connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization",
                                       "te", "trailer", "transfer-encoding", "upgrade"};
    const QByteArray n = name.toLower();
    if (hop.contains(n) || n.startsWith("proxy-"))
        return true;
    for (const QByteArray &token : connectionHeader.split(','))
        if (token.trimmed().toLower() == n)
            return true;
    return false;
}

QByteArray reasonPhrase(int status)
{
    switch (status) {
    case 413: return "Payload Too Large";
    case 431: return "Request Header Fields Too Large";
    case 501: return "Not Implemented";
    default: return "Bad Request";
    }
}

bool isTransportError(QNetworkReply::NetworkError e)
{
    // 2xx and 4xx codes of QNetworkReply are HTTP statuses the upstream answered with, body complete.
    const int code = int(e);
    return e != QNetworkReply::NoError && !(code >= 201 && code <= 299) && !(code >= 401 && code <= 499);
}

} // namespace

ProxyConnection::ProxyConnection(QTcpSocket *socket, ProxyShared *shared, QObject *parent)
    : QObject(parent)
    , m_socket(socket)
    , m_shared(shared)
    , m_nam(new QNetworkAccessManager(this))
{
    m_socket->setParent(this);
    // Redirects and authentication are the agent's business; the proxy passes them through.
    m_nam->setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
    connect(m_socket, &QTcpSocket::readyRead, this, &ProxyConnection::readClient);
    connect(m_socket, &QTcpSocket::bytesWritten, this, [this] {
        if (m_reply && m_reply->bytesAvailable() > 0)
            readUpstream();
    });
    connect(m_socket, &QTcpSocket::disconnected, this, [this] {
        if (m_closing) // closed by the proxy, after its last answer
            deleteLater();
        else
            shutdown(QStringLiteral("the client closed the connection"));
    });
}

ProxyConnection::~ProxyConnection()
{
    m_closing = true;
    if (m_reply)
        m_reply->disconnect(this);
}

void ProxyConnection::shutdown(const QString &why)
{
    if (m_closing)
        return;
    m_closing = true;
    if (m_reply) {
        m_abortReason = why;
        m_reply->abort(); // finishes the exchange, which records it
    }
    m_pending.clear();
    if (m_socket->state() != QAbstractSocket::UnconnectedState)
        m_socket->abort();
    deleteLater();
}

void ProxyConnection::readClient()
{
    if (m_closing)
        return;
    m_parser.feed(m_socket->readAll());
    while (m_parser.hasRequest())
        m_pending.push_back(m_parser.takeRequest());
    // Only between answers: a 100 in the middle of another answer's stream would corrupt it. A
    // client that gets none sends its body after a second anyway.
    if (m_parser.takeContinueRequest() && !m_busy && m_pending.empty())
        m_socket->write("HTTP/1.1 100 Continue\r\n\r\n");
    startNext();
}

void ProxyConnection::startNext()
{
    if (m_busy || m_closing)
        return;
    if (m_pending.empty()) {
        // What could not be read is answered after the requests before it, and ends the connection.
        if (const int status = m_parser.errorStatus()) {
            m_keepAlive = false;
            answerLocally(status, reasonPhrase(status), QStringLiteral("record: the request could not be read"));
        }
        return;
    }
    HttpRequest request = std::move(m_pending.front());
    m_pending.pop_front();
    m_busy = true;
    m_id = m_shared->nextId++;
    m_keepAlive = request.keepAlive;
    m_http10 = request.version == "HTTP/1.0";
    m_noBody = request.method == "HEAD";
    m_headSent = false;
    m_chunked = false;
    m_abortReason.clear();
    m_response = {};
    m_clock.start();
    // An absolute-form target ("http://host/path", as sent to a configured HTTP proxy) keeps its path.
    if (!request.target.startsWith('/')) {
        const QUrl url = QUrl::fromEncoded(request.target);
        request.target = url.path(QUrl::FullyEncoded).toLatin1();
        if (url.hasQuery())
            request.target += '?' + url.query(QUrl::FullyEncoded).toLatin1();
        if (request.target.isEmpty())
            request.target = "/";
    }
    if (m_shared->recording)
        m_shared->recording->writeRequest(m_id, request.method, request.target, request.headers, request.body);
    m_api = Format::Unknown;
    m_sentEstimate = 0;
    if (m_shared->rewriter && m_shared->rewriting && request.method == "POST" && !request.body.isEmpty())
        rewrite(request);
    const QString base = m_shared->upstream.isEmpty() ? RecordingProxy::upstreamFor(request.target, m_shared->providers) : m_shared->upstream;
    if (base.isEmpty()) {
        answerLocally(404, "Not Found", QStringLiteral("record: no provider is known for this path; pass --upstream URL"));
        return;
    }
    forward(request, base);
}

void ProxyConnection::forward(const HttpRequest &request, const QString &base)
{
    QByteArray urlText = base.toUtf8();
    while (urlText.endsWith('/'))
        urlText.chop(1);
    QNetworkRequest upstream(QUrl::fromEncoded(QByteArray(urlText + request.target), QUrl::TolerantMode));
    const QByteArray connection = request.header("connection");
    QList<QByteArray> seen;
    for (const auto &[name, value] : request.headers) {
        const QByteArray n = name.toLower();
        if (isHopByHop(n, connection) || n == "host" || n == "content-length" || n == "expect")
            continue;
        // setRawHeader replaces: repeated headers are joined, as HTTP allows.
        const QByteArray joined = seen.contains(n) ? upstream.rawHeader(name) + ", " + value : value;
        upstream.setRawHeader(name, joined);
        seen.append(n);
    }
    // Qt decompresses only answers to requests it chose the encodings for: with the agent's own
    // Accept-Encoding (or identity when it sent none) the bytes it gets are the bytes it asked for.
    if (!seen.contains("accept-encoding"))
        upstream.setRawHeader("Accept-Encoding", "identity");
    upstream.setAttribute(QNetworkRequest::CookieLoadControlAttribute, QNetworkRequest::Manual);
    upstream.setAttribute(QNetworkRequest::CookieSaveControlAttribute, QNetworkRequest::Manual);
    upstream.setAttribute(QNetworkRequest::AuthenticationReuseAttribute, QNetworkRequest::Manual);
    upstream.setAttribute(QNetworkRequest::CacheLoadControlAttribute, QNetworkRequest::AlwaysNetwork);
    upstream.setAttribute(QNetworkRequest::CacheSaveControlAttribute, false);
    // HEAD by its own call: as a custom verb, Qt would wait for the body its Content-Length announces.
    if (request.method == "HEAD")
        m_reply = m_nam->head(upstream);
    else if (request.body.isEmpty())
        m_reply = m_nam->sendCustomRequest(upstream, request.method);
    else
        m_reply = m_nam->sendCustomRequest(upstream, request.method, request.body);
    // The request is with the kernel: what Nagle's algorithm holds of it goes now (tcpnodelay.h).
    connect(m_reply, &QNetworkReply::requestSent, this, &sendHeldTcpData);
    connect(m_reply, &QNetworkReply::metaDataChanged, this, &ProxyConnection::sendHead);
    connect(m_reply, &QNetworkReply::readyRead, this, &ProxyConnection::readUpstream);
    connect(m_reply, &QNetworkReply::finished, this, &ProxyConnection::upstreamFinished);
    m_reply->setReadBufferSize(kClientBacklog);
}

void ProxyConnection::rewrite(HttpRequest &request)
{
    const Format api = recording::apiOfPath(std::string_view(request.target.constData(), std::size_t(request.target.size())));
    if (api == Format::Unknown)
        return;
    const wire::RequestRewriter &r = *m_shared->rewriter;
    const wire::Rewrite w = r.rewrite(api, std::string_view(request.body.constData(), std::size_t(request.body.size())));
    m_api = api;
    m_sentEstimate = w.forwarded ? w.tokensAfter : w.tokensBefore;
    const char *sent = w.forwarded ? "compacted" : "original";
    if (m_shared->recording) {
        nlohmann::ordered_json j{{"strategy", r.options().strategy},
                                 {"params", nlohmann::ordered_json::parse(r.options().params.dump())},
                                 {"mode", r.options().dryRun ? "dry-run" : "live"},
                                 {"changed", w.changed},
                                 {"valid", w.valid},
                                 {"forwarded", sent},
                                 {"tokensBefore", w.tokensBefore},
                                 {"tokensAfter", w.tokensAfter},
                                 {"predictedBefore", w.predictedBefore},
                                 {"predictedAfter", w.predictedAfter},
                                 {"calibration", w.calibration},
                                 {"calibrated", w.calibrated},
                                 {"note", w.note},
                                 {"violations", w.violations}};
        if (!w.error.empty())
            j["error"] = w.error;
        if (!w.body.empty())
            j["body"] = json::sanitizeUtf8(w.body);
        m_shared->recording->writeRewrite(m_id, std::move(j));
    }
    if (m_shared->onRewrite && (w.changed || !w.error.empty())) {
        std::string line = "request " + std::to_string(m_id) + ": ";
        if (!w.error.empty())
            line += w.error + "; the original was forwarded";
        else if (!w.valid)
            line += r.options().strategy + " made a request the provider would reject (" + w.violations.front()
                    + "); the original was forwarded";
        else
            line += r.options().strategy + " " + std::to_string(w.predictedBefore) + " -> " + std::to_string(w.predictedAfter)
                    + " tokens predicted, " + (w.forwarded ? "the compacted request forwarded" : "dry run: the original forwarded");
        m_shared->onRewrite(line);
    }
    if (w.forwarded)
        request.body = QByteArray::fromStdString(w.body);
}

void ProxyConnection::learnFromAnswer()
{
    if (m_api == Format::Unknown || m_sentEstimate <= 0 || !m_shared->rewriter)
        return;
    const recording::Answer a = recording::readAnswer(m_api, std::string_view(m_response.body.constData(), std::size_t(m_response.body.size())));
    if (a.usage)
        m_shared->rewriter->learn(m_api, m_sentEstimate, a.usage->contextTokens());
}

void ProxyConnection::sendHead()
{
    const int status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (m_headSent || status <= 0 || m_closing)
        return;
    m_headSent = true;
    m_response.status = status;
    m_response.firstByteMs = m_clock.elapsed();
    const QByteArray reason = m_reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute).toByteArray();
    QByteArray head = "HTTP/1.1 " + QByteArray::number(status) + ' ' + (reason.isEmpty() ? QByteArray("Unknown") : reason) + "\r\n";
    const QByteArray connection = m_reply->rawHeader("connection");
    QByteArray length;
    bool encoded = false;
    for (const auto &[name, value] : m_reply->rawHeaderPairs()) {
        const QByteArray n = name.toLower();
        if (isHopByHop(n, connection))
            continue;
        if (n == "content-length") {
            length = value;
            continue;
        }
        encoded = encoded || (n == "content-encoding" && value.trimmed().toLower() != "identity");
        // Qt joins repeated headers (Set-Cookie with a line break): each goes out on its own line.
        for (const QByteArray &v : value.split('\n')) {
            head += name + ": " + v + "\r\n";
            m_response.headers.append({name, v});
        }
    }
    m_noBody = m_noBody || status == 204 || status == 304 || (status >= 100 && status < 200);
    if (!length.isEmpty() && (!encoded || m_noBody)) {
        head += "Content-Length: " + length + "\r\n";
        m_response.headers.append({"Content-Length", length});
    } else if (!m_noBody && m_http10) {
        m_keepAlive = false; // HTTP/1.0 knows no chunks: the end of the connection ends the body
    } else if (!m_noBody) {
        m_chunked = true;
        head += "Transfer-Encoding: chunked\r\n";
    }
    if (!m_keepAlive)
        head += "Connection: close\r\n";
    m_socket->write(head + "\r\n");
}

void ProxyConnection::writeChunk(const QByteArray &bytes)
{
    if (bytes.isEmpty() || m_noBody)
        return;
    if (m_chunked)
        m_socket->write(QByteArray::number(bytes.size(), 16) + "\r\n" + bytes + "\r\n");
    else
        m_socket->write(bytes);
}

void ProxyConnection::readUpstream()
{
    sendHead();
    if (!m_headSent)
        return;
    // Back-pressure: a client slower than the upstream leaves the bytes in the reply's bounded buffer,
    // and Qt stops reading the upstream, instead of this process holding a whole download for it.
    if (!m_reply->isFinished() && m_socket->bytesToWrite() > kClientBacklog)
        return;
    const QByteArray bytes = m_reply->readAll();
    m_response.body += bytes;
    writeChunk(bytes);
}

void ProxyConnection::upstreamFinished()
{
    QNetworkReply *reply = m_reply;
    reply->deleteLater();
    const QNetworkReply::NetworkError error = reply->error();
    const bool aborted = !m_abortReason.isEmpty();
    if (!aborted)
        readUpstream();
    m_reply = nullptr;
    if (!aborted && !m_headSent) {
        // No answer at all: the upstream could not be reached (or spoke no HTTP).
        m_response.error = QStringLiteral("upstream unreachable: ") + reply->errorString();
        answerLocally(502, "Bad Gateway", QStringLiteral("record: cannot reach the upstream: ") + redactedText(reply->errorString()));
        return;
    }
    m_response.totalMs = m_clock.elapsed();
    const bool broken = aborted || isTransportError(error);
    if (aborted)
        m_response.error = m_abortReason;
    else if (broken)
        m_response.error = QStringLiteral("the answer broke off: ") + reply->errorString();
    if (m_shared->recording)
        m_shared->recording->writeResponse(m_id, m_response);
    if (!broken)
        learnFromAnswer();
    if (broken) {
        // A truncated answer must not look complete: the connection ends without the last chunk.
        m_busy = false;
        if (!m_closing) {
            m_closing = true;
            m_pending.clear();
            m_socket->disconnectFromHost();
        }
        return;
    }
    if (m_chunked)
        m_socket->write("0\r\n\r\n");
    exchangeDone(m_keepAlive);
}

void ProxyConnection::answerLocally(int status, const QByteArray &reason, const QString &message)
{
    const QByteArray body = QJsonDocument(QJsonObject{{QStringLiteral("type"), QStringLiteral("error")},
                                                      {QStringLiteral("error"), QJsonObject{{QStringLiteral("type"), QStringLiteral("proxy_error")},
                                                                                            {QStringLiteral("message"), message}}}})
                                .toJson(QJsonDocument::Compact);
    QByteArray head = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reason + "\r\nContent-Type: application/json\r\nContent-Length: "
                      + QByteArray::number(body.size()) + "\r\n";
    if (!m_keepAlive)
        head += "Connection: close\r\n";
    m_socket->write(head + "\r\n" + body);
    if (m_busy && m_shared->recording) {
        m_response.status = status;
        m_response.headers = {{"Content-Type", "application/json"}, {"Content-Length", QByteArray::number(body.size())}};
        m_response.body = body;
        m_response.totalMs = m_clock.elapsed();
        if (m_response.error.isEmpty())
            m_response.error = message;
        m_shared->recording->writeResponse(m_id, m_response);
    }
    exchangeDone(m_keepAlive);
}

void ProxyConnection::exchangeDone(bool keepOpen)
{
    m_busy = false;
    if (m_closing)
        return;
    if (!keepOpen) {
        m_closing = true;
        m_pending.clear();
        m_socket->disconnectFromHost();
        return;
    }
    startNext();
}

} // namespace cl::net
