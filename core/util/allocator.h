// SPDX-License-Identifier: MIT
#pragma once

// Process allocator settings, applied first thing in every executable's main().

#include <string>

namespace cl {

// With mimalloc as the process allocator (see CMakeLists.txt): asks it for 2 MiB pages
// (transparent huge pages where the kernel allows them, madvise mode included), unless
// MIMALLOC_LARGE_OS_PAGES is set in the environment, which then decides. Loading and strategy runs
// write hundreds of megabytes of fresh memory, and on a virtual machine a 4 KiB page fault is
// expensive (the measurements are in bench/results.md). Without mimalloc (sanitizer builds) it does
// nothing.
void tuneAllocator();
// Hands memory freed so far back to the system (mimalloc: collect; C library: trim), so that the next
// large step does not add its peak on top of a freed one (convert frees its input before it loads
// its output back).
void releaseFreedMemory();
// "mimalloc 209, 2 MiB pages", "C library malloc", ... for benchmark reports.
std::string allocatorDescription();

} // namespace cl
