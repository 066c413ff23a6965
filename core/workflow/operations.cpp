// SPDX-License-Identifier: MIT
#include "core/workflow/operations.h"

#include "core/util/json.h"
#include "core/tokens/estimator.h"
#include "core/io/writer.h"
#include "core/strategies/registry.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace cl::ops {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The seed 004 fields, in file order; the same names a sliding-window strategy declares.
constexpr const char *kSeedKeys[] = {"maxTurns", "keepRecent", "maxToolOutput", "summaryMaxChars", "autoCompress",
                                     "importanceThreshold"};

bool readInt(const json &j, const char *key, int min, int &out, std::string &error)
{
    const auto it = j.find(key);
    if (it == j.end())
        return true;
    if (!it->is_number_integer()) {
        error = std::string(key) + ": expected an integer, got " + cl::json::dump(*it);
        return false;
    }
    const auto v = it->get<std::int64_t>();
    if (v < min || v > 100000000) {
        error = std::string(key) + ": " + std::to_string(v) + " is out of range (at least " + std::to_string(min) + ")";
        return false;
    }
    out = int(v);
    return true;
}

enum class FileState {
    Missing,
    Read,
    Failed
};

// Reads and parses a whole file. Missing is not an error (the defaults apply).
FileState readJsonFile(const std::string &path, json &out, std::string &error)
{
    std::error_code ec;
    if (!fs::exists(path, ec))
        return FileState::Missing;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = path + ": cannot be read";
        return FileState::Failed;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    std::string why;
    if (cl::json::parse(ss.str(), out, why) == cl::json::ParseStatus::Failed) {
        error = path + ": invalid JSON: " + why;
        return FileState::Failed;
    }
    return FileState::Read;
}

bool ensureDir(const std::string &dir, std::string &error)
{
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
        error = dir + ": cannot create folder: " + ec.message();
        return false;
    }
    return true;
}

bool fail(std::string *error, const std::string &text)
{
    if (error)
        *error = text;
    return false;
}

} // namespace

// ---- Config -------------------------------------------------------------------------------------

json Config::toJson() const
{
    json j = json::object();
    j["maxTurns"] = maxTurns;
    j["keepRecent"] = keepRecent;
    j["maxToolOutput"] = maxToolOutput;
    j["summaryMaxChars"] = summaryMaxChars;
    j["autoCompress"] = autoCompress;
    j["importanceThreshold"] = importanceThreshold;
    j["strategy"] = strategy.empty() ? defaultStrategyName() : strategy;
    j["params"] = params.is_object() ? params : json::object();
    return j;
}

bool Config::fromJson(const json &j, Config &out, std::string &error)
{
    if (!j.is_object()) {
        error = "expected a JSON object";
        return false;
    }
    Config c;
    if (!readInt(j, "maxTurns", 1, c.maxTurns, error) || !readInt(j, "keepRecent", 0, c.keepRecent, error)
        || !readInt(j, "maxToolOutput", 1, c.maxToolOutput, error)
        || !readInt(j, "summaryMaxChars", 1, c.summaryMaxChars, error))
        return false;
    // Optional keys: when present they must have the right type, else the error names the key.
    auto field = [&](const char *key, auto valid, const char *expected, auto assign) {
        const auto it = j.find(key);
        if (it == j.end())
            return true;
        if (!valid(*it)) {
            error = std::string(key) + ": expected " + expected + ", got " + cl::json::dump(*it);
            return false;
        }
        assign(*it);
        return true;
    };
    if (!field(
            "autoCompress", [](const json &v) { return v.is_boolean(); }, "true or false",
            [&](const json &v) { c.autoCompress = v.get<bool>(); })
        || !field(
            "importanceThreshold", [](const json &v) { return v.is_number() && v >= 0 && v <= 1; },
            "a number in [0, 1]", [&](const json &v) { c.importanceThreshold = v.get<double>(); })
        || !field(
            "strategy", [](const json &v) { return v.is_string(); }, "a strategy name",
            [&](const json &v) { c.strategy = v.get<std::string>(); })
        || !field(
            "params", [](const json &v) { return v.is_object(); }, "an object", [&](const json &v) { c.params = v; }))
        return false;
    out = std::move(c);
    return true;
}

std::string defaultStrategyName()
{
    if (strategy::find("sliding-window"))
        return "sliding-window";
    const auto &list = strategy::all();
    return list.empty() ? std::string() : std::string(list.front()->name());
}

std::string effectiveStrategy(const Config &c)
{
    return c.strategy.empty() ? defaultStrategyName() : c.strategy;
}

