// SPDX-License-Identifier: MIT
#pragma once

// BackgroundJob<Result>: runs a piece of work on backgroundPool() for a QObject (its owner) and
// hands the result back on the owner's thread. It replaces the hand-written pattern of a generation
// counter, a future watcher, a finished lambda that compares generations and an atomic cancel flag.
//
// What it guarantees (every member function is called on the owner's thread):
// - start(work, onDone[, onProgress]) runs work(JobControl &) on backgroundPool(). When the work
//   returns, onDone(result) is called on the owner's thread through its event loop (never from
//   inside start()), but only if no later start(), cancel() or invalidate() happened. Such a
//   result is stale: it is dropped, or given to the stale handler (setStaleHandler) when there is
//   one. start() cancels the run it replaces.
// - The work may report progress from any thread (JobControl::setProgress). onProgress gets it on
//   the owner's thread, before onDone, and only while the run is current. Reports are merged: when
//   several arrive before the owner's thread gets to them, only the newest is passed on. Progress
//   never goes back: a report that is not ahead of the last one is dropped (so is a first report of
//   0 done).
// - cancel() sets the cancel flag of the running work (JobControl::isCancelled, cancelFlag) and
//   makes its result stale. requestStop() sets the flag but keeps the result: for work that returns
//   what it did so far when stopped. invalidate() makes the result stale without setting the flag.
// - isRunning(): the latest run's result is still to come. isBusy(): some work started here (stale
//   work included) has not finished yet on the owner's side; waitForWork() blocks until every work
//   function started here has returned.
// - Destroying the job (it is a member of its owner) while work runs is safe: it sets the cancel
//   flag and returns at once; afterwards nothing is called on the job or the owner. The work runs to
//   its end in the background and only uses what it captured, so it must capture data by value or
//   shared_ptr, never the owner.
// - An exception escaping the work is caught and logged; that run then ends without a result
//   (onDone is not called, isRunning() turns false).
// - startAfterPaint() is start() with the work handed to the thread pool only after the paint passes
//   asked for so far (afterPendingPaint below); it is running from the call on. Made stale before it
//   is handed over, it never runs. waitForWork() hands such work over at once.

#include <QFuture>
#include <QList>
#include <QObject>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace cl::gui {

// Progress of a run: `done` of `total` steps.
struct JobProgress {
    qint64 done = 0;
    qint64 total = 0;
    double fraction() const { return total > 0 ? double(done) / double(total) : 0.0; }
};

// The thread pool background work runs on (as many threads as QThreadPool::globalInstance()). Not
// the global pool: Qt's raster engine splits large fills and image conversions into segments for
// the global pool and waits for them, so a long job there held up every paint until it finished
// (80 ms and more while a session's analysis and tables were built). Destroyed, after its work has
// finished, with the application.
QThreadPool *backgroundPool();

// Calls `call` on `context`'s thread once the paint passes that update() calls have asked for so
// far are done: Qt posts a window's paint pass at Qt::LowEventPriority, and this is posted below it.
// Work started from here does not compete for the CPU with the paint that shows what was just set
// (a session's first rows, while its analysis waits). Dropped when `context` goes first.
void afterPendingPaint(QObject *context, std::function<void()> call);

namespace detail {
// Shared by a BackgroundJob and every run it started. Workers post to the owner only while the job
// lives: the pointer is cleared (under the mutex) when the job is destroyed.
struct JobLink {
    std::mutex mutex;
    QObject *owner = nullptr; // guarded by mutex
    // Owner's thread only:
    quint64 generation = 0; // bumped by start, cancel and invalidate
    bool alive = true;

    void post(std::function<void()> call);
    void warn(const char *what);
};
} // namespace detail

// What the work sees of its run. Thread-safe.
class JobControl : public std::enable_shared_from_this<JobControl>
{
public:
    // The run was cancelled (cancel(), requestStop() or the job's destruction): stop early.
    bool isCancelled() const { return m_cancel.load(std::memory_order_relaxed); }
    // The same flag, for core functions that poll a `const std::atomic_bool *`.
    const std::atomic_bool *cancelFlag() const { return &m_cancel; }
    // `fraction` of the work is done (0..1; reported in steps of 1/1000).
    void setProgress(double fraction);
    // `done` of `total` steps are done.
    void setProgress(qint64 done, qint64 total);

    // Made by BackgroundJob::start.
    JobControl(std::shared_ptr<detail::JobLink> link, quint64 generation,
               std::function<void(JobProgress)> onProgress);
    JobControl(const JobControl &) = delete;
    JobControl &operator=(const JobControl &) = delete;

private:
    template <class> friend class BackgroundJob;
    void flushProgress(); // owner's thread

    std::atomic_bool m_cancel{false};
    const std::shared_ptr<detail::JobLink> m_link;
    const quint64 m_generation;
    const std::function<void(JobProgress)> m_onProgress; // called on the owner's thread only
    std::mutex m_progressMutex;
    JobProgress m_progress;     // the newest report (guarded by m_progressMutex)
    bool m_flushPosted = false; // a flush is on its way to the owner's thread (same)
};

