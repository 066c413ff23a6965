// SPDX-License-Identifier: MIT
#pragma once

// Rule-based analysis of a loaded transcript: the seeds' mechanics of docs/design/mechanisms.md §3–8 as pure
// functions. Only conversation messages (Message::isConversation(), not sidechain) take part; every
// result is reported by the transcript's message index so views can map it to their rows, and every
// decision carries its reasons as data ({rule, points, text}) so the GUI and CLI can say why.
//
// Definitions the seeds leave open (all numbers are AnalysisOptions parameters):
// - Position: the i-th conversation message. A boundary "at i" cuts before conversation message i.
// - User request: a Role::User message with no tool_result block (Claude Code tool results are
//   role user; they are tool results here, never requests).
// - Tool kinds (canonical, across agents): Read = Read, NotebookRead, read_file, read_many_files,
//   view; Write = Write, write_file, create_file; Edit = Edit, MultiEdit, NotebookEdit, replace,
//   edit, apply_patch, str_replace_based_edit_tool; Delete = Delete, delete_file; Shell = Bash,
//   shell, local_shell, exec_command, container.exec, run_shell_command, BashOutput. Everything
//   else is Other. Write/Edit/Delete are "file_modification"; Shell whose command contains one of
//   systemChangePatterns is "system_change"; any failed call is "error_context" (seed 001 §6).
// - Chained rounds: consecutive tool rounds with no user request between them share a chain id.
// - isInToolSequence(i): (a) i-1 assistant with tool_use and i holds a tool_result; (b) i-1 holds a
//   tool_result and i is an assistant with tool_use whose text contains the first result's id
//   (both seed 001); extension (c) "pair_spans_cut": a tool_use before i is answered at or after
//   i+1 (e.g. Claude Code's parallel calls split over lines): cutting would orphan it.
// - Conversation break: i-1 and i both user requests; or both timestamps known and the gap is
//   > breakGapMs; or message i is a user request whose text contains a break phrase (ASCII
//   case-insensitive; assistant prose is not scanned: "let's switch" there is not the user's break).
// - Error near i: a failed tool result at a position in [i - errorDistance, i + errorDistance - 1]
//   (errorDistance messages on each side of the cut).
// - Topic change at i: words = lower-cased ASCII runs [a-z0-9_] of >= 3 chars plus every non-ASCII
//   code point (so Chinese counts character by character), taken from the text blocks only (tool
//   output says nothing about the topic) of the first topicScanBytes of each message, at most
//   topicMaxWords distinct words per message. Jaccard(words of the topicWindow messages before i,
//   words of the topicWindow messages from i) < topicThreshold, when both sides have words.
// - Text scans (keywords, code markers, break phrases) look at the first scanBytes of each text
//   block, so that a 100 000-message transcript analyses in milliseconds.
// - Importance (seed 004): base 0.5; +0.2 user request; +0.2 a keyword (importantKeywords, ASCII
//   case-insensitive); +0.1 code or command (``` in text, or a Write/Edit/Shell call); -0.2 holds a
//   tool result; -0.1 text (text + tool result text) shorter than shortChars; +0.1 rich content
//   (an image or document block, or text of at least richChars); clamped to 0..1.
// - Points (seed 001): +30 user request; +50 holds a failed tool result; +20 code (as above);
//   recency max(0, 30 - floor(age / 60000)) with age against the transcript's last timestamp (no
//   timestamp: 0); +40 "referenced later by id": one of its tool_use ids is answered later.
// - Priority (seed 003 table), first match: system -> sacred; last 3 user requests and the last
//   assistant message -> critical; failed tool result -> medium; one of the last 5 tool results ->
//   high; tool result of a Read-kind call above largeReadTokens -> lowest; other tool results and
//   older assistant messages -> low; older user requests -> medium ("old_user_request": the seed's
//   table has no row for them; they carry the task, so they stay above low). Per block the same
//   rules apply to tool_result blocks; other blocks take their message's class. A message holding
//   several results takes the most protective class of its blocks.
// - Features (seed 000 §4.3): target tokens = targetTokens, or contextWindow x targetWindowShare
//   when 0; recentRatio = tokens of the last 5 / total; hasTool = any tool result (Claude Code has
//   no role "tool"). Strategy: provider/model table first (first matching pattern); a non-hybrid
//   entry decides; hybrid or no entry goes on to the feature rules (first that fires wins);
//   "adaptive" when none fired or the confidence is below minConfidence.
// - Context windows: defaults, editable (public model documentation as of 2025; patterns match a
//   prefix, '*' at the end is optional).

#include "core/model/transcript.h"
#include "core/tokens/contextfigure.h"

#include "core/util/smallvec.h"
#include "core/util/parallel.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cl::analysis {

