// SPDX-License-Identifier: MIT
// Model summaries against a hostile model server on 127.0.0.1 (issue 29, findings 4, 7, 10, 11 and
// the failed summary of 15): every provider answered with invalid UTF-8, truncated JSON, the wrong
// content type, endless and gzip-bomb bodies, a byte dripped every 100 ms, Retry-After of days,
// redirects to another port, garbage server-sent events, the API key echoed, and seeded random
// mutations of valid answers. Each call must end before its deadline, fail with a message that is
// valid UTF-8 and holds no key or URL password (or succeed with a summary that holds none), keep
// its report dumpable as strict JSON, stop reading at the body cap, and never send the key to
// another origin. Then `contextlens-cli compact` with such answers and with bad local input: exit 2,
// nothing written, JSON that parses. The friendly server's tests: tst_modelsummary.
#include "cli/cli.h"
#include "cli/summarizer.h"
#include "core/io/writer.h"
#include "core/llm/provider.h"
#include "core/util/json.h"
#include "net/httpclient.h"
#include "net/modelsummarizer.h"

#include "modelsummary_data.h"
#include "test_support.h"

#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <random>
#include <thread>

#ifdef __SANITIZE_ADDRESS__
// The memory checks below read this process's resident size. AddressSanitizer keeps freed blocks in
// a quarantine (256 MB by default) to catch a use after free, and that would count as growth: the
// sanitizer leg saw 583 MB while the client held about 1 MB. A small quarantine keeps the measure
// about what the client keeps.
extern "C" const char *__asan_default_options()
{
    return "quarantine_size_mb=8";
}
#endif

using namespace cl;
using Json = nlohmann::json;
using namespace cl::test::answers;

namespace {

const std::string kSecret = "sk-hostile-SECRET-0123456789abcdef";
const std::string kUrlPassword = "pa55-w0rd-XYZZY";

// ---- The hostile server: raw sockets, a thread per connection, scripted by a handler ------------

struct Request {
    std::string method, path, head, body;
};

class Connection
{
public:
    explicit Connection(int fd, const std::atomic_bool &stop)
        : m_fd(fd)
        , m_stop(stop)
    {}
    // False once the client went away (or the server stops).
    bool send(std::string_view bytes)
    {
        while (!bytes.empty()) {
            if (m_stop)
                return false;
            pollfd p{m_fd, POLLOUT, 0};
            if (::poll(&p, 1, 50) <= 0)
                continue;
            const ssize_t n = ::send(m_fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
            if (n <= 0)
                return false;
            sent += std::size_t(n);
            bytes.remove_prefix(std::size_t(n));
        }
        return true;
    }
    bool sleep(int ms)
    {
        for (int left = ms; left > 0; left -= 10) {
            if (m_stop)
                return false;
            std::this_thread::sleep_for(std::chrono::milliseconds(std::min(left, 10)));
        }
        return true;
    }
    std::size_t sent = 0;

private:
    int m_fd;
    const std::atomic_bool &m_stop;
};

using Handler = std::function<void(const Request &, Connection &)>;

class HostileServer
{
public:
    ~HostileServer() { stop(); }

