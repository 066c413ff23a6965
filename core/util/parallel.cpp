// SPDX-License-Identifier: MIT
#include "core/util/parallel.h"

#include <algorithm>
#include <charconv>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

namespace cl::util {

int defaultThreads()
{
    static const int threads = [] {
        if (const char *env = std::getenv("CONTEXTLENS_THREADS")) {
            int n = 0;
            const char *end = env + std::strlen(env);
            const auto [ptr, ec] = std::from_chars(env, end, n);
            if (ec == std::errc() && ptr == end && n > 0)
                return n;
        }
        return int(std::max(1u, std::min(2u, std::thread::hardware_concurrency())));
    }();
    return threads;
}

} // namespace cl::util

namespace cl::detail {

namespace {

// The process's second thread: waits for one job at a time. Never destroyed (a thread blocked on
// its condition variable ends with the process), so no exit-time ordering can reach it.
class Worker
{
public:
    static Worker &instance()
    {
        static Worker *w = new Worker;
        return *w;
    }

    // Starts job when idle; false when another caller holds the worker.
    bool tryStart(std::function<void()> &job)
    {
        std::lock_guard lock(m_mutex);
        if (m_claimed)
            return false;
        m_claimed = true;
        m_done = false;
        m_job = std::move(job);
        m_wake.notify_one();
        return true;
    }

    void join()
    {
        std::unique_lock lock(m_mutex);
        m_finished.wait(lock, [this] { return m_done; });
        m_claimed = false;
    }

private:
    Worker()
        : m_thread([this] { loop(); })
    {
        m_thread.detach();
    }

    void loop()
    {
        for (;;) {
            std::function<void()> job;
            {
                std::unique_lock lock(m_mutex);
                m_wake.wait(lock, [this] { return bool(m_job); });
                job = std::move(m_job);
                m_job = nullptr;
            }
            job(); // onTwoThreads' job catches its own exceptions
            {
                std::lock_guard lock(m_mutex);
                m_done = true;
            }
            m_finished.notify_all();
        }
    }

    std::mutex m_mutex;
    std::condition_variable m_wake, m_finished;
    std::function<void()> m_job;
    bool m_claimed = false;
    bool m_done = false;
    std::thread m_thread;
};

} // namespace

struct SecondThread::Own {
    std::thread thread;
};

SecondThread::SecondThread(std::function<void()> job)
{
    if (!Worker::instance().tryStart(job))
        m_own = new Own{std::thread(std::move(job))};
}

SecondThread::~SecondThread()
{
    if (m_own) {
        m_own->thread.join();
        delete m_own;
    } else {
        Worker::instance().join();
    }
}

} // namespace cl::detail
