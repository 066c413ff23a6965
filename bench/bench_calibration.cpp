// SPDX-License-Identifier: MIT
// How close the live-context figure comes to the agent's own count, out of sample
// (core/tokens/contextfigure.h, checkCalibration): for every file with at least four measured
// responses, the factor and fixed part are learned from the first half of its measurements and the
// second half is predicted from the estimate alone. Printed as a Markdown table, one row per file,
// beside the seed 001 estimator's error on the same points.
// Usage: bench_calibration FILE...
#include "core/io/loader.h"
#include "core/tokens/contextfigure.h"
#include "core/tokens/counts.h"

#include <cstdio>
#include <filesystem>
#include <string>

using namespace cl;

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s FILE...\n", argv[0]);
        return 2;
    }
    std::printf("| file | family | measured points (learned / predicted) | factor | live figure: median error "
                "(signed mean) | estimate alone: median error (signed mean) | seed 001 + fixed part: median error "
                "|\n|---|---|---|---|---|---|---|\n");
    int rows = 0;
    for (int i = 1; i < argc; ++i) {
        const LoadResult r = loadFile(argv[i]);
        if (!r.ok()) {
            std::fprintf(stderr, "%s: %s\n", argv[i], r.error.c_str());
            return 1;
        }
        const auto check = tokens::checkCalibration(*r.transcript);
        if (!check)
            continue;
        const std::string family(tokencount::familyName(tokencount::detectFamily(*r.transcript)));
        std::printf("| %s | %s | %zu / %zu | %.3f | %.1f %% (%+.1f %%) | %.1f %% (%+.1f %%) | %.1f %% |\n",
                    std::filesystem::path(argv[i]).filename().c_str(), family.c_str(), check->learnedFrom,
                    check->predicted, check->factor, check->liveMedianErrorPercent, check->liveMeanSignedPercent,
                    check->estimateMedianErrorPercent, check->estimateMeanSignedPercent,
                    check->seedMedianErrorPercent);
        ++rows;
    }
    return rows ? 0 : 1;
}