using util::SmallVec;

// Rule ids and descriptions are static strings (no allocation per reason: a 100 000-message
// transcript has ~400 000 of them); detail holds the numbers of this instance, often empty.
struct Reason {
    std::string_view rule; // stable id, e.g. "after_tool_result"
    double points = 0;     // score delta / weight / confidence, depending on the result
    std::string_view text; // human-readable explanation of the rule
    std::string detail;    // instance specifics ("pause of 412 s"), may be empty
    std::string describe() const { return detail.empty() ? std::string(text) : std::string(text) + ": " + detail; }
};
// Inline capacity: boundaries and importance mostly carry 2-3 reasons, points 0-2 (heap beyond).
using Reasons = SmallVec<Reason, 3>;
using PointReasons = SmallVec<Reason, 2>;

enum class ToolKind : std::uint8_t {
    Other,
    Read,
    Write,
    Edit,
    Delete,
    Shell
};
std::string_view toolKindName(ToolKind k);
ToolKind toolKind(std::string_view toolName);
// The command string of a shell-kind call ("bash -lc X" arrays give X); empty otherwise.
std::string shellCommand(const Block &toolUse);
// Paths a call reads or modifies: file_path, path, absolute_path, notebook_path, paths[], and the
// "*** Add/Update/Delete File:" / "*** Move to:" headers of apply_patch text.
std::vector<std::string> toolPaths(const Block &toolUse);

struct ProviderRule {
    std::string provider;
    std::string pattern;  // model name prefix, lower case; optional trailing '*'
    std::string strategy; // "middle", "oldest", "hybrid"
    double confidence = 0.8;
    std::string reason;
};
struct WindowRule {
    std::string pattern;
    std::int64_t window = 0;
};
std::vector<ProviderRule> defaultProviderTable();
std::vector<WindowRule> defaultWindowTable();
// Loads {"providers":[{provider,pattern,strategy,confidence,reason}], "windows":[{pattern,window}]};
// missing arrays keep the current tables. Returns false (with error) on bad JSON.
bool loadTables(const nlohmann::json &j, std::vector<ProviderRule> &providers, std::vector<WindowRule> &windows,
                std::string &error);

struct AnalysisOptions {
    // Boundary search (seed 001).
    double targetRatio = 0.5;
    int window = 5;
    int minIndex = 10;
    std::int64_t breakGapMs = 300000;
    std::vector<std::string> breakPhrases{"新问题", "不同话题", "换个话题", "继续", "让我们切换", "new question",
                                          "different topic", "let's switch", "lets switch", "moving on", "switching to", "another question"};
    int errorDistance = 2;
    int topicWindow = 3;
    double topicThreshold = 0.1;
    std::size_t topicScanBytes = 1024;
    std::size_t topicMaxWords = 32;
    std::size_t scanBytes = 1024;
    std::vector<std::string> systemChangePatterns{"npm install", "pip install", "apt-get", "brew install", "git clone",
                                                  "git commit", "docker", "systemctl"};
    // Priority (seed 003).
    std::int64_t largeReadTokens = 2000;
    int criticalUserMessages = 3;
    int highToolResults = 5;
    // Importance (seed 004 / 001).
    double importanceBase = 0.5;
    double importanceThreshold = 0.3;
    std::vector<std::string> importantKeywords{"important", "must", "critical", "remember", "never", "always", "error",
                                               "bug", "fix", "decision", "requirement", "todo", "重要", "必须", "记住", "错误", "关键", "决定"};
    std::size_t shortChars = 20;
    std::size_t richChars = 500;
    // Compaction triggers (seed 001 / 002) and usage (seed 003).
    std::int64_t threshold = 150000; // seed 001 token threshold; also seed 002's threshold
    std::size_t maxMessages = 500;
    std::size_t minMessages = 10;
    int recentMessages = 3;         // seed 002 K
    std::int64_t contextWindow = 0; // 0: from the window table by model, else 200000
    // How the live context is counted (tokens/contextfigure.h): the usage, its band and the trigger.
    tokens::Estimator estimator = tokens::Estimator::Calibrated;
    std::vector<double> bands{0.40, 0.60, 0.80, 0.95};
    // Strategy (seed 000).
    std::int64_t targetTokens = 0; // 0: contextWindow x targetWindowShare
    double targetWindowShare = 0.5;
    double minConfidence = 0.6;
    std::string model; // override; default: the transcript's last model
    std::vector<ProviderRule> providers = defaultProviderTable();
    std::vector<WindowRule> windows = defaultWindowTable();
};

// Conversation positions <-> transcript indices.
struct ConversationView {
    std::vector<std::size_t> index;     // position -> transcript message index
    std::vector<std::int32_t> position; // transcript message index -> position, -1 if excluded
    std::size_t size() const { return index.size(); }
};
ConversationView conversationView(const Transcript &t);
bool isUserRequest(const Message &m);

