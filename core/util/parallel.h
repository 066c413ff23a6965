// SPDX-License-Identifier: MIT
#pragma once

// The two-thread loop the strategy engine uses for work that is a pure function of each item
// (estimates, per-block tables, digests): items are dealt out in interleaved chunks, because large
// tool results cluster; below `minItems` (or when util::defaultThreads() is 1) it stays on the
// calling thread. An exception from either thread is rethrown on the caller after both stopped.

#include <algorithm>
#include <cstddef>
#include <exception>
#include <functional>

namespace cl {

namespace util {
// The default number of worker threads of an operation (loading, compare, parallelFor): the
// CONTEXTLENS_THREADS environment variable when it is a positive number, else two (what the
// benchmarks were tuned for, on the two-core reference machine), or one on a one-core machine. Read
// once per process.
int defaultThreads();
} // namespace util

namespace detail {
// Starts job on a second thread; the destructor waits for it to finish.
// The second thread is one long-lived worker of the process when it is idle (so the memory its
// allocator hands out stays with a live thread and is reused by the next run, instead of being
// abandoned with a thread that exits), else a thread of its own.
class SecondThread
{
public:
    explicit SecondThread(std::function<void()> job);
    ~SecondThread(); // joins
    SecondThread(const SecondThread &) = delete;
    SecondThread &operator=(const SecondThread &) = delete;

private:
    struct Own;
    Own *m_own = nullptr; // set when the worker was busy
};
} // namespace detail

// f(0) on the calling thread and f(1) on a second one; an exception from either is rethrown on
// the caller after both stopped.
template <class F> void onTwoThreads(F &&f)
{
    std::exception_ptr error;
    {
        detail::SecondThread other([&] {
            try {
                f(std::size_t(1));
            } catch (...) {
                error = std::current_exception();
            }
        });
        f(std::size_t(0)); // on an exception, other's destructor waits for the second half
    }
    if (error)
        std::rethrow_exception(error);
}

template <class F> void parallelFor(std::size_t n, std::size_t chunk, std::size_t minItems, F &&f)
{
    auto work = [&](std::size_t k, std::size_t threads) {
        for (std::size_t start = k * chunk; start < n; start += threads * chunk)
            for (std::size_t j = start; j < std::min(n, start + chunk); ++j)
                f(j);
    };
    if (n < minItems || n <= chunk || util::defaultThreads() < 2) {
        work(0, 1);
        return;
    }
    onTwoThreads([&](std::size_t k) { work(k, 2); });
}

} // namespace cl
