// SPDX-License-Identifier: MIT
// Per-line decoding of a Claude Code session, reduced to a LineInfo: simdjson on the hot path,
// one nlohmann DOM at a time for the lines simdjson does not take.
#include "core/formats/claudecode/internal.h"
#include "core/util/json_simd.h"

#include <simdjson.h>

namespace cl::formats::claudecode {

using nlohmann::json;

namespace {

std::string take(json &obj, std::string_view key)
{
    const auto it = obj.find(key);
    if (it == obj.end() || !it->is_string())
        return {};
    return std::move(it->get_ref<std::string &>());
}

// A field that should be a string but is something else (null allowed) is worth a warning.
void checkString(const json &obj, std::string_view key, std::vector<Problem> &problems)
{
    const json *c = cl::json::child(obj, key);
    if (c && !c->is_string() && !c->is_null())
        problems.push_back({Diagnostic::Severity::Warning,
                            "field \"" + std::string(key) + "\" is " + c->type_name() + ", expected a string"});
}

LineKind kindOf(std::string_view type)
{
    if (type == "user")
        return LineKind::User;
    if (type == "assistant")
        return LineKind::Assistant;
    if (type == "system")
        return LineKind::System;
    if (type == "attachment")
        return LineKind::Attachment;
    return LineKind::Meta;
}

const std::initializer_list<std::string_view> kEnvelope = {
    "parentUuid", "logicalParentUuid", "isSidechain", "userType", "cwd", "sessionId", "session_id", "version",
    "gitBranch", "type", "subtype", "uuid", "timestamp", "entrypoint", "slug", "message", "agentId", "isMeta",
    "content", "toolUseResult", "attachment", "compactMetadata", "microcompactMetadata", "snapshot", "data"};

Usage decodeUsage(const json &u)
{
    Usage usage;
    usage.inputTokens = cl::json::num(u, "input_tokens");
    usage.outputTokens = cl::json::num(u, "output_tokens");
    usage.cacheCreationTokens = cl::json::num(u, "cache_creation_input_tokens");
    usage.cacheReadTokens = cl::json::num(u, "cache_read_input_tokens");
    return usage;
}

void decodeMessage(json &obj, LineInfo &out)
{
    const auto it = obj.find("message");
    if (it == obj.end() || !it->is_object()) {
        out.problems.push_back({Diagnostic::Severity::Warning,
                                it == obj.end() ? "\"" + out.type + "\" line without \"message\""
                                                : std::string("\"message\" is ") + it->type_name() + ", expected an object"});
        if (it != obj.end()) {
            Block raw;
            raw.type = BlockType::Raw;
            raw.text = cl::json::dump(*it);
            out.blocks.push_back(std::move(raw));
        }
        return;
    }
    json &msg = *it;
    out.apiId = take(msg, "id");
    out.model = take(msg, "model");
    if (const json *u = cl::json::object(msg, "usage"))
        out.usage = decodeUsage(*u);
    if (const auto c = msg.find("content"); c != msg.end())
        decodeContent(*c, out.blocks, out.problems);
    if (out.kind == LineKind::User && !out.blocks.empty()) {
        out.toolResultsOnly = true;
        for (const auto &b : out.blocks)
            if (b.type != BlockType::ToolResult && !(b.type == BlockType::Image && !b.toolId.empty()))
                out.toolResultsOnly = false;
    }
}

bool withoutToolUseResult(std::string_view text, std::string &out)
{
    constexpr std::string_view key = "\"toolUseResult\":";
    if (text.find(key) == std::string_view::npos)
        return false;
    const auto r = cl::json::topLevelValue(text, "toolUseResult");
    if (r.begin == r.end || r.begin < key.size() || text.substr(r.begin - key.size(), key.size()) != key)
        return false; // not written compactly: parse the whole line
    std::size_t from = r.begin - key.size();
    std::size_t to = r.end;
    if (to < text.size() && text[to] == ',')
        ++to;
    else if (from > 0 && text[from - 1] == ',')
        --from;
    else
        return false;
    out.reserve(text.size() - (to - from));
    out.append(text.substr(0, from)).append(text.substr(to));
    return true;
}

} // namespace

void decodeLine(std::string_view text, bool lastLineWithoutNewline, LineInfo &out, std::size_t readableAfter)
{
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
        out.kind = LineKind::Blank;
        return;
    }
    json obj;
    std::string error;
    // toolUseResult repeats the tool output in structured form (often half the file's bytes) and
    // nothing here reads it: cut it out before building the DOM, the main cost of loading.
    std::string reduced;
    auto status = cl::json::ParseStatus::Failed;
    if (withoutToolUseResult(text, reduced)) {
        const std::size_t size = reduced.size();
        reduced.append(simdjson::SIMDJSON_PADDING, ' '); // readable padding for simdjson
        status = cl::json::parse(std::string_view(reduced.data(), size), obj, error, simdjson::SIMDJSON_PADDING);
    }
    if (status == cl::json::ParseStatus::Failed) // also reports errors against the real line
        status = cl::json::parse(text, obj, error, readableAfter);
    if (status == cl::json::ParseStatus::Failed) {
        out.kind = LineKind::Raw;
        if (lastLineWithoutNewline)
            out.problems.push_back({Diagnostic::Severity::Warning, "truncated last line (" + error + ")"});
        else
            out.problems.push_back({Diagnostic::Severity::Error, "invalid JSON: " + error});
        return;
    }
    if (status == cl::json::ParseStatus::OkSanitized)
        out.problems.push_back({Diagnostic::Severity::Info, "invalid UTF-8 replaced by U+FFFD"});
    if (!obj.is_object()) {
        out.kind = LineKind::Raw;
        out.problems.push_back({Diagnostic::Severity::Warning, std::string("line is a JSON ") + obj.type_name()
                                                                   + ", expected an object"});
        return;
    }
    checkString(obj, "type", out.problems);
    checkString(obj, "uuid", out.problems);
    checkString(obj, "parentUuid", out.problems);
    out.hasParentKey = obj.contains("parentUuid");
    out.type = take(obj, "type");
    out.kind = kindOf(out.type);
    out.subtype = take(obj, "subtype");
    out.uuid = take(obj, "uuid");
    out.parentUuid = take(obj, "parentUuid");
    out.logicalParentUuid = take(obj, "logicalParentUuid");
    out.agentId = take(obj, "agentId");
    out.timestamp = take(obj, "timestamp");
    out.sidechain = cl::json::boolean(obj, "isSidechain");
    out.isMeta = cl::json::boolean(obj, "isMeta");
    out.compactSummary = cl::json::boolean(obj, "isCompactSummary");