    bool start(Handler h)
    {
        m_handler = std::move(h);
        m_listen = ::socket(AF_INET, SOCK_STREAM, 0);
        if (m_listen < 0)
            return false;
        int one = 1;
        ::setsockopt(m_listen, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = 0;
        if (::bind(m_listen, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 || ::listen(m_listen, 16) != 0)
            return false;
        socklen_t len = sizeof a;
        ::getsockname(m_listen, reinterpret_cast<sockaddr *>(&a), &len);
        m_port = ntohs(a.sin_port);
        m_accept = std::thread([this] { acceptLoop(); });
        return true;
    }

    void stop()
    {
        m_stop = true;
        if (m_accept.joinable())
            m_accept.join();
        std::vector<std::thread> threads;
        {
            std::lock_guard lock(m_mutex);
            threads.swap(m_threads);
        }
        for (auto &t : threads)
            t.join();
        if (m_listen >= 0)
            ::close(m_listen);
        m_listen = -1;
    }

    int port() const { return m_port; }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }
    std::vector<Request> requests() const
    {
        std::lock_guard lock(m_mutex);
        return m_requests;
    }
    std::size_t maxSent() const { return m_maxSent; }

private:
    void acceptLoop()
    {
        while (!m_stop) {
            pollfd p{m_listen, POLLIN, 0};
            if (::poll(&p, 1, 20) <= 0)
                continue;
            const int fd = ::accept(m_listen, nullptr, nullptr);
            if (fd < 0)
                continue;
            std::lock_guard lock(m_mutex);
            m_threads.emplace_back([this, fd] { serve(fd); });
        }
    }

    void serve(int fd)
    {
        std::string in;
        char buf[65536];
        std::size_t headEnd = std::string::npos, want = 0;
        while (!m_stop) {
            if (headEnd != std::string::npos && in.size() >= headEnd + 4 + want)
                break;
            pollfd p{fd, POLLIN, 0};
            if (::poll(&p, 1, 20) <= 0)
                continue;
            const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
            if (n <= 0)
                break;
            in.append(buf, std::size_t(n));
            if (headEnd == std::string::npos && (headEnd = in.find("\r\n\r\n")) != std::string::npos) {
                std::string lower = in.substr(0, headEnd);
                std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
                if (const auto at = lower.find("content-length:"); at != std::string::npos)
                    want = std::size_t(std::atoll(lower.c_str() + at + 15));
            }
        }
        if (headEnd != std::string::npos && !m_stop) {
            Request r;
            r.head = in.substr(0, headEnd);
            r.body = in.substr(headEnd + 4);
            const auto sp1 = r.head.find(' '), sp2 = r.head.find(' ', sp1 + 1);
            r.method = r.head.substr(0, sp1);
            r.path = r.head.substr(sp1 + 1, sp2 - sp1 - 1);
            {
                std::lock_guard lock(m_mutex);
                m_requests.push_back(r);
            }
            Connection c(fd, m_stop);
            m_handler(r, c);
            std::size_t prev = m_maxSent;
            while (c.sent > prev && !m_maxSent.compare_exchange_weak(prev, c.sent)) {
            }
        }
        ::shutdown(fd, SHUT_RDWR);
        ::close(fd);
    }

    Handler m_handler;
    int m_listen = -1;
    int m_port = 0;
    std::atomic_bool m_stop{false};
    std::atomic<std::size_t> m_maxSent{0};
    std::thread m_accept;
    mutable std::mutex m_mutex;
    std::vector<std::thread> m_threads;
    std::vector<Request> m_requests;
};

std::string response(int status, const std::string &contentType, const std::string &body, const std::string &extra = {})
{
    return "HTTP/1.1 " + std::to_string(status) + " X\r\ncontent-type: " + contentType + "\r\ncontent-length: "
           + std::to_string(body.size()) + "\r\nconnection: close\r\n" + extra + "\r\n" + body;
}

// A whole, valid answer of each provider with `text`, streamed (server-sent events) or not.
std::string validAnswer(llm::Provider p, bool stream, const std::string &text)
{
    const std::string half1 = text.substr(0, text.size() / 2), half2 = text.substr(text.size() / 2);
    auto ev = [](const Json &j) { return "data: " + j.dump() + "\n\n"; };
    switch (p) {
    case llm::Provider::OpenAIChat:
        if (!stream)
            return Json{{"choices", {{{"message", {{"content", text}}}, {"finish_reason", "stop"}}}}, {"usage", {{"prompt_tokens", 10}, {"completion_tokens", 5}}}}.dump();
        return ev({{"choices", {{{"delta", {{"content", half1}}}}}}}) + ev({{"choices", {{{"delta", {{"content", half2}}}}}}})
               + ev({{"choices", {{{"delta", Json::object()}, {"finish_reason", "stop"}}}}}) + "data: [DONE]\n\n";
    case llm::Provider::OpenAIResponses:
        if (!stream)
            return Json{{"output", {{{"type", "message"}, {"content", {{{"type", "output_text"}, {"text", text}}}}}}}, {"status", "completed"}}.dump();
        return ev({{"type", "response.output_text.delta"}, {"delta", half1}}) + ev({{"type", "response.output_text.delta"}, {"delta", half2}})
               + ev({{"type", "response.completed"}, {"response", {{"status", "completed"}}}});
    case llm::Provider::Anthropic:
        if (!stream)
            return Json{{"content", {{{"type", "text"}, {"text", text}}}}, {"stop_reason", "end_turn"}}.dump();
        return ev({{"type", "message_start"}, {"message", {{"usage", {{"input_tokens", 10}}}}}})
               + ev({{"type", "content_block_delta"}, {"delta", {{"type", "text_delta"}, {"text", half1}}}})
               + ev({{"type", "content_block_delta"}, {"delta", {{"type", "text_delta"}, {"text", half2}}}})
               + ev({{"type", "message_delta"}, {"delta", {{"stop_reason", "end_turn"}}}}) + ev({{"type", "message_stop"}});
    case llm::Provider::Gemini: {
        auto chunk = [](const std::string &t, bool last) {
            Json c{{"content", {{"parts", {{{"text", t}}}}}}};
            if (last)
                c["finishReason"] = "STOP";
            return Json{{"candidates", {c}}};
        };
        if (!stream)
            return chunk(text, true).dump();
        return ev(chunk(half1, false)) + ev(chunk(half2, true));
    }
    }
    return {};
}

std::string contentType(bool stream)
{
    return stream ? "text/event-stream" : "application/json";
}

llm::SummarizerSettings settingsFor(llm::Provider p, const std::string &base, bool stream)
{
    llm::SummarizerSettings s;
    s.config.provider = p;
    s.config.baseUrl = base + (p == llm::Provider::OpenAIChat || p == llm::Provider::OpenAIResponses ? "/v1" : "");
    s.config.model = "hostile-model";
    s.config.apiKey = kSecret;
    s.config.stream = stream;
    s.config.timeoutMs = 1000;
    s.config.retries = 1;
    s.backoffMs = 50;
    s.maxAnswerBytes = std::size_t(2) << 20;
    return s;
}

// Resident memory now and its growth since resetPeak (Linux: /proc/self/status VmRSS; sampled by a
// thread every 5 ms, so a transient peak is seen).
std::int64_t residentBytes()
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    for (const QByteArray &line : f.readAll().split('\n'))
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').front().toLongLong() * 1024;
    return 0;
}

std::atomic<std::int64_t> g_base{0}, g_peak{0};
std::atomic_bool g_sampling{false};
std::thread g_sampler;

void resetPeak()
{
    if (!g_sampling.exchange(true))
        g_sampler = std::thread([] {
            while (g_sampling) {
                const std::int64_t now = residentBytes();
                std::int64_t prev = g_peak;
                while (now > prev && !g_peak.compare_exchange_weak(prev, now)) {
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            }
        });
    g_base = residentBytes();
    g_peak = g_base.load();
}

std::int64_t peakGrowth()
{
    return g_peak - g_base;
}

void stopSampling()
{
    g_sampling = false;
    if (g_sampler.joinable())
        g_sampler.join();
}

// One summary against the server, and everything it showed: the invariants of every case.
struct Outcome {
    bool ok = false;
    std::string error, summary, deltas, report;
    qint64 ms = 0;
};

// deltaDelayUs: a reader that takes this long over each streamed piece of text (a slow machine, or a
// build with the sanitizers, where the sanitizer leg first saw the growth of slowReaderStaysBounded).
Outcome summarize(const llm::SummarizerSettings &s, int deltaDelayUs = 0)
{
    Outcome o;
    net::ModelSummarizer m(s);
    m.setOnDelta([&](const std::string &d) {
        o.deltas += d;
        if (deltaDelayUs > 0)
            std::this_thread::sleep_for(std::chrono::microseconds(deltaDelayUs));
    });
    m.setOnRetry([&](int, int, const std::string &why) { o.deltas += why; });
    Session session;
    QElapsedTimer timer;
    timer.start();
    try {
        o.summary = m.summarize(session.request()).text;
        o.ok = true;
    } catch (const strategy::SummaryError &e) {
        o.error = e.what();
    }
    o.ms = timer.elapsed();
    o.report = m.reportJson().dump(); // strict: throws on invalid UTF-8
    return o;
}

std::string describe(const Outcome &o)
{
    return "ok=" + std::to_string(o.ok) + " ms=" + std::to_string(o.ms) + " error=" + json::sanitizeUtf8(o.error).substr(0, 300);
}

void checkInvariants(const Outcome &o, const llm::SummarizerSettings &s)
{
    const std::string what = describe(o);
    // The whole call, retries included, ends at the timeout (the slack is for a loaded machine; before
    // the fix a dripping server kept a call alive for minutes).
    QVERIFY2(o.ms < s.config.timeoutMs + 5000, what.c_str());
    QVERIFY2(o.ok || !o.error.empty(), what.c_str());
    for (const std::string *text : {&o.error, &o.summary, &o.deltas, &o.report}) {
        QVERIFY2(json::isValidUtf8(*text), what.c_str());
        QVERIFY2(text->find(kSecret) == std::string::npos, what.c_str());
        QVERIFY2(text->find(kSecret.substr(0, 16)) == std::string::npos, what.c_str()); // nor a cut part of it
        QVERIFY2(text->find(kUrlPassword) == std::string::npos, what.c_str());
    }
}

} // namespace

class TestHostileServer : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void cleanupTestCase() { stopSampling(); }

