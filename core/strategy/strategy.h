// SPDX-License-Identifier: MIT
#pragma once

// Context-compression strategies (docs/design/mechanisms.md §9, docs/design/agents.md) behind one interface:
//   Strategy::apply(Input, Params) -> Result
// A result is the new message list (Slots: an original message unchanged, an edited copy, or an
// inserted message) plus, for every original message and block, its Fate and the reason, plus Stats.
// Parameters are described by ParamSpec so the GUI builds its forms and the CLI its flags from the
// same data. run() is the driver every caller uses: it resolves parameters, times the strategy,
// applies the guards (refuse a larger result; pinned messages and exempt tools untouched), computes
// the stats and metrics (efficiency, fact retention, cache prefix) and checks validity.
//
// Scope: strategies work on the conversation messages (Message::isConversation(), not sidechain),
// the ones a model sees. Events, metadata and sidechain lines keep their place untouched.
// Token counts are the seed 001 estimate (tokens/estimator.h), the same numbers the analysis uses.

#include "core/analysis/analysis.h"
#include "core/strategy/tables.h"
#include "core/model/transcript.h"
#include "core/io/validity.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cl::strategy {

class Summarizer;

enum class Fate : std::uint8_t {
    Kept,
    Snipped,
    Cleared,
    Microcompacted,
    Summarized,
    Removed,
    Inserted
};
constexpr std::size_t kFateCount = 7;
std::string_view fateName(Fate f);

// ---- Parameters ---------------------------------------------------------------------------------

struct ParamSpec {
    enum class Type : std::uint8_t {
        Int,
        Double,
        Bool,
        String,
        StringList,
        Choice
    };
    std::string name; // camelCase, as in the seeds ("keepLastToolRounds")
    Type type = Type::Int;
    double min = 0, max = 0; // numeric range (inclusive); min == max: unbounded
    nlohmann::json defaultValue;
    std::vector<std::string> choices; // Choice only
    std::string help;
};
std::string_view paramTypeName(ParamSpec::Type t);

// Resolved parameter values (every spec present, type-checked, in range).
class Params
{
public:
    nlohmann::json values = nlohmann::json::object();
    std::int64_t integer(std::string_view name) const;
    double number(std::string_view name) const;
    bool flag(std::string_view name) const;
    std::string string(std::string_view name) const;
    std::vector<std::string> list(std::string_view name) const;
};

// given: {name: value} (values may also be strings as typed on a command line: "3", "true",
// "a,b"). Unknown names and out-of-range values are errors naming the parameter.
bool resolveParams(const std::vector<ParamSpec> &specs, const nlohmann::json &given, Params &out, std::string &error);
// "name=value" -> given[name] = value (string; resolveParams converts it).
bool parseAssignment(std::string_view text, nlohmann::json &given, std::string &error);

// ---- Input --------------------------------------------------------------------------------------

class Input
{
public:
    explicit Input(const Transcript &t, analysis::AnalysisOptions options = {});
    Input(const Transcript &t, std::shared_ptr<const analysis::Analysis> precomputed, analysis::AnalysisOptions options);

    const Transcript &transcript;
    analysis::AnalysisOptions options;      // context window, thresholds, tables (the analysis uses them)
    std::vector<std::size_t> pinned;        // transcript indices the user pinned: never removed or edited
    std::vector<std::string> exemptTools;   // calls and results of these tools are never removed or cleared
    const Summarizer *summarizer = nullptr; // null: the rule-based summarizer

    // Computed on first use and shared by every strategy run on this input.
    const analysis::Analysis &analysis() const;
    std::shared_ptr<const analysis::Analysis> sharedAnalysis() const;
    const Summarizer &summary() const;
    // Window the usage triggers compare against: options.contextWindow, else by model table.
    std::int64_t contextWindow() const;
    std::int64_t totalTokens() const; // conversation estimate (seed 001)
    // The live context in the agent's count, fixed part included (tokens/contextfigure.h, with
    // options.estimator): what the agents' triggers and the removal targets compare against.
    std::int64_t liveTokens() const;
    // Seed-estimate tokens of conversation that free `live` tokens of the live figure.
    std::int64_t seedTokensFor(std::int64_t live) const;
    bool isPinned(std::size_t index) const;
    bool isExemptTool(std::string_view toolName) const;

    // Per-block tables of the transcript (strategy/tables.h), built on first use and shared by every
    // strategy run on this input, and by later inputs given the same tables (setTables()).
    using BlockTokens = strategy::BlockTokens;
    using TextLengths = strategy::TextLengths;
    std::shared_ptr<const BlockTokens> blockTokens() const { return m_tables->blockTokens(transcript); }
    std::shared_ptr<const TextLengths> textLengths() const { return m_tables->textLengths(transcript); }
    std::shared_ptr<const CompactDigests> digests() const { return m_tables->digests(transcript); }
    std::shared_ptr<const std::vector<std::size_t>> contentChars() const { return m_tables->contentChars(transcript); }
    const std::shared_ptr<TranscriptTables> &tables() const { return m_tables; }
    // Tables kept from an earlier input of the same transcript (null: fresh ones).
    void setTables(std::shared_ptr<TranscriptTables> tables)
    {
        m_tables = tables ? std::move(tables) : std::make_shared<TranscriptTables>();
    }

private:
    mutable std::shared_ptr<const analysis::Analysis> m_analysis;
    std::shared_ptr<TranscriptTables> m_tables = std::make_shared<TranscriptTables>();
    mutable std::vector<char> m_pinned;
};

// ---- Result -------------------------------------------------------------------------------------

// One message of the result, in order.
struct Slot {
    std::int32_t origin = -1;               // original transcript index; -1: inserted
    std::shared_ptr<const Message> message; // null: the original, unchanged
    Fate fate = Fate::Kept;                 // Inserted for inserted slots
    std::string reason;                     // inserted slots only: an original's is its MessageFate's
};

