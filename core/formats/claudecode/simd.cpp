// SPDX-License-Identifier: MIT
// Content blocks decoded from simdjson elements (the loader's hot path), plus the conversions of the
// few small values the model keeps as nlohmann JSON. Every function gives exactly what the nlohmann
// path in formats/claudecode/blocks.cpp gives for the same bytes: a duplicated key reads as its last value,
// objects dump with sorted keys, strings with nlohmann's escaping.
#include "core/formats/claudecode/internal.h"
#include "core/util/json_simd.h"

#include <simdjson.h>

#include <algorithm>
#include <cstdio>

namespace cl::formats::claudecode {

using nlohmann::json;

namespace {

namespace sj = simdjson::dom;
using cl::json::objectOf;
using ET = sj::element_type;

std::string_view sv(const sj::element &e) { return e.get_string().value_unsafe(); }
sj::array arrayOf(const sj::element &e) { return e.get_array().value_unsafe(); }

// The value of key in object o as nlohmann's DOM has it: the last of duplicated keys.
bool field(const sj::element &o, std::string_view key, sj::element &out)
{
    if (o.type() != ET::OBJECT)
        return false;
    bool found = false;
    for (const auto f : objectOf(o))
        if (f.key == key) {
            out = f.value;
            found = true;
        }
    return found;
}

std::string strField(const sj::element &o, std::string_view key)
{
    sj::element v;
    return field(o, key, v) && v.type() == ET::STRING ? std::string(sv(v)) : std::string();
}

std::size_t dataLength(const sj::element &source)
{
    sj::element v;
    return field(source, "data", v) && v.type() == ET::STRING ? sv(v).size() : 0;
}

using Fields = std::vector<std::pair<std::string_view, sj::element>>;

// o's fields in nlohmann's order (sorted by key), keeping only the last of duplicated keys.
void sortedFields(const sj::element &o, Fields &out)
{
    out.clear();
    for (const auto f : objectOf(o))
        out.emplace_back(f.key, f.value);
    std::stable_sort(out.begin(), out.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    std::size_t kept = 0;
    for (std::size_t i = 0; i < out.size(); ++i)
        if (i + 1 == out.size() || out[i + 1].first != out[i].first)
            out[kept++] = out[i];
    out.resize(kept);
}

// nlohmann's dump escaping with ensure_ascii off; simdjson only hands out valid UTF-8.
void appendEscaped(std::string_view s, std::string &out)
{
    out += '"';
    std::size_t run = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        out.append(s.data() + run, i - run);
        run = i + 1;
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\b': out += "\\b"; break;
        case '\t': out += "\\t"; break;
        case '\n': out += "\\n"; break;
        case '\f': out += "\\f"; break;
        case '\r': out += "\\r"; break;
        default: {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\u%04x", unsigned(c));
            out += hex;
        }
        }
    }
    out.append(s.data() + run, s.size() - run);
    out += '"';
}

bool smallRec(const sj::element &e, int &budget)
{
    if (--budget < 0)
        return false;
    switch (e.type()) {
    case ET::STRING: return sv(e).size() <= 2048;
    case ET::ARRAY:
        for (const auto c : arrayOf(e))
            if (!smallRec(c, budget))
                return false;
        return true;
    case ET::OBJECT: {
        Fields fields;
        sortedFields(e, fields); // duplicated keys are one node in nlohmann's DOM
        for (const auto &f : fields)
            if (!smallRec(f.second, budget))
                return false;
        return true;
    }
    default: return true;
    }
}

void rawBlock(const sj::element &value, std::vector<Block> &blocks)
{
    Block b;
    b.type = BlockType::Raw;
    dumpElement(value, b.text);
    blocks.push_back(std::move(b));
}

void imageSource(const sj::element &item, Block &img)
{
    sj::element src;
    if (field(item, "source", src) && src.type() == ET::OBJECT) {
        img.mediaType = strField(src, "media_type");
        img.dataSize = dataLength(src);
    }
}

void decodeToolResultContent(const sj::element &content, Block &result, std::vector<Block> &images,
                             std::vector<Problem> &problems)
{
    if (content.type() == ET::STRING) {
        result.text = sv(content);
        return;
    }
    if (content.type() == ET::NULL_VALUE)
        return;
    if (content.type() != ET::ARRAY) {
        problems.push_back({Diagnostic::Severity::Warning, "tool_result content is neither a string nor an array"});
        dumpElement(content, result.text);
        return;
    }
    for (const auto item : arrayOf(content)) {
        if (strField(item, "type") == "image") {
            Block img;
            img.type = BlockType::Image;
            img.toolId = result.toolId;
            imageSource(item, img);
            images.push_back(std::move(img));
            continue;
        }
        if (!result.text.empty())
            result.text += '\n';
        sj::element t;
        if (item.type() == ET::STRING)
            result.text += sv(item);
        else if (field(item, "text", t) && t.type() == ET::STRING)
            result.text += sv(t);
        else
            dumpElement(item, result.text);
    }
}

void decodeBlock(const sj::element &block, std::vector<Block> &blocks, std::vector<Problem> &problems)
{
    if (block.type() != ET::OBJECT) {
        problems.push_back({Diagnostic::Severity::Warning, "content block is not an object"});
        rawBlock(block, blocks);
        return;
    }
    const std::string type = strField(block, "type");
    Block b;
    sj::element v;
    if (type == "text") {
        if (!field(block, "text", v) || v.type() != ET::STRING) {
            problems.push_back({Diagnostic::Severity::Warning, "text block without a string \"text\""});
            rawBlock(block, blocks);
            return;
        }
        b.text = sv(v);
    } else if (type == "tool_use" || type == "server_tool_use") {
        b.type = BlockType::ToolUse;
        b.serverSide = type == "server_tool_use";
        b.toolId = strField(block, "id");
        b.toolName = strField(block, "name");
        if (field(block, "input", v))
            b.input = cl::json::fromSimdjson(v);
    } else if (type == "tool_result") {
        b.type = BlockType::ToolResult;
        b.toolId = strField(block, "tool_use_id");
        b.isError = field(block, "is_error", v) && v.type() == ET::BOOL && v.get_bool().value_unsafe();
        std::vector<Block> images;
        if (field(block, "content", v))
            decodeToolResultContent(v, b, images, problems);
        blocks.push_back(std::move(b));
        for (auto &img : images)
            blocks.push_back(std::move(img));
        return;
    } else if (isServerToolResult(type) && field(block, "tool_use_id", v)) {
        b.type = BlockType::ToolResult;
        b.serverSide = true;
        b.toolId = strField(block, "tool_use_id");
        b.isError = field(block, "content", v) && v.type() == ET::OBJECT && strField(v, "type").ends_with("_error");
        dumpElement(block, b.text);
    } else if (type == "thinking") {
        b.type = BlockType::Thinking;
        b.text = strField(block, "thinking");
    } else if (type == "redacted_thinking") {
        b.type = BlockType::RedactedThinking;
        b.dataSize = dataLength(block);
    } else if (type == "image" || type == "document") {
        b.type = type == "image" ? BlockType::Image : BlockType::Document;
        imageSource(block, b);
    } else {
        rawBlock(block, blocks);
        return;
    }
    blocks.push_back(std::move(b));
}

} // namespace