// id views the tool_use block's id: valid while the analysed transcript lives (an Analysis is kept
// next to its transcript), and no allocation per call (ids are longer than the short-string buffer).
struct ToolCall {
    std::size_t message = 0, block = 0; // transcript indices of the tool_use
    std::string_view id;
    std::string name;
    ToolKind kind = ToolKind::Other;
    std::int32_t resultMessage = -1; // transcript index of the result, -1 if unanswered
    bool failed = false;
};
struct ToolRound {
    std::size_t assistant = 0;        // transcript index
    SmallVec<std::size_t, 2> results; // transcript indices of the messages holding its results
    SmallVec<ToolCall, 2> calls;
    std::size_t chain = 0; // rounds without a user request between share a chain
    bool failed = false;
};
struct CriticalTool {
    std::size_t message = 0, block = 0;
    std::string_view toolId; // views the tool_use block's id, like ToolCall::id
    std::string toolName;
    std::string category; // file_modification, system_change, error_context
    std::string reason;
};
std::vector<ToolRound> toolRounds(const Transcript &t, const ConversationView &v);
std::vector<CriticalTool> criticalTools(const Transcript &t, const std::vector<ToolRound> &rounds, const AnalysisOptions &o);

// A score keeps what its rules saw (flags and the numbers behind them, ~80 bytes); the reason list
// is built on demand by reasonsFor(): 100 000 positions of ready-made reason objects were most of
// analyze()'s time and memory, and only the panel, tooltips and the CLI ever read them.
enum class SequenceRule : std::uint8_t {
    None,
    CallResult,
    Chained,
    PairSpansCut
};
enum class BreakRule : std::uint8_t {
    None,
    UserFollowsUser,
    Pause,
    Phrase
};
struct BoundaryScore {
    std::size_t position = 0; // cut before this conversation position
    std::size_t index = 0;    // transcript index of the message at that position
    double score = 0;
    double topicSimilarity = -1; // -1: not computed (a side without words)
    bool inToolSequence = false, conversationBreak = false, errorNear = false, topicChange = false;
    bool afterToolResult = false, afterAssistant = false;
    SequenceRule sequence = SequenceRule::None;
    BreakRule breakRule = BreakRule::None;
    std::int32_t breakPhrase = -1; // index into AnalysisOptions::breakPhrases (BreakRule::Phrase)
    std::int64_t pauseMs = 0;      // BreakRule::Pause
    std::string_view chainedId;    // SequenceRule::Chained: the result id the next call's text names
                                   // (views the transcript, like ToolCall::id)
};
// Every rule that moved the score, in order, with its points ("base" 100 first). `o` must be the
// options the score was computed with (Analysis::options).
Reasons reasonsFor(const BoundaryScore &s, const AnalysisOptions &o);
// Scores for positions 1..n-1 (element k is position k+1).
std::vector<BoundaryScore> scoreBoundaries(const Transcript &t, const ConversationView &v, const AnalysisOptions &o);
// Best position in [max(minIndex, target - window), min(n - window, target + window)], first on ties;
// nullopt when that range is empty.
std::optional<std::size_t> findCompactionBoundary(const std::vector<BoundaryScore> &scores, std::size_t n,
                                                  const AnalysisOptions &o);

enum class Priority : std::uint8_t {
    Sacred,
    Critical,
    High,
    Medium,
    Low,
    Lowest,
    Excluded
};
std::string_view priorityName(Priority p);
struct PriorityInfo {
    Priority priority = Priority::Excluded;
    std::string_view rule;        // static rule id
    SmallVec<Priority, 8> blocks; // one per block (inline: messages rarely have more)
    SmallVec<std::string_view, 2> blockRules;
};
// One per transcript message (Excluded for non-conversation ones).
std::vector<PriorityInfo> priorities(const Transcript &t, const ConversationView &v, const AnalysisOptions &o);

// Like BoundaryScore: the rules' inputs are kept, the reason lists are built on demand.
struct Importance {
    std::size_t index = 0;
    double score = 0; // seed 004, 0..1
    int points = 0;   // seed 001
    bool important = false;
    bool userRequest = false, codeOrCommand = false, toolResult = false, failedResult = false;
    bool media = false, referencedLater = false;
    std::int32_t keyword = -1;           // index into AnalysisOptions::importantKeywords
    std::uint64_t textBytes = 0;         // text + tool result text (UTF-8 bytes)
    std::int64_t minutesBeforeLast = -1; // age against the transcript's last timestamp; -1 unknown
};
// Seed 004 reasons (base first, points = score delta) and seed 001 point reasons; `o` as for
// boundaries (Analysis::options).
Reasons reasonsFor(const Importance &im, const AnalysisOptions &o);
PointReasons pointReasonsFor(const Importance &im);
// One per conversation position.
std::vector<Importance> importance(const Transcript &t, const ConversationView &v, const AnalysisOptions &o);

