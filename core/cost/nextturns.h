// SPDX-License-Identifier: MIT
#pragma once

// What the next turns cost with and without a strategy, prompt cache included.
//
// A turn is one request to the model. The first sends the fixed part + the live conversation (after
// the strategy). The provider's prompt cache keeps the longest unchanged prefix: the fixed part and
// the leading conversation tokens the strategy left byte-identical (strategy::Stats::cachePrefixTokens)
// are read from the cache; the rest is written to it (the 5-minute write price) and read from it at
// later turns. Each later turn adds the session's growth per turn (measured over its recent
// responses), written once and then read, so turn k reads everything turn k-1 sent. Every turn
// produces the session's average output per response. "No compaction" is the live conversation as
// it is, its prefix all cached. A strategy pays at its first turn for the cache rewrite (and for its
// own model summaries, Result::extra.modelCost) and saves, at every turn after, the cache reads of
// the tokens it removed: the break-even turn is the first at which its cumulative cost is no more
// than the baseline's.
//
// Units: the conversation and the cache prefix are the strategies' own estimates (seed 001); the
// fixed part is tokens::fixedPart; growth and output come from the measured usage when the
// transcript has it, else from the same estimates.

#include "core/cost/sessioncost.h"
#include "core/llm/pricing.h"
#include "core/strategy/strategy.h"
#include "core/workflow/compare.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cl::cost {

constexpr std::size_t kRecentResponses = 20; // responses the growth per turn is measured over

struct Growth {
    std::int64_t fixedTokens = 0;   // sent with every request
    std::int64_t perTurn = 0;       // tokens a request adds to the context
    std::int64_t outputPerTurn = 0; // output tokens of a response
    std::size_t samples = 0;        // consecutive response pairs measured (0: estimated)
    std::string how;                // one line: where the figures come from
};
Growth measureGrowth(const Transcript &t, const SessionUsage &usage, std::size_t recent = kRecentResponses);
Growth measureGrowth(const Transcript &t);

struct TurnCost {
    int turn = 0;                // 1-based
    std::int64_t context = 0;    // tokens sent
    std::int64_t cacheRead = 0;  // of which read from the cache
    std::int64_t cacheWrite = 0; // and written to it
    std::int64_t output = 0;
    double dollars = 0;
};

struct Projection {
    std::int64_t conversation = 0; // live conversation at the first turn
    std::int64_t keptPrefix = 0;   // of which still cached
    double oneOff = 0;             // model calls the strategy made (its summaries), paid once
    std::vector<TurnCost> turns;
    double firstTurn() const { return turns.empty() ? oneOff : turns.front().dollars + oneOff; }
    double total() const;
};
Projection project(std::int64_t conversation, std::int64_t keptPrefix, const Growth &g, const llm::Price &p, int turns,
                   double oneOff = 0);

struct NextTurns {
    std::string model;
    std::optional<llm::Price> price;
    std::string error; // why there are no dollars (no model named, no price for it); "" when there are
    int turns = 0;
    Growth growth;
    Projection baseline; // no compaction
    Projection strategy;
    // First turn (1-based, possibly beyond `turns`) at which the strategy's cumulative cost is at most
    // the baseline's; -1 when it never is (the context did not shrink, or the rewrite never pays back).
    std::int32_t breakEven = -1;
    double saving() const { return baseline.total() - strategy.total(); } // over `turns`
};

// `model` "" = the session's (sessionModel). The growth is measured from in.transcript.
NextTurns nextTurns(const strategy::Input &in, const strategy::Result &r, const llm::PriceTable &prices,
                    const std::string &model, int turns);
// The same with the growth and the price known (compare: once for every row).
NextTurns nextTurns(const Growth &g, const strategy::Result &r, const llm::Price &price, int turns);
// The baseline alone: `conversation` tokens, all cached.
Projection noCompaction(std::int64_t conversation, const Growth &g, const llm::Price &price, int turns);

std::int32_t breakEvenTurn(const Projection &baseline, const Projection &strategy, const llm::Price &price);

// The next turns of every row of a compare run and of no compaction, with one growth measurement and
// one price for all of them (contextlens-cli compare --cost-turns, the GUI's Compare tab).
struct CompareNextTurns {
    std::string model;               // the model priced: the one asked for, else the session's ("" none)
    std::optional<llm::Price> price; // none: no model named, or no price for it (rows and baseline empty)
    int turns = 0;
    Growth growth;
    // No compaction: the conversation the rows started from (the first row without an error; the
    // input's total when every row has one), all of it cached.
    Projection baseline;
    // Parallel to the rows, each model set to `model`: a row with an error has it (and no projection),
    // the others nextTurns(growth, row.result, price, turns). Default ones when there is no price.
    std::vector<NextTurns> rows;
};
// `model` "" = the session's (sessionModel).
CompareNextTurns compareNextTurns(const strategy::Input &in, const std::vector<strategy::CompareRow> &rows,
                                  const llm::PriceTable &prices, const std::string &model, int turns);

} // namespace cl::cost
