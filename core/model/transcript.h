// SPDX-License-Identifier: MIT
#pragma once

// The neutral transcript model every loader fills and every writer, analysis and view reads.
// Lossless by construction: the original bytes stay in Transcript::buffer and every source line
// (or top-level JSON item) is a Record pointing into it, so an untouched record is written back
// byte-for-byte. Messages are the decoded view of those records.

#include "core/model/format.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cl {

enum class Role : std::uint8_t {
    System,
    User,
    Assistant,
    Tool,
    Unknown
};
std::string_view roleName(Role r);

// What a message is, beyond its role.
enum class MessageKind : std::uint8_t {
    Conversation,    // a real turn the model saw (user / assistant / tool / system prompt)
    CompactBoundary, // Claude Code compact_boundary, Codex "compacted", ...
    MicrocompactBoundary,
    CompactSummary, // the summary message written after a compaction
    Event,          // system events, info/warning/error lines, token_count, ...
    Meta,           // metadata lines (summary, file-history-snapshot, session_meta, ...)
};
std::string_view messageKindName(MessageKind k);

enum class BlockType : std::uint8_t {
    Text,
    ToolUse,
    ToolResult,
    Thinking,
    RedactedThinking,
    Image,
    Document,
    Raw
};
std::string_view blockTypeName(BlockType t);

struct Block {
    BlockType type = BlockType::Text;
    std::string text;         // text / thinking text / flattened tool result / raw JSON for Raw
    std::string toolId;       // tool_use id, or the id a tool_result answers (tool_use_id / call_id)
    std::string toolName;     // tool_use name (and, once paired, the name on its tool_result)
    nlohmann::json input;     // tool_use input (object); null otherwise
    std::string mediaType;    // image / document media type
    std::size_t dataSize = 0; // image / document payload size in bytes of base64
    bool isError = false;     // tool_result is_error / failed tool call
    bool serverSide = false;  // a call the provider runs itself (Codex web_search_call): no result follows
    bool repeated = false;    // a result its agent records and sends twice (Gemini CLI restates a turn's results)
    bool cleared = false;     // a result a microcompaction cleared: the file keeps it, requests send kClearedResult
    // The most bytes of this tool result the agent sends (Codex keeps the head and tail of a longer
    // output and cuts the middle, whatever its file holds: sentResultText); 0: all of it.
    std::uint32_t sentLimit = 0;
    // Pairing, filled by linkToolPairs(): message index holding the partner block, -1 if orphan.
    std::int32_t pairMessage = -1;
    std::int32_t pairBlock = -1;
};
// A block of `type` holding `text` (the loaders' text, thinking and summary blocks).
inline Block makeBlock(BlockType type, std::string text)
{
    Block b;
    b.type = type;
    b.text = std::move(text);
    return b;
}

struct Usage {
    std::int64_t inputTokens = 0;
    std::int64_t outputTokens = 0;
    std::int64_t cacheCreationTokens = 0;
    std::int64_t cacheReadTokens = 0;
    std::int64_t reasoningTokens = 0;
    std::int64_t contextWindow = 0; // when the source records it (Codex model_context_window)
    // What the model saw as its context at this response.
    std::int64_t contextTokens() const { return inputTokens + cacheCreationTokens + cacheReadTokens; }
};

constexpr std::int64_t kNoTime = std::numeric_limits<std::int64_t>::min();

// Text features of one message cached for the analysis: core/analysis/index.cpp fills them after
// loading (analysis::indexText), and analyze() uses them when `key` matches its scan options and
// `bytes` the message's current text size; otherwise it scans the text itself. Edits that build a
// new Message start with key 0 (not computed).
struct TextIndex {
    static constexpr std::size_t kMaxWords = 32;
    std::uint32_t key = 0;         // hash of the scan options; 0 = not computed
    std::uint32_t bytes = 0;       // text + tool result bytes when scanned (a cheap staleness check)
    std::int16_t keyword = -1;     // first important keyword found (index into the option's list)
    std::int16_t breakPhrase = -1; // first break phrase (user requests only)
    bool fence = false;            // ``` in the scanned text
    std::uint8_t wordCount = 0;
    std::array<std::uint32_t, kMaxWords> words{}; // topic word hashes, sorted (analysis.h "topic change")
};

