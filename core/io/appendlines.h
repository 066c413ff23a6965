// SPDX-License-Identifier: MIT
#pragma once
// A line-based session (Claude Code, Codex) that its agent is still writing: the transcript of the
// bytes loaded before plus the lines appended since, without parsing the whole file again. Only the
// current turn (from the last user request on) and the new lines are parsed; the messages before it
// are kept as they are. Where that could give another answer than a fresh load (a rewind to an earlier
// message, a compaction that moves kept messages, a line that repeats an earlier one), it declines
// and says why; the caller then parses the whole buffer (core/io/livetail.h does).

#include "core/formats/load.h"

#include <memory>
#include <string>
#include <string_view>

namespace cl {

struct AppendResult {
    std::shared_ptr<Transcript> transcript; // null: not possible incrementally (reason says why)
    std::string reason;
    std::size_t reparsedFrom = 0; // byte offset in the old buffer where parsing started again
};

// `more` holds complete lines (it ends with a line terminator). opts as for the load of `base`.
AppendResult appendLines(const Transcript &base, std::string_view more, const LoadOptions &opts);

} // namespace cl