    void hostileAnswers_data()
    {
        QTest::addColumn<int>("provider");
        QTest::addColumn<bool>("stream");
        for (const llm::Provider p : llm::allProviders())
            for (const bool stream : {true, false})
                QTest::newRow((std::string(llm::providerName(p)) + (stream ? " streamed" : " whole")).c_str()) << int(p) << stream;
    }

    // Finding 4 (invalid UTF-8 anywhere), 7 (drip, endless body, gzip bomb, Retry-After), 11 (echo).
    void hostileAnswers()
    {
        QFETCH(int, provider);
        QFETCH(bool, stream);
        const auto p = llm::Provider(provider);
        const std::string ct = contentType(stream);
        const std::string good = validAnswer(p, stream, kClaudeAnswer);
        struct Case {
            const char *name;
            std::function<void(const Request &, Connection &)> serve;
            bool mayWork = false;           // a usable summary is a fine outcome
            const char *errorHas = nullptr; // what the error must say ("a|b": either)
        };
        std::string bad8 = good;
        bad8.replace(bad8.find("Fix the parser"), 3, "\xff\xfe\xc3"); // invalid UTF-8 inside the answer's text
        std::string truncated = good.substr(0, good.size() * 2 / 3);
        const std::string bomb = [] {
            // deflate (zlib stream) of 64 MB of 'a': 64 KB on the wire, 32 times the cap once inflated.
            const QByteArray z = qCompress(QByteArray(64 << 20, 'a'), 9);
            return std::string(z.constData() + 4, std::size_t(z.size() - 4));
        }();
        const std::vector<Case> cases{
            {"error body with invalid UTF-8 and the key",
             [&](const Request &, Connection &c) {
                 c.send(response(400, "application/json", "{\"error\":{\"message\":\"bad \xff\xfe request for key " + kSecret + "\"}}"));
             },
             false, "HTTP 400"},
            {"raw error body, invalid UTF-8, the key cut in the middle",
             [&](const Request &, Connection &c) {
                 c.send(response(500, "text/html", std::string(280, 'x') + "\xff\xfe" + kSecret + std::string(400, '\xff')));
             },
             false, "HTTP 500"},
            {"answer with invalid UTF-8 in its text", [&](const Request &, Connection &c) { c.send(response(200, ct, bad8)); }, true},
            {"truncated answer", [&](const Request &, Connection &c) { c.send(response(200, ct, truncated)); }, false},
            {"wrong content type (an HTML page)",
             [&](const Request &, Connection &c) { c.send(response(200, "text/html", "<html><body>\xff Login</body></html>")); }, false},
            {"garbage server-sent events",
             [&](const Request &, Connection &c) {
                 c.send(response(200, "text/event-stream", "data: {\"type\":\ndata: \xff\xfe\n\nevent: x\n:comment\ndata: [[[[[[[[[\n\ndata"));
             },
             false},
            {"answer that echoes the key",
             [&](const Request &, Connection &c) {
                 std::string echo = kClaudeAnswer;
                 echo.replace(echo.find("Fix the parser"), 3, "key " + kSecret + " ");
                 c.send(response(200, ct, validAnswer(p, stream, echo)));
             },
             true},
            {"endless body without newlines",
             [&](const Request &, Connection &c) {
                 if (!c.send("HTTP/1.1 200 OK\r\ncontent-type: " + ct + "\r\nconnection: close\r\n\r\ndata: {\"x\":\""))
                     return;
                 const std::string chunk(1 << 16, 'A');
                 for (int k = 0; k < 16384 && c.send(chunk); ++k) { // at most 1 GB
                 }
             },
             false, "larger than"},
            {"endless stream of events",
             [&](const Request &, Connection &c) {
                 if (!c.send("HTTP/1.1 200 OK\r\ncontent-type: " + ct + "\r\nconnection: close\r\n\r\n"))
                     return;
                 std::string chunk;
                 while (chunk.size() < (1 << 16))
                     chunk += "data: {\"choices\":[{\"delta\":{\"content\":\"more \"}}],\"type\":\"x\"}\n\n";
                 for (int k = 0; k < 16384 && c.send(chunk); ++k) {
                 }
             },
             // The cap, or (under the sanitizers, slower to read 32 MB) the deadline: bounded either way.
             false, "larger than|within"},
            {"deflate bomb",
             [&](const Request &, Connection &c) {
                 c.send("HTTP/1.1 200 OK\r\ncontent-type: " + ct + "\r\ncontent-encoding: deflate\r\ncontent-length: "
                        + std::to_string(bomb.size()) + "\r\nconnection: close\r\n\r\n" + bomb);
             },
             false},
            {"a byte every 100 ms",
             [&](const Request &, Connection &c) {
                 const std::string all = response(200, ct, good);
                 for (const char ch : all)
                     if (!c.send(std::string(1, ch)) || !c.sleep(100))
                         return;
             },
             false, "timeout"},
            {"headers, then a byte every 100 ms",
             [&](const Request &, Connection &c) {
                 if (!stream) // the streamed rows cover it; each drip costs a whole timeout
                     return void(c.send(response(200, ct, "{\"error\": {\"message\": 5}}")));
                 if (!c.send("HTTP/1.1 200 OK\r\ncontent-type: " + ct + "\r\nconnection: close\r\n\r\n"))
                     return;
                 for (int k = 0; k < 600; ++k)
                     if (!c.send(k % 2 ? "\n" : ":") || !c.sleep(100))
                         return;
             },
             false, nullptr},
            {"Retry-After of eleven days",
             [&](const Request &, Connection &c) {
                 c.send(response(429, "application/json", "{\"error\":{\"message\":\"slow down\"}}", "retry-after: 999999\r\n"));
             },
             false, "not retried"},
        };
        for (const Case &k : cases) {
            resetPeak();
            HostileServer server;
            QVERIFY(server.start(k.serve));
            const auto s = settingsFor(p, server.url(), stream);
            const Outcome o = summarize(s);
            const std::string what = std::string(k.name) + ": " + describe(o);
            checkInvariants(o, s);
            if (QTest::currentTestFailed())
                QFAIL(what.c_str());
            if (!k.mayWork)
                QVERIFY2(!o.ok, what.c_str());
            if (k.errorHas) {
                bool said = false;
                for (const QString &part : QString::fromUtf8(k.errorHas).split(QLatin1Char('|')))
                    said = said || o.error.find(part.toStdString()) != std::string::npos;
                QVERIFY2(said, what.c_str());
            }
            // The client stopped reading at its cap: this process did not grow by anything like the
            // 1 GB the server tried to send (before the fix a whole answer was kept in full). What
            // the server got out is no measure of memory: Qt's network thread reads on, discarding,
            // until the abort reaches it.
            QVERIFY2(peakGrowth() < (std::int64_t(256) << 20), (what + " grew " + std::to_string(peakGrowth())).c_str());
        }
    }