struct Message {
    Role role = Role::Unknown;
    MessageKind kind = MessageKind::Conversation;
    std::string type;         // source type, e.g. "assistant", "system/compact_boundary", "response_item/function_call"
    std::string id;           // uuid / item id / message id
    std::string parentId;     // parentUuid (Claude Code)
    std::string apiMessageId; // message.id of an API response (Claude Code groups lines by it)
    std::string model;
    std::string agentId;           // subagent id for sidechain / subagent-file messages
    std::string timestamp;         // as written in the source
    std::int64_t timeMs = kNoTime; // parsed timestamp, ms since epoch
    bool sidechain = false;
    bool isMeta = false;        // Claude Code isMeta (slash-command expansion)
    bool history = false;       // before the last compaction: in the file, no longer sent (markLiveContext)
    std::optional<Usage> usage; // measured usage reported with this message (once per API response)
    nlohmann::json meta;        // small metadata worth showing (compactMetadata, subtype fields, ...)
    std::vector<Block> blocks;
    // Source records this message was decoded from (indices into Transcript::records, ascending).
    // Several for a Claude Code response split over lines; shared when one record yields several
    // messages (a Gemini CLI turn with inline tool results); empty for synthesized messages.
    std::vector<std::uint32_t> records;
    std::uint32_t line = 0; // 1-based source line (or item index + 1 for JSON documents)
    bool edited = false;    // set when a strategy changed it; writers then re-serialize it
    // What is computed from the message and kept with it (reset when a strategy edits the text).
    struct Cache {
        mutable std::int32_t tokenEstimate = -1; // seed 001 estimate; -1 = not computed (tokens/estimator.h)
        TextIndex textIndex;                     // the analysis' text scan (key 0 = not computed)
    } cache;

    // A turn or a compaction summary: sent to the model when it was live, history or not.
    bool isTurn() const { return kind == MessageKind::Conversation || kind == MessageKind::CompactSummary; }
    // Part of the conversation the model sees: a turn that is not history.
    bool isConversation() const { return !history && isTurn(); }
    // A progress, hook or other event line, or a metadata line: never sent as a turn.
    bool isEvent() const { return kind == MessageKind::Event || kind == MessageKind::Meta; }
    bool hasToolUse() const;
    bool hasToolResult() const;
    std::string plainText() const; // text blocks joined with '\n'
};

// One source line of a JSONL file, or one top-level item of a JSON document.
struct Record {
    std::uint32_t offset = 0; // byte range in Transcript::buffer, including the line terminator
    std::uint32_t length = 0;
    std::uint32_t line = 0;    // 1-based line number of its first byte
    std::int32_t message = -1; // first index into Transcript::messages decoded from it; -1 if none (raw, off-branch)
    std::string type;          // line type as read ("user", "summary", "$set", ...), "" if unparseable
    bool parsed = false;       // false: kept as an opaque raw record
};

struct Diagnostic {
    enum class Severity : std::uint8_t {
        Info,
        Warning,
        Error
    };
    Severity severity = Severity::Warning;
    std::string file;
    std::uint32_t line = 0; // 0 = whole file
    std::string message;
    std::string toString() const; // "file:line: message"
};