struct MessageFate {
    Fate fate = Fate::Kept;
    std::string reason;       // why (rule + numbers); empty when kept untouched
    std::int32_t slot = -1;   // index into Result::slots, -1 when removed
    std::vector<Fate> blocks; // per original block; empty: all as `fate`
};

struct Stats {
    std::size_t messagesBefore = 0, messagesAfter = 0; // conversation messages
    std::size_t originalKept = 0;                      // original conversation messages still present (edited or not)
    std::size_t inserted = 0;
    std::int64_t tokensBefore = 0, tokensAfter = 0; // the conversation, seed 001 estimate
    double reduction = 0;                           // 1 - after / before
    // The live context before and after, as the agent counts it with its fixed part
    // (tokens/contextfigure.h): what the gauge shows for the input and for the applied result.
    std::int64_t liveBefore = 0, liveAfter = 0;
    double liveReduction = 0; // 1 - liveAfter / liveBefore
    double efficiency = 0;    // seed 000: 0.6 (1 - after/before) + 0.4 kept/before
    std::size_t factsTotal = 0, factsKept = 0;
    double factRetention = 1;                         // factsKept / factsTotal (1 when there are none)
    std::int64_t cachePrefixTokens = 0;               // tokens of the leading messages left byte-identical
    double cachePrefixShare = 0;                      // of tokensBefore
    double millis = 0;                                // time of the strategy itself (not the metrics)
    std::array<std::size_t, kFateCount> fateCounts{}; // per original conversation message (+ inserted)
};

// The facts a later turn may need (metrics.cpp; docs/design/mechanisms.md §8): user requests (first
// line, at most 80 bytes), paths a call read or modified, shell commands (first 80 bytes), errors
// (first line of a failed result). `only`: just these transcript indices (else every message).
// Whether a text still mentions one: strategy/factmatch.h.
struct Fact {
    enum class Kind : std::uint8_t {
        Request,
        Path,
        Command,
        Error
    };
    std::string text;
    Kind kind = Kind::Request;
    std::vector<std::size_t> sources; // transcript indices
};
std::vector<Fact> collectFacts(const Transcript &t, const std::vector<std::size_t> *only = nullptr);
std::string_view factKindName(Fact::Kind k);

struct Result {
    std::string strategy;
    Params params;
    bool changed = false;         // false: below its trigger, or refused by a guard (see note)
    std::string note;             // one line for humans: what happened or why nothing did
    std::vector<std::string> log; // steps taken (tiers, chosen boundary, sub-strategy, ...)
    std::vector<Slot> slots;
    std::vector<MessageFate> fates; // per original transcript message
    Stats stats;
    std::vector<Violation> violations; // validity of the result in its format (indices into materialize())
    bool validityChecked = false;
    nlohmann::json extra = nlohmann::json::object(); // strategy-specific data (boundary, summary, history, ...)

    // The result as a transcript: same buffer and records (so writers reuse untouched lines),
    // messages in slot order, edited/inserted ones flagged edited. Tool pairs re-linked.
    Transcript materialize(const Transcript &original) const;
    // The result's shape for the validity check: what validate() and linkToolPairs() read (roles,
    // kinds, types, source lines, block types, tool ids and names, whether a text is empty; tool
    // pairs linked), without the texts, inputs, metadata and records materialize() copies (hundreds
    // of megabytes for a result of 100 000 messages). validate(shape()) == validate(materialize()).
    Transcript shape(const Transcript &original) const;
    const Message &message(const Transcript &original, std::size_t slot) const;
    // Why slot `slot` is what it is: the inserted slot's own reason, else its original's fate reason.
    const std::string &slotReason(std::size_t slot) const;
};

// ---- Strategy -----------------------------------------------------------------------------------

// What a strategy does to the conversation, the way the interface groups them.
enum class Group {
    ToolResults, // shrinks or clears tool results and thinking, every message stays
    Removal,     // removes whole messages, exchanges or tool rounds
    Summary,     // replaces old messages with a summary
};
// "Shrink tool results", "Remove messages", "Summarize".
std::string_view groupTitle(Group g);

class Strategy
{
public:
    virtual ~Strategy() = default;
    virtual std::string_view name() const = 0;        // CLI name, kebab-case ("trim-tools")
    virtual std::string_view title() const = 0;       // GUI label
    virtual std::string_view source() const = 0;      // design reference: "seed 000 §3", "peer: gemini-cli"
    virtual Group group() const = 0;                  // what it does
    virtual std::string_view follows() const = 0;     // whose policy it reproduces ("Claude Code"); "" if ours
    virtual std::string_view description() const = 0; // one paragraph: what it does, defaults' origin
    virtual std::vector<ParamSpec> params() const = 0;
    // Fills slots, fates, changed, note, log, extra. Stats and validity are the driver's job.
    virtual Result apply(const Input &in, const Params &p) const = 0;
};

struct RunOptions {
    bool validate = true;     // materialize and check validity in the transcript's format
    bool metrics = true;      // fact retention and cache prefix
    bool refuseLarger = true; // guard: a result larger than its input is refused
};

// Resolves params (error -> Result with changed=false and note = the error; *error set if given),
// runs, applies guards, fills stats / metrics / validity.
Result run(const Strategy &s, const Input &in, const nlohmann::json &params = nlohmann::json::object(),
           const RunOptions &opt = {}, std::string *error = nullptr);

// The identity result (every message kept) for `t`.
Result unchanged(const Transcript &t);
// Stats of a result against its input (the driver calls this; exposed for tests and the manager).
void computeStats(const Input &in, Result &r, bool metrics);

} // namespace cl::strategy
