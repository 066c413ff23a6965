// SPDX-License-Identifier: MIT
#pragma once

// What the turns of a simulation (core/strategy/simulation.h) cost with the prompt cache, with the
// strategy and without it, by the rules of the next-turns projection (core/cost/nextturns.h).
//
// Requests: each response of the model in the replayed turns is one request (a run of consecutive
// assistant messages: the lines of one response, its text and tool calls). It sends the fixed part
// (tokens::fixedPart) and the conversation before the response: the managed context at the start of
// the turn (the previous turn's result; for "without", the plain running total) plus the turn's
// messages before it. The provider's cache holds what the previous request sent: that prefix is read
// from the cache (cache-read price), the rest written to it (5-minute write price); the response's
// own messages are its output (output price). The first request of the session finds the cache
// empty. A compaction (a turn where the strategy changed the context) invalidates the cache beyond
// the prefix the strategy left byte-identical (TurnPoint::cachePrefix): the next request writes the
// rest of the compacted context again. Without the strategy nothing is ever rewritten.
//
// Units: the simulation's own estimates (seed 001), so the figures compare the two runs; they are
// not the session's measured cost (contextlens-cli cost).

#include "core/cost/sessioncost.h"
#include "core/llm/pricing.h"
#include "core/strategy/simulation.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cl::cost {

struct RunCost {
    std::size_t rewrites = 0; // requests that wrote again what a compaction invalidated
    Tokens tokens;            // cacheRead, cacheWrite5m, output
    double dollars = 0;       // 0 when there is no price
};

struct SimulatedTurnCost {
    std::size_t requests = 0;
    RunCost with, without;
};

struct SimulationCost {
    std::string model;               // the model priced ("" none)
    std::optional<llm::Price> price; // none: dollars are 0 and error says why
    std::string error;
    std::int64_t fixedTokens = 0;         // sent with every request
    std::size_t requests = 0;             // over the simulated turns
    std::vector<SimulatedTurnCost> turns; // parallel to Simulation::turns
    RunCost with, without;                // their sums
    double saving() const { return without.dollars - with.dollars; }
};

// With `price`, the dollars; without one, the tokens alone.
SimulationCost simulationCost(const Transcript &t, const sim::Simulation &s, const std::optional<llm::Price> &price,
                              std::int64_t fixedTokens);
// Priced as `model` ("" = the session's, sessionModel) from `prices`; fixed part tokens::fixedPart(t).
SimulationCost simulationCost(const Transcript &t, const sim::Simulation &s, const llm::PriceTable &prices,
                              const std::string &model = {});

} // namespace cl::cost
