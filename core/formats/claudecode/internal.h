// SPDX-License-Identifier: MIT
#pragma once

// Internals of the Claude Code session JSONL loader and writer, shared by the claudecode_*.cpp files.
// Loading runs in three stages: parallel per-line decoding into a compact LineInfo (simdjson, one
// reused parser per thread; nothing of the parse survives the line), a serial branch selection over the uuid/parentUuid graph, and a serial
// assembly of messages (grouping the lines of one API response by message.id).

#include "core/formats/formats.h"
#include "core/model/servertools.h"
#include "core/util/json.h"

#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace simdjson::dom {
class element;
}

namespace cl::formats::claudecode {

// A line's bytes without its terminator (\n or \r\n).
inline std::string_view withoutTerminator(std::string_view s)
{
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

enum class LineKind : std::uint8_t {
    Raw,   // unparseable (or not an object): kept as opaque bytes
    Blank, // empty / whitespace only
    User,
    Assistant,
    System,
    Attachment,
    Meta, // any other type: summary, progress, file-history-snapshot, unknown new types
};

inline bool isConversationKind(LineKind k)
{
    return k == LineKind::User || k == LineKind::Assistant || k == LineKind::System || k == LineKind::Attachment;
}

struct Problem {
    Diagnostic::Severity severity = Diagnostic::Severity::Warning;
    std::string text;
};

// Everything the serial passes need from one line; no DOM survives the parallel stage.
struct LineInfo {
    LineKind kind = LineKind::Raw;
    bool sidechain = false;
    bool isMeta = false;
    bool compactSummary = false;
    bool toolResultsOnly = false; // user line whose content is only tool_result blocks
    bool hasParentKey = false;    // "parentUuid" present (even null): the line takes part in the tree
    std::string type;
    std::string subtype;
    std::string uuid;
    std::string parentUuid;
    std::string logicalParentUuid;
    std::string agentId;
    std::string timestamp;
    std::string apiId; // message.id (assistant)
    std::string model;
    std::vector<Block> blocks;
    std::optional<Usage> usage;
    nlohmann::json meta; // small metadata (null when none)
    // A conversation line decodeLine read (one the fast path leaves alone, possibly 100 MB): its
    // kHeaderKeys, so that the transcript's header does not read it again. Null for the others.
    nlohmann::json header;
    std::vector<Problem> problems;
};

// The session fields a transcript's header takes from its first conversation line.
inline constexpr std::array<const char *, 4> kHeaderKeys = {"sessionId", "cwd", "version", "gitBranch"};

// Decodes one line (text without its terminator). lastLine: the file's last line without newline.
// This is the reference path on a nlohmann DOM; LineDecoder uses it for every line it cannot take.
// readableAfter: bytes readable past the line's end; with enough of them a huge line with few values
// (one 100 MB string) is read by simdjson into that DOM instead of nlohmann's lexer (core/util/json.h).
void decodeLine(std::string_view text, bool lastLineWithoutNewline, LineInfo &out, std::size_t readableAfter = 0);

// decodeLine on a line simdjson parsed (formats/claudecode/parse.cpp). False when the line must take the
// DOM path instead (out is then untouched).
bool decodeFast(const simdjson::dom::element &root, std::string_view text, LineInfo &out);

// The hot path: one simdjson parser, reused for every line one worker thread decodes. Lines that
// simdjson rejects (invalid JSON or UTF-8, too deep, huge integers) and a few rare shapes go to
// decodeLine above, so results and diagnostics are exactly those of the DOM path.
class LineDecoder
{
public:
    LineDecoder();
    ~LineDecoder();
    LineDecoder(const LineDecoder &) = delete;
    LineDecoder &operator=(const LineDecoder &) = delete;
    // paddedBytes: how many bytes after text's end may be read (simdjson reads ahead in blocks).
    void decode(std::string_view text, std::size_t paddedBytes, bool lastLineWithoutNewline, LineInfo &out);
    // Sets header[key] for each key whose (last) value in the line's object is a string. False when
    // simdjson does not take the line: the caller then uses the DOM path.
    bool headerFields(std::string_view text, std::size_t paddedBytes, std::span<const char *const> keys,
                      nlohmann::json &header);

private:
    bool parse(std::string_view text, std::size_t paddedBytes, simdjson::dom::element &root);

    struct Impl;
    std::unique_ptr<Impl> d;
};

// Decodes a message.content value into blocks; problems get what was wrong. The value is consumed
// (strings are moved out).
void decodeContent(nlohmann::json &content, std::vector<Block> &blocks, std::vector<Problem> &problems);
void decodeBlock(nlohmann::json &block, std::vector<Block> &blocks, std::vector<Problem> &problems);

// Decodes all lines of t.buffer on ctx.options.threads threads; false when cancelled.
bool decodeLines(const Transcript &t, const std::vector<cl::json::LineSpan> &spans, std::vector<LineInfo> &lines,
                 const LoadContext &ctx);
// Everything after decoding: records, diagnostics, header, active branch, messages (moves out of lines).
void assemble(Transcript &t, const std::vector<cl::json::LineSpan> &spans, std::vector<LineInfo> &lines,
              const LoadContext &ctx);

// The same on a simdjson element (the hot path). Results are identical to the nlohmann overloads,
// including duplicate keys (the last one wins, as in nlohmann's DOM) and type tolerance.
void decodeContent(const simdjson::dom::element &content, std::vector<Block> &blocks, std::vector<Problem> &problems);
// nlohmann's type_name() for the element's type.
const char *typeName(const simdjson::dom::element &e);
// Exactly cl::json::dump(nlohmann DOM of e): sorted keys, last duplicate wins, nlohmann's escaping.
void dumpElement(const simdjson::dom::element &e, std::string &out);
std::string dumpElement(const simdjson::dom::element &e);
// smallMeta's test (at most 64 nodes, strings up to 2 KB) on the nlohmann DOM e would become.
bool isSmall(const simdjson::dom::element &e);

// Blocks to Anthropic content JSON. Image blocks carrying the toolId of the tool_result just before
// them were nested in that result and go back inside it. notes collects what could not be kept.
nlohmann::ordered_json encodeBlocks(const std::vector<Block> &blocks, std::vector<std::string> *notes);
bool sameBlock(const Block &a, const Block &b);
// Keeps small values only, so Message::meta never holds a whole file snapshot.
nlohmann::json smallMeta(const nlohmann::json &obj, std::initializer_list<std::string_view> skip);

// Active-branch selection over all lines. onBranch[i] is true for conversation lines of the active
// chain (and their parallel-tool-call siblings), and for lines without any parentUuid key (legacy
// or drifted lines that cannot be placed in the tree: shown rather than lost). Problems go to t.
std::vector<char> selectActiveBranch(Transcript &t, const std::vector<LineInfo> &lines);

// Loads subagent transcripts of t (current and older layouts) into t.subagents; each one's header
// gets the call that started it (parentToolUseId) and, from its meta file, parentAgentId, agentType
// and description.
void loadSubagents(Transcript &t, const LoadContext &ctx);
// An agent file opened on its own (header agentFile): when its parent session is beside it, the
// header gets parentSession, parentToolUseId (the Task call that started the agent) and parentLine;
// for an agent another subagent started, parentSession is that agent's file (and parentAgentId set).
void linkAgentFile(Transcript &t);

// Envelope values shared by every line a writer creates.
struct Envelope {
    std::string sessionId;
    std::string cwd;
    std::string version = "contextlens";
    std::string gitBranch;
    bool agentFile = false; // a subagent's / compaction agent's own file: every line is a sidechain
};
Envelope envelopeFrom(const Transcript &t);
// A new line for message m (user / assistant / compact boundary / summary / system event), or an
// empty object when Claude Code sessions cannot carry it (a system prompt): then notes says why.
// Whether buildLine writes a line for m (Claude Code has no line for a system prompt).
bool buildsLine(const Message &m);
nlohmann::ordered_json buildLine(const Message &m, const Envelope &env, const std::string &uuid,
                                 const std::string &parentUuid, const std::string &timestamp,
                                 std::vector<std::string> &notes);

WriteResult writeSameFormat(const Transcript &t, ByteSink &out);
WriteResult writeConversion(const Transcript &t, ByteSink &out);

} // namespace cl::formats::claudecode
