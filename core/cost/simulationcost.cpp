// SPDX-License-Identifier: MIT
#include "core/cost/simulationcost.h"

#include "core/analysis/analysis.h"
#include "core/tokens/estimator.h"
#include "core/tokens/fixedpart.h"

#include <algorithm>

namespace cl::cost {

namespace {

// One run (with or without the strategy) as the provider's cache sees it.
struct CacheState {
    std::int64_t conversation = 0; // the conversation the next request sends
    std::int64_t cached = -1;      // of which the cache holds (as a prefix); -1: nothing yet, not even the fixed part
    bool invalidated = false;      // a compaction cut the cached prefix since the last request
};

void request(CacheState &run, RunCost &turn, std::int64_t fixed, std::int64_t output, const std::optional<llm::Price> &p)
{
    Tokens t;
    t.cacheRead = run.cached < 0 ? 0 : fixed + std::min(run.cached, run.conversation);
    t.cacheWrite5m = fixed + run.conversation - t.cacheRead;
    t.output = output;
    turn.tokens += t;
    if (p)
        turn.dollars += price(t, *p).total();
    if (run.invalidated)
        ++turn.rewrites;
    run.invalidated = false;
    run.cached = run.conversation;
}

void add(RunCost &sum, const RunCost &turn)
{
    sum.rewrites += turn.rewrites;
    sum.tokens += turn.tokens;
    sum.dollars += turn.dollars;
}

} // namespace

SimulationCost simulationCost(const Transcript &t, const sim::Simulation &s, const std::optional<llm::Price> &price,
                              std::int64_t fixedTokens)
{
    SimulationCost out;
    out.price = price;
    if (price)
        out.model = price->match;
    out.fixedTokens = fixedTokens;
    const analysis::ConversationView view = analysis::conversationView(t);
    CacheState with, without;
    for (std::size_t k = 0; k < s.turns.size(); ++k) {
        const sim::TurnPoint &point = s.turns[k];
        SimulatedTurnCost turn;
        with.conversation = k == 0 ? 0 : s.turns[k - 1].with;
        without.conversation = k == 0 ? 0 : s.turns[k - 1].without;
        const std::int32_t from = point.firstIndex < view.position.size() ? view.position[point.firstIndex] : -1;
        const std::int32_t to = point.lastIndex < view.position.size() ? view.position[point.lastIndex] : -1;
        bool inResponse = false;
        for (std::int32_t p = from; p >= 0 && p <= to; ++p) {
            const Message &m = t.messages[view.index[std::size_t(p)]];
            const bool assistant = m.role == Role::Assistant;
            if (assistant && !inResponse) {
                // A response: its messages are the output of the request that sends what precedes it.
                std::int64_t output = 0;
                for (std::int32_t q = p; q <= to && t.messages[view.index[std::size_t(q)]].role == Role::Assistant; ++q)
                    output += tokens::estimateMessage(t.messages[view.index[std::size_t(q)]]);
                request(with, turn.with, fixedTokens, output, price);
                request(without, turn.without, fixedTokens, output, price);
                ++turn.requests;
            }
            inResponse = assistant;
            const std::int64_t e = tokens::estimateMessage(m);
            with.conversation += e;
            without.conversation += e;
        }
        if (point.changed && with.cached > point.cachePrefix) {
            with.cached = point.cachePrefix;
            with.invalidated = true;
        }
        out.requests += turn.requests;
        add(out.with, turn.with);
        add(out.without, turn.without);
        out.turns.push_back(turn);
    }
    return out;
}

SimulationCost simulationCost(const Transcript &t, const sim::Simulation &s, const llm::PriceTable &prices,
                              const std::string &model)
{
    const std::string name = model.empty() ? sessionModel(t, readUsage(t).responses) : model;
    const std::optional<llm::Price> price = name.empty() ? std::nullopt : prices.find(name);
    SimulationCost out = simulationCost(t, s, price, tokens::fixedPart(t).tokens);
    out.model = name;
    if (!price)
        out.error = name.empty() ? "the transcript names no model" : "no price for model '" + name + "'";
    return out;
}

} // namespace cl::cost
