// SPDX-License-Identifier: MIT
// The recording proxy of `contextlens-cli record` (net/recordingproxy.h, issue 32) against a fake
// upstream on 127.0.0.1 built on QTcpServer: answers reach the client while the upstream is still
// sending them, the recording holds both bodies byte for byte and no credential, the file is 0600,
// an upstream 500 passes through, an upstream that resets closes the client's connection, one that
// cannot be reached is a 502, a keep-alive connection carries several requests, a client that goes
// away aborts its upstream answer; then the command itself with `sh -c 'curl ...'` as the agent.
#include "core/util/json.h"
#include "net/httprequestparser.h"
#include "net/recordingfile.h"
#include "net/recordingproxy.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <sys/stat.h>

#include "recordproxy_fixture.h"

using namespace cl;
using namespace cl::test;

class TestRecordProxy : public QObject
{
    Q_OBJECT

    struct Setup {
        QTemporaryDir dir;
        FakeUpstream upstream;
        net::RecordingFile file;
        std::unique_ptr<net::RecordingProxy> proxy;
        QString path() const { return dir.filePath(QStringLiteral("rec.jsonl")); }
    };

    // A proxy to the fake upstream (or to `upstreamUrl`), recording into a fresh file.
    std::unique_ptr<Setup> setup(const QString &upstreamUrl = {})
    {
        auto s = std::make_unique<Setup>();
        if (!s->upstream.start())
            return nullptr;
        std::string error;
        if (!s->file.open(s->path().toStdString(), error))
            return nullptr;
        s->proxy = std::make_unique<net::RecordingProxy>(&s->file);
        s->proxy->setUpstream(upstreamUrl.isEmpty() ? s->upstream.url() : upstreamUrl);
        if (!s->proxy->listen(QHostAddress::LocalHost, 0))
            return nullptr;
        s->file.writeStart(QStringLiteral("http://127.0.0.1:") + QString::number(s->proxy->port()), s->proxy->upstream());
        return s;
    }