    if (isConversationKind(out.kind)) {
        out.header = json::object();
        for (const char *k : kHeaderKeys)
            if (const json *v = cl::json::child(obj, k); v && v->is_string())
                out.header[k] = *v;
    }

    switch (out.kind) {
    case LineKind::User:
    case LineKind::Assistant:
        decodeMessage(obj, out);
        break;
    case LineKind::System: {
        if (out.subtype == "compact_boundary" || out.subtype == "microcompact_boundary") {
            const char *key = out.subtype == "compact_boundary" ? "compactMetadata" : "microcompactMetadata";
            const json *m = cl::json::object(obj, key);
            out.meta = m ? *m : json::object();
            // Older lines carry trigger / preTokens beside the metadata object.
            for (const char *k : {"trigger", "preTokens", "level"})
                if (const json *v = cl::json::child(obj, k); v && !out.meta.contains(k))
                    out.meta[k] = *v;
            if (!out.logicalParentUuid.empty())
                out.meta["logicalParentUuid"] = out.logicalParentUuid;
        } else {
            out.meta = smallMeta(obj, kEnvelope);
        }
        if (auto c = obj.find("content"); c != obj.end() && c->is_string() && !c->get_ref<const std::string &>().empty()) {
            Block b;
            b.text = std::move(c->get_ref<std::string &>());
            out.blocks.push_back(std::move(b));
        }
        break;
    }
    case LineKind::Attachment: {
        // What the harness injected (file contents, reminders, hook output): shown as raw JSON.
        if (const json *a = cl::json::child(obj, "attachment")) {
            out.subtype = cl::json::str(*a, "type");
            Block b;
            b.type = BlockType::Raw;
            b.text = cl::json::dump(*a);
            out.blocks.push_back(std::move(b));
        }
        out.meta = smallMeta(obj, kEnvelope);
        break;
    }
    case LineKind::Meta:
        out.meta = smallMeta(obj, {"type"});
        break;
    case LineKind::Raw:
    case LineKind::Blank:
        break;
    }
}

// ---- simdjson hot path -------------------------------------------------------------------------

