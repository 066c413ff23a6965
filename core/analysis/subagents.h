// SPDX-License-Identifier: MIT
#pragma once

// The subagents of a Claude Code session (Transcript::subagents, loaded from its subagents/ folder)
// beside the Task / Agent calls that started them: the call a subagent answers (named in its
// header by the loader, from the call's result line), its size and its duration.

#include "core/model/transcript.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cl::analysis {

struct SubagentRun {
    std::size_t subagent = 0; // index in Transcript::subagents
    std::string agentId;
    std::string description; // the call's description (else its prompt's first line), "" when not found
    // The call in the session: -1 when it is not there (its result line gone, an older layout).
    std::int32_t message = -1, block = -1;
    std::size_t messages = 0;         // its conversation messages
    std::int64_t tokens = 0;          // estimated, its conversation
    std::int64_t durationMs = -1;     // as the agent recorded it, else its first to last timestamp; -1: unknown
    std::int64_t recordedTokens = -1; // totalTokens the agent recorded for the run
    std::int64_t toolUses = -1;       // totalToolUseCount the agent recorded
};

// One per subagent, in Transcript::subagents order.
std::vector<SubagentRun> subagentRuns(const Transcript &t);

} // namespace cl::analysis
