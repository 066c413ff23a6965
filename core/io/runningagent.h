// SPDX-License-Identifier: MIT
#pragma once

// Which agent is running a session right now (docs/design/saving.md, "A running agent"). ContextLens
// never writes over a session file an agent is running: the agent would write the rest of its turn
// into the replaced file (Codex keeps its rollout open), or continue from the history it holds in
// memory (Claude Code), and the save would be lost or silently undone.
//
// Three kinds of evidence, strongest first:
// 1. a process that has the file open for writing (Linux: /proc/PID/fd and fdinfo);
// 2. the records the agents keep while they run: Claude Code 2.1 `~/.claude/sessions/<pid>.json`
//    (pid, sessionId, cwd, procStart), Codex 0.169 `~/.codex/thread-writer-locks/<session id>.lock`
//    (held open by the Codex process while it runs, removed when it exits); Gemini CLI 0.61 keeps
//    none;
// 3. an agent process (claude, codex, gemini: native or under node, from /proc/PID/cmdline) whose
//    working folder is the session's folder, unless what it records says it runs another session.
// Other platforms: only the records are read (with kill(pid, 0) for "still alive"); see saving.md.

#include "core/model/transcript.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cl::running {

// What is known of a session: where it is and what it says about itself.
struct SessionHint {
    std::string path;
    Format format = Format::Unknown; // Unknown: any agent
    std::string sessionId;           // Claude Code sessionId, Codex session_meta id, Gemini CLI sessionId
    std::string folder;              // the working folder (cwd) the session records
};
// Reads the start of the file (at most 256 KB) for its session id and folder; the format from what it finds.
SessionHint hintFromFile(const std::string &path);
// The same from a loaded transcript (its lines as read).
SessionHint hintFromTranscript(const Transcript &t);

struct RunningAgent {
    std::string agent; // "Claude Code", "Codex", "Gemini CLI", or the process's own name
    int pid = 0;
    std::string evidence; // "it has the file open", "its running-session record ~/.claude/sessions/123.json", ...
};

// The processes worth knowing about, read once (/proc is walked once for all sessions to check).
struct Snapshot {
    struct Process {
        int pid = 0;
        int parentPid = 0;
        std::string name;  // comm
        std::string agent; // "" when not an agent
        std::string cwd;
        // The files it has open: (path, its /proc/PID/fdinfo/N, read only for a path that matters).
        std::vector<std::pair<std::string, std::string>> open;
        std::uint64_t startTicks = 0; // /proc/PID/stat field 22
    };
    std::vector<Process> processes;
    std::string procRoot;
};

struct Options {
    std::string procRoot = "/proc"; // tests point this at a fake tree
    int ignorePid = -1;             // -1: this process
    // The agents' own folders: empty means derived from the session's path (…/.claude/projects/… ->
    // …/.claude), else $HOME/.claude, $CODEX_HOME or $HOME/.codex.
    std::string claudeHome;
    std::string codexHome;
};

Snapshot takeSnapshot(const Options &options = {});
// The agent running the session, if any.
std::optional<RunningAgent> find(const SessionHint &session, const Snapshot &snapshot, const Options &options = {});
// Shorthand: a fresh snapshot, the hint read from the file.
std::optional<RunningAgent> find(const std::string &path, const Options &options = {});
// Any process (other than this one) that has the file open for writing, from a fresh look at /proc.
std::optional<RunningAgent> writerOf(const std::string &path, const Options &options = {});

// "Codex (pid 1234) is running this session (it has the file open): quit Codex (pid 1234), then save again."
std::string refusal(const RunningAgent &a, const std::string &then = "save again");

} // namespace cl::running
