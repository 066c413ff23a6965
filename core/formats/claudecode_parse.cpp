// SPDX-License-Identifier: MIT
// Per-line decoding of a Claude Code session: one DOM at a time, reduced to a LineInfo.
#include "core/formats/claudecode_internal.h"

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

void decodeLine(std::string_view text, bool lastLineWithoutNewline, LineInfo &out)
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
    if (withoutToolUseResult(text, reduced))
        status = cl::json::parse(reduced, obj, error);
    if (status == cl::json::ParseStatus::Failed)
        status = cl::json::parse(text, obj, error); // also reports errors against the real line
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

} // namespace cl::formats::claudecode
