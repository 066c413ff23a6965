// SPDX-License-Identifier: MIT
#pragma once

// One client connection of the RecordingProxy (net/recordingproxy.h): its requests in order
// (keep-alive, pipelining), one exchange at a time, each forwarded with its own QNetworkReply whose
// bytes go to the client as they arrive.

#include "net/httprequestparser.h"
#include "core/model/format.h"
#include "net/recordingfile.h"

#include <QElapsedTimer>
#include <QObject>

#include <deque>

class QNetworkAccessManager;
class QNetworkReply;
class QTcpSocket;

namespace cl::net {

struct ProxyShared;

class ProxyConnection : public QObject
{
public:
    // Takes the socket (it becomes a child).
    ProxyConnection(QTcpSocket *socket, ProxyShared *shared, QObject *parent);
    ~ProxyConnection() override;

    // Ends the connection now; an exchange in progress is recorded with `why` as its error.
    void shutdown(const QString &why);

private:
    void readClient();
    void startNext();
    void forward(const HttpRequest &request, const QString &base);
    // Compaction on the wire: may replace request.body with the compacted request.
    void rewrite(HttpRequest &request);
    // What the provider measured for the request, for the rewriter's calibration.
    void learnFromAnswer();
    void sendHead();
    void readUpstream();
    void upstreamFinished();
    // An answer of the proxy's own (400, 404, 502): JSON {"error": {...}} with a Content-Length.
    void answerLocally(int status, const QByteArray &reason, const QString &message);
    void exchangeDone(bool keepOpen);
    void writeChunk(const QByteArray &bytes);

    QTcpSocket *m_socket;
    ProxyShared *m_shared;
    QNetworkAccessManager *m_nam;
    HttpRequestParser m_parser;
    std::deque<HttpRequest> m_pending;

    // The exchange in progress.
    QNetworkReply *m_reply = nullptr;
    qint64 m_id = 0;
    bool m_busy = false;
    bool m_keepAlive = true;
    bool m_http10 = false;
    bool m_noBody = false; // HEAD, 204, 304: a head only
    bool m_headSent = false;
    bool m_chunked = false;
    QString m_abortReason; // set when the proxy, not the upstream, ended the exchange
    QElapsedTimer m_clock;
    RecordingFile::Response m_response;
    Format m_api = Format::Unknown;  // the wire API of a request the rewriter saw
    std::int64_t m_sentEstimate = 0; // ContextLens's figure of what went upstream
    bool m_closing = false;
};

} // namespace cl::net
