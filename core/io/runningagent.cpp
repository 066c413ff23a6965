// SPDX-License-Identifier: MIT
#include "core/io/runningagent.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include <cerrno>
#include <csignal>
#include <sys/stat.h>
#include <unistd.h>

namespace cl::running {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kHintBytes = 256 * 1024;

// A regular file's first `cap` bytes; "" when it is not a regular file or cannot be read.
std::string readSmall(const std::string &path, std::size_t cap)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        return {};
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return {};
    std::string out(cap, '\0');
    in.read(out.data(), std::streamsize(cap));
    out.resize(std::size_t(in.gcount()));
    return out;
}

// /proc files report a size of 0: read them to the end (capped).
std::string readProc(const std::string &path, std::size_t cap = 64 * 1024)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return {};
    std::string out(cap, '\0');
    in.read(out.data(), std::streamsize(cap));
    out.resize(std::size_t(in.gcount()));
    return out;
}

std::string readLink(const std::string &path)
{
    char buf[4096];
    const ssize_t n = ::readlink(path.c_str(), buf, sizeof buf);
    return n > 0 ? std::string(buf, std::size_t(n)) : std::string();
}

std::string canonical(const std::string &path)
{
    if (path.empty())
        return {};
    std::error_code ec;
    const fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
    return ec ? path : p.string();
}

std::string baseName(std::string_view s)
{
    const std::size_t slash = s.rfind('/');
    return std::string(slash == std::string_view::npos ? s : s.substr(slash + 1));
}

// The agent a command line runs: its program, or the script node / bun runs.
std::string agentOfCommand(const std::vector<std::string> &argv)
{
    auto classify = [](const std::string &arg) -> std::string {
        const std::string base = baseName(arg);
        if (base == "claude" || arg.find("@anthropic-ai/claude-code") != std::string::npos)
            return "Claude Code";
        if (base == "codex" || base == "codex.js" || arg.find("@openai/codex") != std::string::npos)
            return "Codex";
        if (base == "gemini" || arg.find("@google/gemini-cli") != std::string::npos)
            return "Gemini CLI";
        if (base == "qwen" || arg.find("@qwen-code/qwen-code") != std::string::npos)
            return "Qwen Code";
        if (base == "copilot" || arg.find("@github/copilot") != std::string::npos)
            return "Copilot CLI";
        return {};
    };
    if (argv.empty())
        return {};
    if (std::string a = classify(argv[0]); !a.empty())
        return a;
    const std::string runner = baseName(argv[0]);
    if ((runner == "node" || runner == "nodejs" || runner == "bun") && argv.size() > 1)
        return classify(argv[1]);
    return {};
}

std::string agentOfFormat(Format f)
{
    switch (f) {
    case Format::ClaudeCode:
        return "Claude Code";
    case Format::Codex:
        return "Codex";
    case Format::GeminiCli:
        return "Gemini CLI";
    case Format::QwenCode:
        return "Qwen Code";
    case Format::CopilotCli:
        return "Copilot CLI";
    default:
        return {};
    }
}

// A file a session could be (not a device, pipe, socket or the process's own libraries).
bool interestingPath(const std::string &p)
{
    auto starts = [&](std::string_view s) { return p.compare(0, s.size(), s) == 0; };
    return !p.empty() && p.front() == '/' && !starts("/dev/") && !starts("/proc/") && !starts("/sys/")
           && !starts("/usr/lib") && !starts("/lib");
}

bool isOpenForWriting(const std::string &fdinfo)
{
    std::istringstream in(fdinfo);
    std::string key;
    while (in >> key) {
        if (key == "flags:") {
            std::string octal;
            in >> octal;
            const unsigned long flags = std::strtoul(octal.c_str(), nullptr, 8);
            return (flags & 3) != 0; // O_WRONLY or O_RDWR
        }
    }
    return false;
}

std::uint64_t startTicksOf(const std::string &stat)
{
    const std::size_t close = stat.rfind(')');
    if (close == std::string::npos)
        return 0;
    std::istringstream in(stat.substr(close + 1));
    std::string field;
    for (int k = 3; k <= 22 && (in >> field); ++k)
        if (k == 22)
            return std::strtoull(field.c_str(), nullptr, 10);
    return 0;
}