    static bool connectTo(QTcpSocket &client, const Setup &s)
    {
        client.connectToHost(QHostAddress::LocalHost, s.proxy->port());
        return client.waitForConnected(5000);
    }

private Q_SLOTS:
    void streamsAsItArrives()
    {
        auto s = setup();
        QVERIFY(s);
        QTcpSocket client;
        QVERIFY(connectTo(client, *s));
        const QByteArray requestBody = R"({"model":"claude","stream":true,"messages":[{"role":"user","content":"Grüße \u0001 ☃"}]})";
        client.write(post("/v1/stream?beta=true&key=" + kSecret, requestBody,
                          "x-api-key: " + kSecret + "\r\nAuthorization: Bearer " + kSecret + "\r\nCookie: c=" + kSecret + "\r\n"));
        QByteArray raw;
        auto receive = [&] { raw += client.readAll(); };
        connect(&client, &QTcpSocket::readyRead, this, receive);
        // The first event reaches the client while the upstream has yet to send the last one.
        QVERIFY(QTest::qWaitFor([&] { return raw.contains("message_start"); }, 5000));
        QVERIFY2(!s->upstream.lastChunkSent, "the first chunk arrived only after the upstream had sent everything: buffered");
        QVERIFY(!raw.contains("message_stop"));
        QVERIFY(QTest::qWaitFor([&] { const auto r = parseResponses(raw); return !r.isEmpty() && r[0].complete; }, 5000));
        const Response r = parseResponses(raw)[0];
        QCOMPARE(r.status, 200);
        QVERIFY(r.head.toLower().contains("content-type: text/event-stream"));
        QCOMPARE(r.body, kStreamChunks.join());

        // The upstream got the request as sent, key headers included (only the recording drops them).
        QCOMPARE(s->upstream.requests.size(), 1);
        QCOMPARE(s->upstream.requests[0].body, requestBody);
        QCOMPARE(s->upstream.requests[0].header("x-api-key"), kSecret);
        QCOMPARE(s->upstream.requests[0].target, "/v1/stream?beta=true&key=" + kSecret);

        // The response line is written once the exchange ended.
        QVERIFY(QTest::qWaitFor([&] { return find(recordingLines(s->path()), "response", 1) != nullptr; }, 5000));
        const auto lines = recordingLines(s->path());
        QCOMPARE(lines.at(0).value("type", ""), "recording");
        QCOMPARE(lines.at(0).value("version", 0), 1);
        const Json *request = find(lines, "request", 1);
        const Json *response = find(lines, "response", 1);
        QVERIFY(request && response);
        QCOMPARE(request->value("method", ""), "POST");
        QCOMPARE(request->value("path", ""), "/v1/stream?beta=true&key=REDACTED");
        QCOMPARE(QByteArray::fromStdString(request->value("body", "")), requestBody);
        QCOMPARE(request->at("headers").value("content-type", ""), "application/json");
        QVERIFY(!request->at("headers").contains("x-api-key"));
        QVERIFY(!request->at("headers").contains("authorization"));
        QVERIFY(!request->at("headers").contains("cookie"));
        QCOMPARE(response->value("status", 0), 200);
        QCOMPARE(QByteArray::fromStdString(response->value("body", "")), kStreamChunks.join());
        QVERIFY(!response->at("headers").contains("set-cookie"));
        QVERIFY(response->at("firstByteMs").is_number());
        QVERIFY(response->value("totalMs", 0) >= 1400); // the stream took 1.5 s
        QVERIFY(!response->contains("error"));

        QFile f(s->path());
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY2(!f.readAll().contains(kSecret), "a credential reached the recording");
        struct stat st = {};
        QCOMPARE(::stat(QFile::encodeName(s->path()).constData(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0600u);
    }

    void binaryBodiesAsBase64()
    {
        auto s = setup();
        QVERIFY(s);
        QTcpSocket client;
        QVERIFY(connectTo(client, *s));
        const QByteArray binary("\xff\xfe\x00\x01 not UTF-8 \xc3", 16);
        client.write(post("/v1/echo", binary));
        QByteArray raw;
        QVERIFY(QTest::qWaitFor([&] { raw += client.readAll(); const auto r = parseResponses(raw); return !r.isEmpty() && r[0].complete; }, 5000));
        QCOMPARE(parseResponses(raw)[0].body, binary);
        QVERIFY(QTest::qWaitFor([&] { return find(recordingLines(s->path()), "response", 1) != nullptr; }, 5000));
        const auto lines = recordingLines(s->path());
        for (const Json *j : {find(lines, "request", 1), find(lines, "response", 1)}) {
            QVERIFY(j && !j->contains("body"));
            QCOMPARE(QByteArray::fromBase64(QByteArray::fromStdString(j->value("bodyBase64", ""))), binary);
        }
    }

    void compressedAnswerUntouched()
    {
        auto s = setup();
        QVERIFY(s);
        QTcpSocket client;
        QVERIFY(connectTo(client, *s));
        client.write(post("/v1/gzip", "{}", "Accept-Encoding: gzip\r\n"));
        QByteArray raw;
        QVERIFY(QTest::qWaitFor([&] { raw += client.readAll(); const auto r = parseResponses(raw); return !r.isEmpty() && r[0].complete; }, 5000));
        const Response r = parseResponses(raw)[0];
        QCOMPARE(r.status, 200);
        QVERIFY(r.head.toLower().contains("content-encoding: gzip"));
        QCOMPARE(r.body, kGzipBody);
        QCOMPARE(s->upstream.requests.at(0).header("accept-encoding"), "gzip");
    }

    // Two agents' streams at once: each gets its first event before either stream has ended.
    void concurrentStreams()
    {
        auto s = setup();
        QVERIFY(s);
        QTcpSocket a, b;
        QVERIFY(connectTo(a, *s));
        QVERIFY(connectTo(b, *s));
        a.write(post("/v1/stream", "{}"));
        b.write(post("/v1/stream", "{}"));
        QByteArray rawA, rawB;
        QVERIFY(QTest::qWaitFor([&] { rawA += a.readAll(); rawB += b.readAll(); return rawA.contains("message_start") && rawB.contains("message_start"); }, 5000));
        QVERIFY(!s->upstream.lastChunkSent);
        QVERIFY(QTest::qWaitFor([&] {
            rawA += a.readAll();
            rawB += b.readAll();
            const auto ra = parseResponses(rawA), rb = parseResponses(rawB);
            return !ra.isEmpty() && ra[0].complete && !rb.isEmpty() && rb[0].complete; }, 5000));
        QCOMPARE(parseResponses(rawA)[0].body, kStreamChunks.join());
        QCOMPARE(parseResponses(rawB)[0].body, kStreamChunks.join());
    }

    // An HTTP/1.0 client gets the stream unchunked, ended by the end of the connection.
    void http10ClientStreamUnchunked()
    {
        auto s = setup();
        QVERIFY(s);
        QTcpSocket client;
        QVERIFY(connectTo(client, *s));
        client.write("POST /v1/stream HTTP/1.0\r\nContent-Length: 2\r\n\r\n{}");
        QByteArray raw;
        QVERIFY(QTest::qWaitFor([&] { raw += client.readAll(); return client.state() == QAbstractSocket::UnconnectedState; }, 5000));
        raw += client.readAll();
        const qsizetype headEnd = raw.indexOf("\r\n\r\n");
        QVERIFY(headEnd > 0);
        QVERIFY(!raw.left(headEnd).toLower().contains("chunked"));
        QCOMPARE(raw.mid(headEnd + 4), kStreamChunks.join());
    }

    // "Expect: 100-continue" (curl sends it for large bodies): the body follows the 100.
    void expectContinue()
    {
        auto s = setup();
        QVERIFY(s);
        QTcpSocket client;
        QVERIFY(connectTo(client, *s));
        client.write("POST /v1/echo HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n");
        QByteArray raw;
        QVERIFY(QTest::qWaitFor([&] { raw += client.readAll(); return raw.contains("100 Continue\r\n\r\n"); }, 5000));
        raw.remove(0, raw.indexOf("\r\n\r\n") + 4);
        client.write("body");
        QVERIFY(QTest::qWaitFor([&] { raw += client.readAll(); const auto r = parseResponses(raw); return !r.isEmpty() && r[0].complete; }, 5000));
        QCOMPARE(parseResponses(raw)[0].body, "body");
        QVERIFY(!s->upstream.requests.at(0).header("expect").size());
    }

    // HEAD: the head only, its Content-Length kept; the connection goes on.
    void headRequest()
    {
        auto s = setup();
        QVERIFY(s);
        QTcpSocket client;
        QVERIFY(connectTo(client, *s));
        client.write("HEAD /v1/models HTTP/1.1\r\nHost: x\r\n\r\n");
        QByteArray raw;
        QVERIFY(QTest::qWaitFor([&] { raw += client.readAll(); return raw.contains("\r\n\r\n"); }, 5000));
        QVERIFY(raw.startsWith("HTTP/1.1 200"));
        QVERIFY(raw.toLower().contains("content-length: 42\r\n"));
        QVERIFY(raw.endsWith("\r\n\r\n"));
        raw.clear();
        client.write(post("/v1/echo", "after"));
        QVERIFY(QTest::qWaitFor([&] { raw += client.readAll(); const auto r = parseResponses(raw); return !r.isEmpty() && r[0].complete; }, 5000));
        QCOMPARE(parseResponses(raw)[0].body, "after");
    }

    // A client that reads slowly still gets every byte, in order.
    void largeAnswerToSlowClient()
    {
        auto s = setup();
        QVERIFY(s);
        QTcpSocket client;
        QVERIFY(connectTo(client, *s));
        client.setReadBufferSize(64 << 10);
        client.write(post("/v1/big", "{}"));
        QByteArray raw;
        QVERIFY(QTest::qWaitFor([&] { raw += client.read(64 << 10); const auto r = parseResponses(raw); return !r.isEmpty() && r[0].complete; }, 30000));
        QCOMPARE(parseResponses(raw)[0].body, bigBody());
        QVERIFY(QTest::qWaitFor([&] { return find(recordingLines(s->path()), "response", 1) != nullptr; }, 5000));
        QCOMPARE(QByteArray::fromStdString(find(recordingLines(s->path()), "response", 1)->value("body", "")), bigBody());
    }

    void upstreamErrorPassesThrough()
    {
        auto s = setup();
        QVERIFY(s);
        QTcpSocket client;
        QVERIFY(connectTo(client, *s));
        client.write(post("/v1/500/error", "{}") + post("/v1/429/error", "{}") + post("/v1/401/error", "{}"));
        QByteArray raw;
        QVERIFY(QTest::qWaitFor([&] { raw += client.readAll(); const auto r = parseResponses(raw); return r.size() == 3 && r[2].complete; }, 5000));
        const QList<Response> r = parseResponses(raw);
        const QList<int> statuses{500, 429, 401};
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(r[i].status, statuses[i]);
            QCOMPARE(r[i].body, R"({"type":"error","error":{"type":"api_error","message":"Overloaded"}})");
            QVERIFY(r[i].head.toLower().contains("retry-after: 7"));
        }
        QVERIFY(QTest::qWaitFor([&] { return find(recordingLines(s->path()), "response", 3) != nullptr; }, 5000));
        const auto lines = recordingLines(s->path());
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(find(lines, "response", i + 1)->value("status", 0), statuses[i]);
            QVERIFY(!find(lines, "response", i + 1)->contains("error"));
        }
    }

