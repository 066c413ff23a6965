// SPDX-License-Identifier: MIT
// Gemini API request {contents, systemInstruction, tools, generationConfig} and the Content[]
// array it shares with Gemini CLI /chat checkpoints.
#include "core/formats/api/common.h"

#include <cctype>
#include <deque>
#include <map>

namespace cl::formats {

namespace {

using api::json;

std::string idSafe(std::string_view name)
{
    std::string out(name);
    for (char &ch : out)
        if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '-')
            ch = '_';
    return out;
}

bool isSynthesized(const std::string &id)
{
    return id.rfind(api::kSynthPrefix, 0) == 0;
}

std::string responseText(const json &response, bool &isError)
{
    isError = false;
    if (!response.is_object())
        return response.is_string() ? response.get<std::string>() : cl::json::dump(response);
    if (const json *error = cl::json::child(response, "error")) {
        isError = true;
        return error->is_string() ? error->get<std::string>() : cl::json::dump(*error);
    }
    for (const char *key : {"output", "result", "content"})
        if (const json *v = cl::json::child(response, key); v && v->is_string() && response.size() == 1)
            return v->get<std::string>();
    return cl::json::dump(response);
}

// False when the block cannot be carried. Consumes b's text (the caller hands over its own block, or
// a shapeOf for a probe).
bool encodePart(Block &b, json &out, std::vector<std::string> &notes)
{
    switch (b.type) {
    case BlockType::Text:
        if (b.text.empty())
            return false;
        out = json{{"text", std::move(b.text)}};
        return true;
    case BlockType::Thinking:
        if (b.text.empty())
            return false;
        out = json{{"text", std::move(b.text)}, {"thought", true}};
        return true;
    case BlockType::RedactedThinking:
        api::addNote(notes, "redacted (encrypted) thinking dropped");
        return false;
    case BlockType::ToolUse: {
        json args = b.input;
        if (!args.is_object()) {
            api::addNote(notes, "tool call arguments that are not a JSON object wrapped as {\"arguments\": ...}");
            args = json{{"arguments", args}};
        }
        out = json{{"functionCall", {{"name", b.toolName}, {"args", args}}}};
        if (!b.toolId.empty() && !isSynthesized(b.toolId))
            out["functionCall"]["id"] = b.toolId;
        return true;
    }
    case BlockType::ToolResult:
        out = json{{"functionResponse",
                    {{"name", b.toolName.empty() ? std::string("unknown_tool") : b.toolName},
                     {"response", json{{b.isError ? "error" : "output", std::move(b.text)}}}}}};
        if (!b.toolId.empty() && !isSynthesized(b.toolId))
            out["functionResponse"]["id"] = b.toolId;
        return true;
    case BlockType::Image:
    case BlockType::Document: {
        const std::string data = cl::json::str(b.input, "data");
        const std::string url = cl::json::str(b.input, "url");
        const std::string mime = b.mediaType.empty() ? std::string("application/octet-stream") : b.mediaType;
        if (!data.empty() && cl::json::str(b.input, "kind") != "text") {
            out = json{{"inlineData", {{"mimeType", mime}, {"data", data}}}};
        } else if (!url.empty() && url.rfind("data:", 0) != 0) {
            out = json{{"fileData", {{"mimeType", mime}, {"fileUri", url}}}};
        } else if (!data.empty() || !b.text.empty()) {
            out = json{{"text", data.empty() ? std::move(b.text) : data}};
        } else {
            api::addNote(notes, "images and documents without their data replaced by a text placeholder");
            out = json{{"text", api::placeholderText(b)}};
        }
        return true;
    }
    case BlockType::Raw: {
        std::string error;
        return cl::json::parse(b.text, out, error) != cl::json::ParseStatus::Failed && out.is_object();
    }
    }
    return false;
}

} // namespace