int parentOf(const std::string &stat)
{
    const std::size_t close = stat.rfind(')');
    if (close == std::string::npos)
        return 0;
    std::istringstream in(stat.substr(close + 1));
    std::string state;
    int ppid = 0;
    in >> state >> ppid;
    return ppid;
}

// $ENV when set, else $HOME/<under>.
std::string defaultHome(const char *envVar, const std::string &under)
{
    if (envVar)
        if (const char *v = std::getenv(envVar); v && *v)
            return v;
    const char *home = std::getenv("HOME");
    return (fs::path(home && *home ? home : ".") / under).string();
}

// An agent's home for a session file: the one given, else the one the path lies in
// (".../<dotDir>/<sessionsDir>/..."), else $envVar or ~/<dotDir>.
std::string agentHomeFor(const std::string &path, const std::string &given, const std::string &dotDir,
                         const char *sessionsDir, const char *envVar)
{
    if (!given.empty())
        return given;
    const std::string marker = "/" + dotDir + "/" + sessionsDir + "/";
    if (const std::size_t at = path.find(marker); at != std::string::npos)
        return path.substr(0, at) + "/" + dotDir;
    return defaultHome(envVar, dotDir);
}

std::string claudeHomeFor(const std::string &path, const Options &o)
{
    return agentHomeFor(path, o.claudeHome, ".claude", "projects", "CLAUDE_CONFIG_DIR");
}

std::string codexHomeFor(const std::string &path, const Options &o)
{
    return agentHomeFor(path, o.codexHome, ".codex", "sessions", "CODEX_HOME");
}

// The uuid at the end of a Codex rollout's name ("rollout-<stamp>-<uuid>.jsonl").
std::string codexIdFromName(const std::string &path)
{
    std::string stem = fs::path(path).stem().string();
    return stem.size() >= 36 ? stem.substr(stem.size() - 36) : std::string();
}

const Snapshot::Process *processOf(const Snapshot &s, int pid)
{
    for (const auto &p : s.processes)
        if (p.pid == pid)
            return &p;
    return nullptr;
}

// The process has the file open for writing (its fdinfo flags: O_WRONLY or O_RDWR).
bool holds(const Snapshot::Process &p, const std::string &canonicalPath)
{
    for (const auto &[target, fdinfo] : p.open)
        if (target == canonicalPath && isOpenForWriting(readProc(fdinfo, 4096)))
            return true;
    return false;
}

struct ClaudeRecord {
    int pid = 0;
    std::string sessionId, cwd, file;
    std::uint64_t procStart = 0;
};

std::vector<ClaudeRecord> claudeRecords(const std::string &claudeHome)
{
    std::vector<ClaudeRecord> out;
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(fs::path(claudeHome) / "sessions", ec)) {
        // "<pid>.json" only: the "<pid>.<hash>.key" beside it is a peer token, never read.
        const std::string name = e.path().filename().string();
        if (e.path().extension() != ".json" || name.find('.') != name.rfind('.'))
            continue;
        const nlohmann::json j = nlohmann::json::parse(readSmall(e.path().string(), 64 * 1024), nullptr, false);
        if (!j.is_object() || !j.contains("pid") || !j["pid"].is_number_integer())
            continue;
        ClaudeRecord r;
        r.pid = j["pid"].get<int>();
        r.file = e.path().string();
        if (j.contains("sessionId") && j["sessionId"].is_string())
            r.sessionId = j["sessionId"].get<std::string>();
        if (j.contains("cwd") && j["cwd"].is_string())
            r.cwd = j["cwd"].get<std::string>();
        if (j.contains("procStart") && j["procStart"].is_string())
            r.procStart = std::strtoull(j["procStart"].get<std::string>().c_str(), nullptr, 10);
        out.push_back(std::move(r));
    }
    return out;
}

// Alive, and (where the record says when it started) the same process, not a reused pid.
bool alive(const Snapshot &s, int pid, std::uint64_t procStart)
{
    if (pid <= 0)
        return false;
    if (const Snapshot::Process *p = processOf(s, pid))
        return procStart == 0 || p->startTicks == 0 || p->startTicks == procStart;
#ifdef __linux__
    return false; // /proc was read: a pid it does not list is gone
#else
    return ::kill(pid, 0) == 0 || errno == EPERM;
#endif
}

