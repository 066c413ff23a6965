// SPDX-License-Identifier: MIT
// Anthropic Messages API request: {model, max_tokens, system, messages, tools, thinking}.
#include "core/formats/api/common.h"
#include "core/model/servertools.h"

#include <cctype>

namespace cl::formats {

namespace {

using api::json;

Block decodeSource(BlockType type, const json &block)
{
    Block b;
    b.type = type;
    const json *source = cl::json::object(block, "source");
    if (!source)
        return b;
    const std::string kind = cl::json::str(*source, "type");
    b.mediaType = cl::json::str(*source, "media_type");
    if (kind == "url") {
        b.input = json{{"url", cl::json::str(*source, "url")}};
    } else if (const json *data = cl::json::child(*source, "data"); data && data->is_string()) {
        b.dataSize = data->get_ref<const std::string &>().size();
        b.input = json{{"data", *data}, {"media_type", b.mediaType}, {"kind", kind}};
    } else if (kind == "content") {
        b.text = api::blocksText(cl::json::child(*source, "content") ? (*source)["content"] : json());
        b.dataSize = b.text.size();
    }
    return b;
}

void decodeBlocks(Transcript &t, const json &content, std::uint32_t line, Message &m)
{
    if (content.is_string()) {
        m.blocks.push_back(makeBlock(BlockType::Text, content.get<std::string>()));
        return;
    }
    if (!content.is_array()) {
        t.addDiagnostic(line, "message content is neither a string nor an array of blocks");
        return;
    }
    for (const auto &block : content) {
        const std::string type = cl::json::str(block, "type");
        Block b;
        if (type == "text") {
            b.text = cl::json::str(block, "text");
        } else if (type == "image" || type == "document") {
            b = decodeSource(type == "image" ? BlockType::Image : BlockType::Document, block);
        } else if (type == "tool_use" || type == "server_tool_use") {
            b.type = BlockType::ToolUse;
            b.serverSide = type == "server_tool_use"; // run by Anthropic: its result is in this message
            b.toolId = cl::json::str(block, "id");
            b.toolName = cl::json::str(block, "name");
            const json *input = cl::json::child(block, "input");
            b.input = input ? *input : json::object();
        } else if (type == "tool_result") {
            b.type = BlockType::ToolResult;
            b.toolId = cl::json::str(block, "tool_use_id");
            const json *c = cl::json::child(block, "content");
            b.text = c ? api::blocksText(*c) : std::string();
            b.isError = cl::json::boolean(block, "is_error");
        } else if (decodeServerToolResult(block, b)) {
            // web_search_tool_result, ...: counted and paired like any tool result.
        } else if (type == "thinking") {
            b.type = BlockType::Thinking;
            b.text = cl::json::str(block, "thinking");
            if (const json *sig = cl::json::child(block, "signature"); sig && sig->is_string())
                b.input = json{{"signature", *sig}};
        } else if (type == "redacted_thinking") {
            b.type = BlockType::RedactedThinking;
            b.input = json{{"data", cl::json::str(block, "data")}};
        } else {
            // mcp_tool_use, container_upload, ...: kept as opaque blocks.
            b.type = BlockType::Raw;
            b.text = cl::json::dump(block);
            if (!block.is_object())
                t.addDiagnostic(line, "content block is not an object");
        }
        m.blocks.push_back(std::move(b));
    }
}

bool decodeMessage(Transcript &t, const json &element, std::uint32_t line, Message &m)
{
    if (!element.is_object()) {
        t.addDiagnostic(line, "message is not an object (kept as is)");
        return false;
    }
    m.type = cl::json::str(element, "role");
    if (m.type == "user")
        m.role = Role::User;
    else if (m.type == "assistant")
        m.role = Role::Assistant;
    else if (m.type == "system")
        m.role = Role::System;
    else
        t.addDiagnostic(line, "unknown role '" + m.type + "'");
    const json *content = cl::json::child(element, "content");
    if (!content)
        t.addDiagnostic(line, "message has no content");
    else
        decodeBlocks(t, *content, line, m);
    return true;
}

// One neutral block as an Anthropic content block; false when it cannot be carried.
// Consumes b's text (the caller hands over its own block, or a shapeOf for a probe).
bool encodeBlock(Block &b, json &out, std::vector<std::string> &notes)
{
    switch (b.type) {
    case BlockType::Text:
        if (b.text.empty())
            return false;
        out = json{{"type", "text"}, {"text", std::move(b.text)}};
        return true;
    case BlockType::Thinking:
        if (!b.input.is_object() || cl::json::str(b.input, "signature").empty()) {
            api::addNote(notes, "thinking without a signature dropped (the API rejects unsigned thinking)");
            return false;
        }
        out = json{{"type", "thinking"}, {"thinking", std::move(b.text)}, {"signature", b.input["signature"]}};
        return true;
    case BlockType::RedactedThinking:
        if (cl::json::str(b.input, "data").empty()) {
            api::addNote(notes, "redacted thinking without its data dropped");
            return false;
        }
        out = json{{"type", "redacted_thinking"}, {"data", b.input["data"]}};
        return true;
    case BlockType::Image:
    case BlockType::Document: {
        const std::string url = cl::json::str(b.input, "url");
        const std::string data = cl::json::str(b.input, "data");
        const std::string type = b.type == BlockType::Image ? "image" : "document";
        if (!url.empty()) {
            out = json{{"type", type}, {"source", {{"type", "url"}, {"url", url}}}};
        } else if (!data.empty()) {
            const std::string kind = cl::json::str(b.input, "kind");
            const bool text = kind == "text" || b.mediaType == "text/plain";
            out = json{{"type", type},
                       {"source", {{"type", text ? "text" : "base64"}, {"media_type", b.mediaType}, {"data", data}}}};
        } else if (b.type == BlockType::Document && !b.text.empty()) {
            out = json{{"type", "document"},
                       {"source", {{"type", "text"}, {"media_type", "text/plain"}, {"data", std::move(b.text)}}}};
        } else {
            api::addNote(notes, "images and documents without their data replaced by a text placeholder");
            out = json{{"type", "text"}, {"text", api::placeholderText(b)}};
        }
        return true;
    }
    case BlockType::ToolUse: {
        json input = b.input;
        if (!input.is_object()) {
            api::addNote(notes, "tool call arguments that are not a JSON object wrapped as {\"arguments\": ...}");
            input = json{{"arguments", input}};
        }
        out = json{{"type", b.serverSide ? "server_tool_use" : "tool_use"}, {"id", b.toolId}, {"name", b.toolName}, {"input", input}};
        return true;
    }
    case BlockType::ToolResult: {
        std::string error;
        if (b.serverSide && cl::json::parse(b.text, out, error) != cl::json::ParseStatus::Failed && out.is_object())
            return true; // the block as it was read
        out = json{{"type", "tool_result"}, {"tool_use_id", b.toolId}, {"content", std::move(b.text)}};
        if (b.isError)
            out["is_error"] = true;
        return true;
    }
    case BlockType::Raw: {
        std::string error;
        return cl::json::parse(b.text, out, error) != cl::json::ParseStatus::Failed && out.is_object();
    }
    }
    return false;
}

json encodeContent(std::vector<Block> blocks, std::vector<std::string> &notes)
{
    json content = json::array();
    for (auto &b : blocks) {
        json out;
        if (encodeBlock(b, out, notes))
            content.push_back(std::move(out));
    }
    return content;
}

std::vector<json> encodeAnthropic(const Message &m, std::vector<std::string> &notes)
{
    const std::string role = m.role == Role::Assistant ? "assistant" : "user";
    return {json{{"role", role}, {"content", encodeContent(m.blocks, notes)}}};
}

// Tool ids must match ^[a-zA-Z0-9_-]+$.
std::string safeId(const std::string &id, std::vector<std::string> &notes)
{
    std::string out = id;
    for (char &ch : out)
        if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '-')
            ch = '_';
    if (out != id)
        api::addNote(notes, "tool ids with characters the API does not accept rewritten");
    return out.empty() ? std::string("tool") : out;
}

} // namespace

