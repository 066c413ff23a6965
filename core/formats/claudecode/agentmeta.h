// SPDX-License-Identifier: MIT
#pragma once

// What Claude Code 2.1.x writes beside each agent's conversation (agent-<id>.jsonl) in
// agent-<id>.meta.json: the call that started the agent (written when it starts, so a running agent
// names it too), the agent that started it when that was another subagent, its type, what its
// call asked for, and for an agent of the session's team its name and whether it runs in the
// background.

#include <string>

namespace cl::formats::claudecode {

struct AgentMeta {
    std::string toolUseId;     // the Task / Agent call that started it
    std::string parentAgentId; // the subagent that made that call; "" when the session did
    std::string agentType;     // "general-purpose", "Explore" ...
    std::string description;   // the call's description
    std::string name;          // the name other agents address it by (SendMessage's "to"); "" when unnamed
    bool background = false;   // started to run in the background (its call returned at once)
};

// The meta file beside `agentFile`; every field empty when it is missing or unreadable.
AgentMeta readAgentMeta(const std::string &agentFile);

} // namespace cl::formats::claudecode