SessionHint hintFromBytes(const std::string &path, std::string_view bytes, Format format)
{
    SessionHint h;
    h.path = path;
    h.format = format;
    std::size_t pos = 0;
    for (int lines = 0; pos < bytes.size() && lines < 200; ++lines) {
        std::size_t nl = bytes.find('\n', pos);
        if (nl == std::string_view::npos)
            nl = bytes.size();
        const std::string_view line = bytes.substr(pos, nl - pos);
        pos = nl + 1;
        if (line.empty() || line.front() != '{')
            continue;
        const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
        if (!j.is_object())
            continue;
        auto str = [](const nlohmann::json &o, const char *key) {
            return o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : std::string();
        };
        if (str(j, "type") == "session_meta" && j.contains("payload") && j["payload"].is_object()) {
            h.format = Format::Codex;
            h.sessionId = str(j["payload"], "id");
            h.folder = str(j["payload"], "cwd");
            break;
        }
        if (str(j, "type") == "session.start" && j.contains("data") && j["data"].is_object()) {
            const nlohmann::json &d = j["data"];
            h.format = Format::CopilotCli; // ~/.copilot/session-state/<id>/events.jsonl
            h.sessionId = str(d, "sessionId");
            if (d.contains("context") && d["context"].is_object())
                h.folder = str(d["context"], "cwd");
            break;
        }
        if (j.contains("projectHash") && !str(j, "sessionId").empty()) {
            h.format = Format::GeminiCli;
            h.sessionId = str(j, "sessionId");
            break;
        }
        if (!str(j, "sessionId").empty() && !str(j, "cwd").empty()) {
            const bool qwen = j.contains("provenance") || j.contains("systemPayload")
                              || (j.contains("message") && j["message"].is_object() && j["message"].contains("parts"));
            if (h.format == Format::Unknown)
                h.format = qwen ? Format::QwenCode : Format::ClaudeCode;
            h.sessionId = str(j, "sessionId");
            h.folder = str(j, "cwd");
            break;
        }
    }
    if (h.format == Format::Codex && h.sessionId.empty())
        h.sessionId = codexIdFromName(path);
    if (h.format == Format::GeminiCli && h.folder.empty()) {
        // ~/.gemini/tmp/<project>/chats/session-*.jsonl: the project's folder is in <project>/.project_root.
        const fs::path project = fs::path(path).parent_path().parent_path();
        std::string root = readSmall((project / ".project_root").string(), 8192);
        while (!root.empty() && (root.back() == '\n' || root.back() == '\r'))
            root.pop_back();
        h.folder = root;
    }
    return h;
}

} // namespace

SessionHint hintFromFile(const std::string &path)
{
    return hintFromBytes(path, readSmall(path, kHintBytes), Format::Unknown);
}

SessionHint hintFromTranscript(const Transcript &t)
{
    std::string_view bytes = t.buffer ? std::string_view(*t.buffer) : std::string_view();
    if (bytes.size() > kHintBytes)
        bytes = bytes.substr(0, kHintBytes);
    SessionHint h = hintFromBytes(t.path, bytes, t.format);
    h.format = t.format;
    return h;
}

Snapshot takeSnapshot(const Options &options)
{
    Snapshot s;
    s.procRoot = options.procRoot;
    const int self = options.ignorePid == -1 ? int(::getpid()) : options.ignorePid;
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(options.procRoot, ec)) {
        const std::string name = e.path().filename().string();
        if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; }))
            continue;
        const int pid = std::atoi(name.c_str());
        if (pid == self)
            continue;
        const std::string dir = e.path().string();
        Snapshot::Process p;
        p.pid = pid;
        std::string comm = readProc(dir + "/comm", 256);
        while (!comm.empty() && comm.back() == '\n')
            comm.pop_back();
        p.name = comm;
        const std::string stat = readProc(dir + "/stat", 4096);
        p.startTicks = startTicksOf(stat);
        p.parentPid = parentOf(stat);
        std::vector<std::string> argv;
        const std::string cmdline = readProc(dir + "/cmdline", 8192);
        for (std::size_t at = 0; at < cmdline.size();) {
            const std::size_t end = cmdline.find('\0', at);
            argv.push_back(cmdline.substr(at, end == std::string::npos ? std::string::npos : end - at));
            at = end == std::string::npos ? cmdline.size() : end + 1;
        }
        p.agent = agentOfCommand(argv);
        // Its open files: a readlink per descriptor; the flags are read later, only for a file that matters.
        std::error_code fdEc;
        for (const auto &fd : fs::directory_iterator(dir + "/fd", fdEc)) {
            std::string target = readLink(fd.path().string());
            if (interestingPath(target))
                p.open.emplace_back(std::move(target), dir + "/fdinfo/" + fd.path().filename().string());
        }
        if (p.agent.empty() && p.open.empty())
            continue;
        p.cwd = readLink(dir + "/cwd");
        s.processes.push_back(std::move(p));
    }
    return s;
}

