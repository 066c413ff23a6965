// SPDX-License-Identifier: MIT
#pragma once
// Follows the open session while its agent writes it (core/io/livetail.h): a file watcher, and a poll
// every second for file systems whose watchers miss changes; each poll runs on the thread pool and
// reads only what was appended, and counts the grown transcript's context figures there too. Delivers
// both on the GUI thread.

#include "core/io/livetail.h"
#include "widgets/jobs/backgroundjob.h"
#include "widgets/models/chartgeometry.h"

#include <QFileSystemWatcher>
#include <QObject>
#include <QTimer>

#include <memory>
#include <optional>

namespace cl::gui {

class LiveWatch : public QObject
{
    Q_OBJECT
public:
    explicit LiveWatch(QObject *parent = nullptr);

    // Starts following `path`, loaded as `loaded` with `options`; replaces what was followed.
    void follow(const QString &path, std::shared_ptr<const Transcript> loaded, const LoadOptions &options);
    void stop();
    bool isFollowing() const { return m_tail != nullptr; }
    QString path() const { return m_path; }
    void setInterval(int ms) { m_timer.setInterval(ms); }
    // Polls now (the timer and the watcher call this too); one poll runs at a time.
    void pollNow();
    bool isPolling() const { return m_job.isRunning(); }
    // What the polls did so far (none while following nothing); read it while no poll runs.
    LiveTail::Stats stats() const { return m_tail && !isPolling() ? m_tail->stats() : LiveTail::Stats{}; }

Q_SIGNALS:
    // The file grew (or was read again): the new transcript and what changed; `usage`: its chart,
    // gauge and status figures counted the way the window counts (View › Token Count), or none when
    // they are the GUI's to count (exact counts, or the choice changed during the poll).
    void updated(std::shared_ptr<const cl::Transcript> transcript, const cl::LiveTail::Update &update,
                 const std::optional<cl::gui::UsageData> &usage);
    void failed(const QString &reason);

private:
    std::shared_ptr<LiveTail> m_tail;
    QString m_path;
    QFileSystemWatcher m_watcher;
    QTimer m_timer;
    struct Polled {
        LiveTail::Update update;
        std::optional<UsageData> usage;
    };
    BackgroundJob<Polled> m_job{this};
    bool m_again = false; // a change came in while a poll ran
};

} // namespace cl::gui
