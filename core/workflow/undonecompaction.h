// SPDX-License-Identifier: MIT
#pragma once
// An undone compaction: a compaction ContextLens saved into a Claude Code session (a compact_boundary
// line whose compactMetadata carries "contextlens", core/io/export.h) that is no longer live because
// later lines continue the chain from before it. Claude Code appends to its session file by path but
// continues from the conversation it holds in memory: a save made while it was in the middle of a
// turn is followed by that turn hanging off the old chain, and the next resume sends everything the
// compaction removed (docs/design/live.md, "Undone compactions").
//
// Only ContextLens's own boundaries count: the agent's own compactions, and a rewind the user asked
// the agent for, are the agent's business (a rewind shows as off-branch messages). Codex and Gemini
// CLI have no equivalent in the file: Codex writes on into the file it holds open (a replaced file
// never sees the rest of the turn), Gemini CLI rewrites its chat file whole from memory (the saved
// compaction is gone, not undone).

#include "core/model/transcript.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace cl {

struct UndoneCompaction {
    std::uint32_t boundaryLine = 0;  // the compact_boundary line ContextLens wrote
    std::uint32_t continuedLine = 0; // the first later line of the live chain that continues from before it
    std::uint32_t fromLine = 0;      // the line before the boundary it continues from (its parent)
    nlohmann::json origin;           // compactMetadata.contextlens: what made the compaction (strategies)
};

// The key of compactMetadata that marks a compaction ContextLens wrote.
inline constexpr const char *kCompactionMarker = "contextlens";

// True when the line is a compact_boundary that ContextLens wrote; *origin gets its marker's value.
bool isContextLensBoundary(std::string_view line, nlohmann::json *origin = nullptr);

// Every ContextLens compaction of a Claude Code session that later lines left behind, in file order.
// Empty for other formats. Reads only the boundary lines' bytes and, when one is off the live chain,
// the uuids of the lines.
std::vector<UndoneCompaction> findUndoneCompactions(const Transcript &t);

// "the agent continued from before your compaction at line N; it is no longer live"
std::string describe(const UndoneCompaction &u);

} // namespace cl