struct Transcript {
    Format format = Format::Unknown;
    std::string path;
    std::shared_ptr<const std::string> buffer; // the file's bytes exactly as read
    std::vector<Record> records;               // every line / item, in file order
    std::vector<Message> messages;             // decoded messages in conversation order
    std::vector<Diagnostic> diagnostics;
    nlohmann::json header;                                    // session-level metadata (session_meta, model, system, ...)
    std::vector<std::shared_ptr<const Transcript>> subagents; // Claude Code subagent files
    std::size_t offBranchMessages = 0;                        // Claude Code: messages dropped by rewinds (still in records)
    // How this file's token estimates convert to its agent's count (tokens/contextfigure.h), learned
    // from the file as read and carried by a strategy's result, so that an edited transcript is counted
    // like the file it came from. factor 0: not carried (learned from the messages).
    struct TokenCalibration {
        double factor = 0;
        std::size_t pairs = 0;
        std::int64_t fixed = -1; // the fixed part in the agent's count; -1: from the messages
        std::string how, fixedHow;
        // The original's last measurement, kept through edits: an edited transcript is its
        // calibrated estimate plus `offset` (that measured figure minus the original's calibrated
        // estimate at the same point), also after compactions the edit inserted. measuredAt < 0: none.
        std::int32_t measuredAt = -1;
        std::int32_t measuredContext = 0; // compaction boundaries before it
        std::int64_t measured = 0, offset = 0;
        // A strategy's result: messages [0, unchangedPrefix) are the file's as read, in order, nothing
        // removed between them. -1: as read (decided from the records).
        std::int64_t unchangedPrefix = -1;
    };
    TokenCalibration tokenCalibration;
    bool wholeHistory = false; // loaded with LoadOptions::wholeHistory: every message counts, as one context
    // Set when this transcript is one request of a recording (core/io/recordedrequest.h): which one,
    // and what came back. The buffer is then the request's body; the file is the recording.
    nlohmann::json recording;

    std::string_view recordBytes(const Record &r) const { return std::string_view(*buffer).substr(r.offset, r.length); }
    void addDiagnostic(std::uint32_t line, std::string message, Diagnostic::Severity s = Diagnostic::Severity::Warning);
    bool hasEdits() const;
};

// Fills Block::pairMessage/pairBlock for every tool_use / tool_result pair (by id) and copies the
// tool name onto results. Reports orphans and duplicate ids as diagnostics. Idempotent.
void linkToolPairs(Transcript &t);

// What Claude Code sends instead of a tool result its microcompaction cleared (Block::cleared).
inline constexpr std::string_view kClearedResult = "[Old tool result content cleared]";

// The text the agent sends for tool result `b`: kClearedResult when cleared; when longer than
// b.sentLimit, its head and tail (half the limit each, cut at a line end where there is one within
// it, never inside a UTF-8 sequence) around a one-line marker, built in `storage`; else b.text.
std::string_view sentResultText(const Block &b, std::string &storage);

// The live context (docs/design/analysis.md, "Live context"): the model sees only what follows the
// last compaction (Claude Code compact_boundary, Codex `compacted`, Gemini CLI compression). Marks
// every message before the last compaction boundary outside a sidechain as history, so that
// isConversation() is false for it: tokens, analysis, strategies, validity and conversions then work
// on the live context, while the history stays loaded and is written back untouched. The tool
// results a later microcompact boundary lists (compactedToolIds) are marked cleared. Returns the
// number of messages marked history. Loaders call it unless LoadOptions::wholeHistory asks otherwise.
std::size_t markLiveContext(Transcript &t);
// Index of the first message that is not history (0 when nothing is).
std::size_t liveStart(const Transcript &t);
// The same file's transcript without messages and diagnostics: format, path, buffer, records (still
// pointing at the old messages), header, subagents and the off-branch count. For transcripts made of
// another list of messages over the same bytes (a strategy's result, the history a compaction replaced).
Transcript sameFileWithoutMessages(const Transcript &t);

// Parses an RFC 3339 / ISO 8601 timestamp ("2025-09-03T00:47:19.293Z", offsets allowed) or epoch
// numbers; returns kNoTime when it cannot.
std::int64_t parseTimestamp(std::string_view s);
// ms since epoch as "2025-09-03T00:47:19.293Z" (UTC, milliseconds), the form the agents write.
std::string formatTimestamp(std::int64_t ms);

} // namespace cl
