// SPDX-License-Identifier: MIT
#include "net/recordingfile.h"

#include "core/util/json.h"

#include <QDateTime>
#include <QRegularExpression>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace cl::net {

namespace {

using ojson = nlohmann::ordered_json;

std::string now()
{
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs).toStdString();
}

std::string text(const QByteArray &bytes)
{
    return bytes.toStdString();
}

ojson headersJson(const HeaderList &headers)
{
    ojson j = ojson::object();
    for (const auto &[name, value] : headers) {
        if (isSecretHeader(name))
            continue;
        const std::string key = text(name.toLower());
        // Repeated headers are joined as HTTP allows; a value that is not UTF-8 keeps what it can.
        const std::string v = json::sanitizeUtf8(text(value));
        if (j.contains(key))
            j[key] = j[key].get<std::string>() + ", " + v;
        else
            j[key] = v;
    }
    return j;
}

// Bytes for bytes: a JSON string when they are UTF-8, else base64 under another name.
void putBody(ojson &j, const QByteArray &body)
{
    const std::string b = text(body);
    if (json::isValidUtf8(b))
        j["body"] = b;
    else
        j["bodyBase64"] = text(body.toBase64());
}

} // namespace

QByteArray redactedTarget(const QByteArray &target)
{
    const qsizetype q = target.indexOf('?');
    if (q < 0)
        return target;
    QList<QByteArray> params = target.mid(q + 1).split('&');
    for (QByteArray &p : params) {
        const qsizetype eq = p.indexOf('=');
        const QByteArray name = eq < 0 ? p : p.left(eq);
        if (QByteArray::fromPercentEncoding(name) == "key")
            p = "key=REDACTED";
    }
    return target.left(q + 1) + params.join('&');
}

bool isSecretHeader(const QByteArray &name)
{
    static const QList<QByteArray> secret{"authorization", "x-api-key", "x-goog-api-key", "cookie", "set-cookie", "proxy-authorization"};
    return secret.contains(name.trimmed().toLower());
}

QString redactedText(const QString &text)
{
    static const QRegularExpression key(QStringLiteral("([?&]key=)[^&\\s#]*"));
    QString s = text;
    return s.replace(key, QStringLiteral("\\1REDACTED"));
}

RecordingFile::~RecordingFile()
{
    close();
}

bool RecordingFile::open(const std::string &path, std::string &error)
{
    close();
    m_fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (m_fd < 0) {
        error = path + ": " + std::strerror(errno);
        return false;
    }
    m_failed = false;
    return true;
}

void RecordingFile::close()
{
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
}

void RecordingFile::writeLine(const std::string &line)
{
    if (m_fd < 0)
        return;
    // One write for the whole line where the system allows, so that a reader never sees half of one.
    std::size_t done = 0;
    while (done < line.size()) {
        const ssize_t n = ::write(m_fd, line.data() + done, line.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (!m_failed && m_onWriteError)
                m_onWriteError(std::string("cannot write the recording: ") + std::strerror(errno));
            m_failed = true;
            return;
        }
        done += std::size_t(n);
    }
}

void RecordingFile::writeStart(const QString &listen, const QString &upstream)
{
    const ojson j{{"type", "recording"}, {"version", 1}, {"started", now()}, {"listen", listen.toStdString()}, {"upstream", upstream.isEmpty() ? std::string("by path") : upstream.toStdString()}};
    writeLine(j.dump(-1, ' ', false, ojson::error_handler_t::replace) + "\n");
}

void RecordingFile::writeRequest(qint64 id, const QByteArray &method, const QByteArray &target, const HeaderList &headers,
                                 const QByteArray &body)
{
    ojson j{{"type", "request"}, {"id", id}, {"time", now()}, {"method", json::sanitizeUtf8(text(method))}, {"path", json::sanitizeUtf8(text(redactedTarget(target)))}, {"headers", headersJson(headers)}};
    putBody(j, body);
    writeLine(j.dump(-1, ' ', false, ojson::error_handler_t::replace) + "\n");
}

void RecordingFile::writeRewrite(qint64 id, ojson fields)
{
    ojson j{{"type", "rewrite"}, {"id", id}, {"time", now()}};
    for (auto &[key, value] : fields.items())
        j[key] = std::move(value);
    writeLine(j.dump(-1, ' ', false, ojson::error_handler_t::replace) + "\n");
}

void RecordingFile::writeResponse(qint64 id, const Response &r)
{
    ojson j{{"type", "response"}, {"id", id}, {"time", now()}, {"status", r.status}, {"headers", headersJson(r.headers)}};
    putBody(j, r.body);
    j["firstByteMs"] = r.firstByteMs >= 0 ? ojson(r.firstByteMs) : ojson();
    j["totalMs"] = r.totalMs;
    if (!r.error.isEmpty())
        j["error"] = redactedText(r.error).toStdString();
    writeLine(j.dump(-1, ' ', false, ojson::error_handler_t::replace) + "\n");
    ++m_exchanges;
    if (m_onExchange)
        m_onExchange(m_exchanges);
}

} // namespace cl::net