    // A server sending faster than the answer is decoded: Qt's network thread reads on and keeps what
    // it read while this thread decodes. Before the fix (decoding on arrival) this grew the process by
    // 555 MB before the 2 MB cap was reached; now arrival only copies, and decoding waits its turn.
    void slowReaderStaysBounded()
    {
        std::string chunk;
        while (chunk.size() < (1 << 16))
            chunk += "data: {\"choices\":[{\"delta\":{\"content\":\"more \"}}]}\n\n";
        for (int run = 0; run < 2; ++run) {
            resetPeak();
            HostileServer server;
            QVERIFY(server.start([&](const Request &, Connection &c) {
                if (!c.send("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"))
                    return;
                for (int k = 0; k < 16384 && c.send(chunk); ++k) { // at most 1 GB
                }
            }));
            const auto s = settingsFor(llm::Provider::OpenAIChat, server.url(), true);
            const Outcome o = summarize(s, 30);
            const std::string what = describe(o) + " grew " + std::to_string(peakGrowth() >> 20) + " MB";
            checkInvariants(o, s);
            QVERIFY2(!o.ok, what.c_str());
            QVERIFY2(o.error.find("larger than") != std::string::npos, what.c_str());
            QVERIFY2(peakGrowth() < (std::int64_t(64) << 20), what.c_str());
        }
    }

