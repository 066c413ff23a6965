// SPDX-License-Identifier: MIT
// Subagent transcripts of a Claude Code session: <dir>/<sessionId>/subagents/agent-*.jsonl (current
// layout) and agent-*.jsonl beside the session file whose lines carry the same sessionId (older).
#include "core/formats/claudecode/internal.h"

#include "core/formats/claudecode/agentmeta.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <system_error>
#include <unordered_map>

namespace cl::formats::claudecode {

namespace fs = std::filesystem;

namespace {

bool isAgentFile(const fs::directory_entry &e)
{
    std::error_code ec;
    const std::string name = e.path().filename().string();
    return e.is_regular_file(ec) && name.rfind("agent-", 0) == 0 && e.path().extension() == ".jsonl";
}

std::vector<fs::path> agentFiles(const fs::path &dir)
{
    std::vector<fs::path> out;
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        return out;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (isAgentFile(*it))
            out.push_back(it->path());
    std::sort(out.begin(), out.end());
    return out;
}

// Cheap check before a full load: the older layout mixes agents of every session in one folder.
bool mentionsSession(const fs::path &file, const std::string &sessionId)
{
    std::FILE *f = std::fopen(file.string().c_str(), "rb");
    if (!f)
        return false;
    std::string head(64 * 1024, '\0');
    head.resize(std::fread(head.data(), 1, head.size(), f));
    std::fclose(f);
    return head.find("\"" + sessionId + "\"") != std::string::npos;
}

// The line of a Task (Agent) call's result naming agent `agentId` (toolUseResult.agentId): the
// toolUseResult (inside `parsed`) and the call's id; null when the line is no such result.
const nlohmann::json *agentResult(std::string_view line, const std::string &agentId, nlohmann::json &parsed,
                                  std::string &toolUseId)
{
    std::string err;
    if (cl::json::parse(line, parsed, err) == cl::json::ParseStatus::Failed || !parsed.is_object())
        return nullptr;
    const nlohmann::json *result = cl::json::object(parsed, "toolUseResult");
    const nlohmann::json *msg = cl::json::object(parsed, "message");
    const nlohmann::json *content = msg ? cl::json::array(*msg, "content") : nullptr;
    if (!result || cl::json::str(*result, "agentId") != agentId || !content)
        return nullptr;
    for (const auto &block : *content)
        if (cl::json::str(block, "type") == "tool_result") {
            toolUseId = cl::json::str(block, "tool_use_id");
            return result;
        }
    return nullptr;
}

// Writes into each subagent's header the Task (Agent) call of `t` it answers: the session's
// tool_result line whose toolUseResult names the agent gives the call's id, and what the agent
// recorded about the run (its duration, tokens and tool uses). One pass over the session's lines;
// only those with a toolUseResult naming a wanted agent are parsed.
void linkToCalls(const Transcript &t, const std::vector<std::shared_ptr<Transcript>> &subs)
{
    std::unordered_map<std::string, Transcript *> wanted;
    for (const auto &s : subs)
        if (!s->messages.empty() && !s->messages.front().agentId.empty())
            wanted.emplace(s->messages.front().agentId, s.get());
    constexpr std::string_view key = "\"agentId\":\"";
    for (const Record &r : t.records) {
        if (wanted.empty())
            return;
        const std::string_view bytes = t.recordBytes(r);
        if (bytes.find("\"toolUseResult\"") == std::string_view::npos)
            continue;
        Transcript *found = nullptr;
        std::string id;
        for (std::size_t at = bytes.find(key); at != std::string_view::npos && !found; at = bytes.find(key, at + 1)) {
            const std::size_t begin = at + key.size(), end = bytes.find('"', begin);
            if (end == std::string_view::npos)
                break;
            id.assign(bytes.substr(begin, end - begin));
            if (auto it = wanted.find(id); it != wanted.end())
                found = it->second;
        }
        if (!found)
            continue;
        nlohmann::json o;
        std::string toolUseId;
        const nlohmann::json *result = agentResult(bytes, id, o, toolUseId);
        if (!result)
            continue;
        if (!found->header.is_object())
            found->header = nlohmann::json::object();
        found->header["parentToolUseId"] = toolUseId;
        for (const char *k : {"totalDurationMs", "totalTokens", "totalToolUseCount"})
            if (const nlohmann::json *v = cl::json::child(*result, k); v && v->is_number_integer())
                found->header[k] = *v;
        wanted.erase(id);
    }
}

// The agent's meta file (agentmeta.h) in its header: the call that started it, the agent that made
// that call, its type, description, name and whether it ran in the background.
void copyMeta(const fs::path &agentFile, Transcript &sub)
{
    const AgentMeta meta = readAgentMeta(agentFile.string());
    if (!sub.header.is_object())
        sub.header = nlohmann::json::object();
    for (const auto &[key, value] : {std::pair{"parentToolUseId", &meta.toolUseId}, std::pair{"parentAgentId", &meta.parentAgentId},
                                     std::pair{"agentType", &meta.agentType}, std::pair{"description", &meta.description},
                                     std::pair{"agentName", &meta.name}})
        if (!value->empty())
            sub.header[key] = *value;
    if (meta.background)
        sub.header["background"] = true;
}

// The 1-based number of the first line of `file` for which `matches` is true; 0 when none (or no file).
std::uint32_t firstLineWhere(const fs::path &file, const std::function<bool(const std::string &)> &matches)
{
    std::FILE *f = std::fopen(file.string().c_str(), "rb");
    if (!f)
        return 0;
    std::string line;
    std::uint32_t number = 0, found = 0;
    for (int c = 0; !found && c != EOF;) {
        line.clear();
        while ((c = std::fgetc(f)) != EOF && c != '\n')
            line += char(c);
        ++number;
        if (matches(line))
            found = number;
    }
    std::fclose(f);
    return found;
}

} // namespace

void loadSubagents(Transcript &t, const LoadContext &ctx)
{
    const fs::path file(t.path);
    const fs::path dir = file.parent_path();
    const std::string sessionId = cl::json::str(t.header, "sessionId");
    std::vector<fs::path> files = agentFiles(dir / file.stem() / "subagents");
    if (!sessionId.empty() && sessionId != file.stem().string())
        for (auto &p : agentFiles(dir / sessionId / "subagents"))
            files.push_back(std::move(p));
    if (!sessionId.empty())
        for (auto &p : agentFiles(dir))
            if (p != file && mentionsSession(p, sessionId))
                files.push_back(std::move(p));

    LoadOptions opts;
    opts.format = Format::ClaudeCode;
    opts.loadSubagents = false;
    opts.threads = ctx.options.threads;
    opts.cancel = ctx.options.cancel;
    std::vector<std::shared_ptr<Transcript>> loaded;
    for (const auto &p : files) {
        if (ctx.cancelled())
            return;
        LoadResult r = ctx.loadOther(p.string(), opts);
        if (!r.ok()) {
            t.addDiagnostic(0, "subagent " + p.filename().string() + ": " + r.error, Diagnostic::Severity::Warning);
            continue;
        }
        // Older layout: the file name alone does not prove it is ours; its lines must say so.
        if (p.parent_path() == dir && cl::json::str(r.transcript->header, "sessionId") != sessionId)
            continue;
        std::string agentId = p.stem().string().substr(6); // after "agent-"
        for (auto &m : r.transcript->messages) {
            m.sidechain = true;
            if (m.agentId.empty())
                m.agentId = agentId;
        }
        copyMeta(p, *r.transcript);
        loaded.push_back(std::move(r.transcript));
    }
    linkToCalls(t, loaded);
    for (auto &s : loaded)
        t.subagents.push_back(std::move(s));
}

void linkAgentFile(Transcript &t)
{
    if (!t.header.is_object() || !t.header.value("agentFile", false) || t.path.empty())
        return;
    const fs::path file(t.path);
    const std::string stem = file.stem().string();
    if (stem.rfind("agent-", 0) != 0)
        return;
    const std::string agentId = stem.substr(6);
    // <dir>/<sessionId>/subagents/agent-<id>.jsonl, or (older layout) beside <dir>/<sessionId>.jsonl.
    std::vector<fs::path> candidates;
    if (file.parent_path().filename() == "subagents") {
        const fs::path sessionDir = file.parent_path().parent_path();
        candidates.push_back(sessionDir.parent_path() / (sessionDir.filename().string() + ".jsonl"));
    }
    if (const std::string sessionId = cl::json::str(t.header, "sessionId"); !sessionId.empty())
        candidates.push_back(file.parent_path() / (sessionId + ".jsonl"));
    for (const fs::path &parent : candidates) {
        // The Task call's result line names the agent (toolUseResult.agentId).
        std::string toolUseId;
        const std::uint32_t number = firstLineWhere(parent, [&](const std::string &line) {
            if (line.find(agentId) == std::string::npos || line.find("tool_result") == std::string::npos)
                return false;
            nlohmann::json o;
            return agentResult(line, agentId, o, toolUseId) != nullptr;
        });
        if (number > 0) {
            t.header["parentSession"] = parent.string();
            t.header["parentToolUseId"] = toolUseId;
            t.header["parentLine"] = number;
            return;
        }
    }
    // An agent another subagent started: its result line has no agentId, but its meta file names the
    // call and that agent; the call is a tool_use line of the other agent's file beside this one.
    const AgentMeta meta = readAgentMeta(t.path);
    if (meta.parentAgentId.empty() || meta.toolUseId.empty())
        return;
    const fs::path parent = file.parent_path() / ("agent-" + meta.parentAgentId + ".jsonl");
    const std::string callId = "\"id\":\"" + meta.toolUseId + "\"";
    if (const std::uint32_t number = firstLineWhere(parent, [&](const std::string &line) { return line.find(callId) != std::string::npos; });
        number > 0) {
        t.header["parentSession"] = parent.string();
        t.header["parentToolUseId"] = meta.toolUseId;
        t.header["parentLine"] = number;
        t.header["parentAgentId"] = meta.parentAgentId;
    }
}

} // namespace cl::formats::claudecode
