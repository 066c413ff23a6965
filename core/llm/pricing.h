// SPDX-License-Identifier: MIT
#pragma once

// What a model call costs: US dollars per million tokens by model, from a table shipped with the
// program (list prices at the time of writing; check the provider's page) that a user file can
// override or extend ({"models": [{"match": "claude-sonnet-4", "input": 3, "output": 15}, ...]}).
// A model matches the longest `match` that its name starts with.

#include "core/llm/provider.h"

#include <optional>
#include <string>
#include <vector>

namespace cl::llm {

struct Price {
    std::string match;
    double input = 0, output = 0; // $ per million tokens
};

class PriceTable
{
public:
    PriceTable(); // the shipped table
    // Adds or replaces entries from a JSON text; false (and *error) when it does not parse.
    bool merge(const std::string &jsonText, std::string *error = nullptr);
    std::optional<Price> find(const std::string &model) const;
    // Dollars for a call; nullopt when the model is not in the table (local models cost nothing known).
    std::optional<double> cost(const std::string &model, const Usage &u) const;
    const std::vector<Price> &prices() const { return m_prices; }

private:
    std::vector<Price> m_prices;
};

} // namespace cl::llm
