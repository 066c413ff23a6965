// SPDX-License-Identifier: MIT
// The scan cache: one JSON file with what each scanned file said about itself, keyed by path, size
// and modification time (and, for a Claude Code session, its subagent files' count and size). A file
// whose size or time changed is read again; anything else is taken from here. The version changes
// whenever the scanners count differently (2: the usage by model, for the cost).
#include "core/sessions/internal.h"

#include "core/io/writer.h"
#include "core/util/json.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace cl::sessions::detail {

namespace {

constexpr int kCacheVersion = 2;

nlohmann::json timeJson(std::int64_t ms) { return ms == kNoTime ? nlohmann::json(nullptr) : nlohmann::json(ms); }

std::int64_t timeOf(const nlohmann::json &e, std::string_view key)
{
    const nlohmann::json *v = json::child(e, key);
    return v && v->is_number_integer() ? v->get<std::int64_t>() : kNoTime;
}

// [model, responses, input, cacheWrite5m, cacheWrite1h, cacheRead, output] per model: compact, as
// the cache holds every session.
nlohmann::json usageJson(const std::vector<ModelUsage> &usage)
{
    nlohmann::json list = nlohmann::json::array();
    for (const ModelUsage &u : usage)
        list.push_back({u.model, u.responses, u.tokens.input, u.tokens.cacheWrite5m, u.tokens.cacheWrite1h, u.tokens.cacheRead,
                        u.tokens.output});
    return list;
}

std::vector<ModelUsage> usageFrom(const nlohmann::json *list)
{
    std::vector<ModelUsage> out;
    if (!list || !list->is_array())
        return out;
    for (const auto &u : *list) {
        if (!u.is_array() || u.size() != 7 || !u[0].is_string())
            continue;
        auto num = [&](std::size_t i) { return u[i].is_number_integer() ? u[i].get<std::int64_t>() : std::int64_t(0); };
        ModelUsage m;
        m.model = u[0].get<std::string>();
        m.responses = std::size_t(num(1));
        m.tokens.input = num(2);
        m.tokens.cacheWrite5m = num(3);
        m.tokens.cacheWrite1h = num(4);
        m.tokens.cacheRead = num(5);
        m.tokens.output = num(6);
        out.push_back(std::move(m));
    }
    return out;
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
            {"peakContext", s.peakContext},
            {"compactions", s.compactions},
            {"model", s.model},
            {"usage", usageJson(s.usage)}};
}

bool entryFrom(const nlohmann::json &j, std::string &path, CacheEntry &e)
{
    path = json::str(j, "path");
    const nlohmann::json *size = json::child(j, "size");
    const nlohmann::json *mtime = json::child(j, "mtimeNs");
    if (path.empty() || !size || !size->is_number_unsigned() || !mtime || !mtime->is_number_integer())
        return false;
    e.size = size->get<std::uint64_t>();
    e.mtimeNs = mtime->get<std::int64_t>();
    e.subagentFiles = std::uint64_t(json::num(j, "subagentFiles"));
    e.subagentBytes = std::uint64_t(json::num(j, "subagentBytes"));
    Session &s = e.facts;
    s.format = formatFromName(json::str(j, "format")).value_or(Format::Unknown);
    s.checkpoint = json::boolean(j, "checkpoint");
    s.sessionId = json::str(j, "sessionId");
    s.project = json::str(j, "project");
    s.title = json::str(j, "title");
    s.firstRequest = json::str(j, "firstRequest");
    s.startMs = timeOf(j, "startMs");
    s.lastMs = timeOf(j, "lastMs");
    s.messages = std::size_t(json::num(j, "messages"));
    s.peakContext = json::num(j, "peakContext");
    s.compactions = std::size_t(json::num(j, "compactions"));
    s.model = json::str(j, "model");
    s.usage = usageFrom(json::child(j, "usage"));
    return true;
}

} // namespace

std::vector<std::pair<std::string, CacheEntry>> loadCache(const std::string &path, std::vector<std::string> &warnings)
{
    std::vector<std::pair<std::string, CacheEntry>> out;
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return out; // no cache yet
    std::ostringstream bytes;
    bytes << in.rdbuf();
    nlohmann::json doc;
    std::string error;
    if (json::parse(bytes.str(), doc, error) == json::ParseStatus::Failed) {
        warnings.push_back(path + ": the session cache is not JSON (" + error + "); scanning everything again");
        return out;
    }
    if (json::num(doc, "version") != kCacheVersion)
        return out; // written by another version: its figures may be counted differently
    if (const nlohmann::json *list = json::array(doc, "entries")) {
        out.reserve(list->size());
        for (const auto &j : *list) {
            std::pair<std::string, CacheEntry> entry;
            if (entryFrom(j, entry.first, entry.second))
                out.push_back(std::move(entry));
        }
    }
    return out;
}

bool saveCache(const std::string &path, const std::vector<std::pair<std::string, CacheEntry>> &entries, std::string &error)
{
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