const char *typeName(const sj::element &e)
{
    switch (e.type()) {
    case ET::OBJECT: return "object";
    case ET::ARRAY: return "array";
    case ET::STRING: return "string";
    case ET::BOOL: return "boolean";
    case ET::NULL_VALUE: return "null";
    default: return "number";
    }
}

void dumpElement(const sj::element &e, std::string &out)
{
    switch (e.type()) {
    case ET::OBJECT: {
        Fields fields;
        sortedFields(e, fields);
        out += '{';
        for (std::size_t i = 0; i < fields.size(); ++i) {
            if (i)
                out += ',';
            appendEscaped(fields[i].first, out);
            out += ':';
            dumpElement(fields[i].second, out);
        }
        out += '}';
        break;
    }
    case ET::ARRAY: {
        out += '[';
        bool first = true;
        for (const auto c : arrayOf(e)) {
            if (!first)
                out += ',';
            first = false;
            dumpElement(c, out);
        }
        out += ']';
        break;
    }
    case ET::STRING: appendEscaped(sv(e), out); break;
    case ET::INT64: out += std::to_string(e.get_int64().value_unsafe()); break;
    case ET::UINT64: out += std::to_string(e.get_uint64().value_unsafe()); break;
    case ET::DOUBLE: out += json(e.get_double().value_unsafe()).dump(); break; // nlohmann's float format
    case ET::BOOL: out += e.get_bool().value_unsafe() ? "true" : "false"; break;
    case ET::NULL_VALUE: out += "null"; break;
    }
}

