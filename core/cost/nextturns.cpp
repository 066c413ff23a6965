// SPDX-License-Identifier: MIT
#include "core/cost/nextturns.h"

#include "core/tokens/estimator.h"
#include "core/tokens/fixedpart.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace cl::cost {

namespace {

double dollars(std::int64_t tokens, double perMillion)
{
    return double(tokens) * perMillion / 1e6;
}

// Without usage: the live conversation's estimate spread over its responses.
void estimateGrowth(const Transcript &t, Growth &g)
{
    std::int64_t conversation = 0, output = 0;
    std::size_t responses = 0;
    std::string lastId;
    for (const Message &m : t.messages) {
        if (!m.isConversation() || m.sidechain)
            continue;
        const std::int64_t tokens = tokens::estimateMessage(m);
        conversation += tokens;
        if (m.role != Role::Assistant)
            continue;
        output += tokens;
        // The lines of one response (Claude Code) count once.
        if (m.apiMessageId.empty() || m.apiMessageId != lastId)
            ++responses;
        lastId = m.apiMessageId;
    }
    if (responses == 0)
        responses = 1;
    g.perTurn = std::llround(double(conversation) / double(responses));
    g.outputPerTurn = std::llround(double(output) / double(responses));
    g.how = "estimated: no measured usage; the live conversation (" + std::to_string(conversation) + " tokens) over its "
            + std::to_string(responses) + " responses";
}

} // namespace

Growth measureGrowth(const Transcript &t, const SessionUsage &usage, std::size_t recent)
{
    Growth g;
    g.fixedTokens = tokens::fixedPart(t).tokens;
    // The main conversation's responses, in order (rewound branches and subagents are not what the
    // next request continues).
    std::vector<const Response *> main;
    for (const Response &r : usage.responses)
        if (r.file == 0 && !r.sidechain && r.message >= 0)
            main.push_back(&r);
    std::vector<std::int64_t> growths;
    for (std::size_t i = 1; i < main.size(); ++i) {
        const std::int64_t d = main[i]->tokens.context() - main[i - 1]->tokens.context();
        if (d > 0) // a compaction between them (or a context that did not grow) says nothing about growth
            growths.push_back(d);
    }
    if (growths.empty()) {
        estimateGrowth(t, g);
        return g;
    }
    const std::size_t from = growths.size() > recent ? growths.size() - recent : 0;
    g.samples = growths.size() - from;
    g.perTurn = std::llround(double(std::accumulate(growths.begin() + std::ptrdiff_t(from), growths.end(), std::int64_t(0)))
                             / double(g.samples));
    std::int64_t output = 0;
    for (const Response *r : main)
        output += r->tokens.output;
    g.outputPerTurn = std::llround(double(output) / double(main.size()));
    g.how = "measured: context growth over the last " + std::to_string(g.samples) + " response pairs, output over "
            + std::to_string(main.size()) + " responses";
    return g;
}

Growth measureGrowth(const Transcript &t)
{
    return measureGrowth(t, readUsage(t));
}

double Projection::total() const
{
    double sum = oneOff;
    for (const auto &t : turns)
        sum += t.dollars;
    return sum;
}

Projection project(std::int64_t conversation, std::int64_t keptPrefix, const Growth &g, const llm::Price &p, int turns,
                   double oneOff)
{
    Projection out;
    out.conversation = conversation;
    out.keptPrefix = std::clamp<std::int64_t>(keptPrefix, 0, conversation);
    out.oneOff = oneOff;
    std::int64_t previous = 0;
    for (int k = 1; k <= turns; ++k) {
        TurnCost c;
        c.turn = k;
        if (k == 1) {
            c.context = g.fixedTokens + conversation;
            c.cacheRead = g.fixedTokens + out.keptPrefix;
        } else {
            c.context = previous + g.perTurn;
            c.cacheRead = previous;
        }
        c.cacheWrite = c.context - c.cacheRead;
        c.output = g.outputPerTurn;
        c.dollars = dollars(c.cacheRead, p.cacheRead) + dollars(c.cacheWrite, p.cacheWrite5m) + dollars(c.output, p.output);
        previous = c.context;
        out.turns.push_back(c);
    }
    return out;
}

