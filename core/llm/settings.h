// SPDX-License-Identifier: MIT
#pragma once

// How a model summary is asked for (docs/design/summaries.md): the provider call, the prompt preset,
// verification, the dropped-facts appendix, the answer cache. Plain data shared by the CLI, the GUI
// and the summarizer that talks to the provider (net/modelsummarizer.h).

#include "core/llm/provider.h"
#include "core/strategy/summary/summary.h"

#include <string>

namespace cl::llm {

struct SummarizerSettings {
    Config config;
    std::string preset;         // "" = the strategy's summary style decides
    std::string systemTemplate; // a user template for the instruction ("" = the preset's)
    bool verify = false;        // a second call checks the summary against the history and fixes it
    bool keepDroppedFacts = false;
    std::string cacheDir; // "" = no cache
    std::size_t maxInputChars = 400000;
    int backoffMs = 1000;
    std::size_t maxAnswerBytes = std::size_t(32) << 20; // a model's answer (streamed or not) is cut here and fails
    std::string pricesFile;                             // a user price table merged over the shipped one ("" = none)
};

// A summarizer that can say what its calls cost and how good the summaries were (JSON: one object per
// summary: preset, model, usage, cost, cached, verified, missing sections, dropped facts, error).
class ReportingSummarizer : public strategy::Summarizer
{
public:
    virtual nlohmann::json reportJson() const = 0;
};

} // namespace cl::llm
