// SPDX-License-Identifier: MIT
#pragma once

// The recording of `contextlens-cli record` (docs/recording-format.md): one JSON object a line,
// appended and written through at once, so that a crash loses at most the line being written. The
// file is created readable by its owner only (0600): it holds whole prompts. Credentials never reach
// it: the key headers are left out and a `key` query parameter is masked. A failed write (a full
// disk) is said once, through onWriteError, and the proxy keeps forwarding.

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>

#include <nlohmann/json.hpp>

#include <functional>
#include <string>

namespace cl::net {

using HeaderList = QList<QPair<QByteArray, QByteArray>>;

// The target with every `key=` query parameter's value replaced by REDACTED.
QByteArray redactedTarget(const QByteArray &target);
// Whether a header carries a credential (authorization, x-api-key, cookie, ...), by its name.
bool isSecretHeader(const QByteArray &name);
// Text with `key=VALUE` query parameters masked, for error messages that quote a URL.
QString redactedText(const QString &text);

class RecordingFile
{
public:
    RecordingFile() = default;
    ~RecordingFile();
    RecordingFile(const RecordingFile &) = delete;
    RecordingFile &operator=(const RecordingFile &) = delete;

    // Opens (creating with mode 0600) for appending; false with error set when it cannot.
    bool open(const std::string &path, std::string &error);
    void close();
    bool isOpen() const { return m_fd >= 0; }
    // Called once, on the first write that fails.
    void setWriteErrorHandler(std::function<void(const std::string &)> handler) { m_onWriteError = std::move(handler); }
    // Called after each response line (an exchange recorded), with the number of them so far.
    void setExchangeHandler(std::function<void(qint64)> handler) { m_onExchange = std::move(handler); }
    qint64 exchanges() const { return m_exchanges; }

    void writeStart(const QString &listen, const QString &upstream);
    void writeRequest(qint64 id, const QByteArray &method, const QByteArray &target, const HeaderList &headers,
                      const QByteArray &body);
    struct Response {
        int status = 0;
        HeaderList headers;
        QByteArray body;
        qint64 firstByteMs = -1; // -1: no answer came
        qint64 totalMs = 0;
        QString error; // empty when the exchange completed
    };
    void writeResponse(qint64 id, const Response &response);
    // What compaction on the wire did to request `id` (docs/recording-format.md, "rewrite").
    void writeRewrite(qint64 id, nlohmann::ordered_json fields);

private:
    void writeLine(const std::string &line);

    int m_fd = -1;
    bool m_failed = false;
    std::function<void(const std::string &)> m_onWriteError;
    std::function<void(qint64)> m_onExchange;
    qint64 m_exchanges = 0;
};

} // namespace cl::net
