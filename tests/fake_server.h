// SPDX-License-Identifier: MIT
#pragma once

// The project's fake model server (tests/agents/fake_model_server.py) as a child process on
// 127.0.0.1: a script of answers in, the port out, every request it got readable afterwards.

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

namespace cl::test {

class FakeModelServer
{
public:
    ~FakeModelServer() { stop(); }

    // Starts the server with `script` ({"turns": [...]}); false when python3 or the script is missing.
    bool start(const nlohmann::json &script)
    {
        stop();
        m_dir = std::make_unique<QTemporaryDir>();
        const QString scriptPath = m_dir->filePath(QStringLiteral("script.json"));
        QFile f(scriptPath);
        if (!f.open(QIODevice::WriteOnly))
            return false;
        f.write(QByteArray::fromStdString(script.dump()));
        f.close();
        const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
        if (python.isEmpty())
            return false;
        m_process.setProgram(python);
        m_process.setArguments({QStringLiteral(CL_SOURCE_DIR "/tests/agents/fake_model_server.py"), QStringLiteral("--script"),
                                scriptPath, QStringLiteral("--log-dir"), logDir(), QStringLiteral("--port-file"),
                                m_dir->filePath(QStringLiteral("port"))});
        m_process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_process.start();
        if (!m_process.waitForStarted(10000))
            return false;
        return QTest::qWaitFor(
            [&] {
                QFile p(m_dir->filePath(QStringLiteral("port")));
                if (!p.open(QIODevice::ReadOnly))
                    return false;
                m_port = p.readAll().trimmed().toInt();
                return m_port > 0;
            },
            30000); // Python's start can take seconds on a loaded 2-core machine
    }

    void stop()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }

    int port() const { return m_port; }
    // The base URL the provider expects: OpenAI-style servers serve under /v1.
    std::string baseUrl(bool v1) const
    {
        return "http://127.0.0.1:" + std::to_string(m_port) + (v1 ? "/v1" : "");
    }
    QString logDir() const { return m_dir->filePath(QStringLiteral("log")); }

    // Every request so far, in order: {method, path, api, kind, headers, body}.
    std::vector<nlohmann::json> requests() const
    {
        std::vector<nlohmann::json> out;
        const QDir d(logDir());
        for (const QString &name : d.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
            QFile f(d.filePath(name));
            if (f.open(QIODevice::ReadOnly))
                out.push_back(nlohmann::json::parse(f.readAll().toStdString(), nullptr, false));
        }
        return out;
    }

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    QProcess m_process;
    int m_port = 0;
};

// Script turns: a text answer (with options such as "chunks", "delay", "stop", "usage"), an error
// answer (status, the provider's message, extra headers), and the script of turns.
inline nlohmann::json textTurn(const std::string &text, nlohmann::json options = nlohmann::json::object())
{
    options["text"] = text;
    return options;
}

inline nlohmann::json errorTurn(int status, const std::string &message, nlohmann::json headers = nlohmann::json::object())
{
    nlohmann::json error = nlohmann::json::object();
    error["message"] = message;
    nlohmann::json body = nlohmann::json::object();
    body["error"] = error;
    nlohmann::json e = nlohmann::json::object();
    e["status"] = status;
    e["body"] = body;
    e["headers"] = headers;
    nlohmann::json turn = nlohmann::json::object();
    turn["error"] = e;
    return turn;
}

inline nlohmann::json script(std::vector<nlohmann::json> turns)
{
    nlohmann::json s = nlohmann::json::object();
    s["turns"] = nlohmann::json(std::move(turns));
    return s;
}

} // namespace cl::test
