// SPDX-License-Identifier: MIT
#pragma once

// Token counts per model family, as exact as the transcript allows, each labelled with where the
// number comes from:
//
// - OpenAI family (openai-chat, openai-responses, codex, or a gpt- / o1 / o3 / o4 model): every
//   message is counted exactly with o200k_base (cl100k_base for gpt-4 / gpt-3.5 models, not gpt-4o
//   or gpt-4.1): its text, thinking summaries, tool name + arguments (compact JSON) and tool
//   results, plus kMessageFraming tokens per message and kReplyPriming for the reply, as in OpenAI's
//   cookbook ("How to count tokens with tiktoken": <|start|>{role}<|message|>...<|end|> costs 3, every
//   reply is primed with <|start|>assistant<|message|>, 3 more) -> Exact. Images and documents have
//   no text to count: the seed constants are used and the message becomes Estimated.
// - Claude family (claude-code, anthropic, claude* models) and Gemini family (gemini, gemini-cli,
//   gemini* models): the API reported what the model saw. At the last response with usage (after
//   the last compaction), Usage::contextTokens() is the exact size of everything before it -> the
//   total up to there is Measured. The messages from that response on are counted with o200k and
//   scaled by a factor learned from the transcript itself -> Estimated.
//   Per message in the measured part: the growth of the measured context between two consecutive
//   usage points is shared among the messages that caused it in proportion to their o200k counts
//   (so the shares add up to the measurement exactly). Whatever the first measurement holds beyond
//   the scaled count of the messages before it is `overhead` (system prompt and tool definitions,
//   which transcripts do not record).
//   The factor: sum of the context growths over all pairs of consecutive usage points (same
//   context, no compaction between them, growth > 0) divided by the sum of the o200k counts of
//   the messages between them; 1.0 without such a pair; clamped to [0.8, 1.6] so one odd pair
//   (a tool result the client truncated, stripped thinking) cannot make the tail absurd.
// - No vocabulary: the seed 001 estimator (tokens/estimator.h), Estimated.
//
// The total is the context at the end of the transcript: conversation messages of the main
// chain (not sidechains) after the last compaction boundary, plus the reply priming (OpenAI) or the
// overhead (Claude / Gemini).

#include "core/tokens/bpe.h"
#include "core/model/transcript.h"
#include "core/util/parallel.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cl::tokencount {

constexpr int kMessageFraming = 3;
constexpr int kReplyPriming = 3;
constexpr double kMinFactor = 0.8;
constexpr double kMaxFactor = 1.6;

enum class Family {
    OpenAI,
    Claude,
    Gemini,
    Unknown
};
std::string_view familyName(Family f); // "openai", "claude", "gemini", "unknown"

struct Count {
    enum Source {
        Exact,
        Measured,
        Estimated
    };
    std::int64_t tokens = 0;
    Source source = Estimated;
    std::string how; // one line: what was counted and with what
};
std::string_view sourceName(Count::Source s); // "exact", "measured", "estimated"

// The model family of a transcript: a recognised model name (first assistant message with one, or
// header "model") wins, otherwise the format decides.
Family detectFamily(const Transcript &t);
// The encoding OpenAI uses for `model`: cl100k_base for gpt-4 (not gpt-4o / gpt-4.x) and gpt-3.5.
bpe::Encoding encodingForModel(std::string_view model);

// The text of a message as the model reads it, block by block (tool_use: name + compact JSON
// input). Blocks without text (images, documents, redacted thinking) are left out; `nonText` says
// how many there were.
std::vector<std::string_view> messageTexts(const Message &m, std::vector<std::string> &storage, int *nonText = nullptr);

// Exact count of one message: framing + text blocks; non-text blocks use the seed constants and
// set *approximate.
std::int64_t exactMessage(const bpe::Tokenizer &tok, const Message &m, bool *approximate = nullptr);

// Per-message exact counts, keyed by message index and a hash of the message content, so a
// recount after an edit only redoes the changed messages. Not thread-safe; one per transcript.
class CountCache
{
public:
    // Count of message i (exact with `tok`), computed if missing or stale.
    std::int64_t get(const bpe::Tokenizer &tok, const Transcript &t, std::size_t i, bool *approximate = nullptr);
    // Fills every missing/stale entry, on up to `threads` threads.
    void fill(const bpe::Tokenizer &tok, const Transcript &t, int threads = util::defaultThreads());
    std::size_t computed() const { return m_computed; } // how many counts were computed (tests)

private:
    struct Entry {
        std::uint64_t hash = 0;
        std::int64_t tokens = -1;
        bool approximate = false;
        bpe::Encoding encoding = bpe::Encoding::O200kBase;
    };
    std::vector<Entry> m_entries;
    std::size_t m_computed = 0;
};

