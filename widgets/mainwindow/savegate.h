// SPDX-License-Identifier: MIT
#pragma once

// File › Save's gate: disabled while nothing was applied, and while an agent is running the loaded
// session (core/io/runningagent.h), with the reason as its tooltip. Polls every 2 s, only while a
// session file is loaded, so Save comes back by itself when the agent exits. The poll looks at the
// processes on a worker thread (about 13 ms for 120 processes); checkNow() looks on the caller's.

#include "core/io/runningagent.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <optional>

class QAction;
class QTimer;

namespace cl::gui {

class TranscriptDocument;

class SaveGate : public QObject
{
    Q_OBJECT
public:
    SaveGate(QAction *save, TranscriptDocument *doc, QObject *parent = nullptr);

    // The agent running the loaded session at the last look, if any.
    const std::optional<running::RunningAgent> &agent() const { return m_agent; }
    // "Codex (pid 1234) is running this session (…): quit Codex (pid 1234), then Save." ("" when none).
    QString reason() const;
    // Looks again now (also done every interval while a session file is loaded).
    void checkNow();
    void setInterval(int ms);

Q_SIGNALS:
    // An agent started or stopped running the loaded session; reason() says which ("" : none).
    void runningChanged(const QString &reason);

private:
    using Look = std::optional<running::RunningAgent>;
    void update();
    void poll();
    void take(const QString &path, Look now);

    QAction *m_save;
    TranscriptDocument *m_doc;
    QTimer *m_timer;
    QString m_watched;
    std::optional<running::RunningAgent> m_agent;
    QFutureWatcher<Look> m_look;
    QString m_lookPath; // the file the look under way is for
};

} // namespace cl::gui
