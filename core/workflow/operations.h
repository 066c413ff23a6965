// SPDX-License-Identifier: MIT
#pragma once

// Seed 004 operations (docs/design/mechanisms.md §10) with per-project persistence, and the seed 001
// compaction events. A Store is the `.compression/` folder beside a transcript:
//   config.json     {"maxTurns":50,"keepRecent":10,"maxToolOutput":3000,"summaryMaxChars":500,
//                    "autoCompress":true,"importanceThreshold":0.3,"strategy":"sliding-window","params":{}}
//   summaries.json  [{timestamp, turnRange:[first,last], content, keyPoints:[...], strategy,
//                     tokensBefore, tokensAfter, messageRange:[first,last], messagesCompacted,
//                     summarizer ("rules" or "model:PROVIDER/MODEL"), model: {provider, model,
//                     inputTokens, outputTokens, cost, cached} when a model wrote it}, ...]
//                   oldest first (turnRange in the strategy's turns, messageRange in transcript indices)
// A missing folder or file means defaults / no summaries. A file that does not parse is reported
// (file name + reason) and is never overwritten: the operation that would write it fails instead,
// so the user's hand-edited file is not lost to a typo.

#include "core/analysis/analysis.h"
#include "core/strategy/strategy.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace cl::ops {

// The seed 004 sliding-window parameters plus the default strategy and its parameter overrides.
struct Config {
    int maxTurns = 50;
    int keepRecent = 10;
    int maxToolOutput = 3000;
    int summaryMaxChars = 500;
    bool autoCompress = true;
    double importanceThreshold = 0.3;
    std::string strategy;                             // empty: defaultStrategyName()
    nlohmann::json params = nlohmann::json::object(); // {param: value} overrides for `strategy`

    nlohmann::json toJson() const;
    // Reads the known keys of j over the defaults; false with error on a wrong type / range.
    static bool fromJson(const nlohmann::json &j, Config &out, std::string &error);
    bool operator==(const Config &) const = default;
};

// `sliding-window` when registered, else the first registered strategy ("" when none).
std::string defaultStrategyName();
// The strategy a config runs: config.strategy, or the default.
std::string effectiveStrategy(const Config &c);
// Parameters passed to run(): the seed 004 fields whose names the strategy declares (maxTurns,
// keepRecent, ... for sliding-window) overlaid with config.params.
nlohmann::json effectiveParams(const Config &c, const strategy::Strategy &s);
// Checks the strategy exists and its effective params resolve (resolveParams).
bool validate(const Config &c, std::string &error);

struct SummaryRecord {
    std::string timestamp;                        // ISO 8601 UTC
    std::int64_t firstTurn = -1, lastTurn = -1;   // turnRange as the strategy reports it (extra.summary.turnRange),
                                                  // else the message range
    std::int64_t firstIndex = -1, lastIndex = -1; // messageRange: transcript indices of the summarized span
    std::string content;
    std::vector<std::string> keyPoints;
    std::string strategy;
    std::int64_t tokensBefore = 0, tokensAfter = 0;
    std::size_t messagesCompacted = 0;
    std::string summarizer = "rules";                // or "model:PROVIDER/MODEL"
    nlohmann::json model = nlohmann::json::object(); // a model summary's provider, model, tokens, cost

    nlohmann::json toJson() const;
    static SummaryRecord fromJson(const nlohmann::json &j); // tolerant: wrong types read as absent
};

class Store
{
public:
    // projectDir: the folder holding the transcript; files live in projectDir/.compression/.
    explicit Store(std::string projectDir);
    // The store of the folder containing transcriptPath (its .compression/ folder).
    static Store forTranscript(const std::string &transcriptPath);
    // A store whose files live in `folder` itself (the application keeps one per transcript under
    // its data folder, so that nothing is written into the agents' folders).
    static Store inFolder(std::string folder);

