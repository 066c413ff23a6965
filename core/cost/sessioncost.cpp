// SPDX-License-Identifier: MIT
#include "core/cost/sessioncost.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cl::cost {

namespace {

std::string dollarText(double d)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "$%.4f", d);
    return buf;
}

// "matches" within 1 % (or a hundredth of a cent), else the difference.
std::string comparison(double ours, double recorded)
{
    const double diff = ours - recorded;
    if (std::fabs(diff) <= std::max(0.0001, 0.01 * std::fabs(recorded)))
        return "ours " + dollarText(ours) + ": matches";
    char buf[96];
    if (recorded > 0)
        std::snprintf(buf, sizeof buf, "ours $%.4f: %+.1f %%", ours, 100.0 * diff / recorded);
    else
        std::snprintf(buf, sizeof buf, "ours $%.4f: differs by $%.4f", ours, diff);
    return buf;
}

void checkRecorded(const SessionUsage &usage, SessionCost &c, const std::vector<std::optional<Dollars>> &priced,
                   Format format)
{
    double recorded = 0, ours = 0;
    std::size_t withCost = 0;
    bool oursKnown = true;
    for (std::size_t i = 0; i < usage.responses.size(); ++i) {
        if (!usage.responses[i].recordedUsd)
            continue;
        ++withCost;
        recorded += *usage.responses[i].recordedUsd;
        if (priced[i])
            ours += priced[i]->total();
        else
            oursKnown = false;
    }
    if (withCost > 0) {
        c.recorded = recorded;
        c.recordedHow = "costUSD on " + std::to_string(withCost) + " response" + (withCost == 1 ? "" : "s");
    } else if (usage.budgetUsed) {
        // The Agent SDK's budget: spent so far when the line was written, by the session's own calls.
        c.recorded = *usage.budgetUsed;
        c.recordedHow = "budget_usd attachment, line " + std::to_string(usage.budgetLine);
        for (std::size_t i = 0; i < usage.responses.size(); ++i) {
            const Response &r = usage.responses[i];
            if (r.file != 0 || r.line >= usage.budgetLine)
                continue;
            if (priced[i])
                ours += priced[i]->total();
            else
                oursKnown = false;
        }
    }
    if (!c.recorded) {
        c.note = format == Format::ClaudeCode
                     ? "no recorded cost: Claude Code 2.1.x writes no per-response cost and no cost-state line (older "
                       "versions' costUSD and the Agent SDK's budget_usd attachment are checked when present)"
                     : "no recorded cost: " + std::string(formatName(format)) + " files record tokens, not dollars";
        return;
    }
    c.note = "recorded " + dollarText(*c.recorded) + " (" + c.recordedHow + "); ";
    if (oursKnown) {
        c.recordedCompared = ours;
        c.note += comparison(ours, *c.recorded);
    } else {
        c.note += "ours unknown (a model without a price)";
    }
}

} // namespace

SessionCost sessionCost(const SessionUsage &usage, const llm::PriceTable &prices, const std::string &modelOverride,
                        Format format)
{
    SessionCost c;
    c.responses = usage.responses.size();
    c.foldedLines = usage.foldedLines;
    std::vector<std::optional<Dollars>> priced(usage.responses.size());
    for (std::size_t i = 0; i < usage.responses.size(); ++i) {
        const Response &r = usage.responses[i];
        const std::string &model = modelOverride.empty() ? r.model : modelOverride;
        auto it = std::find_if(c.models.begin(), c.models.end(), [&](const ModelCost &m) { return m.model == model; });
        if (it == c.models.end()) {
            ModelCost m;
            m.model = model;
            m.price = model.empty() ? std::nullopt : prices.find(model);
            c.models.push_back(std::move(m));
            it = c.models.end() - 1;
        }
        ++it->responses;
        it->tokens += r.tokens;
        c.tokens += r.tokens;
        if (r.file != 0)
            ++c.subagentResponses;
        if (it->price) {
            priced[i] = price(r.tokens, *it->price);
            it->dollars += *priced[i];
            c.dollars += *priced[i];
        } else {
            c.unpriced += r.tokens;
        }
    }
    for (const auto &m : c.models)
        if (!m.price && m.tokens.total() > 0)
            c.unknownModels.push_back(m.model.empty() ? std::string("(no model name)") : m.model);
    checkRecorded(usage, c, priced, format);
    return c;
}

SessionCost sessionCost(const Transcript &t, const llm::PriceTable &prices, const std::string &modelOverride)
{
    return sessionCost(readUsage(t), prices, modelOverride, t.format);
}

std::string sessionModel(const Transcript &t, const std::vector<Response> &responses)
{
    for (auto it = responses.rbegin(); it != responses.rend(); ++it)
        if (it->file == 0 && !it->sidechain && !it->model.empty())
            return it->model;
    for (auto it = responses.rbegin(); it != responses.rend(); ++it)
        if (!it->model.empty())
            return it->model;
    if (t.header.is_object())
        if (const auto m = t.header.find("model"); m != t.header.end() && m->is_string())
            return m->get<std::string>();
    return {};
}

std::vector<SubagentCost> subagentCosts(const Transcript &t, const llm::PriceTable &prices)
{
    std::vector<SubagentCost> out;
    out.reserve(t.subagents.size());
    for (const auto &sub : t.subagents) {
        const SessionCost c = sessionCost(*sub, prices);
        SubagentCost s;
        s.complete = c.responses > 0 && c.complete();
        s.priced = c.responses > 0 && (s.complete || c.dollars.total() > 0);
        s.dollars = c.dollars.total();
        out.push_back(s);
    }
    return out;
}

} // namespace cl::cost
