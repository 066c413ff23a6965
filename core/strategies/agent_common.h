// SPDX-License-Identifier: MIT
#pragma once

// Small helpers shared by the peer policies (not part of the engine contract).

#include "core/strategy/editor.h"
#include "core/strategy/summary/summary.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cl::strategy::agents {

// "41 %" (rounded to an integer percent).
std::string percent(double ratio);
// The standard "force" parameter every triggered peer has.
ParamSpec forceParam();
// Formats that reject two turns of the same role in a row and want a user turn first.
bool alternatingFormat(Format f);
// Same block with another text; its estimate.
std::int64_t blockTokensWithText(const Block &b, std::string_view text);
// User request as analysis::isUserRequest sees it (role user, no tool result).
bool isRequest(const Message &m);
// Holds a tool result (Role::Tool, or a user message with tool_result blocks).
bool isObservation(const Message &m);
// The summary of the turns at the first `count` of `positions` (editor positions) in `style` (the
// configured summarizer, else the rule-based one); `seedTokens` gets their seed estimate.
Summary summarizeTurns(const Input &in, Editor &e, const std::vector<std::size_t> &positions, std::size_t count,
                       const char *style, std::int64_t &seedTokens);
// The model's short acknowledgement after a state snapshot (Gemini CLI, Qwen Code).
inline constexpr std::string_view kSnapshotAck = "Got it. Thanks for the additional context!";
// The conversation with a result of `unchanged` + note (e.g. below trigger).
Result unchangedResult(const Input &in, std::string note, std::vector<std::string> log = {});
// Tool blocks of kept messages whose partner is not kept. `kept` is by conversation position.
std::size_t countOrphans(const Editor &e, const std::vector<char> &kept);
// Drops kept messages whose tool partner is not kept and keeps the partners of protected messages,
// to a fixed point.
void closeKeptPairs(const Editor &e, std::vector<char> &kept);
// The same over the Editor's removals (removes lone partners, restores partners of protected
// messages), so that Editor::finish() finds every pair closed. Returns the number of changes.
std::size_t closeRemovals(Editor &e);

} // namespace cl::strategy::agents