    void upstreamResetClosesClient()
    {
        auto s = setup();
        QVERIFY(s);
        QTcpSocket client;
        QVERIFY(connectTo(client, *s));
        client.write(post("/v1/reset", "{}"));
        QByteArray raw;
        QElapsedTimer clock;
        clock.start();
        QVERIFY2(QTest::qWaitFor([&] { raw += client.readAll(); return client.state() == QAbstractSocket::UnconnectedState; }, 5000),
                 "the client's connection stayed open after the upstream reset");
        raw += client.readAll();
        const QList<Response> r = parseResponses(raw);
        QCOMPARE(r.size(), 1);
        QCOMPARE(r[0].status, 200);
        QVERIFY(r[0].body.startsWith(kStreamChunks[0]));
        QVERIFY2(!r[0].complete, "a cut answer looked complete");
        QVERIFY(QTest::qWaitFor([&] { return find(recordingLines(s->path()), "response", 1) != nullptr; }, 5000));
        QVERIFY(find(recordingLines(s->path()), "response", 1)->contains("error"));
    }

    void unreachableUpstreamIs502()
    {
        QTcpServer closed; // a port that was free a moment ago, with nothing listening on it now
        QVERIFY(closed.listen(QHostAddress::LocalHost, 0));
        const QString url = QStringLiteral("http://127.0.0.1:") + QString::number(closed.serverPort());
        closed.close();
        auto s = setup(url);
        QVERIFY(s);
        QTcpSocket client;
        QVERIFY(connectTo(client, *s));
        client.write(post("/v1/messages", "{}"));
        QByteArray raw;
        QVERIFY(QTest::qWaitFor([&] { raw += client.readAll(); const auto r = parseResponses(raw); return !r.isEmpty() && r[0].complete; }, 10000));
        const Response r = parseResponses(raw)[0];
        QCOMPARE(r.status, 502);
        const Json body = Json::parse(r.body.toStdString());
        QVERIFY(body.at("error").at("message").get<std::string>().find("upstream") != std::string::npos);
        QVERIFY(QTest::qWaitFor([&] { return find(recordingLines(s->path()), "response", 1) != nullptr; }, 5000));
        const auto lines = recordingLines(s->path());
        const Json *response = find(lines, "response", 1);
        QCOMPARE(response->value("status", 0), 502);
        QVERIFY(response->contains("error"));
    }