json effectiveParams(const Config &c, const strategy::Strategy &s)
{
    const json seed = c.toJson();
    json out = json::object();
    for (const strategy::ParamSpec &spec : s.params())
        for (const char *key : kSeedKeys)
            if (spec.name == key)
                out[key] = seed[key];
    if (c.params.is_object())
        for (auto it = c.params.begin(); it != c.params.end(); ++it)
            out[it.key()] = it.value();
    return out;
}

bool validate(const Config &c, std::string &error)
{
    const std::string name = effectiveStrategy(c);
    const strategy::Strategy *s = strategy::find(name);
    if (!s) {
        error = name.empty() ? std::string("no strategy is registered") : "strategy: unknown strategy '" + name + "'";
        return false;
    }
    strategy::Params resolved;
    std::string why;
    if (!strategy::resolveParams(s->params(), effectiveParams(c, *s), resolved, why)) {
        error = "params of " + name + ": " + why;
        return false;
    }
    return true;
}

// ---- Summaries ----------------------------------------------------------------------------------

json SummaryRecord::toJson() const
{
    json j = json::object();
    j["timestamp"] = timestamp;
    j["turnRange"] = json::array({firstTurn, lastTurn});
    j["content"] = content;
    j["keyPoints"] = keyPoints;
    j["strategy"] = strategy;
    j["tokensBefore"] = tokensBefore;
    j["tokensAfter"] = tokensAfter;
    j["messageRange"] = json::array({firstIndex, lastIndex});
    j["messagesCompacted"] = messagesCompacted;
    j["summarizer"] = summarizer;
    if (!model.empty())
        j["model"] = model;
    return j;
}

SummaryRecord SummaryRecord::fromJson(const json &j)
{
    SummaryRecord r;
    r.timestamp = cl::json::str(j, "timestamp");
    auto range = [&](const char *key, std::int64_t &first, std::int64_t &last) {
        const json *a = cl::json::array(j, key);
        if (a && a->size() == 2 && (*a)[0].is_number_integer() && (*a)[1].is_number_integer()) {
            first = (*a)[0].get<std::int64_t>();
            last = (*a)[1].get<std::int64_t>();
        }
    };
    range("turnRange", r.firstTurn, r.lastTurn);
    range("messageRange", r.firstIndex, r.lastIndex);
    r.content = cl::json::str(j, "content");
    if (const json *points = cl::json::array(j, "keyPoints"))
        for (const json &p : *points)
            if (p.is_string())
                r.keyPoints.push_back(p.get<std::string>());
    r.strategy = cl::json::str(j, "strategy");
    r.tokensBefore = cl::json::num(j, "tokensBefore");
    r.tokensAfter = cl::json::num(j, "tokensAfter");
    r.messagesCompacted = std::size_t(std::max<std::int64_t>(0, cl::json::num(j, "messagesCompacted")));
    if (const std::string who = cl::json::str(j, "summarizer"); !who.empty())
        r.summarizer = who;
    if (const json *m = cl::json::object(j, "model"))
        r.model = *m;
    return r;
}

// ---- Store --------------------------------------------------------------------------------------

Store::Store(std::string projectDir)
    : m_dir((fs::path(projectDir.empty() ? std::string(".") : projectDir) / ".compression").string())
{
}

Store Store::forTranscript(const std::string &transcriptPath)
{
    const fs::path parent = fs::path(transcriptPath).parent_path();
    return Store(parent.empty() ? std::string(".") : parent.string());
}

Store Store::inFolder(std::string folder)
{
    Store s{std::string()};
    s.m_dir = folder.empty() ? std::string(".") : std::move(folder);
    return s;
}

std::string Store::configPath() const { return (fs::path(dir()) / "config.json").string(); }
std::string Store::summariesPath() const { return (fs::path(dir()) / "summaries.json").string(); }

bool Store::loadConfig(Config &out, std::string *error) const
{
    json j;
    std::string why;
    const FileState state = readJsonFile(configPath(), j, why);
    if (state == FileState::Failed)
        return fail(error, why);
    if (state == FileState::Missing) {
        out = Config{};
        return true;
    }
    if (!Config::fromJson(j, out, why))
        return fail(error, configPath() + ": " + why);
    return true;
}

bool Store::saveConfig(const Config &c, std::string *error) const
{
    std::string why;
    if (!validate(c, why))
        return fail(error, why);
    json existing;
    if (readJsonFile(configPath(), existing, why) == FileState::Failed)
        return fail(error, why + " (not overwritten: fix or delete the file)");
    if (!ensureDir(dir(), why) || !writeFileAtomic(configPath(), c.toJson().dump(2) + '\n', &why))
        return fail(error, why);
    return true;
}