struct Features {
    std::size_t totalMessages = 0;
    std::int64_t totalTokens = 0, targetTokens = 0, recentTokens = 0;
    double avgMessageLength = 0, compressionRatio = 0, recentRatio = 0;
    bool hasLongMessages = false, hasSystem = false, hasTool = false;
    std::string severity; // light, moderate, heavy
};
struct Recommendation {
    std::string model, provider;
    std::string providerStrategy; // from the table, "" when no entry matched
    std::string strategy;         // middle, oldest, hybrid, adaptive
    double confidence = 0;
    std::string rule;           // the rule that decided ("provider", a feature rule id, or the adaptive reason)
    std::string adaptiveReason; // "no_rule_fired" / "low_confidence" when adaptive
    Reasons reasons;            // every step, in order (points = confidence)
};
struct Zones {
    std::vector<std::size_t> system, compressible, recent; // transcript indices
    std::int64_t systemTokens = 0, compressibleTokens = 0, recentTokens = 0, totalTokens = 0;
    std::int64_t threshold = 0;
    bool oldTrigger = false; // total >= threshold
    bool newTrigger = false; // compressible >= threshold
};
struct UsageInfo {
    std::int64_t tokens = 0, window = 0; // tokens: the live context (tokens/contextfigure.h), fixed part included
    std::int64_t fixedTokens = 0;        // the fixed part of every request, in the same count
    std::string basis;                   // tokens::basisName: measured, calibrated, exact, seed
    std::string how;                     // how the figure was obtained
    std::string windowSource;            // "option", "recorded in the file", "table: <pattern>", "default"
    double ratio = 0;
    std::string band; // none, snip, microcompact, auto_compact, hard_truncate
};
struct NeedsCompaction {
    bool needed = false;
    Reasons reasons;
};
struct Facts {
    std::vector<std::pair<std::size_t, std::string>> userRequests; // index, text
    std::vector<std::string> filesRead, filesModified;             // unique, first-seen order
    std::vector<std::pair<std::size_t, std::string>> commands;
    std::vector<std::pair<std::size_t, std::string>> errors; // index, first line
    std::string pendingTask, currentWork;
    std::int32_t pendingTaskIndex = -1, currentWorkIndex = -1;
};

Features features(const Transcript &t, const ConversationView &v, std::int64_t targetTokens);
Recommendation recommend(const Features &f, const std::string &model, Format format, const AnalysisOptions &o);
Zones zones(const Transcript &t, const ConversationView &v, std::int64_t threshold, int recent);
NeedsCompaction needsCompaction(std::int64_t tokens, std::size_t messages, const AnalysisOptions &o);
std::string usageBand(double ratio, const std::vector<double> &bands);
std::int64_t contextWindowFor(const std::string &model, const std::vector<WindowRule> &table, std::string *pattern = nullptr);
// The context window of a transcript, the one answer GUI and CLI give for a file: o.contextWindow
// when set (the user's choice), else the window the file records (Codex model_context_window), else
// the model table for the last model the conversation names, else 200 000. Source as in UsageInfo.
struct WindowChoice {
    std::int64_t window = 0;
    std::string source;
};
WindowChoice contextWindowOf(const Transcript &t, const AnalysisOptions &o);
bool modelMatches(const std::string &model, const std::string &pattern);
Facts facts(const Transcript &t, const ConversationView &v);

struct Analysis {
    AnalysisOptions options; // what it was computed with (reasonsFor needs them)
    ConversationView view;
    std::vector<ToolRound> rounds;
    std::vector<CriticalTool> critical;
    std::vector<BoundaryScore> boundaries; // position 1..n-1
    std::optional<std::size_t> boundary;   // chosen position
    std::vector<PriorityInfo> priority;    // per transcript message
    std::vector<Importance> importance;    // per conversation position
    Features features;
    Recommendation recommendation;
    Zones zones;
    NeedsCompaction needs;
    UsageInfo usage;
    Facts facts;
};

Analysis analyze(const Transcript &t, const AnalysisOptions &o = {});

// Fills Message::textIndex (the per-message text scans analyze() needs: keywords, fences, break
// phrases, topic words) for options `o`, on up to two threads. The loader does this with the
// default options right after the token estimate; analyze() falls back to scanning any message
// whose index is missing, stale or made for other options, so calling this is never required.
void indexText(Transcript &t, const AnalysisOptions &o = {}, int threads = util::defaultThreads());

} // namespace cl::analysis
