// SPDX-License-Identifier: MIT
#include "core/allocator.h"

#include <cstdlib>

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
