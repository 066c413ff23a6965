// SPDX-License-Identifier: MIT
#pragma once

// What every format writer returns (core/io/writer.h dispatches to them).

#include <cstddef>
#include <string>
#include <vector>

namespace cl {

struct WriteResult {
    std::string bytes;              // the in-memory writeTranscript only; a sink got them otherwise
    std::size_t size = 0;           // bytes written
    std::vector<std::string> notes; // what a conversion could not carry over (dropped thinking, ...)
    bool ok = true;
    std::string error;
};

} // namespace cl
