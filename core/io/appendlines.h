// SPDX-License-Identifier: MIT
#pragma once
// A line-based session (Claude Code, Codex) that its agent is still writing: the transcript of the
// bytes loaded before plus the lines appended since, without parsing the whole file again. Only the
// current turn (from the last user request on) and the new lines are parsed; the messages before it
// are kept as they are. Where that could give another answer than a fresh load (a rewind to an earlier
// message, a compaction that moves kept messages, a line that repeats an earlier one), it declines
// and says why; the caller then parses the whole buffer (core/io/livetail.h does).

#include "core/formats/load.h"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>

namespace cl {

struct AppendResult {
    std::shared_ptr<Transcript> transcript; // null: not possible incrementally (reason says why)
    std::string reason;
    // What the grown transcript keeps of the base as it was: its first messages, records and bytes
    // (the bytes up to the offset where parsing started again).
    std::size_t keptMessages = 0, keptRecords = 0;
    std::size_t reparsedFrom = 0;
    bool inPlace = false; // grown in AppendState::spare rather than in a copy of the base
};

// What a caller that appends again and again keeps between calls (core/io/livetail.h does), so that
// each call costs about what was appended rather than what came before: the uuids and ids of the
// earlier lines, collected once, and a spare transcript to grow instead of copying every earlier
// message and byte of the base. Valid while each base is the transcript the previous call grew;
// reset it (= {}) when the base comes from anywhere else.
struct AppendState {
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    using Set = std::unordered_set<std::string, Hash, std::equal_to<>>;
    Set earlierUuids; // Claude Code: the uuids of the base's lines [0, uuidLines)
    std::size_t uuidLines = 0;
    Set earlierIds; // the ids of the base's messages [0, idMessages)
    std::size_t idMessages = 0;
    // The base of the previous call: its first spareMessages messages, spareRecords records and
    // spareBytes bytes are the current base's. Grown in place (moved into the result, which gets a
    // new identity) when nothing else holds it or its buffer; copied from the base otherwise.
    std::shared_ptr<const Transcript> spare;
    std::size_t spareMessages = 0, spareRecords = 0, spareBytes = 0;
};

// `more` holds complete lines (it ends with a line terminator). opts as for the load of `base`.
// `state`: kept by the caller between calls on the same growing session (none: built each time).
AppendResult appendLines(const Transcript &base, std::string_view more, const LoadOptions &opts, AppendState *state = nullptr);

} // namespace cl
