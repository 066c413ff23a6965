// SPDX-License-Identifier: MIT
// What `contextlens-cli record` adds between an agent and its provider. A fake provider on 127.0.0.1
// (its own thread) answers each POST with a server-sent event stream of 8 events, written one by one;
// a client on one keep-alive connection sends REQUESTS requests of BODY_KB (an agent's request with
// its tools and history) straight to it, then the same through the proxy, run as its own process
// (`contextlens-cli record -o FILE --upstream ...`), recording to a file. Per request: the time to
// the first byte of the answer's body and to its end; p50 and p99 of each, direct and through the
// proxy, and what the proxy adds. The proxy's resident memory after the first tenth of the requests
// and after all of them: flat when nothing piles up.
// Usage: bench_record CONTEXTLENS_CLI [REQUESTS [BODY_KB]]   (1000 and 64 unless given)
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QThread>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace {

constexpr int kEvents = 8;

// The provider: reads a request (head and Content-Length body), answers it chunked, keeps the
// connection for the next one.
class FakeProvider : public QObject
{
public:
    quint16 port() const { return m_port; }
    void start()
    {
        m_server = new QTcpServer(this);
        m_server->listen(QHostAddress::LocalHost, 0);
        m_port = m_server->serverPort();
        connect(m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *s = m_server->nextPendingConnection()) {
                s->setSocketOption(QAbstractSocket::LowDelayOption, 1); // as a provider's server: no Nagle wait
                auto *buffer = new QByteArray;
                connect(s, &QObject::destroyed, this, [buffer] { delete buffer; });
                connect(s, &QTcpSocket::disconnected, s, &QObject::deleteLater);
                connect(s, &QTcpSocket::readyRead, this, [s, buffer] {
                    buffer->append(s->readAll());
                    for (;;) {
                        const qsizetype head = buffer->indexOf("\r\n\r\n");
                        if (head < 0)
                            return;
                        const QRegularExpressionMatch m = QRegularExpression(QStringLiteral("(?i)content-length: *(\\d+)"))
                                                              .match(QString::fromLatin1(buffer->left(head)));
                        const qsizetype length = m.hasMatch() ? m.captured(1).toLongLong() : 0;
                        if (buffer->size() < head + 4 + length)
                            return;
                        buffer->remove(0, head + 4 + length);
                        s->write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n");
                        for (int e = 0; e < kEvents; ++e) {
                            const QByteArray event = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"text\":\""
                                                     + QByteArray(120, 'x') + "\"}}\n\n";
                            s->write(QByteArray::number(event.size(), 16) + "\r\n" + event + "\r\n");
                            s->flush();
                        }
                        s->write("0\r\n\r\n");
                        s->flush();
                    }
                });
            }
        });
    }

private:
    QTcpServer *m_server = nullptr;
    quint16 m_port = 0;
};

struct Timing {
    std::vector<double> firstByte, total; // ms
};

// One answer read to its end (the chunked terminator); false on a timeout or a broken connection.
bool exchange(QTcpSocket &socket, const QByteArray &request, double &firstMs, double &totalMs)
{
    QElapsedTimer t;
    t.start();
    socket.write(request);
    QByteArray got;
    firstMs = -1;
    while (!got.endsWith("0\r\n\r\n")) {
        if (!socket.bytesAvailable() && !socket.waitForReadyRead(10000))
            return false;
        got += socket.readAll();
        if (firstMs < 0 && got.indexOf("\r\n\r\n") >= 0 && got.size() > got.indexOf("\r\n\r\n") + 4)
            firstMs = double(t.nsecsElapsed()) / 1e6;
    }
    totalMs = double(t.nsecsElapsed()) / 1e6;
    return true;
}

bool run(quint16 port, const QByteArray &request, int requests, Timing &timing, const std::function<void(int)> &after = {})
{
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, port);
    if (!socket.waitForConnected(5000))
        return false;
    socket.setSocketOption(QAbstractSocket::LowDelayOption, 1);
    for (int i = 0; i < requests; ++i) {
        double first = 0, total = 0;
        if (!exchange(socket, request, first, total))
            return false;
        timing.firstByte.push_back(first);
        timing.total.push_back(total);
        if (after)
            after(i + 1);
    }
    return true;
}

double percentile(std::vector<double> v, double p)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, std::size_t(p * double(v.size())))];
}

