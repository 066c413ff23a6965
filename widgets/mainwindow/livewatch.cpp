// SPDX-License-Identifier: MIT
#include "widgets/mainwindow/livewatch.h"
#include "widgets/models/filenames.h"

#include <QFileInfo>

namespace cl::gui {

LiveWatch::LiveWatch(QObject *parent)
    : QObject(parent)
{
    m_timer.setInterval(1000);
    connect(&m_timer, &QTimer::timeout, this, &LiveWatch::pollNow);
    connect(&m_watcher, &QFileSystemWatcher::fileChanged, this, [this](const QString &file) {
        // An atomic replace drops the watch: watch the new file again.
        if (!m_watcher.files().contains(file) && QFileInfo::exists(file))
            m_watcher.addPath(file);
        pollNow();
    });
}

void LiveWatch::follow(const QString &path, std::shared_ptr<const Transcript> loaded, const LoadOptions &options)
{
    stop();
    if (path.isEmpty() || !loaded)
        return;
    m_path = path;
    m_tail = std::make_shared<LiveTail>(filenames::toBytes(path), std::move(loaded), options);
    m_watcher.addPath(path);
    m_timer.start();
}

void LiveWatch::stop()
{
    m_job.cancel();
    m_timer.stop();
    if (!m_watcher.files().isEmpty())
        m_watcher.removePaths(m_watcher.files());
    m_tail.reset();
    m_path.clear();
    m_again = false;
}

void LiveWatch::pollNow()
{
    if (!m_tail)
        return;
    if (m_job.isRunning()) {
        m_again = true;
        return;
    }
    std::shared_ptr<LiveTail> tail = m_tail;
    m_job.start([tail](JobControl &) { return tail->poll(); },
                [this, tail](LiveTail::Update u) {
                    if (tail != m_tail)
                        return;
                    if (u.kind == LiveTail::Update::Kind::Failed)
                        Q_EMIT failed(QString::fromStdString(u.note));
                    else if (u.changed())
                        Q_EMIT updated(u.transcript, u);
                    if (m_again) {
                        m_again = false;
                        pollNow();
                    }
                });
}

} // namespace cl::gui
