// SPDX-License-Identifier: MIT
#pragma once

// Internals of the session scan, shared by the core/sessions/*.cpp files: where the candidate files
// come from (discover.cpp), what reads one (filescanner.cpp and the scan_<agent>.cpp files), the
// cache (cache.cpp) and the text rules for titles (text.cpp).

#include "core/sessions/sessions.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cl::sessions::detail {

// Where a candidate file was found; it decides how the file is read and what its project is.
enum class Origin : std::uint8_t {
    ClaudeProjects,   // HOME/.claude/projects/<slug>/*.jsonl
    CodexSessions,    // HOME/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl
    GeminiChat,       // HOME/.gemini/tmp/<project>/chats/session-*.json(l)
    GeminiCheckpoint, // HOME/.gemini/tmp/<project>/checkpoint-*.json
    QwenProjects,     // HOME/.qwen/projects/<cwd with / as ->/chats/*.jsonl
    CopilotSessions,  // HOME/.copilot/session-state/<sessionId>/events.jsonl
    Folder,           // a folder the caller added: any format the detection recognises
};

struct Candidate {
    std::string path;
    Origin origin = Origin::Folder;
    std::string projectHint; // the project when the file does not name one
    std::uint64_t size = 0;
    std::int64_t mtimeNs = 0;
    bool agentFile = false;          // Claude Code agent-*.jsonl: attached to its session when it is beside it
    std::uint64_t subagentFiles = 0; // <dir>/<stem>/subagents/*.jsonl of a Claude Code session
    std::uint64_t subagentBytes = 0;
    std::vector<std::string> subagentPaths; // those files, read for their usage alone
};

// Every candidate under the home layouts and the folders, each path once (the home layouts first),
// sorted by path within each source.
std::vector<Candidate> discover(const ScanOptions &options, std::vector<std::string> &warnings);

// Reads files and fills what they say about themselves (the fields the cache keeps). One per
// thread: it keeps a parser and a buffer between files.
class FileScanner
{
public:
    FileScanner();
    ~FileScanner();
    FileScanner(const FileScanner &) = delete;
    FileScanner &operator=(const FileScanner &) = delete;
    // False with why when the file cannot be read; a file that is no transcript gives format Unknown.
    bool scan(const Candidate &c, Session &out, std::string &why);

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

// ---- Cache -------------------------------------------------------------------------------------

struct CacheEntry {
    std::uint64_t size = 0;
    std::int64_t mtimeNs = 0;
    // The subagent files read with it: another count or size reads the session again.
    std::uint64_t subagentFiles = 0;
    std::uint64_t subagentBytes = 0;
    Session facts; // the fields FileScanner fills
};
// Path -> entry; empty (with a warning unless the file is absent) when it cannot be read or is of
// another version.
std::vector<std::pair<std::string, CacheEntry>> loadCache(const std::string &path, std::vector<std::string> &warnings);
bool saveCache(const std::string &path, const std::vector<std::pair<std::string, CacheEntry>> &entries, std::string &error);

// ---- Usage --------------------------------------------------------------------------------------

// Adds one model's tokens (responses of it) to a usage list, in order of first appearance.
void addUsage(std::vector<ModelUsage> &usage, std::string_view model, const cost::Tokens &tokens, std::size_t responses = 1);
// A subagent file's name for SubagentUsage: its file name without ".jsonl".
std::string subagentName(std::string_view path);
// A subagent file's part of its session: name, usage, and what the meta file Claude Code writes
// beside it (agent-<id>.meta.json) says: its description and the subagent that started it.
SubagentUsage subagentUsage(const std::string &path, std::vector<ModelUsage> usage);
// The usage of folded responses, by model; Claude Code's "<synthetic>" responses (no model call) left out.
std::vector<ModelUsage> usageByModel(const cost::SessionUsage &usage);

// ---- Text rules --------------------------------------------------------------------------------

constexpr std::size_t kTitleChars = 100;
// The first non-blank line of text, at most kTitleChars characters (an ellipsis marks a cut).
std::string firstLine(std::string_view text);
// A user text the agent wrote, not the user (command wrappers, reminders, setup context): empty.
// A slash command wrapper becomes "/name args". Otherwise the text itself.
std::string typedRequest(std::string_view text);

} // namespace cl::sessions::detail
