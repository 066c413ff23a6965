// SPDX-License-Identifier: MIT
#pragma once

// Runs several strategies on one input (the GUI's compare view and `contextlens-cli compare`).

#include "core/llm/settings.h"
#include "core/strategy/strategy.h"
#include "core/util/parallel.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace cl::strategy {

struct CompareRow {
    std::string strategy; // name
    std::string title;
    std::string source;
    Result result;     // stats, changed, note, violations, slots
    std::string error; // parameter error, if any
};

struct CompareOptions {
    std::vector<std::string> names;                   // empty: every registered strategy
    nlohmann::json params = nlohmann::json::object(); // {strategyName: {param: value}} overrides
    int threads = util::defaultThreads();
    RunOptions run;
    std::function<void(std::size_t done, std::size_t total)> progress; // called from worker threads
    const std::atomic<bool> *cancel = nullptr;                         // set to stop; unfinished rows are left out
};

// Rows in registry order. Unknown names are reported as rows with error set.
std::vector<CompareRow> compare(const Input &in, const CompareOptions &options = {});

// The rows of a compare() run, each followed by its strategy run again with `summarizer` writing the
// summaries: "NAME+model", extra.modelCalls (summaries asked for) and extra.modelCost (dollars; null
// when a price is unknown). One strategy at a time, so that each row's calls and cost are its own.
// options.progress counts these runs; options.cancel stops before the next one (rows of strategies
// not rerun keep no model row). Rows with an error are not rerun.
std::vector<CompareRow> withModelRows(const Input &in, std::vector<CompareRow> rows, const CompareOptions &options,
                                      const llm::ReportingSummarizer &summarizer);

// "NAME" of a "NAME+model" row, else "".
std::string modelRowBase(const std::string &rowName);

} // namespace cl::strategy