long residentKb(qint64 pid)
{
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmRSS:", 0) == 0)
            return std::stol(line.substr(6));
    return -1;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_record CONTEXTLENS_CLI [REQUESTS]\n");
        return 2;
    }
    const int requests = argc > 2 ? std::max(10, std::atoi(argv[2])) : 1000;
    const int bodyKb = argc > 3 ? std::max(1, std::atoi(argv[3])) : 64;
    QThread providerThread;
    FakeProvider provider;
    provider.moveToThread(&providerThread);
    providerThread.start();
    QMetaObject::invokeMethod(
        &provider, [&provider] { provider.start(); }, Qt::BlockingQueuedConnection);

    const QByteArray body = "{\"model\":\"claude\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"" + QByteArray(bodyKb * 1024, 'a') + "\"}]}";
    const QByteArray request = "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nx-api-key: bench-key\r\n"
                               "Content-Length: "
                               + QByteArray::number(body.size()) + "\r\n\r\n" + body;

    Timing direct, proxied;
    if (!run(provider.port(), request, requests, direct)) {
        std::fprintf(stderr, "bench_record: the direct run failed\n");
        return 1;
    }
    QTemporaryDir dir;
    const QString recording = dir.filePath(QStringLiteral("recording.jsonl"));
    QProcess proxy;
    proxy.setProcessChannelMode(QProcess::SeparateChannels);
    proxy.setReadChannel(QProcess::StandardError); // where it says its port
    proxy.start(QString::fromLocal8Bit(argv[1]), {QStringLiteral("record"), QStringLiteral("-o"), recording, QStringLiteral("--upstream"),
                                                  QStringLiteral("http://127.0.0.1:%1").arg(provider.port())});
    quint16 proxyPort = 0;
    QByteArray said;
    for (QElapsedTimer t; !proxyPort;) {
        if (!t.isValid())
            t.start();
        if (t.elapsed() > 10000 || !proxy.waitForReadyRead(10000)) {
            std::fprintf(stderr, "bench_record: the proxy did not start: %s\n", said.constData());
            return 1;
        }
        said += proxy.readAllStandardError();
        const QRegularExpressionMatch m = QRegularExpression(QStringLiteral("listening on http://127.0.0.1:(\\d+)")).match(QString::fromUtf8(said));
        if (m.hasMatch())
            proxyPort = quint16(m.captured(1).toUInt());
    }
    long rssTenth = -1, rssEnd = -1;
    const bool ok = run(proxyPort, request, requests, proxied, [&](int done) {
        if (done == requests / 10)
            rssTenth = residentKb(proxy.processId());
        if (done == requests)
            rssEnd = residentKb(proxy.processId());
    });
    proxy.terminate();
    proxy.waitForFinished(5000);
    providerThread.quit();
    providerThread.wait();
    if (!ok) {
        std::fprintf(stderr, "bench_record: the run through the proxy failed\n");
        return 1;
    }
    const double recordedMb = double(QFile(recording).size()) / 1e6;
    const auto line = [](const char *what, const Timing &t) {
        std::printf("%-14s first byte p50 %6.2f p99 %6.2f ms   whole answer p50 %6.2f p99 %6.2f ms\n", what, percentile(t.firstByte, 0.5),
                    percentile(t.firstByte, 0.99), percentile(t.total, 0.5), percentile(t.total, 0.99));
    };
    std::printf("requests=%d request=%d bytes answer=%d events\n", requests, int(request.size()), kEvents);
    line("direct", direct);
    line("through proxy", proxied);
    std::printf("%-14s first byte p50 %+6.2f p99 %+6.2f ms   whole answer p50 %+6.2f p99 %+6.2f ms\n", "added",
                percentile(proxied.firstByte, 0.5) - percentile(direct.firstByte, 0.5),
                percentile(proxied.firstByte, 0.99) - percentile(direct.firstByte, 0.99),
                percentile(proxied.total, 0.5) - percentile(direct.total, 0.5), percentile(proxied.total, 0.99) - percentile(direct.total, 0.99));
    std::printf("proxy resident memory: %.1f MB after %d requests, %.1f MB after %d; recording %.1f MB\n", double(rssTenth) / 1024,
                requests / 10, double(rssEnd) / 1024, requests, recordedMb);
    return 0;
}