Projection noCompaction(std::int64_t conversation, const Growth &g, const llm::Price &price, int turns)
{
    return project(conversation, conversation, g, price, turns);
}

std::int32_t breakEvenTurn(const Projection &baseline, const Projection &strategy, const llm::Price &price)
{
    if (strategy.conversation == baseline.conversation && strategy.keptPrefix == baseline.keptPrefix && strategy.oneOff == 0)
        return -1; // nothing changed: nothing to pay back
    // Cumulative difference: the first turn's (rewrite, summaries) minus, at each turn after, the
    // reads of the removed tokens. Every later turn differs by exactly that: both add the same growth.
    const Growth none;
    const double first = project(strategy.conversation, strategy.keptPrefix, none, price, 1, strategy.oneOff).total()
                         - project(baseline.conversation, baseline.keptPrefix, none, price, 1).total();
    if (first <= 0)
        return 1;
    const double perTurn = dollars(baseline.conversation - strategy.conversation, price.cacheRead);
    if (perTurn <= 0)
        return -1;
    const double turns = std::ceil(first / perTurn - 1e-9);
    return turns > 1e9 ? -1 : std::int32_t(1 + turns);
}

NextTurns nextTurns(const Growth &g, const strategy::Result &r, const llm::Price &price, int turns)
{
    NextTurns out;
    out.model = price.match;
    out.price = price;
    out.turns = turns;
    out.growth = g;
    const strategy::Stats &s = r.stats;
    out.baseline = noCompaction(s.tokensBefore, g, price, turns);
    double oneOff = 0;
    if (r.extra.is_object())
        if (const auto it = r.extra.find("modelCost"); it != r.extra.end() && it->is_number())
            oneOff = it->get<double>();
    out.strategy = project(s.tokensAfter, s.cachePrefixTokens, g, price, turns, oneOff);
    out.breakEven = breakEvenTurn(out.baseline, out.strategy, price);
    return out;
}

NextTurns nextTurns(const strategy::Input &in, const strategy::Result &r, const llm::PriceTable &prices,
                    const std::string &model, int turns)
{
    const SessionUsage usage = readUsage(in.transcript);
    const Growth g = measureGrowth(in.transcript, usage);
    const std::string name = model.empty() ? sessionModel(in.transcript, usage.responses) : model;
    const std::optional<llm::Price> price = name.empty() ? std::nullopt : prices.find(name);
    if (!price) {
        NextTurns out;
        out.model = name;
        out.turns = turns;
        out.growth = g;
        out.error = name.empty() ? "the transcript names no model (give one)" : "no price for model '" + name + "'";
        return out;
    }
    NextTurns out = nextTurns(g, r, *price, turns);
    out.model = name;
    return out;
}

CompareNextTurns compareNextTurns(const strategy::Input &in, const std::vector<strategy::CompareRow> &rows,
                                  const llm::PriceTable &prices, const std::string &model, int turns)
{
    CompareNextTurns out;
    out.turns = turns;
    const SessionUsage usage = readUsage(in.transcript);
    out.growth = measureGrowth(in.transcript, usage);
    out.model = model.empty() ? sessionModel(in.transcript, usage.responses) : model;
    out.price = out.model.empty() ? std::nullopt : prices.find(out.model);
    out.rows.assign(rows.size(), {});
    if (!out.price)
        return out;
    std::int64_t conversation = in.totalTokens();
    for (const auto &row : rows)
        if (row.error.empty()) {
            conversation = row.result.stats.tokensBefore;
            break;
        }
    out.baseline = noCompaction(conversation, out.growth, *out.price, turns);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].error.empty())
            out.rows[i] = nextTurns(out.growth, rows[i].result, *out.price, turns);
        else
            out.rows[i].error = rows[i].error;
        out.rows[i].model = out.model;
    }
    return out;
}

} // namespace cl::cost
