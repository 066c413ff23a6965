// SPDX-License-Identifier: MIT
#include "net/recordsession.h"

#include "net/recordingfile.h"
#include "net/recordingproxy.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QProcess>
#include <QSocketNotifier>
#include <QUrl>

#include <memory>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

namespace cl::net {

namespace {

int g_signalPipe[2] = {-1, -1};

// Only async-signal-safe work here: the number goes through a pipe to the event loop.
void onSignal(int signal)
{
    const int saved = errno;
    const unsigned char s = static_cast<unsigned char>(signal);
    [[maybe_unused]] const ssize_t n = ::write(g_signalPipe[1], &s, 1);
    errno = saved;
}

void say(const std::string &text)
{
    std::fprintf(stderr, "record: %s\n", text.c_str());
    std::fflush(stderr);
}

// SIGINT and SIGTERM as events while it lives; the former handlers come back after.
class SignalWatch
{
public:
    SignalWatch()
    {
        if (::pipe2(g_signalPipe, O_CLOEXEC | O_NONBLOCK) != 0)
            return;
        struct sigaction sa = {};
        sa.sa_handler = onSignal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        ::sigaction(SIGINT, &sa, &m_oldInt);
        ::sigaction(SIGTERM, &sa, &m_oldTerm);
        m_notifier = std::make_unique<QSocketNotifier>(g_signalPipe[0], QSocketNotifier::Read);
    }
    ~SignalWatch()
    {
        if (!m_notifier)
            return;
        m_notifier.reset();
        ::sigaction(SIGINT, &m_oldInt, nullptr);
        ::sigaction(SIGTERM, &m_oldTerm, nullptr);
        ::close(g_signalPipe[0]);
        ::close(g_signalPipe[1]);
        g_signalPipe[0] = g_signalPipe[1] = -1;
    }
    QSocketNotifier *notifier() const { return m_notifier.get(); }
    int take() const
    {
        unsigned char s = 0;
        return ::read(g_signalPipe[0], &s, 1) == 1 ? int(s) : 0;
    }

private:
    struct sigaction m_oldInt = {}, m_oldTerm = {};
    std::unique_ptr<QSocketNotifier> m_notifier;
};

} // namespace

int runRecording(const std::string &host, int port, const std::string &upstream, const std::string &output,
                 const std::vector<std::string> &agent, const std::optional<wire::RewriteOptions> &rewrite)
{
    if (!QCoreApplication::instance()) {
        say("needs a QCoreApplication");
        return 2;
    }
    QHostAddress address;
    if (!address.setAddress(QString::fromStdString(host)) || port < 0 || port > 65535) {
        say("--listen wants an IP address and a port, e.g. 127.0.0.1:8080 (0: any free port)");
        return 2;
    }
    if (!address.isLoopback())
        say("warning: listening on " + host + ", not on loopback: other machines can send requests through this proxy and read the answers");
    const QUrl upstreamUrl(QString::fromStdString(upstream), QUrl::StrictMode);
    if (!upstream.empty() && !RecordingProxy::isUpstreamUrl(upstreamUrl)) {
        say("--upstream wants an http:// or https:// URL");
        return 2;
    }
    RecordingFile file;
    std::string error;
    if (!file.open(output, error)) {
        say("cannot open the recording: " + error);
        return 2;
    }
    file.setWriteErrorHandler([](const std::string &why) { say(why + "; requests are still forwarded, but no longer recorded"); });
    std::optional<wire::RequestRewriter> rewriter;
    if (rewrite) {
        std::string why;
        if (!wire::RequestRewriter::check(*rewrite, why)) {
            say("--strategy: " + why);
            return 2;
        }
        rewriter.emplace(*rewrite);
    }
    RecordingProxy proxy(&file);
    if (rewriter) {
        proxy.setRewriter(&*rewriter);
        proxy.setRewriteHandler([](const std::string &line) { say(line); });
    }
    proxy.setUpstream(upstreamUrl.adjusted(QUrl::StripTrailingSlash).toString(QUrl::FullyEncoded));
    QString listenError;
    if (!proxy.listen(address, quint16(port), &listenError)) {
        say("cannot listen on " + host + ":" + std::to_string(port) + ": " + listenError.toStdString());
        return 2;
    }
    const QString hostText = address.protocol() == QAbstractSocket::IPv6Protocol ? QLatin1Char('[') + address.toString() + QLatin1Char(']') : address.toString();
    const QString base = QStringLiteral("http://") + hostText + QLatin1Char(':') + QString::number(proxy.port());
    file.writeStart(base, proxy.upstream());
    say("listening on " + base.toStdString());
    if (rewrite)
        say((rewrite->dryRun ? "dry run of " : "compacting each request with ") + rewrite->strategy
            + (rewrite->dryRun ? ": what it would send is recorded, the original is forwarded" : ": the compacted request is forwarded"));
    if (upstream.empty())
        for (const QString &line : proxy.useAgentsEnvironment())
            say("as the environment says, " + line.toStdString());

    QEventLoop loop;
    int code = 0;
    bool done = false; // before the loop runs: a start that fails can say so at once
    SignalWatch signalWatch;
    QProcess process;
    if (!agent.empty()) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("ANTHROPIC_BASE_URL"), base);
        env.insert(QStringLiteral("GOOGLE_GEMINI_BASE_URL"), base);
        env.insert(QStringLiteral("OPENAI_BASE_URL"), base + QStringLiteral("/v1"));
        process.setProcessEnvironment(env);
        process.setProcessChannelMode(QProcess::ForwardedChannels);
        process.setInputChannelMode(QProcess::ForwardedInputChannel);
        process.setProgram(QString::fromStdString(agent.front()));
        QStringList arguments;
        for (std::size_t i = 1; i < agent.size(); ++i)
            arguments.append(QString::fromStdString(agent[i]));
        process.setArguments(arguments);
        QObject::connect(&process, &QProcess::finished, &loop, [&](int exitCode, QProcess::ExitStatus status) {
            code = status == QProcess::NormalExit ? exitCode : 128 + exitCode; // a crash's code is its signal
            done = true;
            loop.quit();
        });
        QObject::connect(&process, &QProcess::errorOccurred, &loop, [&](QProcess::ProcessError e) {
            if (e != QProcess::FailedToStart)
                return;
            say("cannot start " + agent.front() + ": " + process.errorString().toStdString());
            code = 127;
            done = true;
            loop.quit();
        });
    }
    if (signalWatch.notifier())
        QObject::connect(signalWatch.notifier(), &QSocketNotifier::activated, &loop, [&] {
            const int s = signalWatch.take();
            if (agent.empty()) {
                loop.quit();
            } else if (s == SIGTERM && process.state() != QProcess::NotRunning) {
                process.terminate(); // Ctrl-C reaches the agent from the terminal itself; SIGTERM does not
            }
        });
    if (!agent.empty())
        process.start();
    if (!done)
        loop.exec();
    proxy.close();
    QCoreApplication::processEvents();
    file.close();
    return code;
}

} // namespace cl::net
