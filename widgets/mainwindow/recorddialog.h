// SPDX-License-Identifier: MIT
#pragma once

// File › Record an Agent…: the recording proxy of `contextlens-cli record` (net/recordingproxy.h) run
// from the window. The user picks where the recording goes (the app's data folder by default, never
// an agent's folder) and Start; the dialog then says how to start each agent through the proxy from
// a terminal (an agent needs one: the window cannot host it), counts the exchanges as they are
// recorded, and Stop ends it. Closing the dialog stops the recording. Open Recording shows what was
// recorded so far in the window (core/io/recordedrequest.h).
// Compaction on the wire (core/workflow/requestrewrite.h): a strategy chosen before Start runs on
// every request (its default parameters), live or as a dry run; the Compact switch turns it off and
// on at once while recording.

#include <QDialog>

#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace cl::net {
class RecordingFile;
class RecordingProxy;
} // namespace cl::net

namespace cl::wire {
class RequestRewriter;
}

namespace cl::gui {

class RecordDialog : public QDialog
{
    Q_OBJECT
public:
    explicit RecordDialog(QWidget *parent = nullptr);
    ~RecordDialog() override;

    // A fresh file name in the app's data folder (recordings/recording-YYYYMMDD-HHMMSS.jsonl).
    static QString defaultPath();

    QLineEdit *pathEdit() const { return m_path; }
    QComboBox *upstreamBox() const { return m_upstream; }
    QComboBox *strategyBox() const { return m_strategy; } // item data: the strategy's name, "" for none
    QCheckBox *dryRunBox() const { return m_dryRun; }
    QCheckBox *compactSwitch() const { return m_compact; }
    bool isCompacting() const; // a strategy runs on the requests now
    QPlainTextEdit *commands() const { return m_commands; }
    QString statusText() const;
    bool isRecording() const { return m_proxy != nullptr; }
    quint16 port() const;

    // Starts the proxy on 127.0.0.1 (any free port) recording into the path; false with the reason
    // shown when it cannot.
    bool start();
    void stop();
    QPushButton *openButton() const { return m_open; }

Q_SIGNALS:
    // Open Recording: the window opens the recording (its agent's last request, the Requests dock).
    void openRequested(const QString &path);

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void showState();

    QLineEdit *m_path;
    QComboBox *m_upstream;
    QComboBox *m_strategy;
    QCheckBox *m_dryRun, *m_compact;
    QPushButton *m_browse, *m_startStop, *m_open;
    QLabel *m_status;
    QPlainTextEdit *m_commands;
    std::unique_ptr<net::RecordingFile> m_file;
    std::unique_ptr<wire::RequestRewriter> m_rewriter;
    std::unique_ptr<net::RecordingProxy> m_proxy;
    qint64 m_rewritten = 0;
    QString m_lastRewrite;
    qint64 m_exchanges = 0;
    QString m_problem;
};

} // namespace cl::gui