namespace {

namespace sj = simdjson::dom;
using cl::json::objectOf;
using ET = sj::element_type;

// By value: value_unsafe() on the temporary result returns a reference into it, which a range-for
// would keep past the temporary's end.

// Top-level keys the decoder reads. Each holds the key's last value (nlohmann's DOM keeps the last
// of duplicated keys).
enum Key {
    kType,
    kUuid,
    kParentUuid,
    kSubtype,
    kLogicalParentUuid,
    kAgentId,
    kTimestamp,
    kIsSidechain,
    kIsMeta,
    kIsCompactSummary,
    kMessage,
    kCompactMetadata,
    kMicrocompactMetadata,
    kTrigger,
    kPreTokens,
    kLevel,
    kContent,
    kAttachment,
    kKeyCount
};
constexpr std::string_view kKeyNames[kKeyCount] = {"type", "uuid", "parentUuid", "subtype", "logicalParentUuid",
                                                   "agentId", "timestamp", "isSidechain", "isMeta", "isCompactSummary", "message", "compactMetadata",
                                                   "microcompactMetadata", "trigger", "preTokens", "level", "content", "attachment"};

struct TopLevel {
    sj::element value[kKeyCount];
    bool has[kKeyCount] = {};

    explicit TopLevel(const sj::object &obj)
    {
        for (const auto f : obj)
            for (int k = 0; k < kKeyCount; ++k)
                if (f.key.size() == kKeyNames[k].size() && f.key == kKeyNames[k]) {
                    value[k] = f.value;
                    has[k] = true;
                    break;
                }
    }
    std::string str(Key k) const
    {
        return has[k] && value[k].type() == ET::STRING ? std::string(value[k].get_string().value_unsafe())
                                                       : std::string();
    }
    bool boolean(Key k) const { return has[k] && value[k].type() == ET::BOOL && value[k].get_bool().value_unsafe(); }
};

void checkString(const TopLevel &top, Key k, std::vector<Problem> &problems)
{
    if (top.has[k] && top.value[k].type() != ET::STRING && top.value[k].type() != ET::NULL_VALUE)
        problems.push_back({Diagnostic::Severity::Warning, "field \"" + std::string(kKeyNames[k]) + "\" is "
                                                               + typeName(top.value[k]) + ", expected a string"});
}

std::int64_t num(const sj::element &obj, std::string_view key)
{
    std::int64_t v = 0;
    for (const auto f : objectOf(obj)) {
        if (f.key != key)
            continue;
        switch (f.value.type()) { // as cl::json::num: the last value of the key, 0 unless a number
        case ET::INT64: v = f.value.get_int64().value_unsafe(); break;
        case ET::UINT64: v = static_cast<std::int64_t>(f.value.get_uint64().value_unsafe()); break;
        case ET::DOUBLE: v = static_cast<std::int64_t>(f.value.get_double().value_unsafe()); break;
        default: v = 0; break;
        }
    }
    return v;
}

// The string fields decodeLine moves out of its DOM before smallMeta reads it: there they are
// left as empty strings. Only Meta lines keep them (the other kinds skip the envelope keys).
bool takenString(const sj::key_value_pair &f)
{
    if (f.value.type() != ET::STRING)
        return false;
    for (const Key k : {kType, kSubtype, kUuid, kParentUuid, kLogicalParentUuid, kAgentId, kTimestamp})
        if (f.key == kKeyNames[k])
            return true;
    return false;
}

json smallMeta(const sj::object &obj, std::initializer_list<std::string_view> skip)
{
    json meta = json::object();
    for (const auto f : obj) {
        if (std::find(skip.begin(), skip.end(), f.key) != skip.end())
            continue;
        if (takenString(f)) {
            meta[std::string(f.key)] = "";
            continue;
        }
        // Visited in file order: a later duplicate decides, as it replaced the earlier one in the DOM.
        if (isSmall(f.value))
            meta[std::string(f.key)] = cl::json::fromSimdjson(f.value);
        else
            meta.erase(std::string(f.key));
    }
    return meta;
}

void decodeMessage(const TopLevel &top, LineInfo &out)
{
    if (!top.has[kMessage] || top.value[kMessage].type() != ET::OBJECT) {
        out.problems.push_back({Diagnostic::Severity::Warning,
                                !top.has[kMessage] ? "\"" + out.type + "\" line without \"message\""
                                                   : std::string("\"message\" is ") + typeName(top.value[kMessage])
                                                         + ", expected an object"});
        if (top.has[kMessage]) {
            Block raw;
            raw.type = BlockType::Raw;
            dumpElement(top.value[kMessage], raw.text);
            out.blocks.push_back(std::move(raw));
        }
        return;
    }
    const sj::element &msg = top.value[kMessage];
    sj::element id, model, usage, content;
    bool hasId = false, hasModel = false, hasUsage = false, hasContent = false;
    for (const auto f : objectOf(msg)) {
        if (f.key == "id")
            id = f.value, hasId = true;
        else if (f.key == "model")
            model = f.value, hasModel = true;
        else if (f.key == "usage")
            usage = f.value, hasUsage = true;
        else if (f.key == "content")
            content = f.value, hasContent = true;
    }
    if (hasId && id.type() == ET::STRING)
        out.apiId = id.get_string().value_unsafe();
    if (hasModel && model.type() == ET::STRING)
        out.model = model.get_string().value_unsafe();
    if (hasUsage && usage.type() == ET::OBJECT) {
        Usage u;
        u.inputTokens = num(usage, "input_tokens");
        u.outputTokens = num(usage, "output_tokens");
        u.cacheCreationTokens = num(usage, "cache_creation_input_tokens");
        u.cacheReadTokens = num(usage, "cache_read_input_tokens");
        out.usage = u;
    }
    if (hasContent)
        decodeContent(content, out.blocks, out.problems);
    if (out.kind == LineKind::User && !out.blocks.empty()) {
        out.toolResultsOnly = true;
        for (const auto &b : out.blocks)
            if (b.type != BlockType::ToolResult && !(b.type == BlockType::Image && !b.toolId.empty()))
                out.toolResultsOnly = false;
    }
}

} // namespace

