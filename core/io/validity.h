// SPDX-License-Identifier: MIT
#pragma once

// Validity rules of each API format (formats.md). The transcript is checked in the shape it has in
// that format (load it as that format, or write + reload after a conversion).

#include "core/model/transcript.h"

#include <string>
#include <vector>

namespace cl {

struct Violation {
    int message = -1; // index into Transcript::messages; -1 for the whole request
    std::string reason;
};

std::vector<Violation> validate(const Transcript &t, Format rules);
// Convenience: write t as `target`, reload the bytes as `target` and validate them.
std::vector<Violation> validateConverted(const Transcript &t, Format target);

} // namespace cl
