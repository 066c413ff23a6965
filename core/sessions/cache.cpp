// SPDX-License-Identifier: MIT
// The scan cache: one JSON file with what each scanned file said about itself, keyed by path, size
// and modification time (and, for a Claude Code session, its subagent files' count and size). A file
// whose size or time changed is read again; anything else is taken from here. The version changes
// whenever the scanners count differently (2: the usage by model, for the cost).
#include "core/sessions/internal.h"

#include "core/io/writer.h"
#include "core/util/json.h"
#include "core/util/regularfile.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <algorithm>
#include <optional>
#include <sys/stat.h>

namespace cl::sessions::detail {

namespace {

constexpr int kCacheVersion = 4; // 3: each subagent file's usage; 4: its description and starter
// The cache holds a few hundred bytes per session: a larger file is no cache of ours.
constexpr std::size_t kMaxCacheBytes = std::size_t(512) << 20;

// Token counts above this are no counts (2^53: still exact as doubles, sums stay finite).
constexpr std::uint64_t kMaxTokens = std::uint64_t(1) << 53;

// A count as the cache keeps it: what a hostile file claims (negative, 2^63) is kept in range, so
// that the entry reads back as valid instead of being read again at every scan.
std::uint64_t count(std::int64_t n) { return n < 0 ? 0 : std::min(std::uint64_t(n), kMaxTokens); }
std::uint64_t count(std::uint64_t n) { return std::min(n, kMaxTokens); }

nlohmann::json timeJson(std::int64_t ms) { return ms == kNoTime ? nlohmann::json(nullptr) : nlohmann::json(ms); }

// [model, responses, input, cacheWrite5m, cacheWrite1h, cacheRead, output] per model: compact, as
// the cache holds every session.
nlohmann::json usageJson(const std::vector<ModelUsage> &usage)
{
    nlohmann::json list = nlohmann::json::array();
    for (const ModelUsage &u : usage)
        list.push_back({u.model, count(std::uint64_t(u.responses)), count(u.tokens.input), count(u.tokens.cacheWrite5m),
                        count(u.tokens.cacheWrite1h), count(u.tokens.cacheRead), count(u.tokens.output)});
    return list;
}

bool countIn(const nlohmann::json &v, std::uint64_t max, std::uint64_t &out)
{
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() > max)
        return false;
    out = v.get<std::uint64_t>();
    return true;
}

bool usageFrom(const nlohmann::json *list, std::vector<ModelUsage> &out)
{
    if (!list || !list->is_array())
        return false;
    for (const auto &u : *list) {
        if (!u.is_array() || u.size() != 7 || !u[0].is_string())
            return false;
        std::uint64_t n[7] = {};
        for (std::size_t i = 1; i < 7; ++i)
            if (!countIn(u[i], kMaxTokens, n[i]))
                return false;
        ModelUsage m;
        m.model = u[0].get<std::string>();
        m.responses = std::size_t(n[1]);
        m.tokens.input = std::int64_t(n[2]);
        m.tokens.cacheWrite5m = std::int64_t(n[3]);
        m.tokens.cacheWrite1h = std::int64_t(n[4]);
        m.tokens.cacheRead = std::int64_t(n[5]);
        m.tokens.output = std::int64_t(n[6]);
        out.push_back(std::move(m));
    }
    return true;
}

nlohmann::json subagentsJson(const std::vector<SubagentUsage> &subagents)
{
    nlohmann::json list = nlohmann::json::array();
    for (const SubagentUsage &sub : subagents)
        list.push_back({sub.name, usageJson(sub.usage), sub.description, sub.startedBy});
    return list;
}

bool subagentsFrom(const nlohmann::json *list, std::vector<SubagentUsage> &out)
{
    if (!list || !list->is_array())
        return false;
    for (const auto &j : *list) {
        SubagentUsage sub;
        if (!j.is_array() || j.size() != 4 || !j[0].is_string() || !usageFrom(&j[1], sub.usage) || !j[2].is_string()
            || !j[3].is_string())
            return false;
        sub.name = j[0].get<std::string>();
        sub.description = j[2].get<std::string>();
        sub.startedBy = j[3].get<std::string>();
        out.push_back(std::move(sub));
    }
    return true;
}

nlohmann::json entryJson(const std::string &path, const CacheEntry &e)
{
    const Session &s = e.facts;
    return {{"path", path},
            {"size", e.size},
            {"mtimeNs", e.mtimeNs},
            {"subagentFiles", e.subagentFiles},
            {"subagentBytes", e.subagentBytes},
            {"format", std::string(formatName(s.format))},
            {"checkpoint", s.checkpoint},
            {"sessionId", s.sessionId},
            {"project", s.project},
            {"title", s.title},
            {"firstRequest", s.firstRequest},
            {"startMs", timeJson(s.startMs)},
            {"lastMs", timeJson(s.lastMs)},
            {"messages", s.messages},
            {"peakContext", count(s.peakContext)},
            {"compactions", s.compactions},
            {"model", s.model},
            {"usage", usageJson(s.usage)},
            {"subagents", subagentsJson(s.subagents)}};
}

bool stringIn(const nlohmann::json &j, std::string_view key, std::string &out)
{
    const nlohmann::json *v = json::child(j, key);
    if (!v || !v->is_string())
        return false;
    out = v->get<std::string>();
    return true;
}

bool timeIn(const nlohmann::json &j, std::string_view key, std::int64_t &out)
{
    const nlohmann::json *v = json::child(j, key);
    if (v && v->is_null()) {
        out = kNoTime;
        return true;
    }
    if (!v || !v->is_number_integer() || v->get<std::int64_t>() == kNoTime)
        return false;
    out = v->get<std::int64_t>();
    return true;
}

bool countIn(const nlohmann::json &j, std::string_view key, std::uint64_t max, std::uint64_t &out)
{
    const nlohmann::json *v = json::child(j, key);
    return v && countIn(*v, max, out);
}

// An entry as saveCache() writes it, every field of its type and in range; false for anything else
// (a cache edited or damaged by hand, or cut short): that file is then read again. A count no file
// of that size can hold is damage too (a message takes bytes).
bool entryFrom(const nlohmann::json &j, std::string &path, CacheEntry &e)
{
    if (!j.is_object() || !stringIn(j, "path", path) || path.empty())
        return false;
    const nlohmann::json *mtime = json::child(j, "mtimeNs");
    const nlohmann::json *checkpoint = json::child(j, "checkpoint");
    constexpr std::uint64_t kMaxBytes = std::uint64_t(1) << 50;
    std::uint64_t messages = 0, peak = 0, compactions = 0;
    Session &s = e.facts;
    std::string format;
    if (!countIn(j, "size", kMaxBytes, e.size) || !mtime || !mtime->is_number_integer()
        || !countIn(j, "subagentFiles", kMaxBytes, e.subagentFiles) || !countIn(j, "subagentBytes", kMaxBytes, e.subagentBytes)
        || !stringIn(j, "format", format) || !checkpoint || !checkpoint->is_boolean() || !stringIn(j, "sessionId", s.sessionId)
        || !stringIn(j, "project", s.project) || !stringIn(j, "title", s.title) || !stringIn(j, "firstRequest", s.firstRequest)
        || !timeIn(j, "startMs", s.startMs) || !timeIn(j, "lastMs", s.lastMs) || !countIn(j, "messages", e.size, messages)
        || !countIn(j, "peakContext", kMaxTokens, peak) || !countIn(j, "compactions", e.size, compactions)
        || !stringIn(j, "model", s.model) || !usageFrom(json::child(j, "usage"), s.usage)
        || !subagentsFrom(json::child(j, "subagents"), s.subagents))
        return false;
    const std::optional<Format> f = formatFromName(format);
    if (!f && format != formatName(Format::Unknown))
        return false;
    e.mtimeNs = mtime->get<std::int64_t>();
    s.format = f.value_or(Format::Unknown);
    s.checkpoint = checkpoint->get<bool>();
    s.messages = std::size_t(messages);
    s.peakContext = std::int64_t(peak);
    s.compactions = std::size_t(compactions);
    return true;
}

} // namespace

