// SPDX-License-Identifier: MIT
// `simulate`: the step-by-step replay (core/strategy/simulation.h) from the command line: the live
// context per request (or per user turn, --by turn) with and without a strategy, and the step where
// the session outgrows its window.
#include "cli/cli.h"
#include "cli/common.h"
#include "cli/cost.h"
#include "core/cost/simulationcost.h"
#include "core/strategy/simulation.h"
#include "core/strategy/strategy.h"

#include <cmath>
#include <cstdio>

namespace cl::cli {

namespace {

// A count option: digits only, so a typo is an error instead of atoll's silent 0.
bool parseCount(const Args &a, const std::string &name, std::size_t &value, std::string &error)
{
    const auto v = a.value(name);
    if (!v)
        return true;
    if (v->empty() || v->size() > 15 || v->find_first_not_of("0123456789") != std::string::npos) {
        error = name + ": '" + *v + "' is not a non-negative whole number";
        return false;
    }
    value = static_cast<std::size_t>(std::stoull(*v));
    return true;
}

ojson turnJson(const sim::TurnPoint &p)
{
    // clang-format off
    return ojson{{"turn", p.turn}, {"firstIndex", p.firstIndex}, {"lastIndex", p.lastIndex}, {"messages", p.messages},
        {"liveWithout", p.liveWithout}, {"liveWith", p.liveWith},
        {"without", p.without}, {"beforeStrategy", p.beforeStrategy}, {"with", p.with},
        {"managedMessages", p.managedMessages}, {"changed", p.changed}, {"note", p.note}};
    // clang-format on
}

ojson turnOrNull(std::int32_t turn)
{
    return turn > 0 ? ojson(turn) : ojson(nullptr);
}

std::string stepText(sim::Step step, std::int32_t k)
{
    return k > 0 ? std::string(sim::stepName(step)) + " " + std::to_string(k) : "never";
}

std::string percentOf(std::int64_t v, std::int64_t window)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %%", window > 0 ? 100.0 * double(v) / double(window) : 0.0);
    return buf;
}

double round6(double v) { return std::round(v * 1e6) / 1e6; }

std::string money(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f", v);
    return buf;
}

ojson runCostJson(const cost::RunCost &r, bool priced)
{
    // clang-format off
    return ojson{{"dollars", priced ? ojson(round6(r.dollars)) : ojson(nullptr)}, {"cacheRead", r.tokens.cacheRead},
        {"cacheWrite", r.tokens.cacheWrite5m}, {"output", r.tokens.output}, {"rewrites", r.rewrites}};
    // clang-format on
}

ojson costJson(const cost::SimulationCost &c, const llm::PriceTable &prices)
{
    ojson j{{"model", c.model}, {"asOf", prices.asOf()}};
    if (!c.error.empty())
        j["error"] = c.error;
    if (c.price)
        j["price"] = ojson{{"match", c.price->match}, {"cacheWrite5m", c.price->cacheWrite5m}, {"cacheRead", c.price->cacheRead}, {"output", c.price->output}};
    j["fixedTokens"] = c.fixedTokens;
    j["requests"] = c.requests;
    j["with"] = runCostJson(c.with, c.price.has_value());
    j["without"] = runCostJson(c.without, c.price.has_value());
    j["saving"] = c.price ? ojson(round6(c.saving())) : ojson(nullptr);
    return j;
}

ojson turnCostJson(const cost::SimulatedTurnCost &t, bool priced)
{
    // clang-format off
    return ojson{{"requests", t.requests}, {"with", priced ? ojson(round6(t.with.dollars)) : ojson(nullptr)},
        {"without", priced ? ojson(round6(t.without.dollars)) : ojson(nullptr)}};
    // clang-format on
}

// How the cost lines were made, after the summary line.
std::string costText(const cost::SimulationCost &c, const llm::PriceTable &prices, const std::string &strategy)
{
    if (!c.price)
        return "cost unknown: " + c.error + " (give --prices FILE or --model M)\n";
    char line[512];
    std::snprintf(line, sizeof line,
                  "cost: %s priced as %s (as of %s): $/M cache write %.4g, cache read %.4g, output %.4g\n", c.model.c_str(),
                  c.price->match.c_str(), prices.asOf().c_str(), c.price->cacheWrite5m, c.price->cacheRead, c.price->output);
    std::string s = line;
    std::snprintf(line, sizeof line, "  %zu requests: $%s with %s, $%s without (saving $%s); %zu rewrote the cache after a compaction\n",
                  c.requests, money(c.with.dollars).c_str(), strategy.c_str(), money(c.without.dollars).c_str(),
                  money(c.saving()).c_str(), c.with.rewrites);
    s += line;
    std::snprintf(line, sizeof line,
                  "  a request per response: the fixed part (%lld tokens) and what precedes the response, its cached prefix\n"
                  "  read, the rest written (5-minute price), its messages output; a compaction invalidates the cache\n"
                  "  after the prefix the strategy kept (estimated tokens)\n",
                  static_cast<long long>(c.fixedTokens));
    s += line;
    return s;
}

} // namespace

