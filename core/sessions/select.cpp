// SPDX-License-Identifier: MIT
// Names, filters, orders and groups of the session list (what the CLI and the browser offer).
#include "core/sessions/sessions.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>

namespace cl::sessions {

std::string_view agentName(Agent a)
{
    switch (a) {
    case Agent::ClaudeCode: return "claude-code";
    case Agent::Codex: return "codex";
    case Agent::Gemini: return "gemini";
    case Agent::Api: return "api";
    case Agent::QwenCode: return "qwen-code";
    case Agent::Copilot: return "copilot";
    }
    return "api";
}

bool agentFromName(std::string_view name, Agent &out)
{
    for (Agent a : {Agent::ClaudeCode, Agent::Codex, Agent::Gemini, Agent::QwenCode, Agent::Copilot, Agent::Api})
        if (name == agentName(a)) {
            out = a;
            return true;
        }
    if (name == "gemini-cli") { // the format's name
        out = Agent::Gemini;
        return true;
    }
    if (name == "copilot-cli") {
        out = Agent::Copilot;
        return true;
    }
    return false;
}

Agent agentOf(Format f)
{
    switch (f) {
    case Format::ClaudeCode: return Agent::ClaudeCode;
    case Format::Codex: return Agent::Codex;
    case Format::GeminiCli: return Agent::Gemini;
    case Format::QwenCode: return Agent::QwenCode;
    case Format::CopilotCli: return Agent::Copilot;
    default: return Agent::Api;
    }
}

Format formatOf(Agent a)
{
    switch (a) {
    case Agent::ClaudeCode: return Format::ClaudeCode;
    case Agent::Codex: return Format::Codex;
    case Agent::Gemini: return Format::GeminiCli;
    case Agent::QwenCode: return Format::QwenCode;
    case Agent::Copilot: return Format::CopilotCli;
    case Agent::Api: break;
    }
    return Format::Unknown;
}

std::string defaultCachePath()
{
    if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        return std::string(xdg) + "/contextlens/sessions.json";
    if (const char *home = std::getenv("HOME"); home && *home)
        return std::string(home) + "/.cache/contextlens/sessions.json";
    return {};
}

bool sortKeyFromName(std::string_view name, SortKey &out)
{
    static const std::map<std::string_view, SortKey> keys{
        {"last", SortKey::Last},
        {"start", SortKey::Start},
        {"size", SortKey::Size},
        {"peak", SortKey::Peak},
        {"messages", SortKey::Messages},
        {"cost", SortKey::Cost}};
    const auto it = keys.find(name);
    if (it == keys.end())
        return false;
    out = it->second;
    return true;
}

namespace {

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

// The figure a key sorts by; nullopt-like kNoTime when a session has none.
std::int64_t figure(const Session &s, SortKey key)
{
    switch (key) {
    case SortKey::Last: return s.lastMs;
    case SortKey::Start: return s.startMs;
    case SortKey::Size: return std::int64_t(s.bytes + s.subagentBytes);
    case SortKey::Peak: return s.peakContext > 0 ? s.peakContext : kNoTime;
    case SortKey::Messages: return std::int64_t(s.messages);
    case SortKey::Cost: return s.hasCost() ? std::llround(s.cost * 1e6) : kNoTime; // micro-dollars
    }
    return kNoTime;
}

} // namespace

std::vector<Session> select(const std::vector<Session> &sessions, const Filter &filter)
{
    const std::string needle = lower(filter.project);
    std::vector<Session> out;
    for (const auto &s : sessions) {
        if (!filter.anyAgent && s.agent != filter.agent)
            continue;
        if (!needle.empty() && lower(s.project).find(needle) == std::string::npos)
            continue;
        out.push_back(s);
    }
    return out;
}

void sortSessions(std::vector<Session> &sessions, SortKey key)
{
    std::stable_sort(sessions.begin(), sessions.end(), [key](const Session &a, const Session &b) {
        const std::int64_t fa = figure(a, key), fb = figure(b, key);
        if (fa != fb)
            return fa > fb; // kNoTime is the smallest value: sessions without the figure come last
        return a.path < b.path;
    });
}

std::vector<ProjectGroup> groupByProject(const std::vector<Session> &sorted)
{
    std::vector<ProjectGroup> groups;
    std::map<std::string, std::size_t> index;
    for (const auto &s : sorted) {
        auto [it, added] = index.emplace(s.project, groups.size());
        if (added)
            groups.push_back({s.project, {}});
        groups[it->second].sessions.push_back(&s);
    }
    return groups;
}

} // namespace cl::sessions
