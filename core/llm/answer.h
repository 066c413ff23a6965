// SPDX-License-Identifier: MIT
#pragma once

// Reading a model's summary (docs/design/summaries.md): the analysis or scratchpad stripped, the
// summary kept, every required section checked; and what the summary dropped of the history it
// replaces (the strategy engine's facts), with an appendix that lists them so that a summary never
// silently loses a modified file path or an unresolved error.

#include "core/llm/prompts.h"
#include "core/strategy/strategy.h"

#include <string>
#include <vector>

namespace cl::llm {

struct ParsedSummary {
    std::string summary;              // the summary alone (wrapper and thinking part removed)
    std::vector<std::string> missing; // required sections absent (their headings)
    std::vector<std::string> empty;   // present but with nothing in them
    bool wrapped = false;             // the answer had the preset's wrapper (<summary>, <state_snapshot>)
};
ParsedSummary parseAnswer(const Preset &p, const std::string &answer);

struct Retention {
    std::vector<strategy::Fact> kept, dropped;
    double share() const { return kept.size() + dropped.size() ? double(kept.size()) / double(kept.size() + dropped.size()) : 1.0; }
};
// The facts of `messages` and whether `summary` still mentions each (strategy/factmatch.h: as a
// summary writes them, e.g. a path relative to the session's working directory).
Retention retention(const Transcript &t, const std::vector<std::size_t> &messages, const std::string &summary);
// A deterministic list of the dropped facts, to append to a summary ("" when none).
std::string droppedFactsAppendix(const std::vector<strategy::Fact> &dropped);

} // namespace cl::llm