int simulate(const std::vector<std::string> &args, std::string &out, std::string &err)
{
    nlohmann::json params;
    std::vector<std::string> rest;
    std::string perr;
    const bool paramsOk = collectParams(args, params, rest, perr);
    Args a = parseArgs(rest, {{"--as", "", true}, {"--strategy", "-s", true}, {"--window", "", true}, {"--max-turns", "", true}, {"--stride", "", true}, {"--by", "", true}, {"--pin", "", true}, {"--exempt", "", true}, {"--cost", "", false}, {"--model", "", true}, {"--prices", "", true}});
    Output o{out, err, a.has("--json")};
    if (a.has("--help")) {
        out += commandHelp("simulate");
        return Exit::Success;
    }
    if (!paramsOk)
        return o.fail(perr);
    if (!a.error.empty())
        return o.fail(a.error);
    if (a.positional.size() != 1)
        return o.fail("simulate needs exactly one FILE (see contextlens-cli simulate --help)");
    std::string error;
    const strategy::Strategy *s = strategyOption(a, "simulate", error);
    if (!s)
        return o.fail(error);
    std::size_t window = 0, maxTurns = 0, stride = 1;
    if (!parseCount(a, "--window", window, error) || !parseCount(a, "--max-turns", maxTurns, error))
        return o.fail(error);
    const bool autoStride = a.value("--stride") == std::optional<std::string>("auto");
    if (!autoStride && !parseCount(a, "--stride", stride, error))
        return o.fail(error + " (or auto)");
    const std::string by = a.value("--by").value_or("request");
    if (by != "request" && by != "turn")
        return o.fail("--by: expected request or turn, got '" + by + "'");
    // Resolve before loading: a bad parameter should not wait for a large file.
    strategy::Params resolved;
    if (!strategy::resolveParams(s->params(), params, resolved, error))
        return o.fail(error);
    std::optional<Format> as;
    if (auto f = a.value("--as")) {
        as = parseFormat(*f, error);
        if (!as)
            return o.fail(error);
    }
    // --cost (or a model or price file for it): the dollars of the simulated turns.
    const bool withCost = a.has("--cost") || a.value("--model") || a.value("--prices");
    llm::PriceTable prices;
    if (withCost && !loadPrices(a, prices, error))
        return o.fail(error);
    const std::string path = a.positional.front();
    auto t = loadForCommand(path, as, error);
    if (!t)
        return o.fail(error);

    sim::SimulationOptions so;
    so.analysis.contextWindow = static_cast<std::int64_t>(window);
    so.analysis.estimator = commandEstimator();
    so.maxTurns = maxTurns;
    so.step = by == "turn" ? sim::Step::Turn : sim::Step::Request;
    if (autoStride) {
        const std::size_t turns = sim::countTurns(*t, so.step);
        stride = sim::suggestedStride(maxTurns ? std::min(maxTurns, turns) : turns);
    }
    so.stride = stride;
    if (!guardOptions(a, so.pinned, so.exemptTools, error))
        return o.fail(error);
    const sim::Simulation r = sim::simulate(*t, *s, params, so);
    if (!r.error.empty())
        return o.fail(r.error);
    std::optional<cost::SimulationCost> c;
    if (withCost)
        c = cost::simulationCost(*t, r, prices, a.value("--model").value_or(""));

    if (o.json) {
        ojson turns = ojson::array();
        for (std::size_t k = 0; k < r.turns.size(); ++k) {
            turns.push_back(turnJson(r.turns[k]));
            if (c)
                turns.back()["cost"] = turnCostJson(c->turns[k], c->price.has_value());
        }
        // clang-format off
        ojson j{{"path", path}, {"format", std::string(formatName(t->format))}, {"strategy", r.strategy},
            {"params", ojson::parse(resolved.values.dump())}, {"window", r.window}, {"by", std::string(sim::stepName(r.step))},
            {"estimator", std::string(tokens::estimatorName(so.analysis.estimator))}, {"stride", r.stride},
            {"totalTurns", r.totalTurns}, {"simulatedTurns", r.turns.size()}, {"exceedsWithout", turnOrNull(r.exceedsWithout)},
            {"exceedsWith", turnOrNull(r.exceedsWith)}, {"compactions", r.compactions}, {"kept", r.kept},
            {"finalLiveWithout", r.turns.empty() ? 0 : r.turns.back().liveWithout},
            {"finalLiveWith", r.turns.empty() ? 0 : r.turns.back().liveWith},
            {"finalWithout", r.turns.empty() ? 0 : r.turns.back().without},
            {"finalWith", r.turns.empty() ? 0 : r.turns.back().with}, {"turns", turns}};
        // clang-format on
        if (c)
            j["cost"] = costJson(*c, prices);
        o.print(j);
        return Exit::Success;
    }
    out += "simulate " + r.strategy + " on " + path + " (" + std::string(formatName(t->format)) + "): "
           + std::to_string(r.turns.size()) + " of " + std::to_string(r.totalTurns) + " " + std::string(sim::stepName(r.step)) + "s";
    out += r.stride > 1 ? ", strategy every " + std::to_string(r.stride) + " " + std::string(sim::stepName(r.step)) + "s\n" : "\n";
    out += "live context (fixed part included, " + std::string(tokens::estimatorName(so.analysis.estimator))
           + ") without and with the strategy; conversation: plain estimate with it\n";
    char line[512];
    char costCells[64] = "";
    if (c)
        std::snprintf(costCells, sizeof costCells, " %10s %10s", "with $", "without $");
    std::snprintf(line, sizeof line, "%7s %5s %10s %10s %7s %12s %8s%s  %s\n", std::string(sim::stepName(r.step)).c_str(), "msgs",
                  "without", "with", "with%", "conversation", "managed", costCells, "changed / note");
    out += line;
    for (std::size_t k = 0; k < r.turns.size(); ++k) {
        const sim::TurnPoint &p = r.turns[k];
        if (c && c->price)
            std::snprintf(costCells, sizeof costCells, " %10s %10s", money(c->turns[k].with.dollars).c_str(),
                          money(c->turns[k].without.dollars).c_str());
        else if (c)
            std::snprintf(costCells, sizeof costCells, " %10s %10s", "unknown", "unknown");
        std::snprintf(line, sizeof line, "%7zu %5zu %10lld %10lld %7s %12lld %8zu%s  %s%s\n", p.turn, p.messages,
                      static_cast<long long>(p.liveWithout), static_cast<long long>(p.liveWith),
                      percentOf(p.liveWith, r.window).c_str(), static_cast<long long>(p.with), p.managedMessages, costCells,
                      p.changed ? "* " : "  ", p.note.c_str());
        out += line;
    }
    const std::int64_t lastWithout = r.turns.empty() ? 0 : r.turns.back().liveWithout;
    const std::int64_t lastWith = r.turns.empty() ? 0 : r.turns.back().liveWith;
    out += "window " + std::to_string(r.window) + " - over the window without: " + stepText(r.step, r.exceedsWithout)
           + ", with: " + stepText(r.step, r.exceedsWith) + "; " + std::to_string(r.compactions) + " compaction"
           + (r.compactions == 1 ? "" : "s") + "; final " + std::to_string(lastWith) + " (" + percentOf(lastWith, r.window)
           + ") vs " + std::to_string(lastWithout) + " (" + percentOf(lastWithout, r.window) + ") without\n";
    if (c)
        out += costText(*c, prices, r.strategy);
    return Exit::Success;
}

} // namespace cl::cli
