// SPDX-License-Identifier: MIT
// Where the agents keep their sessions (docs/design/formats.md), and the folders the caller adds:
// the candidate files with their size and modification time, nothing read yet except the small
// files that name a Gemini CLI project's folder.
#include "core/sessions/internal.h"

#include "core/util/json.h"
#include "core/util/regularfile.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sys/stat.h>

namespace cl::sessions::detail {

namespace fs = std::filesystem;

namespace {

bool startsWith(std::string_view s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }
// Size and modification time of a regular file; false for anything else.
bool statFile(const std::string &path, std::uint64_t &size, std::int64_t &mtimeNs)
{
    struct stat st = {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    size = std::uint64_t(st.st_size);
    mtimeNs = std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    return true;
}

// The entries of a folder, sorted by name; none when it is missing or unreadable.
std::vector<fs::directory_entry> entries(const fs::path &dir)
{
    std::vector<fs::directory_entry> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end; it.increment(ec))
        out.push_back(*it);
    std::sort(out.begin(), out.end(), [](const auto &a, const auto &b) { return a.path() < b.path(); });
    return out;
}

bool isDir(const fs::directory_entry &e)
{
    std::error_code ec;
    return e.is_directory(ec);
}

// A .project_root holds one path; ~/.gemini/projects.json one line per project.
constexpr std::size_t kProjectRootBytes = 64 * 1024;
constexpr std::size_t kProjectsJsonBytes = std::size_t(8) << 20;

// The text of a small file that names a project; "" when it is missing, is no regular file (a FIFO
// would block, /dev/zero never end) or is larger than the cap: the warning says which.
std::string readSmallFile(const fs::path &path, std::size_t maxBytes, std::vector<std::string> &warnings)
{
    std::string text;
    const util::ReadResult r = util::readRegularFile(path.string(), text, maxBytes);
    if (!r.ok()) {
        if (r.status != util::ReadStatus::Missing)
            warnings.push_back(path.string() + ": " + r.why + "; not read");
        return {};
    }
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
        text.pop_back();
    return text;
}

class Collector
{
public:
    explicit Collector(std::vector<Candidate> &out)
        : m_out(out)
    {}

