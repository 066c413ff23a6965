// SPDX-License-Identifier: MIT
#pragma once

// Synthetic agent coding sessions of any size, in every format, for the demo, tests and benchmarks.
// Deterministic: the same Options give the same bytes. The session is a plausible day of work on a
// small project: user requests (English and some Chinese), assistant prose with code blocks and
// URLs, tool rounds (Read of large files, Grep, Glob, Bash, Edit/Write with diffs, failing tools,
// parallel calls), thinking, timestamps with occasional long pauses, and usage numbers that grow like
// a real context window. Claude Code JSONL is written directly, line by line, the way Claude Code
// writes it; every other format goes through the neutral model and cl::writeTranscript.

#include "core/model/format.h"
#include "core/model/transcript.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace cl::gen {

struct Options {
    Format format = Format::ClaudeCode;
    // Stop after this many conversation messages of the neutral model (user prompts, assistant
    // responses, tool-result messages); 0 = use targetBytes. The result may be one short when a
    // whole exchange no longer fits.
    std::size_t messages = 0;
    // Approximate output size in bytes (within ~10 %); used when messages is 0.
    std::size_t targetBytes = 0;
    std::uint64_t seed = 1;
    std::int64_t contextWindow = 200000;
    // Claude Code auto-compacts when the context passes this share of the window.
    double compactAt = 0.8;
    double chineseShare = 0.2;   // share of user requests written in Chinese
    double errorShare = 0.08;    // share of tool calls that fail
    double parallelShare = 0.25; // share of tool rounds with several calls at once
    double gapShare = 0.12;      // share of user requests after a pause of more than 5 minutes
    // Longest Read (Claude Code's own limit is 2000 lines); smaller values give small demo files.
    int maxReadLines = 2000;
    // The project folder the session works in (its cwd, the files' paths); empty: a generated one.
    std::string cwd;
};

// What was generated, counted the way a Claude Code loader should see it (so tests can check the
// loader and the CLI against known numbers).
struct Stats {
    std::size_t messages = 0;           // neutral conversation messages
    std::size_t userPrompts = 0;        // typed user requests (not tool results, not summaries)
    std::size_t assistantResponses = 0; // API responses (one message.id each)
    std::size_t assistantLines = 0;     // claude-code: lines those responses were split into
    std::size_t toolCalls = 0;
    std::size_t failedToolCalls = 0;
    std::size_t toolRounds = 0;     // assistant responses with at least one tool call
    std::size_t parallelRounds = 0; // rounds with more than one call
    std::size_t toolResults = 0;    // one per call (claude-code: one line each)
    std::size_t thinkingBlocks = 0;
    std::size_t compactions = 0; // claude-code compact_boundary + summary pairs
    std::size_t snapshots = 0;   // claude-code file-history-snapshot lines
    std::size_t gaps = 0;        // pauses of more than 5 minutes before a user request
    std::size_t lines = 0;       // claude-code JSONL lines
    std::size_t bytes = 0;
    std::int64_t lastContextTokens = 0; // measured context of the last response
};

// Returns the generated file's bytes; empty with *error set when the format's writer fails.
std::string generate(const Options &options, Stats *stats = nullptr, std::string *error = nullptr);

// The neutral model the non-Claude formats are written from (no buffer, no records; every message
// synthesized). Useful for writer tests.
Transcript generateTranscript(const Options &options, Stats *stats = nullptr);

} // namespace cl::gen