template <class Result>
class BackgroundJob
{
public:
    explicit BackgroundJob(QObject *owner)
        : m_owner(owner)
        , m_link(std::make_shared<detail::JobLink>())
    {
        m_link->owner = owner;
    }
    // Cancels the running work without waiting for it; nothing is delivered afterwards.
    ~BackgroundJob()
    {
        cancel();
        m_link->alive = false;
        std::lock_guard lock(m_link->mutex);
        m_link->owner = nullptr;
    }
    BackgroundJob(const BackgroundJob &) = delete;
    BackgroundJob &operator=(const BackgroundJob &) = delete;

    // Runs work(JobControl &) -> Result in the background; see the top of this file.
    template <class Work>
    void start(Work work, std::function<void(Result)> onDone, std::function<void(JobProgress)> onProgress = {})
    {
        launch(begin(std::move(onProgress)), std::move(work), std::move(onDone));
    }

    // start(), with the work handed to the thread pool after the pending paint passes (top of file).
    template <class Work>
    void startAfterPaint(Work work, std::function<void(Result)> onDone, std::function<void(JobProgress)> onProgress = {})
    {
        auto control = begin(std::move(onProgress));
        auto handOver = std::make_shared<std::function<void()>>(
            [this, control, work = std::make_shared<Work>(std::move(work)), onDone = std::move(onDone)] {
                if (control->m_generation == m_link->generation)
                    launch(control, std::move(*work), onDone);
                else
                    --m_unfinished; // superseded, cancelled or made stale before it began
            });
        std::erase_if(m_handOvers, [](const auto &h) { return !*h; });
        m_handOvers.push_back(handOver);
        afterPendingPaint(m_owner, [link = m_link, handOver] {
            if (link->alive && *handOver)
                std::exchange(*handOver, nullptr)();
        });
    }

    // Called with a result that arrived stale (optional; e.g. to keep a by-product, or to update
    // controls once the superseded work is gone).
    void setStaleHandler(std::function<void(Result)> onStale) { m_onStale = std::move(onStale); }

    // Sets the running work's cancel flag and makes its result stale.
    void cancel()
    {
        requestStop();
        invalidate();
    }
    // Sets the running work's cancel flag; its result is still delivered.
    void requestStop()
    {
        if (m_current)
            m_current->m_cancel.store(true);
    }
    // Makes the running work's result stale; the work goes on undisturbed.
    void invalidate()
    {
        ++m_link->generation;
        m_running = false;
    }

    // The latest run's result is still to come.
    bool isRunning() const { return m_running; }
    // Some run (stale ones included) has not ended yet on the owner's thread.
    bool isBusy() const { return m_unfinished > 0; }
    // Blocks until every work started here has returned; their results still arrive through the
    // event loop (isBusy() stays true until then).
    void waitForWork()
    {
        for (const auto &handOver : std::exchange(m_handOvers, {}))
            if (*handOver)
                std::exchange(*handOver, nullptr)();
        for (QFuture<void> &f : m_futures)
            f.waitForFinished();
        m_futures.clear();
    }

private:
    std::shared_ptr<JobControl> begin(std::function<void(JobProgress)> onProgress)
    {
        cancel();
        auto control = std::make_shared<JobControl>(m_link, m_link->generation, std::move(onProgress));
        m_current = control;
        m_running = true;
        ++m_unfinished;
        return control;
    }

    template <class Work>
    void launch(std::shared_ptr<JobControl> control, Work work, std::function<void(Result)> onDone)
    {
        m_futures.removeIf([](const QFuture<void> &f) { return f.isFinished(); });
        m_futures.append(QtConcurrent::run(backgroundPool(), [control, work = std::move(work), onDone = std::move(onDone),
                                                              self = this]() mutable {
            auto result = std::make_shared<std::optional<Result>>();
            try {
                result->emplace(work(*control));
            } catch (const std::exception &e) {
                control->m_link->warn(e.what());
            } catch (...) {
                control->m_link->warn("unknown exception");
            }
            // `self` is only used on the owner's thread, after checking that the job is alive.
            control->m_link->post([control, result, onDone = std::move(onDone), self] {
                if (control->m_link->alive)
                    self->finish(*control, std::move(*result), onDone);
            });
        }));
    }

    void finish(const JobControl &control, std::optional<Result> &&result, const std::function<void(Result)> &onDone)
    {
        --m_unfinished;
        const bool current = control.m_generation == m_link->generation;
        if (current)
            m_running = false;
        if (!result)
            return;
        if (current) {
            if (onDone)
                onDone(std::move(*result));
        } else if (m_onStale) {
            m_onStale(std::move(*result));
        }
    }

    QObject *const m_owner;
    std::shared_ptr<detail::JobLink> m_link;
    std::shared_ptr<JobControl> m_current; // the latest run
    bool m_running = false;
    int m_unfinished = 0; // runs whose end has not reached the owner's thread yet
    std::function<void(Result)> m_onStale;
    QList<QFuture<void>> m_futures;                                  // for waitForWork
    std::vector<std::shared_ptr<std::function<void()>>> m_handOvers; // startAfterPaint's, until they run
};

} // namespace cl::gui