std::string dumpElement(const sj::element &e)
{
    std::string out;
    dumpElement(e, out);
    return out;
}

bool isSmall(const sj::element &e)
{
    int budget = 64;
    return smallRec(e, budget);
}

void decodeContent(const sj::element &content, std::vector<Block> &blocks, std::vector<Problem> &problems)
{
    if (content.type() == ET::STRING) {
        Block b;
        b.text = sv(content);
        blocks.push_back(std::move(b));
        return;
    }
    if (content.type() == ET::ARRAY) {
        blocks.reserve(arrayOf(content).size());
        for (const auto item : arrayOf(content))
            decodeBlock(item, blocks, problems);
        return;
    }
    problems.push_back({Diagnostic::Severity::Warning,
                        std::string("message.content is ") + typeName(content) + ", expected a string or an array"});
    rawBlock(content, blocks);
}

namespace {

// Lines above this go to the DOM path. simdjson reserves about 14x the line (tape, strings, indexes)
// but only touches what the line needs: a long string costs about its length, a dense array more.
constexpr std::size_t kMaxFastLine = std::size_t(64) << 20;
// After a line above this the parser is rebuilt small, so a worker does not keep a huge tape
// (below it, regrowing for every big line would cost more than the memory it frees).
constexpr std::size_t kShrinkAbove = std::size_t(8) << 20;
constexpr std::size_t kInitialCapacity = std::size_t(64) << 10;

} // namespace

struct LineDecoder::Impl {
    sj::parser parser;
    std::string scratch; // a padded copy of a line without enough readable bytes after it

    Impl() { reset(); }
    void reset()
    {
        parser = sj::parser();
        // Same nesting limit as cl::json::parse (simdjson is, if anything, stricter by one level).
        const auto err = parser.allocate(kInitialCapacity, std::size_t(cl::json::kMaxDepth));
        (void)err; // a failed allocation only means parse() allocates (or fails and falls back)
    }
};

LineDecoder::LineDecoder()
    : d(std::make_unique<Impl>())
{}
LineDecoder::~LineDecoder() = default;

static_assert(kBufferPadding >= simdjson::SIMDJSON_PADDING, "the loader's padding must cover simdjson's reads");

bool LineDecoder::parse(std::string_view text, std::size_t paddedBytes, sj::element &root)
{
    const char *bytes = text.data();
    if (paddedBytes < simdjson::SIMDJSON_PADDING) {
        d->scratch.assign(text.data(), text.size());
        d->scratch.append(simdjson::SIMDJSON_PADDING, ' '); // initialized padding: the parse reads it
        bytes = d->scratch.data();
    }
    return d->parser.parse(bytes, text.size(), false).get(root) == simdjson::SUCCESS;
}

void LineDecoder::decode(std::string_view text, std::size_t paddedBytes, bool lastLineWithoutNewline, LineInfo &out)
{
    if (text.size() > kMaxFastLine || text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
        decodeLine(text, lastLineWithoutNewline, out, paddedBytes);
        return;
    }
    sj::element root;
    // Rejected lines (invalid JSON or UTF-8, nesting, integers beyond 64 bits) get the DOM path's
    // exact diagnostics, sanitizing and tolerance.
    if (!parse(text, paddedBytes, root) || !decodeFast(root, text, out))
        decodeLine(text, lastLineWithoutNewline, out);
    if (text.size() > kShrinkAbove)
        d->reset();
}

bool LineDecoder::headerFields(std::string_view text, std::size_t paddedBytes,
                               std::span<const char *const> keys, nlohmann::json &header)
{
    sj::element root;
    if (text.size() > kMaxFastLine || !parse(text, paddedBytes, root))
        return false;
    if (root.type() == ET::OBJECT) {
        for (const char *key : keys) {
            sj::element last;
            bool found = false;
            for (const auto f : objectOf(root))
                if (f.key == key) {
                    last = f.value;
                    found = true;
                }
            if (found && last.type() == ET::STRING)
                header[key] = std::string(last.get_string().value_unsafe());
        }
    }
    if (text.size() > kShrinkAbove)
        d->reset();
    return true;
}

} // namespace cl::formats::claudecode