std::optional<RunningAgent> find(const SessionHint &session, const Snapshot &snapshot, const Options &options)
{
    const std::string path = canonical(session.path);
    const std::string wanted = agentOfFormat(session.format);
    // 1. Open for writing.
    for (const auto &p : snapshot.processes)
        if (holds(p, path))
            return RunningAgent{p.agent.empty() ? p.name : p.agent, p.pid, "it has the file open for writing"};

    // Processes known to run another session: not this one's, whatever folder they work in.
    std::vector<int> elsewhere;
    // 2. The agents' records.
    if (session.format == Format::ClaudeCode || session.format == Format::Unknown) {
        for (const ClaudeRecord &r : claudeRecords(claudeHomeFor(path, options))) {
            if (!alive(snapshot, r.pid, r.procStart))
                continue;
            if (!session.sessionId.empty() && r.sessionId == session.sessionId)
                return RunningAgent{"Claude Code", r.pid, "its running-session record " + r.file};
            elsewhere.push_back(r.pid);
        }
    }
    if (session.format == Format::Codex || session.format == Format::Unknown) {
        const std::string locks = codexHomeFor(path, options) + "/thread-writer-locks/";
        const std::string id = session.sessionId.empty() ? codexIdFromName(path) : session.sessionId;
        const std::string lock = canonical(locks + id + ".lock");
        for (const auto &p : snapshot.processes) {
            bool other = false;
            for (const auto &[open, fdinfo] : p.open) {
                if (!id.empty() && open == lock)
                    return RunningAgent{p.agent.empty() ? "Codex" : p.agent, p.pid, "it holds the session's lock " + lock};
                const bool rollout = open.find("/sessions/") != std::string::npos
                                     && baseName(open).rfind("rollout-", 0) == 0;
                if ((rollout && open != path) || open.find("/thread-writer-locks/") != std::string::npos)
                    other = true;
            }
            if (other && p.agent == "Codex")
                elsewhere.push_back(p.pid);
        }
    }
    // 3. An agent working in the session's folder (the one that wrote it), unless it runs another session.
    if (session.folder.empty())
        return std::nullopt;
    const std::string folder = canonical(session.folder);
    auto excluded = [&](const Snapshot::Process &p) {
        for (int other : elsewhere) {
            if (p.pid == other || p.parentPid == other)
                return true;
            if (const Snapshot::Process *o = processOf(snapshot, other); o && o->parentPid == p.pid)
                return true; // the node launcher of a native agent that runs another session
        }
        return false;
    };
    for (const auto &p : snapshot.processes) {
        if (p.agent.empty() || (!wanted.empty() && p.agent != wanted) || p.cwd.empty() || excluded(p))
            continue;
        if (canonical(p.cwd) == folder)
            return RunningAgent{p.agent, p.pid, "it works in this session's folder " + session.folder};
    }
    return std::nullopt;
}

std::optional<RunningAgent> find(const std::string &path, const Options &options)
{
    return find(hintFromFile(path), takeSnapshot(options), options);
}

std::optional<RunningAgent> writerOf(const std::string &path, const Options &options)
{
    const std::string target = canonical(path);
    for (const auto &p : takeSnapshot(options).processes)
        if (holds(p, target))
            return RunningAgent{p.agent.empty() ? p.name : p.agent, p.pid, "it has the file open for writing"};
    return std::nullopt;
}

std::string refusal(const RunningAgent &a, const std::string &then)
{
    const std::string who = a.agent + " (pid " + std::to_string(a.pid) + ")";
    return who + " is running this session (" + a.evidence + "): quit " + who + ", then " + then;
}

} // namespace cl::running
