// SPDX-License-Identifier: MIT
#include "core/util/allocator.h"

#include "core/util/parallel.h"

#include <cstdlib>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#ifdef CL_HAVE_MIMALLOC
#include <mimalloc.h>
#endif

namespace cl {

void tuneAllocator()
{
#ifdef CL_HAVE_MIMALLOC
    if (!std::getenv("MIMALLOC_LARGE_OS_PAGES"))
        mi_option_enable(mi_option_large_os_pages);
#endif
}

void releaseFreedMemory()
{
#ifdef CL_HAVE_MIMALLOC
    // Each thread's heap keeps its own freed pages: collect on the calling thread and on the
    // process's long-lived second thread (core/util/parallel.h), which did half of the loading.
    onTwoThreads([](std::size_t) { mi_collect(true); });
#endif
#ifdef __GLIBC__
    ::malloc_trim(0);
#endif
}

std::string allocatorDescription()
{
#ifdef CL_HAVE_MIMALLOC
    // Whether malloc() really reaches mimalloc (it must come first on the link line).
    void *probe = std::calloc(1, 64);
    const bool ours = mi_is_in_heap_region(probe);
    std::free(probe);
    if (ours)
        return "mimalloc " + std::to_string(mi_version())
               + (mi_option_is_enabled(mi_option_large_os_pages) ? ", 2 MiB pages" : ", 4 KiB pages");
#endif
    return "C library malloc";
}

} // namespace cl
