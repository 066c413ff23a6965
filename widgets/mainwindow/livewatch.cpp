// SPDX-License-Identifier: MIT
#include "widgets/mainwindow/livewatch.h"
#include "widgets/models/filenames.h"
#include "widgets/models/tokencount.h"

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
    const tokens::Estimator count = tokencount::chosen();
    m_job.start(
        [tail, count](JobControl &) {
            Polled p{tail->poll(), std::nullopt};
            // Every figure of the window walks the whole transcript (30-45 ms at 800 MB): counted here,
            // where nothing else holds the new version yet. Exact counts stay the window's (its
            // vocabulary and their cache are used from the GUI thread).
            if (p.update.changed() && p.update.transcript && count != tokens::Estimator::Exact)
                p.usage = usageData(*p.update.transcript, count);
            return p;
        },
        [this, tail, count](Polled p) {
            if (tail != m_tail)
                return;
            const LiveTail::Update &u = p.update;
            if (u.kind == LiveTail::Update::Kind::Failed)
                Q_EMIT failed(QString::fromStdString(u.note));
            else if (u.changed())
                Q_EMIT updated(u.transcript, u, count == tokencount::chosen() ? p.usage : std::nullopt);
            if (m_again) {
                m_again = false;
                pollNow();
            }
        });
}

} // namespace cl::gui
