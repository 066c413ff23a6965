// SPDX-License-Identifier: MIT
#include "net/recordingproxy.h"

#include "net/proxyconnection.h"

#include <QTcpServer>
#include <QTcpSocket>

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

QString RecordingProxy::upstreamFor(const QByteArray &target)
{
    const QByteArray path = target.left(target.indexOf('?') < 0 ? target.size() : target.indexOf('?'));
    if (path == "/v1/messages" || path.startsWith("/v1/messages/"))
        return QStringLiteral("https://api.anthropic.com");
    if (path.startsWith("/v1beta/") || (path.startsWith("/v1/models/") && (path.contains(":generateContent") || path.contains(":streamGenerateContent"))))
        return QStringLiteral("https://generativelanguage.googleapis.com");
    if (path.startsWith("/v1/"))
        return QStringLiteral("https://api.openai.com");
    return {};
}

} // namespace cl::net