    // Two requests written at once (pipelined) on one connection: two answers, in order.
    void keepAliveCarriesSeveralRequests()
    {
        auto s = setup();
        QVERIFY(s);
        QTcpSocket client;
        QVERIFY(connectTo(client, *s));
        client.write(post("/v1/echo", "first") + post("/v1/echo", "second"));
        QByteArray raw;
        QVERIFY(QTest::qWaitFor([&] { raw += client.readAll(); const auto r = parseResponses(raw); return r.size() == 2 && r[1].complete; }, 5000));
        const QList<Response> r = parseResponses(raw);
        QCOMPARE(r[0].body, "first");
        QCOMPARE(r[1].body, "second");
        // And a third later, on the same connection.
        raw.clear();
        client.write(post("/v1/echo", "third"));
        QVERIFY(QTest::qWaitFor([&] { raw += client.readAll(); const auto r = parseResponses(raw); return r.size() == 1 && r[0].complete; }, 5000));
        QCOMPARE(parseResponses(raw)[0].body, "third");
        QCOMPARE(client.state(), QAbstractSocket::ConnectedState);
    }

    // Nothing waits in the kernel (net/tcpnodelay.h): the proxy's sockets to the upstream and to the
    // agent send each piece at once. Before, every request over 1 KB waited 40 ms for the upstream's
    // delayed acknowledgement (bench/bench_record.cpp).
    void socketsSendAtOnce()
    {
        auto s = setup();
        QVERIFY(s);
        QTcpSocket client;
        QVERIFY(connectTo(client, *s));
        client.write(post("/v1/echo", QByteArray(16 * 1024, 'b')));
        QByteArray raw;
        QVERIFY(QTest::qWaitFor([&] { raw += client.readAll(); const auto r = parseResponses(raw); return r.size() == 1 && r[0].complete; }, 5000));
        const quint16 upstreamPort = quint16(QUrl(s->upstream.url()).port());
        const std::vector<int> toUpstream = noDelayOfSockets(upstreamPort, true), toAgent = noDelayOfSockets(s->proxy->port(), false);
        QVERIFY(!toUpstream.empty() && !toAgent.empty());
        for (const int on : toUpstream)
            QCOMPARE(on, 1);
        for (const int on : toAgent)
            QCOMPARE(on, 1);
    }

