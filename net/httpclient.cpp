// SPDX-License-Identifier: MIT
#include "net/httpclient.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QThread>
#include <QTimer>
#include <QUrl>

#include <algorithm>

namespace cl::net {

namespace {

bool retryable(int status)
{
    return status == 429 || status == 408 || (status >= 500 && status <= 599);
}

bool redirect(int status)
{
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

std::string seconds(qint64 ms)
{
    return std::to_string((ms + 999) / 1000) + " s";
}

std::string megabytes(std::size_t bytes)
{
    return std::to_string((bytes + (std::size_t(1) << 20) - 1) >> 20) + " MB";
}

// A URL as it may be shown: without user name and password.
std::string shown(const QUrl &url)
{
    return url.adjusted(QUrl::RemoveUserInfo).toString().toStdString();
}

// Waits up to ms, polling the cancel flag; false when cancelled.
bool waitFor(qint64 ms, const std::atomic_bool *cancel)
{
    for (qint64 left = ms; left > 0; left -= 50) {
        if (cancel && cancel->load())
            return false;
        QThread::msleep(static_cast<unsigned long>(std::min<qint64>(left, 50)));
    }
    return !(cancel && cancel->load());
}

struct Attempt {
    int status = 0;
    std::string body, error, retryAfter, location;
    bool cancelled = false, timedOut = false, tooLarge = false, gotData = false;
};

Attempt once(const llm::HttpRequest &request, const QUrl &url, const PostOptions &o, qint64 timeLeftMs, int wholeTimeoutMs,
             const std::vector<std::string> &secrets)
{
    Attempt a;
    QNetworkAccessManager nam;
    QNetworkRequest req(url);
    for (const auto &[name, value] : request.headers)
        req.setRawHeader(QByteArray::fromStdString(name), QByteArray::fromStdString(value));
    // Redirects are ours to judge (post): Qt would follow one to another origin with the key headers,
    // and turn a 301/302 into a GET that still carries them.
    req.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    req.setHeader(QNetworkRequest::UserAgentHeader, QStringLiteral("ContextLens"));
    QNetworkReply *reply = nam.post(req, QByteArray::fromStdString(request.body));
    // Back-pressure: Qt's network thread stops reading when this much waits for us.
    reply->setReadBufferSize(qint64(1) << 20);
    QElapsedTimer clock;
    clock.start();
    QEventLoop loop;
    QTimer deadline;
    deadline.setSingleShot(true);
    deadline.setInterval(int(std::clamp<qint64>(timeLeftMs, 1, INT32_MAX)));
    QTimer poll;
    poll.setInterval(50);
    std::size_t received = 0;
    bool errorCut = false;
    // A streamed answer's bytes wait here and go to onData from `feed`, a slice per pass of the event
    // loop. Qt's network thread reads on while this thread decodes, and keeps what it read: when
    // arrival did the decoding, a server sending faster than events are decoded (any server, on a
    // build with the sanitizers) grew the process by 580 MB before the cap was reached. Arrival only
    // copies, so the cap is reached at copying speed, and the decoding waits for quiet moments.
    std::string waiting;
    std::size_t fed = 0;
    QTimer feed;
    feed.setInterval(0);
    constexpr std::size_t kSlice = std::size_t(4) << 10;
    auto feedSlice = [&](std::size_t most) {
        const std::size_t n = std::min(most, waiting.size() - fed);
        if (n > 0)
            o.onData(std::string_view(waiting).substr(fed, n));
        fed += n;
        if (fed == waiting.size()) {
            waiting.clear();
            fed = 0;
            feed.stop();
        }
    };
    QObject::connect(&feed, &QTimer::timeout, &loop, [&] {
        QElapsedTimer pass; // a few ms per pass, so that arrivals (and the cap) are not kept waiting
        pass.start();
        do
            feedSlice(kSlice);
        while (!waiting.empty() && !pass.hasExpired(2));
    });
    auto status = [&] { return reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(); };
    auto take = [&](const QByteArray &bytes) {
        if (bytes.isEmpty() || a.tooLarge || errorCut || a.timedOut)
            return;
        // The deadline timer alone is not enough: a server that never pauses keeps the event loop
        // busy with data, and timers wait behind it (6 s past a 1 s deadline, seen).
        if (clock.hasExpired(timeLeftMs)) {
            a.timedOut = true;
            reply->abort();
            return;
        }
        a.status = status();
        const bool ok = a.status >= 200 && a.status < 300;
        const std::size_t cap = ok ? o.maxBodyBytes : o.maxErrorBytes;
        const std::size_t n = std::size_t(bytes.size());
        if (received + n > cap) {
            // An answer past its cap fails the call; an error body past its cap is enough to read.
            (ok ? a.tooLarge : errorCut) = true;
            if (!ok)
                a.body.append(bytes.constData(), cap - received);
            received = cap;
            reply->abort();
            return;
        }
        received += n;
        if (ok && o.onData) {
            a.gotData = true;
            waiting.append(bytes.constData(), n);
            if (!feed.isActive())
                feed.start();
        } else {
            a.body.append(bytes.constData(), n);
        }
    };
    QObject::connect(reply, &QNetworkReply::readyRead, &loop, [&] { take(reply->readAll()); });
    QObject::connect(&deadline, &QTimer::timeout, &loop, [&] {
        a.timedOut = true;
        reply->abort();
    });
    QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
        if (o.cancel && o.cancel->load()) {
            a.cancelled = true;
            reply->abort();
        }
    });
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    deadline.start();
    poll.start();
    if (!reply->isFinished())
        loop.exec();
    if (!a.cancelled && !a.timedOut && reply->isOpen())
        take(reply->readAll());
    // The rest of a complete answer is decoded now; a failed one is not decoded further.
    if (!a.cancelled && !a.timedOut && !a.tooLarge)
        feedSlice(waiting.size());
    a.status = status();
    a.retryAfter = reply->rawHeader("retry-after").toStdString();
    a.location = reply->rawHeader("location").toStdString();
    const bool ok = a.status >= 200 && a.status < 300;
    if (a.cancelled)
        a.error = "cancelled";
    else if (a.timedOut)
        a.error = "no complete answer within " + seconds(wholeTimeoutMs) + " (timeout: the whole call, retries included)";
    else if (a.tooLarge)
        a.error = "the answer is larger than " + megabytes(o.maxBodyBytes) + ": stopped reading it (no summary is that long)";
    else if (a.status == 0)
        a.error = "cannot reach " + shown(url) + ": " + reply->errorString().toStdString();
    else if (!ok)
        a.error = "HTTP " + std::to_string(a.status) + (a.body.empty() ? std::string() : ": " + llm::errorMessage(a.body));
    else if (reply->error() != QNetworkReply::NoError)
        a.error = "the answer broke off: " + reply->errorString().toStdString();
    // Masked now, while a key cut at the end of an excerpt of the body is still at the text's end.
    a.error = llm::safeMessage(a.error, secrets);
    delete reply;
    return a;
}

} // namespace

