// SPDX-License-Identifier: MIT
#pragma once

#include "core/transcript.h"

#include <string>
#include <vector>

namespace cl {

struct WriteResult {
    std::string bytes;
    std::vector<std::string> notes;  // what a conversion could not carry over (dropped thinking, ...)
    bool ok = true;
    std::string error;
};

// Writes t in `target`. Same format with no edits: the original bytes. Otherwise each format's
// writer rebuilds from the neutral model, reusing untouched records byte-for-byte where it can.
WriteResult writeTranscript(const Transcript &t, Format target);

// Writes to a temporary file beside `path` and renames it over; never leaves a partial file.
bool writeFileAtomic(const std::string &path, std::string_view bytes, std::string *error = nullptr);

} // namespace cl
