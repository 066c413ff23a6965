// SPDX-License-Identifier: MIT
#pragma once

// The agent's own compaction as it went over the wire: the request in a recording that asked the
// model to summarise the conversation, the history it sent with it, and the summary that came back.
// Recognised by what each agent marks it with (docs/design/agents.md, "Compaction on the wire"):
// - Claude Code (Anthropic Messages): the last user message asks for the answer in a <summary>
//   block; the answer's <summary> is what the session's compact summary holds.
// - Codex (OpenAI Responses): the request's turn metadata header says request_kind "compaction"
//   (with its trigger), or the request goes to …/responses/compact.
// - Gemini CLI (Gemini): the system instruction asks for a <state_snapshot>; a second call with the
//   same instruction checks the first snapshot and answers the final one (pass 2).
// - Qwen Code (OpenAI Chat Completions): the system message or the last user message asks for a
//   <state_snapshot> (a complete snapshot block, a summary resumed from, does not count).
// A session's compaction is the call whose summary its summary text holds (holdsSummary).

#include "core/formats/recording/recording.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cl::recording {

struct CompactionCall {
    std::size_t request = 0;      // Exchange::number
    std::string agent;            // "Claude Code", "Codex", "Gemini CLI", "Qwen Code"
    std::string trigger;          // "auto" / "manual" where the request says so, else ""
    std::string sessionId;        // the agent's session the request names (sessionIdOf), else ""
    std::string time;             // the request's time, as recorded
    std::string instruction;      // the instruction the agent sent last (its summarising prompt)
    std::size_t messagesSent = 0; // items of the request's message array, the instruction's included
    std::string sentText;         // every text of the request's messages joined: facts are looked for in it
    std::optional<Usage> usage;   // what the provider measured (context = the whole request)
    std::string answer;           // the answer's text as it came back ("" when none could be read)
    std::string summary;          // what the agent keeps: inside <summary> / <state_snapshot>, else the answer
    int pass = 1;                 // 2: Gemini CLI's check of the snapshot of the call before
    std::string error;            // why the answer could not be read, else ""
};

// The agent session a request belongs to, where the agent names it: Claude Code's
// x-claude-code-session-id header, the session_id of Codex's turn metadata header. "" otherwise.
std::string sessionIdOf(const Exchange &e);

// Every compaction call of a recording, in request order.
std::vector<CompactionCall> findCompactionCalls(const Recording &r);

// Whether a session's summary text holds the call's summary (whitespace runs compared as one space;
// an empty summary never matches).
bool holdsSummary(std::string_view sessionSummary, const CompactionCall &call);

} // namespace cl::recording
