// SPDX-License-Identifier: MIT
#include "core/loader.h"
#include <cstdio>
int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    auto r = cl::loadFile(argv[1]);
    std::printf("%s\n", r.ok() ? "ok" : r.error.c_str());
    return r.ok() ? 0 : 2;
}