    void clientGoneAbortsUpstream()
    {
        auto s = setup();
        QVERIFY(s);
        {
            QTcpSocket client;
            QVERIFY(connectTo(client, *s));
            client.write(post("/v1/stream", "{}"));
            QVERIFY(QTest::qWaitFor([&] { return client.bytesAvailable() > 0 || client.waitForReadyRead(50); }, 5000));
            client.abort();
        }
        QVERIFY2(QTest::qWaitFor([&] { return s->upstream.streamClientGone; }, 5000), "the upstream answer went on after its client left");
        QVERIFY(QTest::qWaitFor([&] { return find(recordingLines(s->path()), "response", 1) != nullptr; }, 5000));
        QVERIFY(find(recordingLines(s->path()), "response", 1)->contains("error"));
    }

    // A full disk (/dev/full) is said once, and forwarding goes on.
    void fullDiskSaidOnceAndForwardingGoesOn()
    {
        if (!QFile::exists(QStringLiteral("/dev/full")))
            QSKIP("no /dev/full");
        FakeUpstream upstream;
        QVERIFY(upstream.start());
        net::RecordingFile file;
        std::string error;
        QVERIFY(file.open("/dev/full", error));
        QStringList said;
        file.setWriteErrorHandler([&said](const std::string &why) { said.append(QString::fromStdString(why)); });
        net::RecordingProxy proxy(&file);
        proxy.setUpstream(upstream.url());
        QVERIFY(proxy.listen(QHostAddress::LocalHost, 0));
        file.writeStart(QStringLiteral("x"), upstream.url());
        QTcpSocket client;
        client.connectToHost(QHostAddress::LocalHost, proxy.port());
        QVERIFY(client.waitForConnected(5000));
        client.write(post("/v1/echo", "one") + post("/v1/echo", "two"));
        QByteArray raw;
        QVERIFY(QTest::qWaitFor([&] { raw += client.readAll(); const auto r = parseResponses(raw); return r.size() == 2 && r[1].complete; }, 5000));
        QCOMPARE(parseResponses(raw)[1].body, "two");
        QCOMPARE(said.size(), 1);
        QVERIFY(said[0].contains(QStringLiteral("cannot write the recording")));
    }