    // Finding 10: a redirect elsewhere never gets the key or the prompt; the same origin does.
    void redirectsStayWithTheOrigin()
    {
        HostileServer thief;
        QVERIFY(thief.start([](const Request &, Connection &c) { c.send(response(200, "application/json", "{}")); }));
        for (const int status : {301, 302, 303, 307, 308}) {
            HostileServer server;
            QVERIFY(server.start([&](const Request &, Connection &c) {
                c.send(response(status, "text/plain", "moved", "location: " + thief.url() + "/v1/messages\r\n"));
            }));
            const auto s = settingsFor(llm::Provider::Anthropic, server.url(), true);
            const Outcome o = summarize(s);
            checkInvariants(o, s);
            QVERIFY2(!o.ok && o.error.find("redirected") != std::string::npos && o.error.find("not followed") != std::string::npos,
                     describe(o).c_str());
            QCOMPARE(server.requests().size(), std::size_t(1));
        }
        QCOMPARE(thief.requests().size(), std::size_t(0)); // no key, no prompt, not even a GET
        // The same origin: followed, as the same POST with its body and key.
        for (const int status : {302, 307}) {
            HostileServer server;
            QVERIFY(server.start([&](const Request &r, Connection &c) {
                if (r.path == "/v1/messages")
                    c.send(response(status, "text/plain", "moved", "location: /moved/v1/messages\r\n"));
                else
                    c.send(response(200, "application/json", validAnswer(llm::Provider::Anthropic, false, kClaudeAnswer)));
            }));
            const auto s = settingsFor(llm::Provider::Anthropic, server.url(), false);
            const Outcome o = summarize(s);
            checkInvariants(o, s);
            QVERIFY2(o.ok, describe(o).c_str());
            const auto requests = server.requests();
            QCOMPARE(requests.size(), std::size_t(2));
            QCOMPARE(requests[1].method, std::string("POST"));
            QCOMPARE(requests[1].path, std::string("/moved/v1/messages"));
            QCOMPARE(requests[1].body, requests[0].body);
        }
        // A redirect loop ends.
        HostileServer loop;
        QVERIFY(loop.start([](const Request &, Connection &c) { c.send(response(307, "text/plain", "", "location: /v1/messages\r\n")); }));
        const Outcome o = summarize(settingsFor(llm::Provider::Anthropic, loop.url(), false));
        QVERIFY2(!o.ok && o.error.find("redirects") != std::string::npos, describe(o).c_str());
        QVERIFY(loop.requests().size() <= 6);
        QVERIFY(net::sameOrigin("http://a.example/x", "HTTP://A.example:80/y"));
        QVERIFY(!net::sameOrigin("http://a.example/x", "https://a.example/x"));
        QVERIFY(!net::sameOrigin("http://127.0.0.1:1/x", "http://127.0.0.1:2/x"));
    }

