// SPDX-License-Identifier: MIT
#include "core/cli/cli.h"

#include <cstdio>

int main(int argc, char **argv)
{
    return cl::cli::run(argc, argv, stdout, stderr);
}
