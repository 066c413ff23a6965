// SPDX-License-Identifier: MIT
// `sessions`: the agent sessions on this machine (core/sessions/), grouped by project, one line
// each, or as JSON.
#include "cli/cli.h"

#include "cli/common.h"
#include "cli/cost.h"
#include "core/sessions/sessions.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace cl::cli {

namespace {

std::string isoTime(std::int64_t ms)
{
    const std::time_t secs = std::time_t(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
    std::tm tm = {};
    gmtime_r(&secs, &tm);
    char buf[96];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                  tm.tm_min, tm.tm_sec, int(ms - std::int64_t(secs) * 1000));
    return buf;
}

// "2025-12-16 09:05" (UTC); "09:05" when `day` is that same day.
std::string shortTime(std::int64_t ms, std::int64_t day = kNoTime)
{
    if (ms == kNoTime)
        return "?";
    const std::string iso = isoTime(ms);
    if (day != kNoTime && isoTime(day).compare(0, 10, iso, 0, 10) == 0)
        return iso.substr(11, 5);
    return iso.substr(0, 10) + " " + iso.substr(11, 5);
}

std::string tokens(std::int64_t n)
{
    if (n < 1000)
        return std::to_string(n);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1fk", double(n) / 1000.0);
    return buf;
}

std::string bytes(std::uint64_t n)
{
    char buf[32];
    if (n < 1024)
        std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(n));
    else if (n < 1024 * 1024)
        std::snprintf(buf, sizeof buf, "%.1f KiB", double(n) / 1024.0);
    else
        std::snprintf(buf, sizeof buf, "%.1f MiB", double(n) / (1024.0 * 1024.0));
    return buf;
}

std::string plural(std::size_t n, const std::string &word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

// Characters, not bytes (the arrow and titles are UTF-8).
std::size_t width(const std::string &s)
{
    std::size_t n = 0;
    for (const char c : s)
        n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return n;
}

std::string padRight(std::string s, std::size_t columns)
{
    const std::size_t w = width(s);
    s.append(w < columns ? columns - w : 1, ' ');
    return s;
}

std::string padLeft(std::string s, std::size_t columns) { return s.size() < columns ? std::string(columns - s.size(), ' ') + s : s; }

// "$1.2345"; "+" when some model has no price or a subagent file could not be read; "$?" when no
// model has a price; "-" without usage.
std::string costText(const sessions::Session &s)
{
    if (!s.hasCost())
        return "-";
    if (s.cost == 0 && s.unpricedTokens > 0)
        return "$?";
    char buf[32];
    std::snprintf(buf, sizeof buf, "$%.4f%s", s.cost, s.costComplete() ? "" : "+");
    return buf;
}

// One session on one line: times, agent, messages, peak, compactions, size, cost, model, title, path.
std::string sessionLine(const sessions::Session &s)
{
    std::string line = "  " + padRight(shortTime(s.startMs) + " → " + shortTime(s.lastMs, s.startMs), 36);
    line += padRight(std::string(sessions::agentName(s.agent)), 12);
    line += padLeft(std::to_string(s.messages), 5) + " msgs  ";
    line += padRight("peak " + (s.peakContext > 0 ? tokens(s.peakContext) : std::string("-")), 12);
    line += padRight(plural(s.compactions, "compaction"), 15);
    std::string size = bytes(s.bytes);
    if (s.subagentFiles)
        size += " +" + plural(std::size_t(s.subagentFiles), "subagent");
    line += padRight(size, 12) + " ";
    line += padRight(costText(s), 10);
    if (!s.model.empty())
        line += s.model + "  ";
    if (s.checkpoint)
        line += "[checkpoint] ";
    line += (s.title.empty() ? std::string("(no request)") : "\"" + s.title + "\"") + "  " + s.path + "\n";
    return line;
}

ojson usageJson(const std::vector<sessions::ModelUsage> &usage);

// Each subagent file's part of the session's usage and cost.
ojson subagentsJson(const std::vector<sessions::SubagentUsage> &subagents)
{
    ojson list = ojson::array();
    for (const auto &sub : subagents)
        list.push_back({{"name", sub.name},
                        {"description", sub.description},
                        {"startedBy", sub.startedBy.empty() ? ojson(nullptr) : ojson(sub.startedBy)},
                        {"cost", sub.usage.empty() ? ojson(nullptr) : ojson(std::round(sub.cost * 1e6) / 1e6)},
                        {"costComplete", !sub.usage.empty() && sub.unpricedTokens == 0},
                        {"usage", usageJson(sub.usage)}});
    return list;
}

ojson usageJson(const std::vector<sessions::ModelUsage> &usage)
{
    ojson list = ojson::array();
    for (const auto &u : usage) {
        const cost::Tokens &t = u.tokens;
        // clang-format off
        list.push_back(ojson{{"model", u.model}, {"responses", u.responses}, {"tokens", {{"input", t.input},
            {"cacheWrite5m", t.cacheWrite5m}, {"cacheWrite1h", t.cacheWrite1h}, {"cacheRead", t.cacheRead}, {"output", t.output}}}});
        // clang-format on
    }
    return list;
}

ojson sessionJson(const sessions::Session &s)
{
    auto time = [](std::int64_t ms) { return ms == kNoTime ? ojson(nullptr) : ojson(isoTime(ms)); };
    auto timeMs = [](std::int64_t ms) { return ms == kNoTime ? ojson(nullptr) : ojson(ms); };
    return ojson{{"path", s.path},
                 {"agent", std::string(sessions::agentName(s.agent))},
                 {"format", std::string(formatName(s.format))},
                 {"checkpoint", s.checkpoint},
                 {"sessionId", s.sessionId},
                 {"project", s.project},
                 {"title", s.title},
                 {"firstRequest", s.firstRequest},
                 {"start", time(s.startMs)},
                 {"last", time(s.lastMs)},
                 {"startMs", timeMs(s.startMs)},
                 {"lastMs", timeMs(s.lastMs)},
                 {"bytes", s.bytes},
                 {"subagentFiles", s.subagentFiles},
                 {"subagentBytes", s.subagentBytes},
                 {"messages", s.messages},
                 {"peakContext", s.peakContext > 0 ? ojson(s.peakContext) : ojson(nullptr)},
                 {"compactions", s.compactions},
                 {"model", s.model.empty() ? ojson(nullptr) : ojson(s.model)},
                 {"cost", s.hasCost() ? ojson(std::round(s.cost * 1e6) / 1e6) : ojson(nullptr)},
                 {"costComplete", s.costComplete()},
                 {"unreadSubagents", s.unreadSubagents},
                 {"usage", usageJson(s.usage)},
                 {"subagents", subagentsJson(s.subagents)}};
}

// --folder may repeat (parseArgs keeps one value per option): its values are taken out first.
std::vector<std::string> takeFolders(const std::vector<std::string> &args, std::vector<std::string> &rest, std::string &error)
{
    std::vector<std::string> folders;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--folder") {
            if (i + 1 == args.size()) {
                error = "option --folder needs a value";
                break;
            }
            folders.push_back(args[++i]);
        } else if (args[i].rfind("--folder=", 0) == 0) {
            folders.push_back(args[i].substr(9));
        } else {
            rest.push_back(args[i]);
        }
    }
    return folders;
}

} // namespace