bool Store::updateConfig(const json &patch, Config *result, std::string *error) const
{
    if (!patch.is_object())
        return fail(error, "config update: expected a JSON object");
    Config current;
    if (!loadConfig(current, error))
        return false;
    json merged = current.toJson();
    for (auto it = patch.begin(); it != patch.end(); ++it) {
        if (!merged.contains(it.key()))
            return fail(error, "config update: unknown key '" + it.key() + "'");
        merged[it.key()] = it.value();
    }
    // Switching strategy without new params drops the old strategy's overrides (they would not resolve).
    if (patch.contains("strategy") && !patch.contains("params") && merged["strategy"] != current.toJson()["strategy"])
        merged["params"] = json::object();
    Config next;
    std::string why;
    if (!Config::fromJson(merged, next, why))
        return fail(error, why);
    if (!saveConfig(next, error))
        return false;
    if (result)
        *result = next;
    return true;
}

bool Store::loadSummaries(std::vector<SummaryRecord> &out, std::string *error) const
{
    out.clear();
    json j;
    std::string why;
    const FileState state = readJsonFile(summariesPath(), j, why);
    if (state != FileState::Read)
        return state == FileState::Missing || fail(error, why);
    if (!j.is_array())
        return fail(error, summariesPath() + ": expected a JSON array of summaries");
    out.reserve(j.size());
    for (const json &item : j)
        if (item.is_object())
            out.push_back(SummaryRecord::fromJson(item));
    return true;
}

bool Store::summaries(std::size_t n, std::vector<SummaryRecord> &out, std::string *error) const
{
    std::vector<SummaryRecord> all;
    if (!loadSummaries(all, error)) {
        out.clear();
        return false;
    }
    std::reverse(all.begin(), all.end());
    if (n > 0 && all.size() > n)
        all.resize(n);
    out = std::move(all);
    return true;
}

bool Store::appendSummary(const SummaryRecord &r, std::string *error) const
{
    json j;
    std::string why;
    const FileState state = readJsonFile(summariesPath(), j, why);
    if (state == FileState::Failed)
        return fail(error, why + " (not overwritten: fix or delete the file)");
    if (state == FileState::Missing)
        j = json::array();
    if (!j.is_array())
        return fail(error, summariesPath() + ": expected a JSON array of summaries (not overwritten)");
    j.push_back(r.toJson());
    if (!ensureDir(dir(), why) || !writeFileAtomic(summariesPath(), j.dump(2) + '\n', &why))
        return fail(error, why);
    return true;
}

// ---- Operations ---------------------------------------------------------------------------------

Status status(const Transcript &t, const Store &store, const analysis::AnalysisOptions &options)
{
    Status s;
    std::string error;
    if (!store.loadConfig(s.config, &error))
        s.errors.push_back(error);
    s.strategy = effectiveStrategy(s.config);
    std::vector<SummaryRecord> list;
    if (!store.loadSummaries(list, &error))
        s.errors.push_back(error);
    for (const SummaryRecord &r : list) {
        s.compactedMessages += r.messagesCompacted;
        s.tokensSaved += r.tokensBefore - r.tokensAfter;
    }
    s.summaryCount = list.size();
    s.totalMessages = analysis::conversationView(t).size();
    s.tokens = tokens::totalEstimate(t);
    s.needs = analysis::needsCompaction(s.tokens, s.totalMessages, options);
    s.autoCompressDue = s.config.autoCompress && s.totalMessages > std::size_t(s.config.keepRecent) * 2;
    return s;
}

std::string compressText(const strategy::Result &r)
{
    const auto &st = r.stats;
    const std::size_t removed = st.messagesBefore > st.originalKept ? st.messagesBefore - st.originalKept : 0;
    return std::to_string(st.messagesBefore) + " \u2192 " + std::to_string(st.messagesAfter) + " messages (removed "
           + std::to_string(removed) + ")";
}

namespace {

// Key points the strategy reported (extra.keyPoints or extra.summary.keyPoints), else the summary's
// bullet lines: the record should say what the summary kept even for strategies that do not list it.
std::vector<std::string> keyPointsOf(const strategy::Result &r, const std::string &content)
{
    std::vector<std::string> out;
    const json *points = cl::json::array(r.extra, "keyPoints");
    if (!points)
        if (const json *summary = cl::json::object(r.extra, "summary"))
            points = cl::json::array(*summary, "keyPoints");
    if (points) {
        for (const json &p : *points)
            if (p.is_string())
                out.push_back(p.get<std::string>());
        return out;
    }
    std::istringstream lines(content);
    std::string line;
    while (std::getline(lines, line) && out.size() < 20) {
        const auto start = line.find_first_not_of(" \t");
        if (start == std::string::npos)
            continue;
        const std::string_view rest = std::string_view(line).substr(start);
        if (rest.starts_with("- ") || rest.starts_with("* "))
            out.emplace_back(rest.substr(2));
        else if (rest.starts_with("\u2022 "))
            out.emplace_back(rest.substr(std::string_view("\u2022 ").size()));
    }
    return out;
}

} // namespace