void loadAnthropic(Transcript &t, const LoadContext &ctx)
{
    json doc;
    if (!api::parseDocument(t, doc)) {
        api::keepWholeFileRaw(t);
        return;
    }
    const std::string_view buf = *t.buffer;
    api::LineCounter lines(buf);
    if (doc.is_array()) { // a bare messages array
        api::decodeArray(t, api::documentStart(buf), &doc, lines, ctx, decodeMessage);
        return;
    }
    if (!doc.is_object()) {
        t.addDiagnostic(1, "request is not a JSON object", Diagnostic::Severity::Error);
        api::keepWholeFileRaw(t);
        return;
    }
    if (const json *system = cl::json::child(doc, "system")) {
        Message m;
        m.role = Role::System;
        m.type = "system";
        const auto range = api::topLevel(buf, "system");
        if (system->is_string() || system->is_array()) {
            decodeBlocks(t, *system, lines.lineAt(range.begin), m);
        } else {
            t.addDiagnostic(lines.lineAt(range.begin), "system is neither a string nor an array of text blocks");
        }
        if (range.begin != range.end)
            api::addSideMessage(t, range, "system", lines, std::move(m));
    }
    const auto messages = api::topLevel(buf, "messages");
    const json *parsed = cl::json::array(doc, "messages");
    if (!parsed || messages.begin == messages.end)
        t.addDiagnostic(1, "request has no messages array", Diagnostic::Severity::Error);
    else
        api::decodeArray(t, messages.begin, parsed, lines, ctx, decodeMessage);
    t.header = std::move(doc); // the big arrays go with the erase below, never copied
    t.header.erase("messages");
    t.header.erase("system");
    api::sortRecords(t);
}

