// SPDX-License-Identifier: MIT
#pragma once

// Short names for what a message holds, shared by the Markdown export and the reports.

#include "core/model/transcript.h"

#include <string>

namespace cl::report {

// What a call is about: its first path, else its shell command, pattern, URL or query ("" when none).
std::string callSubject(const Block &toolUse);
// "Read /src/a.py", "Bash npm test", "WebSearch": the tool and its subject (first line, cut).
std::string callLabel(const Block &toolUse);
// The label of the call a result answers (its pair), else the result's tool name, else "tool".
std::string resultLabel(const Transcript &t, const Block &toolResult);
// "user", "assistant · compact summary", ... as a message heading shows it.
std::string messageRoleAndKind(const Message &m);

} // namespace cl::report
