// SPDX-License-Identifier: MIT
#pragma once

// Writing a transcript that strategies changed, the way its agent expects to resume from it.
//
// Claude Code (source and target): written as Claude Code writes its own compactions. The file
// never shrinks: every original line stays byte-for-byte; then a compact_boundary line (parentUuid
// null, logicalParentUuid = the last line of the old chain, compactMetadata with trigger, preTokens,
// postTokens), then the new context as fresh lines with a valid parentUuid chain starting at the
// boundary: inserted summaries as isCompactSummary user lines, untouched messages as copies of
// their original lines (new uuid / parentUuid only, so thinking signatures and tool metadata
// survive), edited ones re-encoded. The new context is the conversation after the last compact
// boundary that was already in the file, or from the first message the strategy inserted when that
// comes earlier (a summary of history from before an earlier compaction). Reloading shows the old
// history, the boundary and the new chain; the agent resumes from the new chain.
// Every other case: cl::writeTranscript (same format re-serializes only edited lines; API formats
// are rebuilt from the model).

#include "core/model/transcript.h"
#include "core/io/writer.h"

#include <string>

namespace cl {

struct ExportOptions {
    bool compactionStyle = true;    // Claude Code: append a compaction instead of rewriting lines
    std::string trigger = "manual"; // compactMetadata.trigger
    std::int64_t preTokens = -1;    // -1: the original conversation estimate (Stats::tokensBefore)
    // Claude Code compactions: compactMetadata.contextlens, the mark of a compaction ContextLens wrote;
    // {"strategies": [{"strategy": name, "params": {...}}, ...]} when known (Re-apply runs them again).
    nlohmann::json origin = nlohmann::json::object();
};

// Never throws (see writeTranscript). The first form returns the bytes, the second streams them.
WriteResult exportTranscript(const Transcript &t, Format target, const ExportOptions &options = {});
WriteResult exportTranscript(const Transcript &t, Format target, const ExportOptions &options, ByteSink &out);

} // namespace cl
