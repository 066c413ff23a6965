// SPDX-License-Identifier: MIT
#pragma once

// Puts ContextLens inside an agent: its status line and its compaction hooks in the agent's own
// settings file (Claude Code ~/.claude/settings.json: statusLine, hooks.PreCompact and
// hooks.PostCompact; Gemini CLI ~/.gemini/settings.json: hooks.PreCompress). The file is merged,
// never replaced: every other key stays, a hook already there is not added twice, and a status line
// that runs something else is left alone unless `replaceStatusLine`. A file that exists is backed up
// first (core/io/backups.h) and written atomically; `dryRun` writes nothing.

#include <cstdint>
#include <string>
#include <vector>

namespace cl::agentsettings {

enum class Agent : std::uint8_t {
    ClaudeCode,
    GeminiCli,
    QwenCode // ~/.qwen/settings.json: hooks.PreCompact and hooks.PostCompact (Claude Code's events)
};

struct Request {
    Agent agent = Agent::ClaudeCode;
    std::string settingsFile; // the agent's settings.json
    std::string command;      // how the agent runs contextlens-cli (its absolute path, quoted as needed)
    bool statusLine = true;   // Claude Code only
    bool hooks = true;
    bool replaceStatusLine = false;
    bool dryRun = false;
    std::string backupsRoot; // backups::defaultRoot() when empty
};

struct Outcome {
    std::vector<std::string> added;   // "statusLine", "hooks.PreCompact", ...
    std::vector<std::string> kept;    // already there as asked
    std::vector<std::string> refused; // "statusLine: runs 'X'; --replace-status-line to use ContextLens"
    std::string backup;               // the copy made of the file before writing ("" when none)
    std::string text;                 // the settings as written (or as they would be, dry run)
    bool written = false;
};

// False with why when the file exists but is no JSON object, or cannot be backed up or written.
bool install(const Request &r, Outcome &out, std::string &error);

// A program's path as a shell command word (quoted when it holds spaces or shell characters).
std::string commandFor(const std::string &program);

// The settings file an agent reads under a home folder.
std::string settingsFileOf(Agent a, const std::string &home);

} // namespace cl::agentsettings