std::uint64_t contentHash(const Message &m);

struct CountOptions {
    // Tokenizers to use; when null they are loaded with bpe::Tokenizer::load() unless noVocab.
    std::shared_ptr<const bpe::Tokenizer> o200k;
    std::shared_ptr<const bpe::Tokenizer> cl100k;
    bool noVocab = false; // force the estimator fallback (tests, --estimate)
    int threads = util::defaultThreads();
    CountCache *cache = nullptr; // optional, reused between calls
};

struct TranscriptCount {
    Family family = Family::Unknown;
    std::string encoding;               // "o200k_base", "cl100k_base" or "" (estimator)
    std::vector<Count> messages;        // parallel to Transcript::messages (0 for messages not sent)
    Count total;                        // context at the end (see above)
    std::int64_t measuredPart = 0;      // tokens of the total that are measured / exact
    std::int64_t estimatedPart = 0;     // tokens of the total that are estimated
    std::int64_t overhead = 0;          // Claude / Gemini: measured context no message accounts for
    double factor = 1.0;                // Claude / Gemini: learned ratio measured / o200k
    double rawFactor = 1.0;             // before clamping
    std::size_t factorPairs = 0;        // usage pairs the factor was learned from
    std::int32_t lastUsageMessage = -1; // message whose usage the measured part comes from
    std::string note;                   // why it fell back, when it did
};

TranscriptCount countTranscript(const Transcript &t, const CountOptions &opts = {});

// ---- Estimator error report (tokens/counts_report.cpp) ----------------------------------------------

enum class ContentType {
    Prose,
    Code,
    Json,
    Cjk,
    Base64
};
std::string_view contentTypeName(ContentType c); // "prose", "code", "json", "cjk", "base64"
// Heuristic, first match wins:
//  base64: at least 64 bytes, only [A-Za-z0-9+/=_-] and line breaks, with a digit and both cases;
//  json:   trimmed text starts with { or [ and parses as JSON (tool inputs are always json);
//  cjk:    at least 20 % of the non-space code points are CJK / kana / hangul / fullwidth forms;
//  code:   a ``` fence, or at least 30 % of the non-blank lines look like code (end in ; { or }, or
//          start with a keyword such as def / import / #include / return / function / class),
//          or at least 6 % of the bytes are one of {}()[];=<>;
//  prose:  everything else.
ContentType classify(std::string_view text);

struct ReportRow {
    ContentType type = ContentType::Prose;
    std::size_t samples = 0;
    std::int64_t exact = 0;     // o200k
    std::int64_t estimator = 0; // seed 001 estimateText()
    std::int64_t charsDiv4 = 0; // ceil(code points / 4) per sample
    double estimatorErrorPercent() const { return exact ? double(estimator - exact) * 100.0 / double(exact) : 0.0; }
    double charsErrorPercent() const { return exact ? double(charsDiv4 - exact) * 100.0 / double(exact) : 0.0; }
};

struct ErrorTable {
    std::vector<ReportRow> rows; // one per content type that has samples, in enum order
    ReportRow total;             // type field unused
};

// Every text / thinking block, tool input (as JSON) and tool result of the conversation messages
// (sidechains included) is one sample.
ErrorTable estimatorErrorTable(const Transcript &t, const bpe::Tokenizer &o200k);
// Per-sample results of the table keyed by a hash and the length of the sample's bytes, so that the
// table of an edited transcript (apply, undo) counts only the samples it has not seen. The encoding
// of the tokenizer is part of the key. Thread-safe: a cancelled run still finishing may overlap
// the next one.
class SampleCache
{
public:
    std::size_t size() const;
    std::size_t computed() const; // samples counted (not found) since construction (tests)

private:
    friend std::optional<ErrorTable> estimatorErrorTable(const Transcript &, const bpe::Tokenizer &, SampleCache &,
                                                         const std::atomic<bool> *);
    struct Entry {
        std::size_t bytes = 0;
        ContentType type = ContentType::Prose;
        std::int64_t exact = 0, estimator = 0, charsDiv4 = 0;
    };
    mutable std::mutex m_mutex;
    std::unordered_map<std::uint64_t, Entry> m_entries;
    std::size_t m_computed = 0;
};
// The transcript's table through `cache`; nullopt when *cancel turned true before the end.
std::optional<ErrorTable> estimatorErrorTable(const Transcript &t, const bpe::Tokenizer &o200k, SampleCache &cache,
                                              const std::atomic<bool> *cancel = nullptr);
// The same over explicit samples (tests, plain text).
ErrorTable estimatorErrorTable(const std::vector<std::string_view> &samples, const bpe::Tokenizer &o200k);
std::string formatTable(const ErrorTable &table);

std::int64_t charsDiv4(std::string_view text);

} // namespace cl::tokencount