    // Adds a regular file once; returns the candidate or null.
    Candidate *add(const fs::path &path, Origin origin, std::string projectHint)
    {
        Candidate c;
        c.path = path.lexically_normal().string();
        if (m_seen.count(c.path) || !statFile(c.path, c.size, c.mtimeNs))
            return nullptr;
        m_seen.insert(c.path);
        c.origin = origin;
        c.projectHint = std::move(projectHint);
        m_out.push_back(std::move(c));
        return &m_out.back();
    }

private:
    std::vector<Candidate> &m_out;
    std::set<std::string> m_seen;
};

// A Claude Code transcript: agent-*.jsonl files are subagents; a session's own subagents live in
// <dir>/<stem>/subagents/ and are counted with it (read for their usage), never listed.
void claudeFile(Collector &collect, const fs::path &file, Origin origin, const std::string &hint)
{
    Candidate *c = collect.add(file, origin, hint);
    if (!c)
        return;
    c->agentFile = startsWith(file.filename().string(), "agent-");
    for (const auto &e : entries(file.parent_path() / file.stem() / "subagents")) {
        std::uint64_t size = 0;
        std::int64_t mtime = 0;
        if (std::string_view(e.path().filename().string()).ends_with(".jsonl") && statFile(e.path().string(), size, mtime)) {
            ++c->subagentFiles;
            c->subagentBytes += size;
            c->subagentPaths.push_back(e.path().lexically_normal().string());
        }
    }
}

void claudeProjects(Collector &collect, const fs::path &root)
{
    for (const auto &project : entries(root))
        if (isDir(project))
            for (const auto &e : entries(project.path()))
                if (e.path().extension() == ".jsonl")
                    claudeFile(collect, e.path(), Origin::ClaudeProjects, project.path().filename().string());
}

void codexSessions(Collector &collect, const fs::path &root)
{
    // YYYY/MM/DD/rollout-*.jsonl
    for (const auto &year : entries(root))
        for (const auto &month : isDir(year) ? entries(year.path()) : std::vector<fs::directory_entry>())
            for (const auto &day : isDir(month) ? entries(month.path()) : std::vector<fs::directory_entry>())
                for (const auto &e : isDir(day) ? entries(day.path()) : std::vector<fs::directory_entry>()) {
                    const std::string name = e.path().filename().string();
                    if (startsWith(name, "rollout-") && std::string_view(name).ends_with(".jsonl"))
                        collect.add(e.path(), Origin::CodexSessions, {});
                }
}

// ~/.copilot/session-state/<sessionId>/events.jsonl; the folder also holds workspace.yaml,
// checkpoints/ and rewind-file-snapshots/, which are not transcripts.
void copilotSessions(Collector &collect, const fs::path &root)
{
    for (const auto &session : entries(root))
        if (isDir(session))
            collect.add(session.path() / "events.jsonl", Origin::CopilotSessions, {});
}

// Gemini CLI names a project's folder by a hash of its path (older) or a short name; the folder's
// .project_root, or ~/.gemini/projects.json, says which path it stands for.
std::map<std::string, std::string> geminiProjectNames(const fs::path &geminiDir, std::vector<std::string> &warnings)
{
    std::map<std::string, std::string> names; // folder name -> project path
    const std::string text = readSmallFile(geminiDir / "projects.json", kProjectsJsonBytes, warnings);
    json::json doc;
    std::string error;
    if (text.empty() || json::parse(text, doc, error) == json::ParseStatus::Failed)
        return names;
    if (const json::json *projects = json::object(doc, "projects"))
        for (auto it = projects->begin(); it != projects->end(); ++it)
            if (it.value().is_string())
                names[it.value().get<std::string>()] = it.key();
    return names;
}

void geminiTmp(Collector &collect, const fs::path &geminiDir, std::vector<std::string> &warnings)
{
    const auto names = geminiProjectNames(geminiDir, warnings);
    for (const auto &project : entries(geminiDir / "tmp")) {
        if (!isDir(project) || project.path().filename() == "bin")
            continue;
        const std::string name = project.path().filename().string();
        std::string hint = readSmallFile(project.path() / ".project_root", kProjectRootBytes, warnings);
        if (hint.empty())
            if (const auto it = names.find(name); it != names.end())
                hint = it->second;
        if (hint.empty())
            hint = name;
        for (const auto &e : entries(project.path() / "chats")) {
            const std::string file = e.path().filename().string();
            if (startsWith(file, "session-") && (std::string_view(file).ends_with(".json") || std::string_view(file).ends_with(".jsonl")))
                collect.add(e.path(), Origin::GeminiChat, hint);
        }
        for (const auto &e : entries(project.path())) {
            const std::string file = e.path().filename().string();
            if (startsWith(file, "checkpoint-") && std::string_view(file).ends_with(".json"))
                collect.add(e.path(), Origin::GeminiCheckpoint, hint);
        }
    }
}

// Qwen Code names a project's folder after its path ("/" and other separators as "-"); the records
// name the path itself (cwd), which the scan takes.
void qwenProjects(Collector &collect, const fs::path &root)
{
    for (const auto &project : entries(root))
        if (isDir(project))
            for (const auto &e : entries(project.path() / "chats"))
                if (e.path().extension() == ".jsonl")
                    collect.add(e.path(), Origin::QwenProjects, project.path().filename().string());
}

// Any .jsonl / .json file of an added folder, at any depth; subagent files stay with their session.
void folder(Collector &collect, const fs::path &root, std::vector<std::string> &warnings)
{
    std::vector<fs::path> files;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code fileEc;
        if (!it->is_regular_file(fileEc))
            continue;
        const fs::path &p = it->path();
        const std::string name = p.filename().string();
        if ((p.extension() == ".jsonl" || p.extension() == ".json") && !std::string_view(name).ends_with(".meta.json")
            && p.parent_path().filename() != "subagents")
            files.push_back(p);
    }
    std::sort(files.begin(), files.end());
    std::map<fs::path, std::string> hints; // by folder
    for (const auto &p : files) {
        // A Gemini CLI chats/ folder belongs to the project folder around it.
        fs::path where = p.parent_path();
        if (where.filename() == "chats")
            where = where.parent_path();
        auto it = hints.find(where);
        if (it == hints.end()) {
            std::string hint = readSmallFile(where / ".project_root", kProjectRootBytes, warnings);
            it = hints.emplace(where, hint.empty() ? where.string() : hint).first;
        }
        claudeFile(collect, p, Origin::Folder, it->second);
    }
}

} // namespace

std::vector<Candidate> discover(const ScanOptions &options, std::vector<std::string> &warnings)
{
    std::vector<Candidate> out;
    Collector collect(out);
    if (!options.home.empty()) {
        // Absolute, so that the cache's keys do not depend on the working directory.
        std::error_code ec;
        const fs::path home = fs::absolute(fs::path(options.home), ec);
        claudeProjects(collect, home / ".claude" / "projects");
        codexSessions(collect, home / ".codex" / "sessions");
        geminiTmp(collect, home / ".gemini", warnings);
        qwenProjects(collect, home / ".qwen" / "projects");
        copilotSessions(collect, home / ".copilot" / "session-state");
    }
    for (const auto &f : options.folders) {
        std::error_code ec;
        const fs::path root = fs::absolute(fs::path(f), ec);
        if (ec || !fs::is_directory(root, ec)) {
            warnings.push_back(f + ": not a folder");
            continue;
        }
        folder(collect, root, warnings);
    }
    return out;
}

} // namespace cl::sessions::detail
