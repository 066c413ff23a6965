// SPDX-License-Identifier: MIT
#pragma once

// A recording beside the session file its agent wrote meanwhile: where that file is (the session id
// the agent sends with each request, recording::sessionIdOf), and, request by request, the message
// of the session that is the request's answer, as the agent wrote it down.

#include "core/formats/recording/recording.h"
#include "core/io/recordedrequest.h"

#include <string>

namespace cl {

// The session file an agent keeps under `home` for `sessionId`: Claude Code
// HOME/.claude/projects/*/ID.jsonl, Codex HOME/.codex/sessions/YYYY/MM/DD/rollout-*-ID.jsonl.
// "" when there is none (Gemini CLI sends no session id: name its file instead).
std::string findAgentSession(const std::string &sessionId, const std::string &home);

// The first session id the requests of `summary` name, "" when none does.
std::string sessionIdOf(const RecordingSummary &summary);

// Sets RequestSummary::sessionMessage of each request of `summary` (in the order of rec's exchanges)
// whose answer the session holds: the assistant message with the answer's API message id, else
// with one of its tool call ids (Gemini CLI's "TOOL__ID" too), else with its text (each text matched once, in order). Returns how
// many requests were linked.
std::size_t linkToSession(RecordingSummary &summary, const recording::Recording &rec, const Transcript &session);

} // namespace cl
