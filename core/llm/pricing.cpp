// SPDX-License-Identifier: MIT
#include "core/llm/pricing.h"

#include <nlohmann/json.hpp>

namespace cl::llm {

namespace {

// List prices in $ per million tokens (input, output). A user file overrides any of them.
const char *const kShipped = R"({"models": [
  {"match": "claude-opus-4", "input": 15, "output": 75},
  {"match": "claude-sonnet-4", "input": 3, "output": 15},
  {"match": "claude-3-7-sonnet", "input": 3, "output": 15},
  {"match": "claude-3-5-haiku", "input": 0.8, "output": 4},
  {"match": "claude-haiku-4", "input": 1, "output": 5},
  {"match": "gpt-4o-mini", "input": 0.15, "output": 0.6},
  {"match": "gpt-4o", "input": 2.5, "output": 10},
  {"match": "gpt-4.1-nano", "input": 0.1, "output": 0.4},
  {"match": "gpt-4.1-mini", "input": 0.4, "output": 1.6},
  {"match": "gpt-4.1", "input": 2, "output": 8},
  {"match": "gpt-5-nano", "input": 0.05, "output": 0.4},
  {"match": "gpt-5-mini", "input": 0.25, "output": 2},
  {"match": "gpt-5", "input": 1.25, "output": 10},
  {"match": "o4-mini", "input": 1.1, "output": 4.4},
  {"match": "gemini-2.5-flash-lite", "input": 0.1, "output": 0.4},
  {"match": "gemini-2.5-flash", "input": 0.3, "output": 2.5},
  {"match": "gemini-2.5-pro", "input": 1.25, "output": 10},
  {"match": "gemini-2.0-flash", "input": 0.1, "output": 0.4}
]})";

} // namespace

PriceTable::PriceTable()
{
    merge(kShipped);
}

bool PriceTable::merge(const std::string &jsonText, std::string *error)
{
    const nlohmann::json j = nlohmann::json::parse(jsonText, nullptr, false);
    if (!j.is_object() || !j.contains("models") || !j["models"].is_array()) {
        if (error)
            *error = "a price table is {\"models\": [{\"match\": \"model-prefix\", \"input\": $, \"output\": $}, ...]}";
        return false;
    }
    for (const auto &m : j["models"]) {
        if (!m.is_object() || !m.contains("match") || !m["match"].is_string())
            continue;
        Price p{m["match"].get<std::string>(), m.value("input", 0.0), m.value("output", 0.0)};
        bool replaced = false;
        for (auto &old : m_prices)
            if (old.match == p.match) {
                old = p;
                replaced = true;
            }
        if (!replaced)
            m_prices.push_back(std::move(p));
    }
    return true;
}

std::optional<Price> PriceTable::find(const std::string &model) const
{
    std::optional<Price> best;
    for (const auto &p : m_prices)
        if (model.rfind(p.match, 0) == 0 && (!best || p.match.size() > best->match.size()))
            best = p;
    return best;
}

std::optional<double> PriceTable::cost(const std::string &model, const Usage &u) const
{
    const auto p = find(model);
    if (!p)
        return std::nullopt;
    return (double(u.input) * p->input + double(u.output) * p->output) / 1e6;
}

} // namespace cl::llm
