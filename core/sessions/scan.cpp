// SPDX-License-Identifier: MIT
// The scan: find the candidates, take unchanged ones from the cache, read the others on two
// threads (the largest first, each thread taking the next file when it is done), then put the
// sessions together: project, subagents, the title, the cost, and the cache written back when it
// changed.
#include "core/sessions/internal.h"

#include "core/util/parallel.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <sys/stat.h>
#include <unordered_map>

namespace cl::sessions {

namespace {

using detail::CacheEntry;
using detail::Candidate;

// Reads the candidates listed in `todo` into facts[i]; one FileScanner per thread.
void readChanged(const std::vector<Candidate> &candidates, std::vector<std::size_t> todo, std::vector<Session> &facts,
                 std::vector<char> &readOk, std::vector<std::string> &warnings)
{
    // Largest first, so that no thread is left with a big file at the end.
    std::sort(todo.begin(), todo.end(), [&](std::size_t a, std::size_t b) { return candidates[a].size > candidates[b].size; });
    std::atomic<std::size_t> next{0};
    std::mutex warningsMutex;
    auto work = [&](std::size_t) {
        detail::FileScanner scanner;
        for (std::size_t k = next++; k < todo.size(); k = next++) {
            const std::size_t i = todo[k];
            std::string why;
            readOk[i] = scanner.scan(candidates[i], facts[i], why);
            if (!readOk[i]) {
                const std::lock_guard<std::mutex> lock(warningsMutex);
                warnings.push_back(why);
            }
        }
    };
    if (todo.size() > 1 && util::defaultThreads() > 1)
        onTwoThreads(work);
    else
        work(0);
}

bool exists(const std::string &path)
{
    struct stat st = {};
    return ::stat(path.c_str(), &st) == 0;
}

std::string parentOf(const std::string &path)
{
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

// A session as listed: what its file says, completed by where it was found.
Session assemble(const Candidate &c, Session s)
{
    s.path = c.path;
    s.agent = agentOf(s.format);
    s.bytes = c.size;
    s.mtimeNs = c.mtimeNs;
    s.subagentFiles = c.subagentFiles;
    s.subagentBytes = c.subagentBytes;
    if (s.project.empty())
        s.project = c.projectHint;
    if (s.lastMs == kNoTime)
        s.lastMs = c.mtimeNs / 1000000;
    if (s.title.empty())
        s.title = s.firstRequest;
    return s;
}

// The cache: rewritten when a file was read or one it lists is gone; entries of files this scan
// did not look at (another home, another folder) stay while those files exist.
void updateCache(const std::string &cachePath, const std::vector<Candidate> &candidates, std::vector<Session> &facts,
                 const std::vector<char> &readOk, std::vector<std::pair<std::string, CacheEntry>> cache, ScanResult &result)
{
    std::unordered_map<std::string_view, std::size_t> scanned;
    for (std::size_t i = 0; i < candidates.size(); ++i)
        scanned[candidates[i].path] = i;
    std::vector<std::pair<std::string, CacheEntry>> kept;
    bool changed = result.stats.parsed > 0;
    for (auto &[path, entry] : cache) {
        if (scanned.count(path))
            continue;
        if (exists(path))
            kept.emplace_back(path, std::move(entry));
        else
            changed = true;
    }
    if (!changed)
        return;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        // A session read in part (a subagent file it could not read) is read again next time.
        if (!readOk[i] || !facts[i].unreadSubagents.empty())
            continue;
        CacheEntry e;
        e.size = candidates[i].size;
        e.mtimeNs = candidates[i].mtimeNs;
        e.subagentFiles = candidates[i].subagentFiles;
        e.subagentBytes = candidates[i].subagentBytes;
        e.facts = std::move(facts[i]);
        kept.emplace_back(candidates[i].path, std::move(e));
    }
    std::sort(kept.begin(), kept.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    std::string error;
    if (!detail::saveCache(cachePath, kept, error))
        result.warnings.push_back("cannot write the session cache: " + error);
}

bool unchanged(const CacheEntry &e, const Candidate &c)
{
    return e.size == c.size && e.mtimeNs == c.mtimeNs && e.subagentFiles == c.subagentFiles && e.subagentBytes == c.subagentBytes;
}

// Session::cost from its usage: each model by its own entry, looked up once per model.
void price(std::vector<Session> &list, const llm::PriceTable &prices)
{
    std::unordered_map<std::string, std::optional<llm::Price>> byModel;
    const auto priceInto = [&](const std::vector<ModelUsage> &usage, double &dollars, std::int64_t &unpriced) {
        dollars = 0;
        unpriced = 0;
        for (const ModelUsage &u : usage) {
            auto it = byModel.find(u.model);
            if (it == byModel.end())
                it = byModel.emplace(u.model, u.model.empty() ? std::nullopt : prices.find(u.model)).first;
            if (it->second)
                dollars += cost::price(u.tokens, *it->second).total();
            else
                unpriced += u.tokens.total();
        }
    };
    for (Session &s : list) {
        priceInto(s.usage, s.cost, s.unpricedTokens);
        for (SubagentUsage &sub : s.subagents)
            priceInto(sub.usage, sub.cost, sub.unpricedTokens);
    }
}

} // namespace

ScanResult scan(const ScanOptions &options)
{
    ScanResult result;
    const std::vector<Candidate> candidates = detail::discover(options, result.warnings);
    const std::size_t n = candidates.size();
    result.stats.files = n;

    std::vector<std::pair<std::string, CacheEntry>> cache;
    if (!options.cachePath.empty())
        cache = detail::loadCache(options.cachePath, result.warnings);
    std::unordered_map<std::string_view, const CacheEntry *> cached;
    cached.reserve(cache.size());
    for (const auto &[path, entry] : cache)
        cached[path] = &entry;

    std::vector<Session> facts(n);
    std::vector<char> readOk(n, 1);
    std::vector<std::size_t> todo;
    for (std::size_t i = 0; i < n; ++i) {
        const auto it = cached.find(candidates[i].path);
        if (it != cached.end() && unchanged(*it->second, candidates[i])) {
            facts[i] = it->second->facts;
            ++result.stats.fromCache;
        } else {
            todo.push_back(i);
        }
    }
    readChanged(candidates, todo, facts, readOk, result.warnings);
    for (const std::size_t i : todo)
        if (readOk[i])
            result.stats.parsedPaths.push_back(candidates[i].path);
    std::sort(result.stats.parsedPaths.begin(), result.stats.parsedPaths.end());
    result.stats.parsed = result.stats.parsedPaths.size();

    // Sessions, and the Claude Code agent files beside them attached to theirs (same folder and
    // sessionId); an agent file without its session is listed on its own.
    std::map<std::pair<std::string, std::string>, std::size_t> byFolderAndId;
    for (std::size_t i = 0; i < n; ++i) {
        if (!readOk[i] || facts[i].format == Format::Unknown || candidates[i].agentFile)
            continue;
        Session s = assemble(candidates[i], facts[i]); // facts[i] stays as read, for the cache
        if (s.format == Format::ClaudeCode && !s.sessionId.empty())
            byFolderAndId.emplace(std::make_pair(parentOf(s.path), s.sessionId), result.sessions.size());
        result.sessions.push_back(std::move(s));
    }
    for (std::size_t i = 0; i < n; ++i) {
        if (!readOk[i] || facts[i].format == Format::Unknown || !candidates[i].agentFile)
            continue;
        const Candidate &c = candidates[i];
        const auto it = byFolderAndId.find({parentOf(c.path), facts[i].sessionId});
        if (it != byFolderAndId.end()) {
            Session &owner = result.sessions[it->second];
            ++owner.subagentFiles;
            owner.subagentBytes += c.size;
            for (const ModelUsage &u : facts[i].usage)
                detail::addUsage(owner.usage, u.model, u.tokens, u.responses);
            owner.subagents.push_back(detail::subagentUsage(c.path, facts[i].usage));
            continue;
        }
        result.sessions.push_back(assemble(c, facts[i]));
    }
    std::sort(result.sessions.begin(), result.sessions.end(), [](const Session &a, const Session &b) { return a.path < b.path; });
    for (const Session &s : result.sessions)
        if (!s.unreadSubagents.empty())
            result.warnings.push_back(s.path + ": " + std::to_string(s.unreadSubagents.size()) + " of its subagent files cannot be read ("
                                      + s.unreadSubagents.front() + "); the cost leaves them out");
    if (options.prices) {
        price(result.sessions, *options.prices);
    } else {
        llm::PriceTable prices;
        std::string error;
        if (!llm::PriceTable::load(prices, {}, &error))
            result.warnings.push_back(error + " (the shipped prices are used)");
        for (const auto &w : prices.warnings())
            result.warnings.push_back("prices: " + w);
        price(result.sessions, prices);
    }

    if (!options.cachePath.empty())
        updateCache(options.cachePath, candidates, facts, readOk, std::move(cache), result);
    return result;
}

} // namespace cl::sessions