    // An agent killed by a signal: 128 + its number, as a shell says it.
    void commandKilledAgent()
    {
        QTemporaryDir dir;
        QProcess cli;
        cli.start(QStringLiteral(CL_BINARY_DIR "/app/contextlens-cli"), {QStringLiteral("record"), QStringLiteral("--upstream"), QStringLiteral("http://127.0.0.1:9"), QStringLiteral("-o"), dir.filePath(QStringLiteral("k.jsonl")),
                                                                         QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("kill -9 $$")});
        QVERIFY(cli.waitForStarted(10000));
        QVERIFY(QTest::qWaitFor([&] { return cli.state() == QProcess::NotRunning; }, 30000));
        QCOMPARE(cli.exitCode(), 128 + 9);
    }

    // Without an agent: runs until SIGTERM, then exits 0 with the recording complete.
    void commandWithoutAgentEndsOnSigterm()
    {
        FakeUpstream upstream;
        QVERIFY(upstream.start());
        QTemporaryDir dir;
        const QString recording = dir.filePath(QStringLiteral("plain.jsonl"));
        QProcess cli;
        cli.start(QStringLiteral(CL_BINARY_DIR "/app/contextlens-cli"), {QStringLiteral("record"), QStringLiteral("--upstream"), upstream.url(), QStringLiteral("-o"), recording});
        QVERIFY(cli.waitForStarted(10000));
        QByteArray err;
        QVERIFY(QTest::qWaitFor([&] { err += cli.readAllStandardError(); return err.contains('\n'); }, 10000));
        const QRegularExpression listening(QStringLiteral("listening on http://127\\.0\\.0\\.1:(\\d+)"));
        const auto m = listening.match(QString::fromUtf8(err));
        QVERIFY2(m.hasMatch(), err.constData());
        QTcpSocket client;
        client.connectToHost(QHostAddress::LocalHost, quint16(m.captured(1).toUInt()));
        QVERIFY(client.waitForConnected(5000));
        client.write(post("/v1/echo", "ping"));
        QByteArray raw;
        QVERIFY(QTest::qWaitFor([&] { raw += client.readAll(); const auto r = parseResponses(raw); return !r.isEmpty() && r[0].complete; }, 5000));
        cli.terminate();
        QVERIFY(QTest::qWaitFor([&] { return cli.state() == QProcess::NotRunning; }, 10000));
        QCOMPARE(cli.exitStatus(), QProcess::NormalExit);
        QCOMPARE(cli.exitCode(), 0);
        const auto lines = recordingLines(recording);
        QVERIFY(find(lines, "response", 1));
        QCOMPARE(find(lines, "response", 1)->value("body", ""), "ping");
    }

    void parserChunkedByteByByte()
    {
        net::HttpRequestParser parser;
        const QByteArray input = "POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;x=1\r\n world\r\n0\r\n\r\n"
                                 "GET /b?q=1 HTTP/1.1\r\nConnection: close\r\n\r\n";
        for (char c : input)
            parser.feed(QByteArray(1, c));
        QCOMPARE(parser.errorStatus(), 0);
        QVERIFY(parser.hasRequest());
        const net::HttpRequest a = parser.takeRequest();
        QCOMPARE(a.body, "hello world");
        QVERIFY(a.keepAlive);
        const net::HttpRequest b = parser.takeRequest();
        QCOMPARE(b.target, "/b?q=1");
        QVERIFY(!b.keepAlive);
        QVERIFY(!parser.hasRequest());
        net::HttpRequestParser smuggled;
        smuggled.feed("POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n");
        QVERIFY(smuggled.errorStatus() != 0);
    }

    void upstreamByPath()
    {
        using P = net::RecordingProxy;
        QCOMPARE(P::upstreamFor("/v1/messages?beta=true"), QStringLiteral("https://api.anthropic.com"));
        QCOMPARE(P::upstreamFor("/v1/messages/count_tokens"), QStringLiteral("https://api.anthropic.com"));
        QCOMPARE(P::upstreamFor("/v1/chat/completions"), QStringLiteral("https://api.openai.com"));
        QCOMPARE(P::upstreamFor("/v1/responses"), QStringLiteral("https://api.openai.com"));
        QCOMPARE(P::upstreamFor("/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse&key=x"), QStringLiteral("https://generativelanguage.googleapis.com"));
        QCOMPARE(P::upstreamFor("/v1/models/gemini-2.5-pro:generateContent"), QStringLiteral("https://generativelanguage.googleapis.com"));
        QCOMPARE(P::upstreamFor("/other"), QString());
        QCOMPARE(net::redactedTarget("/v1beta/x?alt=sse&key=abc&keys=1"), QByteArray("/v1beta/x?alt=sse&key=REDACTED&keys=1"));
    }

