// SPDX-License-Identifier: MIT
#pragma once

// The session browser's engine: the agent sessions on this machine (Claude Code, Codex CLI, Gemini
// CLI, Qwen Code, GitHub Copilot CLI layouts under a home folder, plus folders the caller adds), one
// summary each, read with a fast
// line scan (simdjson on demand) instead of a full load, and cached by path, size and modification
// time so that a warm scan re-reads only the files that changed.

#include "core/cost/sessioncost.h"
#include "core/llm/pricing.h"
#include "core/model/format.h"
#include "core/model/transcript.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cl::sessions {

enum class Agent : std::uint8_t {
    ClaudeCode,
    Codex,
    Gemini,
    QwenCode,
    Copilot,
    Api, // a raw API history found in an added folder
};
std::string_view agentName(Agent a); // "claude-code", "codex", "gemini", "qwen-code", "copilot", "api"
bool agentFromName(std::string_view name, Agent &out);
Agent agentOf(Format f);
Format formatOf(Agent a); // the session format an agent writes; Unknown for Api

// What one session file says about itself. The figures count the main file only (subagent files
// are counted, not read):
// - messages: Claude Code user lines plus assistant responses (one per message.id); Codex
//   response items (messages, tool calls and outputs, reasoning); Gemini CLI user and model
//   messages still in the record (rewound ones dropped, restated ones once; a checkpoint's
//   history entries); API formats: the loader's turns.
// - peakContext: the largest measured context of one response (input + cache creation + cache
//   read tokens; Claude Code takes each message.id's last line), 0 without usage data.
// - compactions: Claude Code compact_boundary lines, Codex `compacted` lines, Gemini CLI
//   compressions (a "$set" of messages with new ids).
// - usage: the measured usage by model of the session file and its subagent files (read for this
//   alone), counted as contextlens-cli cost counts it (core/cost/sessioncost.h): Claude Code each
//   message.id's last line with usage (core/cost's ResponseFolder), Codex each response's last
//   token_count, Gemini CLI each message still in the record, other formats their loaded messages.
// - cost: usage priced by scan() with ScanOptions::prices, each model by its own entry.

// Measured usage of one model in a session.
struct ModelUsage {
    std::string model;
    std::size_t responses = 0;
    cost::Tokens tokens;
};

// One Claude Code subagent file's share of its session's usage (already counted in Session::usage).
struct SubagentUsage {
    std::string name;              // its file's name without ".jsonl": "agent-a1b2c3"
    std::vector<ModelUsage> usage; // none: it records no usage
    double cost = 0;               // priced like Session::cost
    std::int64_t unpricedTokens = 0;
    std::string description; // what its call asked for (Claude Code's agent-<id>.meta.json); "" when unknown
    std::string startedBy;   // the file name of the subagent that started it; "" when the session did
};

struct Session {
    std::string path;
    Format format = Format::Unknown;
    Agent agent = Agent::Api;
    bool checkpoint = false; // a Gemini CLI `/chat save` checkpoint, not a recorded session
    std::string sessionId;
    std::string project;      // working directory or project root; else the folder the agent keeps it in
    std::string title;        // the agent's title for it (Claude Code custom/AI title, Gemini summary), else firstRequest
    std::string firstRequest; // the first thing the user typed: its first line, truncated
    std::int64_t startMs = kNoTime;
    std::int64_t lastMs = kNoTime; // the last record's timestamp, else the file's modification time
    std::uint64_t bytes = 0;
    std::uint64_t subagentFiles = 0; // Claude Code subagent transcripts of this session
    std::uint64_t subagentBytes = 0;
    std::size_t messages = 0;
    std::int64_t peakContext = 0;
    std::size_t compactions = 0;
    std::string model; // of the last response
    std::int64_t mtimeNs = 0;
    std::vector<ModelUsage> usage;        // none: the files record no usage
    std::vector<SubagentUsage> subagents; // each subagent file read: its part of `usage` and its cost
    double cost = 0;                      // dollars of the models with a price
    std::int64_t unpricedTokens = 0;      // tokens of the models without one
    // Subagent files that could not be read ("path: why"): their usage is missing from `usage`, so
    // the cost is a lower bound; such a session is reported in ScanResult::warnings and not cached.
    std::vector<std::string> unreadSubagents;
    bool hasCost() const { return !usage.empty(); }
    bool costComplete() const { return !usage.empty() && unpricedTokens == 0 && unreadSubagents.empty(); }
};

struct ScanOptions {
    std::string home;                 // the home folder whose agent layouts are scanned; empty: none
    std::vector<std::string> folders; // more folders, walked recursively for any transcript file
    std::string cachePath;            // the cache file; empty: no cache
    // Prices for Session::cost; null: the shipped table and the user's file (PriceTable::load).
    // Applied at every scan (the cache keeps tokens, not dollars), so an edited table counts at once.
    const llm::PriceTable *prices = nullptr;
};

struct ScanStats {
    std::size_t files = 0;     // session and subagent candidate files found
    std::size_t parsed = 0;    // read and scanned in this run
    std::size_t fromCache = 0; // taken from the cache unchanged
    std::vector<std::string> parsedPaths;
};

struct ScanResult {
    std::vector<Session> sessions; // sorted by path
    ScanStats stats;
    // Unreadable files, sessions whose subagent files could not be read, bad price entries, a cache
    // that could not be read or written, or whose entries were not valid.
    std::vector<std::string> warnings;
};

ScanResult scan(const ScanOptions &options);

// The default cache file: $XDG_CACHE_HOME/contextlens/sessions.json, else $HOME/.cache/...; empty
// when neither variable is set.
std::string defaultCachePath();

// ---- Selection, for the CLI and the browser ----------------------------------------------------

enum class SortKey : std::uint8_t {
    Last, // newest activity first
    Start,
    Size,
    Peak,
    Messages,
    Cost,
};
bool sortKeyFromName(std::string_view name, SortKey &out);

struct Filter {
    bool anyAgent = true;
    Agent agent = Agent::ClaudeCode;
    std::string project; // a substring of the project, case-insensitive; empty: any
};
std::vector<Session> select(const std::vector<Session> &sessions, const Filter &filter);
// Largest first (newest for times), ties by path; sessions without the figure last.
void sortSessions(std::vector<Session> &sessions, SortKey key);

struct ProjectGroup {
    std::string project;
    std::vector<const Session *> sessions; // in the order given
};
// Groups in the order of each project's first session in `sorted`.
std::vector<ProjectGroup> groupByProject(const std::vector<Session> &sorted);

} // namespace cl::sessions