WriteResult writeAnthropic(const Transcript &t, ByteSink &out)
{
    WriteResult r;
    if (t.format == Format::Anthropic && api::rebuildSameFormat(t, t.header.is_null() ? "" : "messages", encodeAnthropic, r, out))
        return r;

    api::Canonical c = api::canonicalize(t, true, r.notes);
    for (auto &turn : c.turns) {
        for (auto &b : turn.blocks)
            if (b.type == BlockType::ToolUse || b.type == BlockType::ToolResult)
                b.toolId = safeId(b.toolId, r.notes);
        // Drop what cannot be carried before merging, so no turn ends up empty.
        std::vector<Block> kept;
        for (auto &b : turn.blocks) {
            json ignored;
            std::vector<std::string> probe;
            Block shape = api::shapeOf(b);
            if (encodeBlock(shape, ignored, probe))
                kept.push_back(std::move(b));
            for (auto &n : probe)
                api::addNote(r.notes, std::move(n));
        }
        turn.blocks = std::move(kept);
    }
    json doc = t.format == Format::Anthropic && t.header.is_object() ? t.header : json::object();
    if (!c.model.empty())
        doc["model"] = c.model;
    if (!doc.contains("max_tokens")) {
        doc["max_tokens"] = 8192;
        api::addNote(r.notes, "max_tokens set to 8192 (required by the API)");
    }
    if (!c.system.empty())
        doc["system"] = c.system;
    // Each message is written as soon as it is encoded; each turn's blocks are freed after it.
    api::DocumentStream messages(out, std::move(doc), "messages");
    for (auto &turn : api::alternate(std::move(c), r.notes)) {
        messages.element(json{{"role", turn.role == Role::Assistant ? "assistant" : "user"},
                              {"content", encodeContent(std::move(turn.blocks), r.notes)}});
        std::vector<Block>().swap(turn.blocks);
    }
    messages.finish();
    return r;
}

} // namespace cl::formats