    // Finding 11: URL credentials and the key never appear in a message.
    void credentialsAreMasked()
    {
        HostileServer server;
        QVERIFY(server.start([&](const Request &r, Connection &c) {
            c.send(response(401, "application/json",
                            "{\"error\":{\"message\":\"invalid key " + kSecret + " from " + r.head.substr(0, 200) + "\"}}"));
        }));
        auto s = settingsFor(llm::Provider::OpenAIChat, "http://user:" + kUrlPassword + "@127.0.0.1:" + std::to_string(server.port()), true);
        Outcome o = summarize(s);
        checkInvariants(o, s);
        QVERIFY2(o.error.find("HTTP 401") != std::string::npos && o.error.find("***") != std::string::npos, describe(o).c_str());
        // Nobody listening: "cannot reach URL" without the password.
        server.stop();
        o = summarize(s);
        checkInvariants(o, s);
        QVERIFY2(o.error.find("cannot reach") != std::string::npos, describe(o).c_str());
        QCOMPARE(llm::safeMessage("at https://me:" + kUrlPassword + "@host/v1 with " + kSecret.substr(0, 20), {kSecret}),
                 std::string("at https://***@host/v1 with ***"));
        QCOMPARE(llm::safeMessage("clone ssh://git@host/repo", {}), std::string("clone ssh://git@host/repo"));
    }