    // An agent the user points at a gateway keeps going there through the proxy (a base URL that
    // is no http(s) URL, or the proxy itself, is not taken).
    void providersFromTheEnvironment()
    {
        FakeUpstream upstream;
        QVERIFY(upstream.start());
        net::RecordingProxy proxy(nullptr);
        QVERIFY(proxy.listen(QHostAddress::LocalHost, 0));
        qputenv("ANTHROPIC_BASE_URL", QByteArray(upstream.url().toUtf8() + "/"));
        qputenv("OPENAI_BASE_URL", "ftp://nowhere/v1");
        qputenv("GOOGLE_GEMINI_BASE_URL", QByteArray("http://127.0.0.1:" + QByteArray::number(proxy.port())));
        const QStringList taken = proxy.useAgentsEnvironment();
        for (const char *v : {"ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "GOOGLE_GEMINI_BASE_URL"})
            qunsetenv(v);
        QCOMPARE(taken, QStringList{QStringLiteral("Anthropic: %1 (ANTHROPIC_BASE_URL)").arg(upstream.url())});
        QTcpSocket client;
        client.connectToHost(QHostAddress::LocalHost, proxy.port());
        QVERIFY(client.waitForConnected(5000));
        client.write(post("/v1/messages", "through the gateway"));
        QByteArray raw;
        QVERIFY(QTest::qWaitFor([&] { raw += client.readAll(); const auto r = parseResponses(raw); return r.size() == 1 && r[0].complete; }, 5000));
        QCOMPARE(parseResponses(raw)[0].body, "through the gateway");
        QCOMPARE(upstream.requests.size(), 1);
    }

    // The command: the agent is a shell running curl against $ANTHROPIC_BASE_URL; record exits with
    // the agent's code once it ends.
    void commandRunsAgent()
    {
        const QString curl = QStandardPaths::findExecutable(QStringLiteral("curl"));
        if (curl.isEmpty())
            QSKIP("curl is not installed");
        FakeUpstream upstream;
        QVERIFY(upstream.start());
        QTemporaryDir dir;
        const QString recording = dir.filePath(QStringLiteral("agent.jsonl"));
        QProcess cli;
        cli.start(QStringLiteral(CL_BINARY_DIR "/app/contextlens-cli"),
                  {QStringLiteral("record"), QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"), QStringLiteral("--upstream"), upstream.url(),
                   QStringLiteral("-o"), recording, QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
                   QStringLiteral("curl -sS --noproxy '*' -H 'x-api-key: sk-secret' -d '{\"q\":\"echo me\"}' \"$ANTHROPIC_BASE_URL/v1/messages?key=sk-secret\"; exit 7")});
        QVERIFY(cli.waitForStarted(10000));
        QVERIFY2(QTest::qWaitFor([&] { return cli.state() == QProcess::NotRunning; }, 30000), "record did not end with its agent");
        const QByteArray out = cli.readAllStandardOutput();
        const QByteArray err = cli.readAllStandardError();
        QCOMPARE(cli.exitStatus(), QProcess::NormalExit);
        QVERIFY2(cli.exitCode() == 7, err.constData());
        QVERIFY2(err.contains("record: listening on http://127.0.0.1:"), err.constData());
        QCOMPARE(out, R"({"q":"echo me"})");
        const auto lines = recordingLines(recording);
        const Json *request = find(lines, "request", 1);
        const Json *response = find(lines, "response", 1);
        QVERIFY(request && response);
        QCOMPARE(request->value("path", ""), "/v1/messages?key=REDACTED");
        QCOMPARE(response->value("status", 0), 200);
        QCOMPARE(response->value("body", ""), R"({"q":"echo me"})");
        QFile f(recording);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(!f.readAll().contains(kSecret));
        QVERIFY(!err.contains(kSecret));
    }
};

QTEST_GUILESS_MAIN(TestRecordProxy)
#include "tst_recordproxy.moc"
