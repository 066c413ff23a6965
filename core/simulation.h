// SPDX-License-Identifier: MIT
#pragma once

// Seed 003 §11 as a tool: replay a transcript turn by turn under a strategy and report the context
// size per turn with and without it, and the turn where it would not fit the window without it.
//
// A turn starts at each user request (a user message without tool results; compact summaries and
// meta lines are not requests); messages before the first request (the system prompt) belong to
// turn 1. Replay: after each turn the managed context (the previous turn's result plus the new
// turn's messages) is handed to the strategy through run() (any registered strategy, with its
// params; validation and metrics off), and its result carries over to the next turn, the way an
// agent that manages its context after every turn would. "Without" is the plain running total.
// Cost: one strategy run per turn over the managed context, so O(turns x managed size).

#include "core/analysis.h"
#include "core/strategy.h"
#include "core/transcript.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace cl::sim {

struct TurnPoint {
    std::size_t turn = 0;              // 1-based
    std::size_t firstIndex = 0;        // transcript index of the turn's first message
    std::size_t lastIndex = 0;         // and of its last one
    std::size_t messages = 0;          // conversation messages in the turn
    std::int64_t without = 0;          // context after this turn without any strategy
    std::int64_t beforeStrategy = 0;   // managed context + this turn, before the strategy ran
    std::int64_t with = 0;             // after the strategy
    std::size_t managedMessages = 0;   // messages in the managed context after the strategy
    bool changed = false;              // the strategy changed something at this turn
    std::string note;                  // the strategy's note at this turn
};

struct Simulation {
    std::string strategy;
    std::int64_t window = 0;
    std::vector<TurnPoint> turns;
    std::int32_t exceedsWithout = -1;  // first turn (1-based) whose context is over the window without the strategy
    std::int32_t exceedsWith = -1;     // first turn still over the window after the strategy ran
    std::size_t compactions = 0;       // turns where the strategy changed something
    std::string error;                 // unknown strategy, bad params
};

struct SimulationOptions {
    analysis::AnalysisOptions analysis; // contextWindow (0: by model, else 200000) and the rest
    std::size_t maxTurns = 0;           // 0: all
};

Simulation simulate(const Transcript &t, const strategy::Strategy &s, const nlohmann::json &params = nlohmann::json::object(),
                    const SimulationOptions &options = {});

} // namespace cl::sim
