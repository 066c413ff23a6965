// SPDX-License-Identifier: MIT
#pragma once
// The clocks the GUI benchmarks read: wall time since a point, and the calling thread's CPU time
// (the GUI thread's own work, whatever else the machine runs).

#include <chrono>

#include <time.h>

namespace benchclock {

using Clock = std::chrono::steady_clock;

inline double msSince(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

inline double threadCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1000.0 + double(ts.tv_nsec) / 1e6;
}

} // namespace benchclock
