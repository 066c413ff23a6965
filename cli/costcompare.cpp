// SPDX-License-Identifier: MIT
// The cost columns of `compare --cost-turns N` (cli/cost.h): the next turn and the next N turns per
// strategy, against a "no compaction" row, with the prompt cache a compaction rewrites.
#include "cli/cost.h"

#include <cmath>
#include <cstdio>

namespace cl::cli {

namespace {

double round6(double v) { return std::round(v * 1e6) / 1e6; }

std::string money(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f", v);
    return buf;
}

// "-" when the strategy left the context as it was (nothing to pay back), "never", or the turn.
std::string breakEvenText(const cost::NextTurns &n)
{
    const cost::Projection &s = n.strategy, &b = n.baseline;
    if (s.conversation == b.conversation && s.keptPrefix == b.keptPrefix && s.oneOff == 0)
        return "-";
    return n.breakEven < 0 ? std::string("never") : std::to_string(n.breakEven);
}

ojson projectionJson(const cost::Projection &p)
{
    ojson turns = ojson::array();
    for (const auto &t : p.turns)
        turns.push_back(ojson{{"turn", t.turn}, {"context", t.context}, {"cacheRead", t.cacheRead}, {"cacheWrite", t.cacheWrite}, {"output", t.output}, {"dollars", round6(t.dollars)}});
    // clang-format off
    return ojson{{"conversation", p.conversation}, {"keptPrefix", p.keptPrefix}, {"oneOff", round6(p.oneOff)},
        {"nextTurn", round6(p.firstTurn())}, {"nextTurns", round6(p.total())}, {"turns", turns}};
    // clang-format on
}

} // namespace

const std::vector<OptionSpec> &compareCostOptions()
{
    static const std::vector<OptionSpec> v{{"--cost-turns", "", true}, {"--cost-model", "", true}};
    return v;
}

bool readCompareCost(Args &a, CompareCost &c, std::string &error)
{
    const auto turns = a.value("--cost-turns");
    if (!turns) {
        if (a.value("--cost-model")) {
            error = "--cost-model needs --cost-turns N";
            return false;
        }
        return true;
    }
    if (turns->empty() || turns->size() > 6 || turns->find_first_not_of("0123456789") != std::string::npos
        || std::stoi(*turns) < 1 || std::stoi(*turns) > 100000) {
        error = "--cost-turns: a number of turns from 1 to 100000, not '" + *turns + "'";
        return false;
    }
    c.turns = std::stoi(*turns);
    c.pricesFile = a.value("--prices").value_or("");
    c.model = a.value("--cost-model").value_or("");
    const std::string summarizer = a.value("--summarizer").value_or("rules");
    if (summarizer == "rules") {
        // No model writes summaries: --model and --prices are the cost's.
        if (c.model.empty())
            c.model = a.value("--model").value_or("");
        a.values.erase("--model");
        a.values.erase("--prices");
    }
    std::string why;
    if (!llm::PriceTable::load(c.prices, c.pricesFile, &why)) {
        error = "prices: " + why;
        return false;
    }
    return true;
}

void computeCompareCost(const strategy::Input &in, const std::vector<strategy::CompareRow> &rows, CompareCost &c)
{
    if (!c.enabled())
        return;
    cost::CompareNextTurns n = cost::compareNextTurns(in, rows, c.prices, c.model, c.turns);
    c.growth = std::move(n.growth);
    c.modelName = std::move(n.model);
    c.baseline = std::move(n.baseline);
    c.rows = std::move(n.rows);
    if (!n.price)
        c.error = c.modelName.empty() ? "the transcript names no model (give --model M)"
                                      : "no price for model '" + c.modelName + "' (give --prices FILE or --model M)";
}

std::string compareCostHeader(const CompareCost &c)
{
    if (!c.enabled())
        return {};
    char buf[96];
    const std::string many = "next " + std::to_string(c.turns) + " turns $";
    std::snprintf(buf, sizeof buf, " %12s %16s %7s", "next turn $", many.c_str(), "b/even");
    return buf;
}

std::string compareCostCells(const CompareCost &c, std::size_t row)
{
    if (!c.enabled())
        return {};
    char buf[96];
    if (!c.error.empty() || row >= c.rows.size() || !c.rows[row].error.empty() || c.rows[row].strategy.turns.empty())
        std::snprintf(buf, sizeof buf, " %12s %16s %7s", "unknown", "unknown", "-");
    else
        std::snprintf(buf, sizeof buf, " %12s %16s %7s", money(c.rows[row].strategy.firstTurn()).c_str(),
                      money(c.rows[row].strategy.total()).c_str(), breakEvenText(c.rows[row]).c_str());
    return buf;
}

std::string compareBaselineLine(const CompareCost &c, std::int64_t tokens)
{
    if (!c.enabled())
        return {};
    char cells[96];
    if (c.error.empty())
        std::snprintf(cells, sizeof cells, " %12s %16s %7s", money(c.baseline.firstTurn()).c_str(),
                      money(c.baseline.total()).c_str(), "-");
    else
        std::snprintf(cells, sizeof cells, " %12s %16s %7s", "unknown", "unknown", "-");
    // The columns of compare's rows (cli/strategy.cpp).
    char line[512];
    std::snprintf(line, sizeof line, "%-30s %9lld %9lld %8s %8s %8s %8s %10s %6s %9s%s  %s\n", "no compaction",
                  static_cast<long long>(tokens), static_cast<long long>(tokens), "0.0%", "0.0%", "-", "-", "all", "-",
                  "-", cells, "the live context as it is, all of it cached");
    return line;
}

std::string compareCostFooter(const CompareCost &c)
{
    if (!c.enabled())
        return {};
    if (!c.error.empty())
        return "cost unknown: " + c.error + "\n";
    char line[512];
    std::string s = "cost: " + c.modelName;
    if (const auto price = c.prices.find(c.modelName)) {
        std::snprintf(line, sizeof line,
                      " priced as %s (as of %s): $/M input %.4g, cache write %.4g, cache read %.4g, output %.4g\n",
                      price->match.c_str(), c.prices.asOf().c_str(), price->input, price->cacheWrite5m, price->cacheRead,
                      price->output);
        s += line;
    }
    std::snprintf(line, sizeof line,
                  "  per turn: fixed part %lld tokens sent every time, context growth %lld, output %lld (%s)\n",
                  static_cast<long long>(c.growth.fixedTokens), static_cast<long long>(c.growth.perTurn),
                  static_cast<long long>(c.growth.outputPerTurn), c.growth.how.c_str());
    s += line;
    s += "  a strategy's first turn writes what follows its cache prefix to the cache (5-minute price); b/even: the turn\n"
         "  from which it has cost no more than no compaction\n";
    return s;
}

ojson compareCostJson(const CompareCost &c)
{
    if (!c.enabled())
        return nullptr;
    ojson j{{"model", c.modelName}, {"turns", c.turns}, {"asOf", c.prices.asOf()}};
    if (!c.error.empty()) {
        j["error"] = c.error;
        return j;
    }
    if (const auto price = c.prices.find(c.modelName))
        j["price"] = ojson{{"match", price->match}, {"input", price->input}, {"cacheWrite5m", price->cacheWrite5m}, {"cacheRead", price->cacheRead}, {"output", price->output}};
    // clang-format off
    j["growth"] = ojson{{"fixedTokens", c.growth.fixedTokens}, {"perTurn", c.growth.perTurn},
        {"outputPerTurn", c.growth.outputPerTurn}, {"samples", c.growth.samples}, {"how", c.growth.how}};
    // clang-format on
    j["noCompaction"] = projectionJson(c.baseline);
    return j;
}

ojson compareRowCostJson(const CompareCost &c, std::size_t row)
{
    if (!c.enabled() || !c.error.empty() || row >= c.rows.size() || !c.rows[row].error.empty())
        return nullptr;
    const cost::NextTurns &n = c.rows[row];
    const cost::TurnCost first = n.strategy.turns.empty() ? cost::TurnCost{} : n.strategy.turns.front();
    // clang-format off
    return ojson{{"nextTurn", round6(n.strategy.firstTurn())}, {"nextTurns", round6(n.strategy.total())},
        {"saving", round6(n.saving())}, {"breakEven", n.breakEven < 0 ? ojson(nullptr) : ojson(n.breakEven)},
        {"firstTurn", {{"cacheRead", first.cacheRead}, {"cacheWrite", first.cacheWrite}, {"output", first.output}}},
        {"oneOff", round6(n.strategy.oneOff)}};
    // clang-format on
}

} // namespace cl::cli