int retryAfterMs(const std::string &value)
{
    if (value.empty())
        return -1;
    bool ok = false;
    const double seconds = QString::fromStdString(value).trimmed().toDouble(&ok);
    if (ok)
        return seconds < 0 || seconds != seconds ? -1 : int(std::min(seconds * 1000.0, 24.0 * 3600 * 1000));
    const QDateTime at = QDateTime::fromString(QString::fromStdString(value).trimmed(), Qt::RFC2822Date);
    if (!at.isValid())
        return -1;
    return int(std::clamp<qint64>(QDateTime::currentDateTimeUtc().msecsTo(at), 0, 24LL * 3600 * 1000));
}

bool sameOrigin(const std::string &a, const std::string &b)
{
    const QUrl x(QString::fromStdString(a)), y(QString::fromStdString(b));
    if (!x.isValid() || !y.isValid() || x.scheme().isEmpty() || x.host().isEmpty())
        return false;
    const int dx = x.scheme().compare(QLatin1String("https"), Qt::CaseInsensitive) == 0 ? 443 : 80;
    const int dy = y.scheme().compare(QLatin1String("https"), Qt::CaseInsensitive) == 0 ? 443 : 80;
    return x.scheme().compare(y.scheme(), Qt::CaseInsensitive) == 0 && x.host().compare(y.host(), Qt::CaseInsensitive) == 0
           && x.port(dx) == y.port(dy);
}

