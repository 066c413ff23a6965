// SPDX-License-Identifier: MIT
#pragma once

// The cost columns `compare --cost-turns N` adds (cli/cost.cpp): per strategy the next turn's and the
// next N turns' dollars, prompt cache included (core/cost/nextturns.h), and a "no compaction" row.

#include "cli/common.h"
#include "core/cost/nextturns.h"
#include "core/workflow/compare.h"

#include <string>
#include <vector>

namespace cl::cli {

struct CompareCost {
    int turns = 0;          // 0: no cost columns
    std::string model;      // priced as ("" = the session's model)
    std::string pricesFile; // merged over the shipped and the user's table
    // Filled by compute():
    std::string modelName; // the model priced
    std::string error;     // why there are no dollars ("" when there are)
    llm::PriceTable prices;
    cost::Growth growth;
    cost::Projection baseline;
    std::vector<cost::NextTurns> rows; // parallel to the compare rows
    bool enabled() const { return turns > 0; }
};

// The shipped price table, the user's file and --prices FILE; false and error when a file is bad.
bool loadPrices(const Args &a, llm::PriceTable &prices, std::string &error);

// compare's own options for it.
const std::vector<OptionSpec> &compareCostOptions();
// Reads --cost-turns, --cost-model, --model and --prices. Without --summarizer, --model and --prices
// belong to the cost and are taken out of `a`, so that the summarizer options do not claim them; with
// one, --model is the summarizer's and --cost-model names the priced model. False and error on bad
// usage.
bool readCompareCost(Args &a, CompareCost &c, std::string &error);
// Prices the baseline and every row. A model without a price is not a failure: error says so and the
// cells read "unknown".
void computeCompareCost(const strategy::Input &in, const std::vector<strategy::CompareRow> &rows, CompareCost &c);

std::string compareCostHeader(const CompareCost &c);                 // "" when off
std::string compareCostCells(const CompareCost &c, std::size_t row); // "" when off
// The "no compaction" line, laid out like compare's rows ("" when off).
std::string compareBaselineLine(const CompareCost &c, std::int64_t tokens);
std::string compareCostFooter(const CompareCost &c); // how the figures were made ("" when off)
ojson compareCostJson(const CompareCost &c);
ojson compareRowCostJson(const CompareCost &c, std::size_t row);

} // namespace cl::cli
