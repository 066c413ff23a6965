// SPDX-License-Identifier: MIT
#pragma once

// What a report shows, computed once from the engine and then rendered as HTML or Markdown
// (report.h). Every figure is the engine's own: compose(), auditCompactions(), compare(), run().

#include "core/analysis/analysis.h"
#include "core/model/transcript.h"
#include "core/report/report.h"
#include "core/strategy/strategy.h"
#include "core/workflow/audit.h"
#include "core/workflow/compare.h"
#include "core/workflow/composition.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cl::report {

struct Figures {
    std::string title;
    std::string format;
    std::size_t messages = 0;     // every message of the file
    std::size_t conversation = 0; // turns outside sidechains (history included)
    std::size_t history = 0;      // turns before the last compaction
    std::size_t toolCalls = 0, failedToolCalls = 0;
    std::size_t compactions = 0;          // boundaries outside sidechains
    std::optional<std::int64_t> measured; // the last measured context, where the file records usage
    std::string firstTime, lastTime;      // timestamps as written ("" when none)
};

// The usage chart: per message, the measured context where recorded and the estimated context
// (fixed part + the conversation sent with it), restarting at every compaction.
struct UsagePoint {
    std::size_t message = 0; // transcript index
    std::int64_t tokens = 0;
    bool restart = false; // first point after a compaction
};
struct CompactionMark {
    std::size_t message = 0;
    std::int64_t preTokens = -1; // compactMetadata.preTokens where recorded
};
struct UsageSeries {
    std::vector<UsagePoint> measured;  // tokens::measuredContext
    std::vector<UsagePoint> estimated; // one per turn outside sidechains: composition::compose(t, i).total
    std::vector<CompactionMark> compactions;
    std::size_t messages = 0; // x range
    std::int64_t window = 0;
};
UsageSeries usageSeries(const Transcript &t, std::int64_t window);

// The context map: the live conversation as a strip, a segment per message, width ∝ its tokens,
// coloured by its seed 003 priority class.
struct MapSegment {
    std::size_t message = 0; // transcript index
    std::int64_t tokens = 0;
    analysis::Priority priority = analysis::Priority::Excluded;
};
std::vector<MapSegment> contextMap(const Transcript &t, const analysis::Analysis &a);

// A strategy's result as rows: consecutive conversation messages with the same fate and reason share a row.
struct FateRow {
    std::size_t first = 0, last = 0; // transcript indices, inclusive (messages outside the conversation between them are not counted)
    std::size_t messages = 0;        // conversation messages in the row
    strategy::Fate fate = strategy::Fate::Kept;
    std::string roles; // their roles, each once: "user, assistant"
    std::int64_t tokens = 0;
    std::string reason;
};
std::vector<FateRow> fateRows(const Transcript &t, const strategy::Result &r);

struct ReportData {
    Figures figures;
    composition::Composition composition; // at the end: the live context
    std::vector<composition::Suggestion> suggestions;
    UsageSeries usage;
    std::vector<MapSegment> map;
    std::optional<std::size_t> mapBoundary; // transcript index the analysis would cut before
    std::vector<audit::Compaction> compactions;
    std::vector<strategy::CompareRow> compare;
    std::string previewName; // "" when none was asked for
    std::optional<strategy::Result> preview;
    std::string previewError;
};
ReportData collect(const Transcript &t, const ReportOptions &o);

} // namespace cl::report