namespace api {

bool GeminiDecoder::operator()(Transcript &t, const json &content, std::uint32_t line, Message &m)
{
    if (!content.is_object()) {
        ++index;
        t.addDiagnostic(line, "content is not an object (kept as is)");
        return false;
    }
    m.type = cl::json::str(content, "role");
    if (m.type == "user" || m.type.empty())
        m.role = Role::User;
    else if (m.type == "model")
        m.role = Role::Assistant;
    else if (m.type == "function" || m.type == "tool")
        m.role = Role::Tool;
    else if (m.type == "system")
        m.role = Role::System;
    else
        t.addDiagnostic(line, "unknown role '" + m.type + "'");
    const json *parts = cl::json::array(content, "parts");
    if (!parts) {
        ++index;
        t.addDiagnostic(line, "content has no parts array");
        return true;
    }
    decodeParts(t, *parts, line, m);
    return true;
}

void GeminiDecoder::decodePart(Transcript &t, const json &part, std::uint32_t line, std::size_t ci, std::size_t pi, Message &m)
{
    Block b;
    if (!part.is_object()) {
        t.addDiagnostic(line, "part is not an object");
        b.type = BlockType::Raw;
        b.text = cl::json::dump(part);
    } else if (const json *text = cl::json::child(part, "text"); text && text->is_string()) {
        b.type = cl::json::boolean(part, "thought") ? BlockType::Thinking : BlockType::Text;
        b.text = text->get<std::string>();
    } else if (const json *call = cl::json::object(part, "functionCall")) {
        b.type = BlockType::ToolUse;
        b.toolName = cl::json::str(*call, "name");
        b.toolId = cl::json::str(*call, "id");
        const json *args = cl::json::child(*call, "args");
        b.input = args && !args->is_null() ? *args : json::object();
        if (b.toolId.empty()) {
            b.toolId = std::string(api::kSynthPrefix) + idSafe(b.toolName) + "_" + std::to_string(ci) + "_"
                       + std::to_string(pi);
            open[b.toolName].push_back(b.toolId);
        }
    } else if (const json *resp = cl::json::object(part, "functionResponse")) {
        b.type = BlockType::ToolResult;
        b.toolName = cl::json::str(*resp, "name");
        b.toolId = cl::json::str(*resp, "id");
        const json *response = cl::json::child(*resp, "response");
        b.text = response ? responseText(*response, b.isError) : std::string();
        if (auto it = open.find(b.toolName); b.toolId.empty() && it != open.end() && !it->second.empty()) {
            b.toolId = it->second.front();
            it->second.pop_front();
        }
    } else if (const json *inline_ = cl::json::object(part, "inlineData")) {
        b.mediaType = cl::json::str(*inline_, "mimeType");
        b.type = b.mediaType.rfind("image/", 0) == 0 ? BlockType::Image : BlockType::Document;
        const std::string data = cl::json::str(*inline_, "data");
        b.dataSize = data.size();
        b.input = json{{"data", data}, {"media_type", b.mediaType}};
    } else if (const json *file = cl::json::object(part, "fileData")) {
        b.type = BlockType::Document;
        b.mediaType = cl::json::str(*file, "mimeType");
        b.input = json{{"url", cl::json::str(*file, "fileUri")}};
    } else {
        b.type = BlockType::Raw; // executableCode, codeExecutionResult, ...
        b.text = cl::json::dump(part);
    }
    if (const std::string sig = cl::json::str(part, "thoughtSignature"); !sig.empty())
        m.meta["thoughtSignatures"][std::to_string(m.blocks.size())] = sig;
    m.blocks.push_back(std::move(b));
}

void GeminiDecoder::decodeParts(Transcript &t, const json &parts, std::uint32_t line, Message &m)
{
    const std::size_t ci = index++;
    for (std::size_t pi = 0; pi < parts.size(); ++pi)
        decodePart(t, parts[pi], line, ci, pi, m);
}

json encodeGeminiParts(std::vector<Block> blocks, const json &signatures, std::vector<std::string> &notes)
{
    json parts = json::array();
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        json part;
        if (!encodePart(blocks[i], part, notes))
            continue;
        if (const std::string sig = cl::json::str(signatures, std::to_string(i)); !sig.empty())
            part["thoughtSignature"] = sig;
        parts.push_back(std::move(part));
    }
    return parts;
}

} // namespace api

namespace {

std::vector<json> encodeGemini(const Message &m, std::vector<std::string> &notes)
{
    std::string role = m.type;
    if (role != "user" && role != "model" && role != "function")
        role = m.role == Role::Assistant ? "model" : "user";
    const json *sigs = cl::json::object(m.meta, "thoughtSignatures");
    return {json{{"role", role}, {"parts", api::encodeGeminiParts(m.blocks, sigs ? *sigs : json(), notes)}}};
}

// The conversation as canonical turns, without what Content parts cannot carry.
api::Canonical prepareContents(const Transcript &t, std::vector<std::string> &notes)
{
    api::Canonical c = api::canonicalize(t, true, notes);
    for (auto &turn : c.turns) { // drop what cannot be carried first, so no content ends up empty
        std::vector<Block> kept;
        for (auto &b : turn.blocks) {
            json ignored;
            Block shape = api::shapeOf(b);
            if (encodePart(shape, ignored, notes))
                kept.push_back(std::move(b));
        }
        turn.blocks = std::move(kept);
    }
    return c;
}

// Hands each Content to emit as soon as it is encoded (a turn's blocks are freed after it).
void emitContents(api::Canonical &&c, std::vector<std::string> &notes, const std::function<void(const json &)> &emit)
{
    for (auto &turn : api::alternate(std::move(c), notes)) {
        emit(json{{"role", turn.role == Role::Assistant ? "model" : "user"}, {"parts", api::encodeGeminiParts(std::move(turn.blocks), json(), notes)}});
        std::vector<Block>().swap(turn.blocks);
    }
}

} // namespace