std::vector<std::pair<std::string, CacheEntry>> loadCache(const std::string &path, std::vector<std::string> &warnings)
{
    std::vector<std::pair<std::string, CacheEntry>> out;
    std::string bytes;
    if (const util::ReadResult r = util::readRegularFile(path, bytes, kMaxCacheBytes); !r.ok()) {
        if (r.status != util::ReadStatus::Missing) // else: no cache yet
            warnings.push_back(path + ": the session cache cannot be read (" + r.why + "); scanning everything again");
        return out;
    }
    nlohmann::json doc;
    std::string error;
    if (json::parse(bytes, doc, error) == json::ParseStatus::Failed) {
        warnings.push_back(path + ": the session cache is not JSON (" + error + "); scanning everything again");
        return out;
    }
    const nlohmann::json *version = json::child(doc, "version");
    if (!version || !version->is_number_integer() || version->get<std::int64_t>() != kCacheVersion)
        return out; // written by another version: its figures may be counted differently
    std::size_t bad = 0;
    if (const nlohmann::json *list = json::array(doc, "entries")) {
        out.reserve(list->size());
        for (const auto &j : *list) {
            std::pair<std::string, CacheEntry> entry;
            if (entryFrom(j, entry.first, entry.second))
                out.push_back(std::move(entry));
            else
                ++bad;
        }
    } else {
        warnings.push_back(path + ": the session cache lists no entries; scanning everything again");
    }
    if (bad)
        warnings.push_back(path + ": " + std::to_string(bad) + " entr" + (bad == 1 ? "y" : "ies")
                           + " of the session cache " + (bad == 1 ? "is" : "are") + " not valid; those files are read again");
    return out;
}

bool saveCache(const std::string &path, const std::vector<std::pair<std::string, CacheEntry>> &entries, std::string &error)
{
    // writeFileAtomic follows a link and replaces the file it names: a cache path that is (or links
    // to) a FIFO or a device (/dev/zero, /dev/null) is never replaced, only a regular file.
    if (struct stat st = {}; ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
        error = path + ": not a regular file; not replaced";
        return false;
    }
    nlohmann::json list = nlohmann::json::array();
    for (const auto &[file, entry] : entries)
        list.push_back(entryJson(file, entry));
    const nlohmann::json doc{{"version", kCacheVersion}, {"entries", std::move(list)}};
    std::error_code ec;
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    if (!dir.empty())
        std::filesystem::create_directories(dir, ec);
    if (ec) {
        error = dir.string() + ": " + ec.message();
        return false;
    }
    return writeFileAtomic(path, json::dump(doc) + "\n", &error);
}

} // namespace cl::sessions::detail
