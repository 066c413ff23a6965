// SPDX-License-Identifier: MIT
#pragma once

// The subagents of a Claude Code session (Transcript::subagents, loaded from its subagents/ folder)
// beside the Task / Agent calls that started them: the call a subagent answers (named in its
// header by the loader, from the call's result line or the agent's meta file), its size and its
// duration. A subagent can start agents of its own: their call is in its conversation, and the runs
// form a tree under the session.

#include "core/model/transcript.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cl::analysis {

struct SubagentRun {
    std::size_t subagent = 0; // index in Transcript::subagents
    std::string agentId;
    std::string description; // the call's description (else its prompt's first line, else the meta file's)
    std::string agentType;   // "general-purpose", "Explore" ... as the agent recorded it; "" when unknown
    // The run whose conversation holds the call that started this one; -1: the session (or unknown).
    std::int32_t parentRun = -1;
    // The call: message and block in the session's messages (parentRun -1) or in run parentRun's
    // subagent conversation; -1 when it is not found (its result line gone, an older layout).
    std::int32_t message = -1, block = -1;
    // The session's call this run descends from: its own when the session started it, else its
    // ancestor's; -1 when the chain does not reach the session.
    std::int32_t sessionMessage = -1, sessionBlock = -1;
    int depth = 1;                    // 1: started by the session, 2: by a subagent of the session ...
    std::size_t messages = 0;         // its conversation messages
    std::int64_t tokens = 0;          // estimated, its conversation
    std::int64_t durationMs = -1;     // as the agent recorded it, else its first to last timestamp; -1: unknown
    std::int64_t recordedTokens = -1; // totalTokens the agent recorded for the run
    std::int64_t toolUses = -1;       // totalToolUseCount the agent recorded
    // An agent of the session's team: the name the others address it by ("" when unnamed), and
    // whether it ran in the background (its call returned at once; it reports when it stops).
    std::string name;
    bool background = false;
    // Session messages about it, ascending: the calls that sent it a message (SendMessage to its
    // name or id) and the notifications that it stopped (<task-notification> with its id).
    std::vector<std::int32_t> messagesTo, notifications;
};

// One per subagent, in Transcript::subagents order (so a run's index is its subagent's index).
std::vector<SubagentRun> subagentRuns(const Transcript &t);

} // namespace cl::analysis