    std::string dir() const { return m_dir; }
    std::string configPath() const;
    std::string summariesPath() const;

    // Missing file: defaults, true. Unreadable / bad JSON / bad values: false, error = "<path>: reason".
    bool loadConfig(Config &out, std::string *error = nullptr) const;
    // Validates, then writes atomically (creating the folder). Refuses when the existing file does
    // not parse (it would be silently replaced).
    bool saveConfig(const Config &c, std::string *error = nullptr) const;
    // Loads, merges `patch` ({key: value}, "params" replaces the overrides), validates, saves.
    bool updateConfig(const nlohmann::json &patch, Config *result = nullptr, std::string *error = nullptr) const;

    // All summaries, oldest first. Missing file: empty, true.
    bool loadSummaries(std::vector<SummaryRecord> &out, std::string *error = nullptr) const;
    // The latest n (n == 0: all), newest first.
    bool summaries(std::size_t n, std::vector<SummaryRecord> &out, std::string *error = nullptr) const;
    // Appends one record; refuses (false) when the existing file does not parse.
    bool appendSummary(const SummaryRecord &r, std::string *error = nullptr) const;

private:
    std::string m_dir;
};

struct Status {
    Config config;
    std::string strategy;              // the strategy compressNow would run
    std::size_t totalMessages = 0;     // conversation messages of the transcript
    std::size_t compactedMessages = 0; // sum of messagesCompacted over the stored summaries
    std::int64_t tokensSaved = 0;      // sum of tokensBefore - tokensAfter over the stored summaries
    std::size_t summaryCount = 0;
    std::int64_t tokens = 0;         // conversation estimate now
    analysis::NeedsCompaction needs; // seed 001 decision on the transcript now
    bool autoCompressDue = false;    // seed 004: autoCompress && totalMessages > keepRecent x 2
    std::vector<std::string> errors; // config / summaries problems ("<path>: reason")
};
Status status(const Transcript &t, const Store &store, const analysis::AnalysisOptions &options = {});

// Seed 001 events for a UI notification, fired synchronously by compressNow in this order:
// onNeeded (only when needsCompaction says so), onStart, onComplete.
struct Counts {
    std::size_t messages = 0;
    std::int64_t tokens = 0;
};
struct Events {
    std::function<void(const analysis::NeedsCompaction &)> onNeeded;           // "compaction:needed"
    std::function<void(const std::string &strategy)> onStart;                  // "compaction:start"
    std::function<void(const Counts &before, const Counts &after)> onComplete; // "compaction:complete"
};

struct CompressOptions {
    analysis::AnalysisOptions analysis;
    std::vector<std::size_t> pinned;
    std::vector<std::string> exemptTools;
    const strategy::Summarizer *summarizer = nullptr;
    Events events;
};

struct CompressOutcome {
    bool ok = false; // false: config unreadable, no strategy, bad params
    std::string error;
    std::shared_ptr<const strategy::Result> result;
    std::string text; // "N → M messages (removed K)"
    bool summaryAppended = false;
    std::string summaryError; // the result had a summary but summaries.json refused it
};

// "N → M messages (removed K)": N, M = conversation messages before / after, K = original messages
// no longer present (removed or folded into a summary), so inserted summaries do not hide removals.
std::string compressText(const strategy::Result &r);
// The summary a result inserted (first inserted CompactSummary slot), as a record; false if none.
bool summaryOf(const Transcript &t, const strategy::Result &r, SummaryRecord &out);
// Fires onNeeded when analysis::needsCompaction says so; returns the decision.
analysis::NeedsCompaction checkNeeded(const Transcript &t, const analysis::AnalysisOptions &o, const Events &events);

// Runs the configured strategy on t (the transcript is not modified: apply the result yourself),
// appends its summary to summaries.json and fires the events.
CompressOutcome compressNow(const Transcript &t, const Store &store, const CompressOptions &options = {});

std::string nowIso8601();

} // namespace cl::ops
