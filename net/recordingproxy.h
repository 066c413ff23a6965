// SPDX-License-Identifier: MIT
#pragma once

// The proxy of `contextlens-cli record`: an HTTP/1.1 server (normally on loopback) that forwards each
// request an agent sends to its model provider and streams the answer back as it arrives, piece by
// piece, while the exchange is written to a RecordingFile. The upstream is one base URL, or chosen per
// request by path (upstreamFor). Each client connection has its own upstream connection pool, so
// that an agent's parallel streams never wait behind each other. A client that goes away aborts its
// upstream answer; an upstream that breaks off closes the client's connection; one that cannot be
// reached is a 502.

#include <QHostAddress>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <functional>
#include <memory>
#include <string>

class QTcpServer;

namespace cl::wire {
class RequestRewriter;
}

namespace cl::net {

class ProxyConnection;
class RecordingFile;

// The providers requests go to by path when no upstream is set.
struct ProviderBases {
    QString anthropic = QStringLiteral("https://api.anthropic.com");
    QString openai = QStringLiteral("https://api.openai.com");
    QString gemini = QStringLiteral("https://generativelanguage.googleapis.com");
};

// What every connection of one proxy shares.
struct ProxyShared {
    RecordingFile *recording = nullptr; // may be null: forward only
    QString upstream;                   // base URL; empty: by path
    ProviderBases providers;            // by path
    qint64 nextId = 1;                  // of the next exchange
    // Compaction on the wire (core/workflow/requestrewrite.h): each model call is run through it
    // while `rewriting` is on; what it did is a "rewrite" line of the recording and one call of
    // onRewrite (a line for humans).
    wire::RequestRewriter *rewriter = nullptr;
    bool rewriting = true;
    std::function<void(const std::string &)> onRewrite;
};

class RecordingProxy : public QObject
{
public:
    explicit RecordingProxy(RecordingFile *recording, QObject *parent = nullptr);
    ~RecordingProxy() override;

    // The base URL every request goes to (its path is prefixed); empty: chosen by path.
    void setUpstream(const QString &baseUrl) { m_shared->upstream = baseUrl; }
    QString upstream() const { return m_shared->upstream; }
    // Compaction on the wire: the rewriter (owned by the caller; null: none), switched on and off
    // at once (the next request is forwarded as the agent sent it).
    void setRewriter(wire::RequestRewriter *rewriter) { m_shared->rewriter = rewriter; }
    void setRewriting(bool on) { m_shared->rewriting = on; }
    bool isRewriting() const { return m_shared->rewriter && m_shared->rewriting; }
    void setRewriteHandler(std::function<void(const std::string &)> handler) { m_shared->onRewrite = std::move(handler); }

    // false with *error set when the address cannot be listened on. Port 0: any free port.
    bool listen(const QHostAddress &address, quint16 port, QString *error = nullptr);
    quint16 port() const;
    QHostAddress address() const;
    // Stops listening and ends every connection; an answer still streaming is recorded as cut.
    void close();

    // The provider a request for this target goes to when no upstream is set: Anthropic for
    // /v1/messages, Gemini for /v1beta/ and /v1/models/...:generateContent, OpenAI for the rest of
    // /v1/; empty for any other path.
    static QString upstreamFor(const QByteArray &target, const ProviderBases &providers = {});
    // An agent the user already points at a gateway or another server (ANTHROPIC_BASE_URL,
    // OPENAI_BASE_URL, GOOGLE_GEMINI_BASE_URL in this process's environment) keeps going there
    // through the proxy: those become the providers by path. Returns what it took, one line each
    // ("Anthropic: https://gateway.example (ANTHROPIC_BASE_URL)"); a value that is no http(s) URL,
    // or this proxy itself, is left out.
    QStringList useAgentsEnvironment();
    // Whether a URL can be an upstream: http or https, with a host.
    static bool isUpstreamUrl(const QUrl &url);

private:
    QTcpServer *m_server = nullptr;
    QList<QPointer<ProxyConnection>> m_connections; // they delete themselves when they end
    std::unique_ptr<ProxyShared> m_shared;
};

} // namespace cl::net
