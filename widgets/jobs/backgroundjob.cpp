// SPDX-License-Identifier: MIT
#include "widgets/jobs/backgroundjob.h"

#include <QCoreApplication>
#include <QEvent>
#include <QtGlobal>

#include <algorithm>

namespace cl::gui {

namespace {

constexpr qint64 kFractionSteps = 1000;

// Makes its call on the event posted to it, then goes.
class PostedCall : public QObject
{
public:
    static QEvent::Type eventType()
    {
        static const auto type = QEvent::Type(QEvent::registerEventType());
        return type;
    }
    PostedCall(QObject *context, std::function<void()> call)
        : QObject(context)
        , m_call(std::move(call))
    {
    }
    bool event(QEvent *event) override
    {
        if (event->type() != eventType())
            return QObject::event(event);
        const std::function<void()> call = std::move(m_call);
        setParent(nullptr); // the call may destroy the context
        deleteLater();
        call();
        return true;
    }

private:
    std::function<void()> m_call;
};

} // namespace

QThreadPool *backgroundPool()
{
    static QThreadPool *const pool = [] {
        auto *p = new QThreadPool(QCoreApplication::instance());
        p->setMaxThreadCount(QThreadPool::globalInstance()->maxThreadCount());
        p->setObjectName(QStringLiteral("backgroundPool"));
        return p;
    }();
    return pool;
}

void afterPendingPaint(QObject *context, std::function<void()> call)
{
    QCoreApplication::postEvent(new PostedCall(context, std::move(call)), new QEvent(PostedCall::eventType()),
                                Qt::LowEventPriority - 1);
}

void detail::JobLink::post(std::function<void()> call)
{
    std::lock_guard lock(mutex);
    if (owner)
        QMetaObject::invokeMethod(owner, std::move(call), Qt::QueuedConnection);
}

void detail::JobLink::warn(const char *what)
{
    qWarning("background job failed: %s", what);
}

JobControl::JobControl(std::shared_ptr<detail::JobLink> link, quint64 generation,
                       std::function<void(JobProgress)> onProgress)
    : m_link(std::move(link))
    , m_generation(generation)
    , m_onProgress(std::move(onProgress))
{
}

void JobControl::setProgress(double fraction)
{
    setProgress(qint64(std::clamp(fraction, 0.0, 1.0) * double(kFractionSteps)), kFractionSteps);
}

void JobControl::setProgress(qint64 done, qint64 total)
{
    if (!m_onProgress)
        return; // nobody listens
    {
        std::lock_guard lock(m_progressMutex);
        const bool ahead = done > m_progress.done || (total != m_progress.total && m_progress.total != 0);
        if (!ahead)
            return;
        m_progress = {done, total};
        if (m_flushPosted)
            return; // the flush on its way reads the newest report
        m_flushPosted = true;
    }
    m_link->post([self = shared_from_this()] { self->flushProgress(); });
}

void JobControl::flushProgress()
{
    JobProgress p;
    {
        std::lock_guard lock(m_progressMutex);
        m_flushPosted = false;
        p = m_progress;
    }
    if (m_link->alive && m_link->generation == m_generation)
        m_onProgress(p);
}

} // namespace cl::gui