bool summaryOf(const Transcript &t, const strategy::Result &r, SummaryRecord &out)
{
    const strategy::Slot *summary = nullptr;
    for (const strategy::Slot &slot : r.slots)
        if (slot.origin < 0 && slot.message && slot.message->kind == MessageKind::CompactSummary) {
            summary = &slot;
            break;
        }
    if (!summary)
        return false;
    out = SummaryRecord{};
    out.timestamp = nowIso8601();
    // The strategy's own record (seed 004 sliding window) has the bare summary text and turn range.
    const json *own = cl::json::object(r.extra, "summary");
    const json *content = own ? cl::json::child(*own, "content") : nullptr;
    out.content = content && content->is_string() ? content->get<std::string>() : summary->message->plainText();
    out.keyPoints = keyPointsOf(r, out.content);
    out.strategy = r.strategy;
    // A model's summary: its sections (net/modelsummarizer.h) say who wrote it and what it cost.
    const json *sections = own && cl::json::object(*own, "model") ? cl::json::object(*own, "model") : own;
    if (sections && sections->contains("summarizer") && (*sections)["summarizer"].is_string()) {
        out.summarizer = (*sections)["summarizer"].get<std::string>();
        for (const char *k : {"provider", "model", "inputTokens", "outputTokens", "cost", "cached"})
            if (const json *v = cl::json::child(*sections, k))
                out.model[k] = *v;
    }
    out.tokensBefore = r.stats.tokensBefore;
    out.tokensAfter = r.stats.tokensAfter;
    for (std::size_t i = 0; i < r.fates.size() && i < t.messages.size(); ++i) {
        const strategy::Fate f = r.fates[i].fate;
        if (!t.messages[i].isConversation() || (f != strategy::Fate::Summarized && f != strategy::Fate::Removed))
            continue;
        if (out.firstIndex < 0)
            out.firstIndex = std::int64_t(i);
        out.lastIndex = std::int64_t(i);
        ++out.messagesCompacted;
    }
    out.firstTurn = out.firstIndex;
    out.lastTurn = out.lastIndex;
    if (const json *turns = own ? cl::json::array(*own, "turnRange") : nullptr; turns && turns->size() == 2
                                                                                && (*turns)[0].is_number_integer() && (*turns)[1].is_number_integer()) {
        out.firstTurn = (*turns)[0].get<std::int64_t>();
        out.lastTurn = (*turns)[1].get<std::int64_t>();
    }
    return true;
}

analysis::NeedsCompaction checkNeeded(const Transcript &t, const analysis::AnalysisOptions &o, const Events &events)
{
    const analysis::NeedsCompaction needs = analysis::needsCompaction(tokens::totalEstimate(t), analysis::conversationView(t).size(), o);
    if (needs.needed && events.onNeeded)
        events.onNeeded(needs);
    return needs;
}

CompressOutcome compressNow(const Transcript &t, const Store &store, const CompressOptions &options)
{
    CompressOutcome out;
    Config config;
    if (!store.loadConfig(config, &out.error))
        return out;
    if (!validate(config, out.error))
        return out;
    const std::string name = effectiveStrategy(config);
    const strategy::Strategy *s = strategy::find(name);

    strategy::Input in(t, options.analysis);
    in.pinned = options.pinned;
    in.exemptTools = options.exemptTools;
    in.summarizer = options.summarizer;

    const analysis::NeedsCompaction needs = analysis::needsCompaction(in.totalTokens(), in.analysis().view.size(), options.analysis);
    if (needs.needed && options.events.onNeeded)
        options.events.onNeeded(needs);
    if (options.events.onStart)
        options.events.onStart(name);

    auto result = std::make_shared<strategy::Result>(strategy::run(*s, in, effectiveParams(config, *s)));
    out.ok = true;
    out.text = compressText(*result);
    SummaryRecord record;
    if (result->changed && summaryOf(t, *result, record)) {
        out.summaryAppended = store.appendSummary(record, &out.summaryError);
    }
    const strategy::Stats &st = result->stats;
    out.result = std::move(result);
    if (options.events.onComplete)
        options.events.onComplete(Counts{st.messagesBefore, st.tokensBefore}, Counts{st.messagesAfter, st.tokensAfter});
    return out;
}

std::string nowIso8601()
{
    const auto now = std::chrono::system_clock::now();
    const std::time_t secs = std::chrono::system_clock::to_time_t(now);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    char out[40];
    std::snprintf(out, sizeof out, "%s.%03dZ", buf, int(ms));
    return out;
}

} // namespace cl::ops