    // The harness: seeded random mutations of valid answers, statuses, headers and pacing, for
    // every provider. A failing seed is printed; the cases are bounded (timeouts of 1.5 s).
    void randomAnswers()
    {
        std::mt19937 rng(29);
        const std::vector<int> statuses{200, 200, 200, 200, 206, 400, 401, 404, 429, 500, 503};
        for (int n = 0; n < 40; ++n) {
            const llm::Provider p = llm::allProviders()[std::size_t(n) % 4];
            const bool stream = (n / 4) % 2 == 0;
            std::string body = validAnswer(p, stream, kClaudeAnswer);
            const int mutations = int(rng() % 5);
            for (int k = 0; k < mutations && !body.empty(); ++k) {
                const std::size_t at = rng() % body.size();
                switch (rng() % 5) {
                case 0: body[at] = char(rng() % 256); break;
                case 1: body.resize(at); break;
                case 2: body.insert(at, "\xff\xc0\x80\xed\xa0\x80"); break;
                case 3: body.insert(at, std::string(rng() % 5000, "[{\"\\\n"[rng() % 5])); break;
                case 4: body.insert(at, body.substr(0, std::min<std::size_t>(at, 300))); break;
                }
            }
            const int status = statuses[rng() % statuses.size()];
            std::string extra;
            if (rng() % 4 == 0)
                extra = std::string("retry-after: ") + (rng() % 2 ? "999999" : "0") + "\r\n";
            if (rng() % 4 == 0) // the key, echoed somewhere (after the mutations: whole)
                body.insert(rng() % (body.size() + 1), kSecret);
            const std::string ct = rng() % 3 == 0 ? "text/html; charset=latin1" : contentType(stream);
            const bool drip = rng() % 12 == 0;
            HostileServer server;
            QVERIFY(server.start([&](const Request &, Connection &c) {
                const std::string all = response(status, ct, body, extra);
                if (!drip) {
                    c.send(all);
                    return;
                }
                for (std::size_t i = 0; i < all.size(); i += 64)
                    if (!c.send(all.substr(i, 64)) || !c.sleep(40))
                        return;
            }));
            const auto s = settingsFor(p, server.url(), stream);
            const Outcome o = summarize(s);
            checkInvariants(o, s);
            if (QTest::currentTestFailed())
                QFAIL(("case " + std::to_string(n) + ": " + describe(o)).c_str());
        }
    }

