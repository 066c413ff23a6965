// SPDX-License-Identifier: MIT
#pragma once

// Seed 003 §11 as a tool: replay a transcript step by step under a strategy and report the context
// size per step with and without it, and the step where it would not fit the window without it.
//
// A step ("turn" in the names below) is one request to the model by default (Step::Request): it
// ends at each assistant response, the lines of one response together, so an agent's session of
// one user request and 150 tool rounds is 150 steps, as the agent sent them. Step::Turn replays user
// turns instead (seed 003): a turn starts at each user request (a user message without tool
// results; compact summaries and meta lines are not requests). Messages before the first request
// (the system prompt) belong to step 1. Replay: after each step the managed context (the previous
// step's result plus the new step's messages) is handed to the strategy through run() (any registered strategy, with its
// params; validation and metrics off), and its result carries over to the next turn, the way an
// agent that manages its context after every turn would. "Without" is the plain running total.
// Cost: one strategy run per turn over the managed context, so O(turns x managed size). Long
// sessions take SimulationOptions::stride (the strategy runs every stride-th turn, as an agent that
// manages its context less often) and report progress / can be cancelled between turns. Measured
// (debug build, progressive): 2,123 turns of an 84 MB generated Claude Code session take 23 s every
// turn, 3 s with suggestedStride() (stride 11, ~193 runs).

#include "core/analysis/analysis.h"
#include "core/strategy/strategy.h"
#include "core/model/transcript.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace cl::sim {

// Sizes: `without`, `beforeStrategy` and `with` are the conversation's seed 001 estimate, the unit
// strategies work in; liveWithout / liveWith are the live context the agent would send, fixed part
// included, in its count (tokens/contextfigure.h: measured where the file measured it), the figures
// compared with the window.
struct TurnPoint {
    std::size_t turn = 0;            // 1-based
    std::size_t firstIndex = 0;      // transcript index of the turn's first message
    std::size_t lastIndex = 0;       // and of its last one
    std::size_t messages = 0;        // conversation messages in the turn
    std::int64_t without = 0;        // context after this turn without any strategy
    std::int64_t beforeStrategy = 0; // managed context + this turn, before the strategy ran
    std::int64_t with = 0;           // after the strategy
    std::int64_t liveWithout = 0;    // the live context at this step without the strategy
    std::int64_t liveBefore = 0;     // beforeStrategy, live
    std::int64_t liveWith = 0;       // and with it: the same fixed part, the conversation scaled alike
    std::size_t managedMessages = 0; // messages in the managed context after the strategy
    bool changed = false;            // the strategy changed something at this turn
    // When it did: the leading tokens of the managed context it left byte-identical
    // (strategy::Stats::cachePrefixTokens), what a prompt cache still holds after it.
    std::int64_t cachePrefix = 0;
    std::string note; // the strategy's note at this turn
};

enum class Step : std::uint8_t {
    Request, // each response of the model: the requests the agent sent
    Turn     // each user turn (seed 003)
};
std::string_view stepName(Step s); // "request", "turn"

struct Simulation {
    std::string strategy;
    Step step = Step::Request;
    std::int64_t window = 0;
    std::vector<TurnPoint> turns;
    std::int32_t exceedsWithout = -1; // first step (1-based) whose live context is over the window without the strategy
    std::int32_t exceedsWith = -1;    // first step still over the window after the strategy ran
    std::size_t compactions = 0;      // turns where the strategy changed something
    std::string error;                // unknown strategy, bad params
    std::size_t totalTurns = 0;       // turns in the transcript (turns.size() is less with maxTurns or a cancel)
    std::size_t stride = 1;           // the stride used (see SimulationOptions)
    bool cancelled = false;           // progress returned false: turns holds the turns done so far
    // The managed context after the last simulated turn: per message, its transcript index (-1:
    // inserted by the strategy, e.g. a summary).
    std::vector<std::int64_t> kept;
};

struct SimulationOptions {
    analysis::AnalysisOptions analysis; // contextWindow (0: by model, else 200000) and the rest
    Step step = Step::Request;
    std::size_t maxTurns = 0; // 0: all
    // The strategy runs at every stride-th turn and at the last simulated one; in between the turns
    // only accumulate (changed false, with == beforeStrategy). 0 and 1: every turn.
    std::size_t stride = 1;
    // The user's guards, as in a preview: messages of the transcript at these indices (pinned) and
    // the calls and results of these tools are never removed or edited by any run of the strategy.
    std::vector<std::size_t> pinned;
    std::vector<std::string> exemptTools;
    // Called after each turn (done of total); returning false cancels (Simulation::cancelled). Runs
    // on the simulating thread.
    std::function<bool(std::size_t done, std::size_t total)> progress;
};

// Steps of `t` as simulate() splits them, without running anything (the GUI sizes its progress bar
// and picks a stride from it).
std::size_t countTurns(const Transcript &t, Step step = Step::Request);
// A stride that keeps the strategy runs of a simulation of `turns` turns near `budget` (1 when
// turns <= budget): ceil(turns / budget).
std::size_t suggestedStride(std::size_t turns, std::size_t budget = 200);

Simulation simulate(const Transcript &t, const strategy::Strategy &s, const nlohmann::json &params = nlohmann::json::object(),
                    const SimulationOptions &options = {});

} // namespace cl::sim
