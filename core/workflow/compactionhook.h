// SPDX-License-Identifier: MIT
#pragma once

// The agents' compaction hooks (docs/design/inside-agents.md): Claude Code and Codex run a command on
// PreCompact and PostCompact, Gemini CLI on PreCompress, each with the session's transcript path on
// standard input. Before: the transcript is copied into ContextLens's backups (core/io/backups.h),
// with the live context it held then, so the exact state the agent summarised is kept even where the
// agent rewrites its file. After (PostCompact; Claude Code hands the summary over, Codex's is read
// from its file): which facts of that state the summary kept and which it dropped. Each is one line of `compactions.jsonl` in the
// session's backups folder; the audit links them to the compactions of the session.

#include "core/llm/answer.h"
#include "core/strategy/strategy.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cl::compactionhook {

// What the agent hands its hook command.
struct Event {
    std::string name; // hook_event_name: "PreCompact", "PreCompress", "PostCompact"
    std::string sessionId;
    std::string transcriptPath;
    std::string cwd;
    std::string trigger;      // "manual" / "auto"
    std::string instructions; // custom_instructions (Claude Code /compact ARGS)
    std::string summary;      // compact_summary (PostCompact)
    bool before() const { return name == "PreCompact" || name == "PreCompress"; }
    bool after() const { return name == "PostCompact"; }
};
// False with why when the input is no JSON object, names no transcript, or is no compaction event.
bool parseEvent(std::string_view text, Event &out, std::string &error);

struct Record {
    enum class Kind : std::uint8_t {
        Before,
        After
    };
    Kind kind = Kind::Before;
    std::string event; // the hook's name
    std::string stamp; // UTC, as the backups name copies: "20261201T014002.123Z"
    std::int64_t timeMs = 0;
    std::string sessionId, trigger, instructions;
    // Before: the copy made, the transcript's size, and its live context then (the one figure).
    std::string snapshot;
    std::uint64_t bytes = 0;
    std::int64_t liveTokens = 0;
    std::size_t liveMessages = 0;
    // After: the summary, and the facts of the snapshot taken before (`snapshot` names it) it kept
    // and dropped. factsChecked false: no snapshot of this compaction to check against.
    std::string summary;
    bool factsChecked = false;
    std::size_t factsKept = 0;
    std::vector<strategy::Fact> dropped; // sources: message indices of the snapshot
};

// Runs the hook: snapshot (before) or fact check (after), then appends its record. `root`: the
// backups root (backups::defaultRoot()). False with why; a hook never stops the agent's compaction.
bool handle(const Event &e, const std::string &root, Record &out, std::string &error);

// The records of a transcript, oldest first (none when there are none).
std::vector<Record> records(const std::string &root, const std::string &transcriptPath);

// The file the records of `transcriptPath` go to.
std::string recordsFile(const std::string &root, const std::string &transcriptPath);

// A record as compactions.jsonl holds it (and `contextlens-cli hook --json` prints it).
nlohmann::json recordJson(const Record &r);

// The facts of a snapshot copy (every message of it, as the audit collects them) that `text` kept and
// dropped; none when the copy cannot be loaded.
std::optional<llm::Retention> snapshotFacts(const std::string &copy, const std::string &text);

} // namespace cl::compactionhook