    // Finding 15 and local input of finding 4, through the command.
    void commandFailsAndWritesNothing()
    {
        cli::setSummarizerFactory(net::makeModelSummarizer);
        QTemporaryDir dir;
        const std::string file = dir.filePath(QStringLiteral("session.json")).toStdString();
        {
            Session s;
            const WriteResult w = writeTranscript(s.t, Format::OpenAIChat);
            QVERIFY(w.ok);
            cl::test::writeFile(file, w.bytes);
        }
        qputenv("CL_TEST_HOSTILE_KEY", QByteArray::fromStdString(kSecret));
        HostileServer server;
        QVERIFY(server.start([&](const Request &, Connection &c) {
            c.send(response(500, "text/plain", "broken \xff\xfe " + kSecret + " \xc3"));
        }));
        const std::string out1 = dir.filePath(QStringLiteral("out.json")).toStdString();
        const std::vector<std::string> base{"compact", file, "--strategy", "claude-code-compact", "--param", "force=true",
                                            "--summarizer", "anthropic", "--base-url", server.url(), "--model", "claude-3-5-haiku-latest",
                                            "--api-key-env", "CL_TEST_HOSTILE_KEY", "--retries", "0", "--timeout", "5"};
        for (const bool asJson : {false, true}) {
            std::vector<std::string> args = base;
            args.insert(args.end(), {"-o", out1});
            if (asJson)
                args.push_back("--json");
            std::string out, err;
            const int rc = cli::run(args, out, err);
            QVERIFY2(rc == cli::Failure, (std::to_string(rc) + out + err).c_str());
            QVERIFY2(!QFile::exists(QString::fromStdString(out1)), "an unchanged copy was written");
            QVERIFY(json::isValidUtf8(out) && json::isValidUtf8(err));
            QVERIFY((out + err).find(kSecret) == std::string::npos);
            if (asJson) {
                const Json j = Json::parse(out); // throws (fails the test) if it is not JSON
                QVERIFY(j["error"].get<std::string>().find("HTTP 500") != std::string::npos);
                QCOMPARE(j["written"], Json(false));
            } else {
                QVERIFY2(err.find("model summary failed") != std::string::npos, err.c_str());
            }
        }
        // In place: not saved either.
        const QByteArray before = cl::test::readFile(file).c_str();
        {
            std::vector<std::string> args = base;
            args.push_back("--in-place");
            std::string out, err;
            QCOMPARE(cli::run(args, out, err), int(cli::Failure));
            QCOMPARE(QByteArray(cl::test::readFile(file).c_str()), before);
        }
        // Bad local input: said, exit 2, never an abort.
        const std::string latin1 = dir.filePath(QStringLiteral("latin1.txt")).toStdString();
        cl::test::writeFile(latin1, "R\xe9sum\xe9 the session.\n");
        const std::vector<std::vector<std::string>> bad{{"--param", "instructions=\xff"}, {"--prompt-template", latin1}, {"--model", "m\xff"}};
        for (const auto &extra : bad) {
            std::vector<std::string> args = base;
            if (extra[0] == "--model")
                *(std::find(args.begin(), args.end(), "--model") + 1) = extra[1];
            else
                args.insert(args.end(), extra.begin(), extra.end());
            args.push_back("--json");
            std::string out, err;
            QCOMPARE(cli::run(args, out, err), int(cli::Failure));
            QVERIFY2((out + err).find("not UTF-8") != std::string::npos, (out + err).c_str());
            QVERIFY(json::isValidUtf8(out) && json::isValidUtf8(err));
        }
        QCOMPARE(server.requests().size(), std::size_t(3)); // the bad input never reached the server
    }
};

QTEST_GUILESS_MAIN(TestHostileServer)
#include "tst_hostileserver.moc"
