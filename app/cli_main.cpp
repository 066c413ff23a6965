// SPDX-License-Identifier: MIT
#include "core/util/allocator.h"
#include "cli/cli.h"

#include <cstdio>

int main(int argc, char **argv)
{
    cl::tuneAllocator(); // before the first large allocation
    return cl::cli::run(argc, argv, stdout, stderr);
}