bool decodeFast(const sj::element &root, std::string_view text, LineInfo &out)
{
    if (root.type() != ET::OBJECT) {
        out.kind = LineKind::Raw;
        out.problems.push_back({Diagnostic::Severity::Warning,
                                std::string("line is a JSON ") + typeName(root) + ", expected an object"});
        return true;
    }
    const sj::object obj = objectOf(root);
    const TopLevel top(obj);
    const LineKind kind = kindOf(top.str(kType));
    // The DOM path cuts a compact top-level toolUseResult before parsing; only a Meta line's
    // metadata could show the difference, and such lines are rare: let that path decide.
    if (kind == LineKind::Meta && text.find("\"toolUseResult\":") != std::string_view::npos)
        return false;

    checkString(top, kType, out.problems);
    checkString(top, kUuid, out.problems);
    checkString(top, kParentUuid, out.problems);
    out.hasParentKey = top.has[kParentUuid];
    out.type = top.str(kType);
    out.kind = kind;
    out.subtype = top.str(kSubtype);
    out.uuid = top.str(kUuid);
    out.parentUuid = top.str(kParentUuid);
    out.logicalParentUuid = top.str(kLogicalParentUuid);
    out.agentId = top.str(kAgentId);
    out.timestamp = top.str(kTimestamp);
    out.sidechain = top.boolean(kIsSidechain);
    out.isMeta = top.boolean(kIsMeta);
    out.compactSummary = top.boolean(kIsCompactSummary);

    switch (out.kind) {
    case LineKind::User:
    case LineKind::Assistant:
        decodeMessage(top, out);
        break;
    case LineKind::System: {
        if (out.subtype == "compact_boundary" || out.subtype == "microcompact_boundary") {
            const Key key = out.subtype == "compact_boundary" ? kCompactMetadata : kMicrocompactMetadata;
            out.meta = top.has[key] && top.value[key].type() == ET::OBJECT ? cl::json::fromSimdjson(top.value[key]) : json::object();
            for (const Key k : {kTrigger, kPreTokens, kLevel}) {
                const std::string name(kKeyNames[k]);
                if (top.has[k] && !out.meta.contains(name))
                    out.meta[name] = cl::json::fromSimdjson(top.value[k]);
            }
            if (!out.logicalParentUuid.empty())
                out.meta["logicalParentUuid"] = out.logicalParentUuid;
        } else {
            out.meta = smallMeta(obj, kEnvelope);
        }
        if (top.has[kContent] && top.value[kContent].type() == ET::STRING
            && !top.value[kContent].get_string().value_unsafe().empty()) {
            Block b;
            b.text = top.value[kContent].get_string().value_unsafe();
            out.blocks.push_back(std::move(b));
        }
        break;
    }
    case LineKind::Attachment:
        if (top.has[kAttachment]) {
            const sj::element &a = top.value[kAttachment];
            out.subtype.clear();
            if (a.type() == ET::OBJECT)
                for (const auto f : objectOf(a))
                    if (f.key == "type")
                        out.subtype = f.value.type() == ET::STRING ? std::string(f.value.get_string().value_unsafe())
                                                                   : std::string();
            Block b;
            b.type = BlockType::Raw;
            dumpElement(a, b.text);
            out.blocks.push_back(std::move(b));
        }
        out.meta = smallMeta(obj, kEnvelope);
        break;
    case LineKind::Meta:
        out.meta = smallMeta(obj, {"type"});
        break;
    case LineKind::Raw:
    case LineKind::Blank:
        break;
    }
    return true;
}

} // namespace cl::formats::claudecode
