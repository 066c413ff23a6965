// SPDX-License-Identifier: MIT
#include "net/recordingproxy.h"

#include "net/proxyconnection.h"

#include <QTcpServer>
#include <QTcpSocket>
#include <QUrl>

#include <utility>

namespace cl::net {

RecordingProxy::RecordingProxy(RecordingFile *recording, QObject *parent)
    : QObject(parent)
    , m_server(new QTcpServer(this))
    , m_shared(std::make_unique<ProxyShared>())
{
    m_shared->recording = recording;
    connect(m_server, &QTcpServer::newConnection, this, [this] {
        while (QTcpSocket *socket = m_server->nextPendingConnection()) {
            // Each streamed piece goes out at once: with Nagle's algorithm a small write waits for
            // the agent's delayed acknowledgement, 40-90 ms a request (bench/bench_record.cpp).
            socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
            m_connections.append(new ProxyConnection(socket, m_shared.get(), this));
        }
        m_connections.removeAll(nullptr);
    });
}

RecordingProxy::~RecordingProxy()
{
    close();
}

bool RecordingProxy::listen(const QHostAddress &address, quint16 port, QString *error)
{
    if (m_server->listen(address, port))
        return true;
    if (error)
        *error = m_server->errorString();
    return false;
}

quint16 RecordingProxy::port() const
{
    return m_server->serverPort();
}

QHostAddress RecordingProxy::address() const
{
    return m_server->serverAddress();
}

void RecordingProxy::close()
{
    m_server->close();
    // The connections delete themselves later; the exchanges they end are recorded now.
    const QList<QPointer<ProxyConnection>> connections = std::exchange(m_connections, {});
    for (const QPointer<ProxyConnection> &c : connections)
        if (c)
            c->shutdown(QStringLiteral("the proxy stopped"));
}

QString RecordingProxy::upstreamFor(const QByteArray &target, const ProviderBases &providers)
{
    const QByteArray path = target.left(target.indexOf('?') < 0 ? target.size() : target.indexOf('?'));
    if (path == "/v1/messages" || path.startsWith("/v1/messages/"))
        return providers.anthropic;
    if (path.startsWith("/v1beta/") || (path.startsWith("/v1/models/") && (path.contains(":generateContent") || path.contains(":streamGenerateContent"))))
        return providers.gemini;
    if (path.startsWith("/v1/"))
        return providers.openai;
    return {};
}

bool RecordingProxy::isUpstreamUrl(const QUrl &url)
{
    return url.isValid() && !url.host().isEmpty() && (url.scheme() == QLatin1String("http") || url.scheme() == QLatin1String("https"));
}

QStringList RecordingProxy::useAgentsEnvironment()
{
    QStringList taken;
    const auto take = [&](const char *variable, const QString &provider, QString &base, bool versioned) {
        QString value = qEnvironmentVariable(variable).trimmed();
        while (value.endsWith(QLatin1Char('/')))
            value.chop(1);
        if (versioned && value.endsWith(QStringLiteral("/v1")))
            value.chop(3); // the agents' paths start with /v1 themselves
        const QUrl url(value, QUrl::StrictMode);
        const bool ours = url.port() == int(port()) && (url.host() == QLatin1String("127.0.0.1") || url.host() == QLatin1String("localhost"));
        if (value.isEmpty() || ours || !isUpstreamUrl(url))
            return;
        base = value;
        taken << QStringLiteral("%1: %2 (%3)").arg(provider, value, QLatin1String(variable));
    };
    take("ANTHROPIC_BASE_URL", QStringLiteral("Anthropic"), m_shared->providers.anthropic, false);
    take("OPENAI_BASE_URL", QStringLiteral("OpenAI"), m_shared->providers.openai, true);
    take("GOOGLE_GEMINI_BASE_URL", QStringLiteral("Gemini"), m_shared->providers.gemini, false);
    return taken;
}

} // namespace cl::net
