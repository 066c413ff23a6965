// SPDX-License-Identifier: MIT
#pragma once
// When will the agent compact? From a session's recent growth per user turn and the agent's own
// trigger (Claude Code: the window less its free buffer; Codex CLI: a share of the window; Gemini CLI:
// half of the model's limit; the numbers are the defaults of the matching strategies), how many turns
// remain before the agent's auto-compaction fires.

#include "core/model/transcript.h"

#include <cstdint>
#include <optional>
#include <string>

namespace cl::forecast {

struct Compaction {
    std::string agent;            // "Claude Code", "Codex CLI", "Gemini CLI"; empty: no agent compacts this file
    std::string rule;             // how the trigger is set, for people: "window − 13,000 tokens"
    std::int64_t window = 0;      // the context window
    std::int64_t trigger = 0;     // context size at which the agent compacts (the window when no agent)
    std::int64_t current = 0;     // the context of the next request
    bool measured = false;        // current from the last response's recorded usage (else the estimate)
    double growthPerTurn = 0;     // mean growth per user turn, over the last turns since the last compaction
    int turnsSampled = 0;         // turns that mean is over
    std::optional<int> turnsLeft; // turns before the trigger; empty: not growing, or fewer than two turns
    bool due() const { return window > 0 && current >= trigger; }
    bool near(int turns = 3) const { return due() || (turnsLeft && *turnsLeft <= turns); }
};

inline constexpr int kGrowthTurns = 5; // the last turns the growth is averaged over

// window: the context window (analysis::contextWindowOf); estimated: the live context as estimated
// (conversation + fixed part), used where no usage is recorded.
Compaction compaction(const Transcript &t, std::int64_t window, std::int64_t estimated);

// "12 turns to Claude Code's auto-compact (at 187,000 of 200,000 tokens)"
std::string describe(const Compaction &c);

} // namespace cl::forecast