void loadGeminiContentArray(Transcript &t, std::size_t arrayBegin, const LoadContext &ctx)
{
    api::LineCounter lines(*t.buffer);
    api::GeminiDecoder decoder;
    api::decodeArray(t, arrayBegin, nullptr, lines, ctx,
                     [&decoder](Transcript &tr, const json &e, std::uint32_t line, Message &m) {
                         return decoder(tr, e, line, m);
                     });
}

nlohmann::json encodeGeminiContents(const Transcript &t, std::vector<std::string> &notes)
{
    api::Canonical c = prepareContents(t, notes);
    if (!c.system.empty())
        api::addNote(notes, "system prompt left out (Content[] has no place for it)");
    json contents = json::array();
    emitContents(std::move(c), notes, [&contents](const json &content) { contents.push_back(content); });
    return contents;
}

void loadGemini(Transcript &t, const LoadContext &ctx)
{
    json doc;
    if (!api::parseDocument(t, doc)) {
        api::keepWholeFileRaw(t);
        return;
    }
    const std::string_view buf = *t.buffer;
    api::LineCounter lines(buf);
    api::GeminiDecoder decoder;
    auto decode = [&decoder](Transcript &tr, const json &e, std::uint32_t line, Message &m) {
        return decoder(tr, e, line, m);
    };
    if (doc.is_array()) {
        api::decodeArray(t, api::documentStart(buf), &doc, lines, ctx, decode);
        return;
    }
    if (!doc.is_object()) {
        t.addDiagnostic(1, "request is not a JSON object", Diagnostic::Severity::Error);
        api::keepWholeFileRaw(t);
        return;
    }
    for (const char *key : {"systemInstruction", "system_instruction"}) {
        const json *si = cl::json::child(doc, key);
        if (!si)
            continue;
        const auto range = api::topLevel(buf, key);
        Message m;
        m.role = Role::System;
        m.type = "systemInstruction";
        if (si->is_string()) {
            m.blocks.push_back(makeBlock(BlockType::Text, si->get<std::string>()));
        } else if (const json *parts = cl::json::array(*si, "parts")) {
            for (const auto &p : *parts)
                if (const std::string text = cl::json::str(p, "text"); !text.empty())
                    m.blocks.push_back(makeBlock(BlockType::Text, text));
        } else {
            t.addDiagnostic(lines.lineAt(range.begin), std::string(key) + " has no parts");
        }
        if (range.begin != range.end)
            api::addSideMessage(t, range, key, lines, std::move(m));
        break;
    }
    const auto contents = api::topLevel(buf, "contents");
    const json *parsed = cl::json::array(doc, "contents");
    if (!parsed || contents.begin == contents.end)
        t.addDiagnostic(1, "request has no contents array", Diagnostic::Severity::Error);
    else
        api::decodeArray(t, contents.begin, parsed, lines, ctx, decode);
    t.header = std::move(doc); // the big arrays go with the erase below, never copied
    t.header.erase("contents");
    t.header.erase("systemInstruction");
    t.header.erase("system_instruction");
    api::sortRecords(t);
}

WriteResult writeGemini(const Transcript &t, ByteSink &out)
{
    WriteResult r;
    if (t.format == Format::Gemini && api::rebuildSameFormat(t, t.header.is_null() ? "" : "contents", encodeGemini, r, out))
        return r;
    api::Canonical c = prepareContents(t, r.notes);
    json doc = t.format == Format::Gemini && t.header.is_object() ? t.header : json::object();
    if (!c.system.empty())
        doc["systemInstruction"] = json{{"parts", json::array({json{{"text", c.system}}})}};
    api::DocumentStream contents(out, std::move(doc), "contents");
    emitContents(std::move(c), r.notes, [&contents](const json &content) { contents.element(content); });
    contents.finish();
    return r;
}

} // namespace cl::formats