PostResult post(const llm::HttpRequest &request, const PostOptions &o)
{
    PostResult r;
    const std::vector<std::string> secrets = llm::secretsOf(request);
    auto done = [&]() -> PostResult {
        r.error = llm::safeMessage(r.error, secrets);
        return std::move(r);
    };
    QElapsedTimer clock;
    clock.start();
    const QUrl first(QString::fromStdString(request.url));
    QUrl url = first;
    int redirects = 0;
    for (int attempt = 0;;) {
        const qint64 left = o.timeoutMs - clock.elapsed();
        if (left <= 0) {
            r.timedOut = true;
            r.error = "no complete answer within " + seconds(o.timeoutMs) + " (timeout: the whole call, retries included)"
                      + (r.error.empty() ? std::string() : "; the last attempt: " + r.error);
            return done();
        }
        Attempt a = once(request, url, o, left, o.timeoutMs, secrets);
        r.status = a.status;
        r.cancelled = a.cancelled;
        r.timedOut = a.timedOut;
        r.tooLarge = a.tooLarge;
        r.body = std::move(a.body);
        r.error = std::move(a.error);
        if (redirect(a.status) && !a.cancelled && !a.timedOut) {
            const QUrl target = url.resolved(QUrl(QString::fromStdString(a.location)));
            if (a.location.empty() || !target.isValid()) {
                r.error = "HTTP " + std::to_string(a.status) + ": a redirect without a usable address";
                return done();
            }
            if (!sameOrigin(first.toString().toStdString(), target.toString().toStdString())) {
                r.redirectRefused = true;
                r.error = "the server redirected (HTTP " + std::to_string(a.status) + ") to " + shown(target)
                          + ", another address than " + shown(first.adjusted(QUrl::RemovePath | QUrl::RemoveQuery))
                          + ": not followed, so that the API key and the prompt stay with the server you chose (give that "
                            "address as the base URL if you trust it)";
                return done();
            }
            if (++redirects > o.maxRedirects) {
                r.error = "more than " + std::to_string(o.maxRedirects) + " redirects";
                return done();
            }
            url = target; // the same origin: the same POST, key and body again (a 301/302 stays a POST)
            continue;
        }
        r.attempts = ++attempt;
        if (r.error.empty() || a.cancelled || a.timedOut || a.tooLarge || a.gotData || attempt > o.retries)
            return done(); // done, cancelled, out of time or room, or part of a stream delivered: never retried
        const bool transient = retryable(a.status) || a.status == 0;
        if (!transient)
            return done();
        int wait = retryAfterMs(a.retryAfter);
        const bool asked = wait >= 0;
        if (wait < 0)
            wait = o.backoffMs << std::min(attempt - 1, 10);
        wait = std::min(wait, o.maxWaitMs);
        const qint64 remaining = o.timeoutMs - clock.elapsed();
        if (wait >= remaining) {
            r.error += " (not retried: " + std::string(asked ? "the server asks to wait " : "the next try is in ")
                       + seconds(asked ? retryAfterMs(a.retryAfter) : wait) + ", and " + seconds(std::max<qint64>(remaining, 0))
                       + " of the timeout are left)";
            return done();
        }
        if (o.onRetry)
            o.onRetry(attempt, wait, llm::safeMessage(r.error, secrets));
        if (!waitFor(wait, o.cancel)) {
            r.cancelled = true;
            r.error = "cancelled";
            return done();
        }
    }
}

} // namespace cl::net
