// SPDX-License-Identifier: MIT
#pragma once

// Machinery shared by the four API request formats (anthropic, openai-chat, openai-responses,
// gemini). Each is one JSON document holding one main array (messages / input / contents):
// loading makes one Record per array element with its exact bytes, so an edited document is
// rebuilt from the original bytes around the array and the untouched elements. Conversion from any
// other format goes through a canonical message list whose tool calls are already paired, so each
// writer only has to lay it out the way its API wants.
//
// Extra per-block payloads the neutral model has no field for travel in Block::input (which is
// only meaningful for ToolUse otherwise): thinking {"signature"}, redacted thinking {"data"},
// image / document {"source": ...} in a neutral form {"url"} or {"data", "media_type"}.

#include "core/formats/formats.h"
#include "core/util/json.h"

#include <deque>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace cl::formats::api {

using nlohmann::json;

// 1-based line of a byte offset; fast when asked in ascending order.
class LineCounter
{
public:
    explicit LineCounter(std::string_view buffer)
        : m_buffer(buffer)
    {}
    std::uint32_t lineAt(std::size_t offset);

private:
    std::string_view m_buffer;
    std::size_t m_pos = 0;
    std::uint32_t m_line = 1;
};

// Offset of the first byte of the document after a UTF-8 BOM and whitespace.
std::size_t documentStart(std::string_view buffer);
// Range of a top-level key's value (absolute offsets); begin == end when absent.
cl::json::Range topLevel(std::string_view buffer, std::string_view key);

// Parses the whole buffer; on failure adds an Error diagnostic and returns false.
bool parseDocument(Transcript &t, json &doc);
// Keeps the whole file as one raw record (nothing could be decoded).
void keepWholeFileRaw(Transcript &t);

// Decodes one element into a message; returns false to keep the record raw (and no message).
using DecodeFn = std::function<bool(Transcript &t, const json &element, std::uint32_t line, Message &out)>;

// One record per element of the array starting at buffer[arrayBegin] == '[' and one message per
// decoded element, appended to t. `parsed` is the already parsed array when the caller has it
// (its size must match), otherwise each element is parsed on its own so one broken element does
// not lose the others.
void decodeArray(Transcript &t, std::size_t arrayBegin, const json *parsed, LineCounter &lines, const LoadContext &ctx,
                 const DecodeFn &decode);

// A record + message for a value outside the main array (system prompt, instructions, ...).
void addSideMessage(Transcript &t, cl::json::Range range, std::string recordType, LineCounter &lines, Message m);

// Sorts records into file order and fixes the indices on both sides.
void sortRecords(Transcript &t);

// Gemini Content {role, parts} decoder, shared by the gemini loader, Gemini CLI checkpoints and Qwen
// Code's records (core/formats/api/gemini.cpp). Calls without an id get a stable synthesized one
// (name + position) that the next functionResponse of the same name takes, the way Gemini itself
// pairs them; a part's thoughtSignature goes to m.meta["thoughtSignatures"][block index].
struct GeminiDecoder {
    std::map<std::string, std::deque<std::string>> open;
    std::size_t index = 0;
    // One Content into m (role from its "role"); false when it is not an object.
    bool operator()(Transcript &t, const json &content, std::uint32_t line, Message &m);
    // The parts of one Content into m's blocks (m's role untouched).
    void decodeParts(Transcript &t, const json &parts, std::uint32_t line, Message &m);
    void decodePart(Transcript &t, const json &part, std::uint32_t line, std::size_t ci, std::size_t pi, Message &m);
};

// ---- writing ----

// Blocks as Gemini Content parts, with the thought signatures a decoder kept ({block index: sig});
// what parts cannot carry is left out and named in notes.
json encodeGeminiParts(std::vector<Block> blocks, const json &signatures, std::vector<std::string> &notes);

// Encodes one (edited) message as the element(s) that replace it in the main array.
using EncodeFn = std::function<std::vector<json>(const Message &m, std::vector<std::string> &notes)>;

// Same format with edits: original bytes around the array, untouched elements byte-for-byte,
// edited or new messages encoded, deleted ones left out. Returns false (and leaves `out` alone)
// when only a full re-encode can express the edits (an edited or deleted message outside the
// array, or no array at all).
bool rebuildSameFormat(const Transcript &t, std::string_view arrayKey, const EncodeFn &encode, WriteResult &out,
                       ByteSink &sink);

// Canonical, API-ready conversation: conversation messages only (no sidechain), tool calls each
// followed by exactly one Role::Tool turn holding its result (placeholder when none was recorded),
// orphan results turned into text, Raw blocks and empty text dropped. Assistant turns are split
// after a run of tool calls so results can follow them.
struct Turn {
    Role role = Role::User; // System, User, Assistant or Tool
    std::vector<Block> blocks;
};
struct Canonical {
    std::string system; // leading system prompt, when asked to lift it out
    std::vector<Turn> turns;
    std::string model; // from the header, else the last assistant message's model
};
Canonical canonicalize(const Transcript &t, bool liftSystem, std::vector<std::string> &notes);

// Canonical turns merged into strictly alternating user / assistant turns starting with user
// (tool results become user blocks, placed first in their turn). Empty turns dropped.
// Consumes c (blocks are moved, not copied).
std::vector<Turn> alternate(Canonical &&c, std::vector<std::string> &notes);

// Helpers for decoders and encoders.
std::string dataUrl(const Block &image);               // "data:<mt>;base64,<data>" or the url; "" if none
void parseDataUrl(std::string_view url, Block &image); // fills mediaType, dataSize, input
std::string placeholderText(const Block &b);           // "[image omitted: image/png]" ...
// A copy of b without its text (empty stays empty, anything else becomes one space; a Raw block
// keeps its JSON): what an encoder needs to decide whether it can carry b, without copying a text
// that may be megabytes. The encoders take their blocks by value and move the texts into the JSON.
Block shapeOf(const Block &b);
std::string argumentsString(const json &input);                                // tool input as a JSON string
json parseArguments(Transcript &t, std::uint32_t line, const json &arguments); // string -> object (diagnostic when not JSON)
std::string blocksText(const json &content);                                   // text of string | blocks, non-text blocks as [type]
void addNote(std::vector<std::string> &notes, std::string note);               // no duplicates

// Writes {header..., arrayKey: [elements...]} byte for byte as json::dump(document, 2) + "\n" would
// (keys in nlohmann's sorted order), with the array's elements handed over one at a time, so
// that a large conversation is never held as one JSON tree.
class DocumentStream
{
public:
    DocumentStream(ByteSink &out, json header, std::string arrayKey);
    void element(const json &e);
    std::size_t count() const { return m_count; }
    void finish();

private:
    void key(const std::string &name, const json &value);
    ByteSink &m_out;
    json m_header;
    std::string m_arrayKey;
    std::size_t m_count = 0;
    bool m_anyKey = false;
};

constexpr std::string_view kSynthPrefix = "synth_"; // ids the loaders invented; writers of the same format omit them

} // namespace cl::formats::api