int sessions(const std::vector<std::string> &args, std::string &out, std::string &err)
{
    std::vector<std::string> rest;
    std::string folderError;
    sessions::ScanOptions options;
    options.folders = takeFolders(args, rest, folderError);
    const Args a = parseArgs(rest, {{"--home", "", true},
                                    {"--agent", "", true},
                                    {"--project", "", true},
                                    {"--sort", "", true},
                                    {"--cache", "", true},
                                    {"--no-cache", "", false},
                                    {"--prices", "", true}});
    Output o{out, err, a.has("--json")};
    if (a.has("--help")) {
        out += commandHelp("sessions");
        return Exit::Success;
    }
    if (!folderError.empty())
        return o.fail(folderError);
    if (!a.error.empty())
        return o.fail(a.error);
    if (!a.positional.empty())
        return o.fail("sessions takes no file (use --folder DIR to add a folder)");

    sessions::Filter filter;
    if (const auto agent = a.value("--agent")) {
        filter.anyAgent = false;
        if (!sessions::agentFromName(*agent, filter.agent))
            return o.fail("unknown agent '" + *agent + "' (one of: claude-code, codex, gemini, copilot, api)");
    }
    filter.project = a.value("--project").value_or("");
    sessions::SortKey sort = sessions::SortKey::Last;
    if (const auto key = a.value("--sort"); key && !sessions::sortKeyFromName(*key, sort))
        return o.fail("unknown sort key '" + *key + "' (one of: last, start, size, peak, messages, cost)");
    if (a.has("--no-cache") && a.value("--cache"))
        return o.fail("--cache and --no-cache exclude each other");

    if (const auto home = a.value("--home"))
        options.home = *home;
    else if (const char *env = std::getenv("HOME"))
        options.home = env;
    if (!a.has("--no-cache"))
        options.cachePath = a.value("--cache").value_or(sessions::defaultCachePath());
    // The cost column's prices: a bad --prices FILE fails; a bad user file only warns (the list is
    // still worth having).
    llm::PriceTable prices;
    if (std::string error; !loadPrices(a, prices, error)) {
        if (a.value("--prices"))
            return o.fail(error);
        err += "contextlens-cli: " + error + "\n";
    }
    for (const auto &w : prices.warnings())
        err += "contextlens-cli: warning: prices: " + w + "\n";
    options.prices = &prices;

    const sessions::ScanResult result = sessions::scan(options);
    for (const auto &w : result.warnings)
        err += "contextlens-cli: " + w + "\n";
    std::vector<sessions::Session> list = sessions::select(result.sessions, filter);
    sessions::sortSessions(list, sort);
    const auto groups = sessions::groupByProject(list);

    if (o.json) {
        ojson j;
        j["home"] = options.home;
        j["folders"] = options.folders;
        j["cache"] = options.cachePath.empty() ? ojson(nullptr) : ojson(options.cachePath);
        j["scan"] = ojson{{"files", result.stats.files}, {"read", result.stats.parsed}, {"fromCache", result.stats.fromCache}};
        ojson projects = ojson::array();
        for (const auto &g : groups)
            projects.push_back(ojson{{"project", g.project}, {"sessions", g.sessions.size()}});
        j["projects"] = projects;
        ojson items = ojson::array();
        for (const auto &s : list)
            items.push_back(sessionJson(s));
        j["sessions"] = items;
        j["warnings"] = result.warnings;
        o.print(j);
        return Exit::Success;
    }
    for (const auto &g : groups) {
        out += (g.project.empty() ? std::string("(no project)") : g.project) + "  (" + plural(g.sessions.size(), "session") + ")\n";
        for (const auto *s : g.sessions)
            out += sessionLine(*s);
        out += "\n";
    }
    out += plural(list.size(), "session") + " in " + plural(groups.size(), "project") + "; " + plural(result.stats.files, "file")
           + " found, " + std::to_string(result.stats.parsed) + " read, " + std::to_string(result.stats.fromCache) + " from the cache\n";
    return Exit::Success;
}

} // namespace cl::cli
