// SPDX-License-Identifier: MIT
// `cost`: what a session cost, from its measured usage (core/cost/sessioncost.h), by model and by
// kind (input, cache writes, cache reads, output), with the agent's own recorded cost checked.
#include "cli/cli.h"
#include "cli/common.h"
#include "cli/cost.h"
#include "core/cost/sessioncost.h"

#include <cmath>
#include <cstdio>

namespace cl::cli {

namespace {

double round6(double v) { return std::round(v * 1e6) / 1e6; }

struct Kind {
    const char *name;
    std::int64_t cost::Tokens::*tokens;
    double cost::Dollars::*dollars;
    double llm::Price::*price;
};
const Kind kKinds[] = {
    {"input", &cost::Tokens::input, &cost::Dollars::input, &llm::Price::input},
    {"cache write 5m", &cost::Tokens::cacheWrite5m, &cost::Dollars::cacheWrite5m, &llm::Price::cacheWrite5m},
    {"cache write 1h", &cost::Tokens::cacheWrite1h, &cost::Dollars::cacheWrite1h, &llm::Price::cacheWrite1h},
    {"cache read", &cost::Tokens::cacheRead, &cost::Dollars::cacheRead, &llm::Price::cacheRead},
    {"output", &cost::Tokens::output, &cost::Dollars::output, &llm::Price::output},
};

ojson tokensJson(const cost::Tokens &t)
{
    return ojson{{"input", t.input}, {"cacheWrite5m", t.cacheWrite5m}, {"cacheWrite1h", t.cacheWrite1h}, {"cacheRead", t.cacheRead}, {"output", t.output}};
}

ojson dollarsJson(const cost::Dollars &d)
{
    // clang-format off
    return ojson{{"input", round6(d.input)}, {"cacheWrite5m", round6(d.cacheWrite5m)}, {"cacheWrite1h", round6(d.cacheWrite1h)},
        {"cacheRead", round6(d.cacheRead)}, {"output", round6(d.output)}, {"total", round6(d.total())}};
    // clang-format on
}

ojson priceJson(const llm::Price &p)
{
    // clang-format off
    return ojson{{"match", p.match}, {"input", p.input}, {"cacheWrite5m", p.cacheWrite5m}, {"cacheWrite1h", p.cacheWrite1h},
        {"cacheRead", p.cacheRead}, {"output", p.output}, {"origin", p.origin}};
    // clang-format on
}

// One model's (or the total's) lines: a kind per line, tokens, price and dollars.
std::string kindTable(const cost::Tokens &t, const cost::Dollars *d, const llm::Price *p)
{
    std::string text;
    char line[160];
    for (const Kind &k : kKinds) {
        const std::int64_t n = t.*(k.tokens);
        char price[32] = "", dollars[32] = "?";
        if (p)
            std::snprintf(price, sizeof price, "%.4g", (*p).*(k.price));
        if (d)
            std::snprintf(dollars, sizeof dollars, "$%.4f", (*d).*(k.dollars));
        std::snprintf(line, sizeof line, "  %-16s %14lld %10s %12s\n", k.name, static_cast<long long>(n), price, dollars);
        text += line;
    }
    return text;
}

std::string pricesText(const llm::PriceTable &prices)
{
    std::string s = "prices: the shipped table as of " + (prices.asOf().empty() ? std::string("?") : prices.asOf()) + " ("
                    + prices.shippedFrom() + ")";
    for (const auto &f : prices.mergedFiles())
        s += ", " + f + " over it";
    return s + "; $ per million tokens\n";
}

} // namespace

// The shipped table, the user's file and --prices FILE (cli/cost.cpp; compare uses it too).
bool loadPrices(const Args &a, llm::PriceTable &prices, std::string &error)
{
    std::string why;
    if (!llm::PriceTable::load(prices, a.value("--prices").value_or(""), &why)) {
        error = "prices: " + why;
        return false;
    }
    return true;
}

int costCommand(const std::vector<std::string> &args, std::string &out, std::string &err)
{
    Args a = parseArgs(args, {{"--as", "", true}, {"--model", "", true}, {"--prices", "", true}});
    Output o{out, err, a.has("--json")};
    if (a.has("--help")) {
        out += commandHelp("cost");
        return Exit::Success;
    }
    if (!a.error.empty())
        return o.fail(a.error);
    if (a.positional.size() != 1)
        return o.fail("cost needs exactly one FILE (see contextlens-cli cost --help)");
    std::string error;
    std::optional<Format> as;
    if (auto f = a.value("--as")) {
        as = parseFormat(*f, error);
        if (!as)
            return o.fail(error);
    }
    llm::PriceTable prices;
    if (!loadPrices(a, prices, error))
        return o.fail(error);
    for (const auto &w : prices.warnings())
        err += "contextlens-cli: warning: prices: " + w + "\n";
    const std::string path = a.positional.front();
    auto t = loadForCommand(path, as, error);
    if (!t)
        return o.fail(error);
    const std::string model = a.value("--model").value_or("");
    const cost::SessionCost c = cost::sessionCost(cost::readUsage(*t), prices, model, t->format);
    const int code = c.complete() ? Exit::Success : Exit::Issues;

    if (o.json) {
        ojson models = ojson::array();
        for (const auto &m : c.models) {
            // clang-format off
            models.push_back(ojson{{"model", m.model}, {"price", m.price ? priceJson(*m.price) : ojson(nullptr)},
                {"responses", m.responses}, {"tokens", tokensJson(m.tokens)},
                {"dollars", m.price ? dollarsJson(m.dollars) : ojson(nullptr)}});
            // clang-format on
        }
        ojson recorded = nullptr;
        if (c.recorded)
            recorded = ojson{{"dollars", round6(*c.recorded)}, {"how", c.recordedHow}, {"ours", c.recordedCompared ? ojson(round6(*c.recordedCompared)) : ojson(nullptr)}};
        // clang-format off
        o.print(ojson{{"path", path}, {"format", std::string(formatName(t->format))}, {"modelOverride", model},
            {"prices", {{"asOf", prices.asOf()}, {"shipped", prices.shippedFrom()}, {"merged", prices.mergedFiles()}, {"warnings", prices.warnings()}}},
            {"responses", c.responses}, {"foldedLines", c.foldedLines}, {"subagentResponses", c.subagentResponses},
            {"models", models}, {"tokens", tokensJson(c.tokens)}, {"dollars", dollarsJson(c.dollars)},
            {"complete", c.complete()}, {"unpricedTokens", c.unpriced.total()}, {"unknownModels", c.unknownModels},
            {"recorded", recorded}, {"note", c.note}});
        // clang-format on
        return code;
    }

    char line[256];
    std::snprintf(line, sizeof line, "$%.4f", c.dollars.total());
    out += path + " (" + std::string(formatName(t->format)) + "): " + (c.complete() ? "" : "at least ") + line + " over "
           + std::to_string(c.responses) + " response" + (c.responses == 1 ? "" : "s");
    if (c.subagentResponses)
        out += " (" + std::to_string(c.subagentResponses) + " of subagents)";
    if (c.foldedLines)
        out += "; " + std::to_string(c.foldedLines) + " repeated line" + (c.foldedLines == 1 ? "" : "s")
               + " of a response counted once";
    out += "\n" + pricesText(prices);
    if (!model.empty())
        out += "every response priced as " + model + " (--model)\n";
    for (const auto &m : c.models) {
        out += "\n" + (m.model.empty() ? std::string("(no model name)") : m.model) + ": " + std::to_string(m.responses)
               + " response" + (m.responses == 1 ? "" : "s") + ", ";
        if (m.price) {
            std::snprintf(line, sizeof line, "$%.4f, priced as %s (%s)\n", m.dollars.total(), m.price->match.c_str(),
                          m.price->origin.c_str());
            out += line;
        } else if (m.tokens.total() == 0) {
            out += "no tokens, no price needed\n";
            continue;
        } else {
            out += "NO PRICE: cost unknown (add the model to " + llm::PriceTable::userFile()
                   + ", or give --prices FILE or --model M)\n";
        }
        std::snprintf(line, sizeof line, "  %-16s %14s %10s %12s\n", "kind", "tokens", "$/M", "dollars");
        out += line;
        out += kindTable(m.tokens, m.price ? &m.dollars : nullptr, m.price ? &*m.price : nullptr);
    }
    if (c.models.size() > 1) {
        out += "\nall models:\n";
        out += kindTable(c.tokens, c.complete() ? &c.dollars : nullptr, nullptr);
    }
    if (!c.complete()) {
        std::string names;
        for (const auto &n : c.unknownModels)
            names += (names.empty() ? "" : ", ") + n;
        out += "\ncost unknown for " + std::to_string(c.unpriced.total()) + " tokens of models without a price: " + names
               + "\n";
    }
    out += "\n" + c.note + "\n";
    return code;
}

} // namespace cl::cli
