// SPDX-License-Identifier: MIT
#pragma once

// Helpers shared by the seed strategies: exchanges (the units the removal strategies drop whole),
// the seed 000 efficiency score and the removal engine behind middle / oldest / hybrid / auto-select.
//
// Exchange: the conversation from one safe cut (isSafeCut: a user request no tool pair spans) up
// to the next one. The system prompt and anything before the first safe cut form the head, which
// removal never touches. Removing exchanges whole keeps every tool pair and every request/answer
// together, so the result is valid in every format without the Editor's safety net.

#include "core/strategy/editor.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cl::strategy::exchanges {

struct Exchanges {
    std::size_t head = 0;             // positions [0, head): never removed
    std::vector<std::size_t> starts;  // exchange k = positions [starts[k], end(k))
    std::vector<std::int64_t> tokens; // per exchange
    std::size_t n = 0;                // conversation positions
    std::size_t end(std::size_t k) const { return k + 1 < starts.size() ? starts[k + 1] : n; }
    std::size_t size() const { return starts.size(); }
};
Exchanges exchanges(const Editor &e);

// Tool rounds inside the exchanges (what an agentic session is made of: one request, then the
// agent's calls and their results): round k = positions [starts[k], ends[k]), an assistant message
// that follows a tool result with no tool pair spanning the cut, up to the next such message. Only
// rounds followed by another round are listed: removing one leaves a tool result followed by an
// assistant message, valid in every format, and the round holding an exchange's answer (or the
// running last round) stays. Positions already removed are skipped.
struct Rounds {
    std::vector<std::size_t> starts, ends;
    std::vector<std::int64_t> tokens;
    std::size_t size() const { return starts.size(); }
};
Rounds rounds(const Editor &e);
std::int64_t conversationTokens(const Editor &e);

// Seed 000 §4.4: 0.6 x (1 - tokensAfter / tokensBefore) + 0.4 x (messagesKept / messagesBefore).
double efficiency(std::int64_t tokensBefore, std::int64_t tokensAfter, std::size_t messagesKept,
                  std::size_t messagesBefore);

enum class Removal : std::uint8_t {
    Middle,
    Oldest,
    Hybrid
};
std::string_view removalName(Removal r);

struct RemovalOutcome {
    std::int64_t tokensBefore = 0, tokensAfter = 0, target = 0;
    std::size_t messagesBefore = 0, messagesKept = 0;
    std::size_t exchangesRemoved = 0, exchanges = 0;
    std::size_t roundsRemoved = 0, rounds = 0; // with `rounds`: tool rounds removed, removable
    bool reached = false;
    double efficiency = 0;
};
// Removes exchanges in the mode's order until the conversation is at most `target` tokens.
// middle: the exchanges between the first keepFirst and the last keepLast, from the centre of that
// region outward (nearer the centre first, the older one on ties). oldest: every exchange but the
// last keepLast, oldest first. hybrid: the middle region oldest first, then the first keepFirst
// exchanges (oldest first) when the target is still not met. An exchange holding a protected
// (pinned / exempt-tool) message is skipped whole. withRounds: when whole exchanges are not enough,
// the tool rounds left (rounds()) are removed in the same order, keepFirst / keepLast counted in
// rounds, so that a session of one request and many tool calls can still shrink.
RemovalOutcome removeExchanges(Editor &e, Removal mode, std::int64_t target, std::size_t keepFirst, std::size_t keepLast,
                               bool withRounds = false);

// Target of the removal strategies: the parameter, else the analysis' (targetTokens option or
// context window x targetWindowShare), in the unit of `total` (the strategies pass the live context).
// With force and a total already within it, half the total, so that a preview still shows what the
// strategy would remove.
std::int64_t removalTarget(const Editor &e, std::int64_t param, bool force, std::int64_t total, std::string &why);

std::string percent(double share); // "41 %"
std::string fixed(double v, int decimals);

} // namespace cl::strategy::exchanges
