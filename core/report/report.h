// SPDX-License-Identifier: MIT
#pragma once

// Reports and Markdown exports of a session, for sharing (`contextlens-cli report`, `export-markdown`,
// the GUI's File › Export Report). Every call takes the transcript and options and returns the bytes;
// nothing is written and nothing outside the engine is needed.
//
// - htmlReport: one self-contained HTML file (inline CSS and SVG, no script, no external resource;
//   light and dark by prefers-color-scheme): the session's figures, the context map and the usage
//   chart, where the live context goes (composition::compose), every compaction with its audit
//   (audit::auditCompactions), the compare table (strategy::compare) and optionally one strategy's
//   preview (its stats and the fate of every message).
// - markdownReport: the same sections in Markdown, the charts as small text tables.
// - markdownTranscript: the conversation itself, message by message, tool calls, results and
//   thinking folded in <details>, compactions as rules, the history before the last compaction in a
//   section of its own.
// Every text that comes from the transcript is escaped.

#include "core/model/transcript.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cl::report {

struct MarkdownOptions {
    std::size_t maxResultChars = 4000; // longer tool results (and raw blocks) are cut, with a note
    bool thinking = true;              // include thinking (folded)
    bool history = true;               // include the messages before the last compaction
    bool metadata = false;             // include Meta messages (file snapshots, session metadata lines)
    bool sidechains = true;            // include subagent (sidechain) messages
};

// Whether markdownTranscript gives message m a heading of its own (one per included message).
bool includedInMarkdown(const Message &m, const MarkdownOptions &o);

std::string markdownTranscript(const Transcript &t, const MarkdownOptions &o = {});

struct ReportOptions {
    // Strategies of the compare table and of the audit rows; nullopt: every strategy in the compare
    // table and audit::defaultStrategies() in the audit; empty: neither.
    std::optional<std::vector<std::string>> strategies;
    std::string previewStrategy;                             // "" for none: a strategy whose result the report shows
    nlohmann::json previewParams = nlohmann::json::object(); // its parameters ({name: value}; defaults for the rest)
    std::int64_t contextWindow = 0;                          // 0: the file's (analysis::contextWindowOf)
    std::size_t maxPreviewRows = 400;
    std::size_t biggestItems = 10;
    std::string title; // "" : the file name
    // Passed to the compare run (the longest part): progress from worker threads, cancel to stop
    // (the report then lacks the rows not run: a caller that cancels discards it).
    std::function<void(std::size_t done, std::size_t total)> progress;
    const std::atomic<bool> *cancel = nullptr;
};

enum class ReportFormat {
    Html,
    Markdown
};
// From the file name: .html / .htm, .md / .markdown (any case); nullopt for anything else.
std::optional<ReportFormat> reportFormatForPath(const std::string &path);

std::string htmlReport(const Transcript &t, const ReportOptions &o = {});
std::string markdownReport(const Transcript &t, const ReportOptions &o = {});
// The one the GUI calls: the report in `format`.
std::string renderReport(const Transcript &t, const ReportOptions &o, ReportFormat format);

} // namespace cl::report
