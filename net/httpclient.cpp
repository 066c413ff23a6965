// SPDX-License-Identifier: MIT
#include "net/httpclient.h"

#include <QDateTime>
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

// Waits up to ms, polling the cancel flag; false when cancelled.
bool waitFor(int ms, const std::atomic_bool *cancel)
{
    for (int left = ms; left > 0; left -= 50) {
        if (cancel && cancel->load())
            return false;
        QThread::msleep(static_cast<unsigned long>(std::min(left, 50)));
    }
    return !(cancel && cancel->load());
}

struct Attempt {
    int status = 0;
    std::string body, error, retryAfter;
    bool cancelled = false, timedOut = false, gotData = false;
};

Attempt once(const llm::HttpRequest &request, const PostOptions &o)
{
    Attempt a;
    QNetworkAccessManager nam;
    QNetworkRequest req(QUrl(QString::fromStdString(request.url)));
    for (const auto &[name, value] : request.headers)
        req.setRawHeader(QByteArray::fromStdString(name), QByteArray::fromStdString(value));
    req.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::NoLessSafeRedirectPolicy);
    req.setHeader(QNetworkRequest::UserAgentHeader, QStringLiteral("ContextLens"));
    QNetworkReply *reply = nam.post(req, QByteArray::fromStdString(request.body));
    QEventLoop loop;
    QTimer idle;
    idle.setSingleShot(true);
    idle.setInterval(o.timeoutMs);
    QTimer poll;
    poll.setInterval(50);
    auto status = [&] { return reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(); };
    QObject::connect(reply, &QNetworkReply::readyRead, &loop, [&] {
        idle.start();
        const QByteArray bytes = reply->readAll();
        a.status = status();
        if (a.status >= 200 && a.status < 300 && o.onData) {
            a.gotData = true;
            o.onData(std::string_view(bytes.constData(), std::size_t(bytes.size())));
        } else {
            a.body.append(bytes.constData(), std::size_t(bytes.size()));
        }
    });
    QObject::connect(&idle, &QTimer::timeout, &loop, [&] {
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
    idle.start();
    poll.start();
    loop.exec();
    a.status = status();
    const QByteArray rest = reply->readAll();
    if (a.status >= 200 && a.status < 300 && o.onData) {
        if (!rest.isEmpty()) {
            a.gotData = true;
            o.onData(std::string_view(rest.constData(), std::size_t(rest.size())));
        }
    } else {
        a.body.append(rest.constData(), std::size_t(rest.size()));
    }
    a.retryAfter = reply->rawHeader("retry-after").toStdString();
    if (a.cancelled)
        a.error = "cancelled";
    else if (a.timedOut)
        a.error = "no answer for " + std::to_string(o.timeoutMs / 1000) + " s (timeout)";
    else if (a.status == 0)
        a.error = "cannot reach " + request.url + ": " + reply->errorString().toStdString();
    else if (a.status < 200 || a.status >= 300)
        a.error = "HTTP " + std::to_string(a.status) + (a.body.empty() ? std::string() : ": " + llm::errorMessage(a.body));
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
        return seconds < 0 ? -1 : int(std::min(seconds * 1000.0, 24.0 * 3600 * 1000));
    const QDateTime at = QDateTime::fromString(QString::fromStdString(value).trimmed(), Qt::RFC2822Date);
    if (!at.isValid())
        return -1;
    return int(std::clamp<qint64>(QDateTime::currentDateTimeUtc().msecsTo(at), 0, 24LL * 3600 * 1000));
}

PostResult post(const llm::HttpRequest &request, const PostOptions &o)
{
    PostResult r;
    for (int attempt = 0;; ++attempt) {
        Attempt a = once(request, o);
        r.attempts = attempt + 1;
        r.status = a.status;
        r.cancelled = a.cancelled;
        r.timedOut = a.timedOut;
        r.body = std::move(a.body);
        r.error = std::move(a.error);
        if (r.error.empty() || a.cancelled || a.gotData || attempt >= o.retries)
            return r; // done, cancelled, or part of a stream already delivered: never retried
        const bool transient = retryable(a.status) || (a.status == 0 && !a.timedOut);
        if (!transient)
            return r;
        int wait = retryAfterMs(a.retryAfter);
        if (wait < 0)
            wait = o.backoffMs << std::min(attempt, 10);
        wait = std::min(wait, o.maxWaitMs);
        if (o.onRetry)
            o.onRetry(attempt + 1, wait, r.error);
        if (!waitFor(wait, o.cancel)) {
            r.cancelled = true;
            r.error = "cancelled";
            return r;
        }
    }
}

} // namespace cl::net
