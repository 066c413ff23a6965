// SPDX-License-Identifier: MIT
// OpenAI Responses API input: {model, instructions, input: string | items[]} or a bare item array.
#include "core/formats/api/common.h"

namespace cl::formats {

namespace {

using api::json;

void decodeParts(Transcript &t, const json &content, std::uint32_t line, Message &m)
{
    if (content.is_string()) {
        m.blocks.push_back(makeBlock(BlockType::Text, content.get<std::string>()));
        return;
    }
    if (!content.is_array()) {
        t.addDiagnostic(line, "message content is neither a string nor an array of parts");
        return;
    }
    for (const auto &part : content) {
        const std::string type = cl::json::str(part, "type");
        Block b;
        if (type == "input_text" || type == "output_text" || type == "text" || type == "summary_text") {
            b.text = cl::json::str(part, "text");
        } else if (type == "refusal") {
            b.text = cl::json::str(part, "refusal");
        } else if (type == "input_image") {
            b.type = BlockType::Image;
            if (const std::string url = cl::json::str(part, "image_url"); !url.empty())
                api::parseDataUrl(url, b);
            else
                b.input = json{{"file_id", cl::json::str(part, "file_id")}};
        } else if (type == "input_file") {
            b.type = BlockType::Document;
            b.text = cl::json::str(part, "filename");
            if (const std::string data = cl::json::str(part, "file_data"); !data.empty())
                api::parseDataUrl(data, b);
        } else {
            b.type = BlockType::Raw;
            b.text = cl::json::dump(part);
        }
        m.blocks.push_back(std::move(b));
    }
}

bool decodeItem(Transcript &t, const json &item, std::uint32_t line, Message &m)
{
    if (!item.is_object()) {
        t.addDiagnostic(line, "input item is not an object (kept as is)");
        return false;
    }
    m.type = cl::json::str(item, "type");
    if (m.type.empty() && item.contains("role"))
        m.type = "message"; // the short form {role, content}
    m.id = cl::json::str(item, "id");
    if (!m.id.empty())
        m.meta["id"] = m.id;
    if (m.type == "message") {
        const std::string role = cl::json::str(item, "role");
        if (role == "user")
            m.role = Role::User;
        else if (role == "assistant")
            m.role = Role::Assistant;
        else if (role == "system" || role == "developer")
            m.role = Role::System;
        else
            t.addDiagnostic(line, "message item with unknown role '" + role + "'");
        m.meta["role"] = role;
        const json *content = cl::json::child(item, "content");
        if (content)
            decodeParts(t, *content, line, m);
        else
            t.addDiagnostic(line, "message item has no content");
    } else if (m.type == "function_call") {
        m.role = Role::Assistant;
        Block b;
        b.type = BlockType::ToolUse;
        b.toolId = cl::json::str(item, "call_id");
        b.toolName = cl::json::str(item, "name");
        const json *args = cl::json::child(item, "arguments");
        b.input = api::parseArguments(t, line, args ? *args : json());
        if (b.toolId.empty())
            t.addDiagnostic(line, "function_call without call_id");
        m.blocks.push_back(std::move(b));
    } else if (m.type == "function_call_output") {
        m.role = Role::Tool;
        Block b;
        b.type = BlockType::ToolResult;
        b.toolId = cl::json::str(item, "call_id");
        const json *output = cl::json::child(item, "output");
        b.text = output ? api::blocksText(*output) : std::string();
        if (b.toolId.empty())
            t.addDiagnostic(line, "function_call_output without call_id");
        m.blocks.push_back(std::move(b));
    } else if (m.type == "reasoning") {
        m.role = Role::Assistant;
        Block b;
        std::string text;
        if (const json *summary = cl::json::array(item, "summary"))
            for (const auto &s : *summary)
                if (const std::string part = cl::json::str(s, "text"); !part.empty())
                    text += (text.empty() ? "" : "\n") + part;
        b.type = text.empty() ? BlockType::RedactedThinking : BlockType::Thinking;
        b.text = std::move(text);
        b.input = json::object();
        if (!m.id.empty())
            b.input["id"] = m.id;
        if (const std::string enc = cl::json::str(item, "encrypted_content"); !enc.empty())
            b.input["encrypted_content"] = enc;
        m.blocks.push_back(std::move(b));
    } else {
        // custom_tool_call, local_shell_call, web_search_call, item_reference, ...
        m.kind = MessageKind::Event;
        m.blocks.push_back(makeBlock(BlockType::Raw, cl::json::dump(item)));
        if (m.type.empty())
            t.addDiagnostic(line, "input item without a type");
    }
    return true;
}

json reasoningItem(const Block &b)
{
    json item{{"type", "reasoning"}, {"id", b.input["id"]}, {"summary", json::array()}};
    if (!b.text.empty())
        item["summary"].push_back(json{{"type", "summary_text"}, {"text", b.text}});
    if (b.input.contains("encrypted_content"))
        item["encrypted_content"] = b.input["encrypted_content"];
    return item;
}

// Blocks of one turn as input items, in order. Takes the blocks by value and moves their texts.
std::vector<json> encodeBlocks(Role role, std::vector<Block> blocks, const std::string &roleName,
                               const std::string &itemId, std::vector<std::string> &notes)
{
    std::vector<json> items;
    json parts = json::array();
    const bool assistant = role == Role::Assistant;
    auto flush = [&] {
        if (parts.empty())
            return;
        items.push_back(json{{"type", "message"}, {"role", roleName}, {"content", std::move(parts)}});
        parts = json::array();
    };
    std::size_t calls = 0;
    for (const auto &b : blocks)
        calls += b.type == BlockType::ToolUse;
    for (auto &b : blocks) {
        switch (b.type) {
        case BlockType::Text:
            parts.push_back(json{{"type", assistant ? "output_text" : "input_text"}, {"text", std::move(b.text)}});
            break;
        case BlockType::Image:
        case BlockType::Document:
            if (b.type == BlockType::Image && !assistant && !api::dataUrl(b).empty()) {
                parts.push_back(json{{"type", "input_image"}, {"image_url", api::dataUrl(b)}, {"detail", "auto"}});
            } else if (b.type == BlockType::Document && !assistant && cl::json::str(b.input, "url").empty()
                       && !api::dataUrl(b).empty()) {
                json file{{"type", "input_file"}, {"file_data", api::dataUrl(b)}};
                file["filename"] = b.text.empty() ? std::string("document") : b.text;
                parts.push_back(std::move(file));
            } else {
                api::addNote(notes, "images and documents without their data replaced by a text placeholder");
                parts.push_back(json{{"type", assistant ? "output_text" : "input_text"}, {"text", api::placeholderText(b)}});
            }
            break;
        case BlockType::Thinking:
        case BlockType::RedactedThinking:
            flush();
            if (cl::json::str(b.input, "id").empty())
                api::addNote(notes, "thinking without a reasoning item id dropped");
            else
                items.push_back(reasoningItem(b));
            break;
        case BlockType::ToolUse: {
            flush();
            json call{{"type", "function_call"}, {"call_id", b.toolId}, {"name", b.toolName}, {"arguments", api::argumentsString(b.input)}};
            if (calls == 1 && !itemId.empty())
                call["id"] = itemId;
            items.push_back(std::move(call));
            break;
        }
        case BlockType::ToolResult:
            flush();
            items.push_back(json{{"type", "function_call_output"}, {"call_id", b.toolId}, {"output", std::move(b.text)}});
            break;
        case BlockType::Raw: {
            json raw;
            std::string error;
            if (cl::json::parse(b.text, raw, error) != cl::json::ParseStatus::Failed && raw.is_object())
                items.push_back(std::move(raw));
            break;
        }
        }
    }
    flush();
    return items;
}

std::string roleString(const Message &m)
{
    const std::string role = cl::json::str(m.meta, "role");
    switch (m.role) {
    case Role::System: return role == "developer" ? role : "system";
    case Role::Assistant: return "assistant";
    default: return "user";
    }
}

std::vector<json> encodeResponses(const Message &m, std::vector<std::string> &notes)
{
    return encodeBlocks(m.role, m.blocks, roleString(m), m.type == "function_call" ? m.id : std::string(), notes);
}

} // namespace

void loadOpenAIResponses(Transcript &t, const LoadContext &ctx)
{
    json doc;
    if (!api::parseDocument(t, doc)) {
        api::keepWholeFileRaw(t);
        return;
    }
    const std::string_view buf = *t.buffer;
    api::LineCounter lines(buf);
    if (doc.is_array()) {
        api::decodeArray(t, api::documentStart(buf), &doc, lines, ctx, decodeItem);
        return;
    }
    if (!doc.is_object()) {
        t.addDiagnostic(1, "request is not a JSON object", Diagnostic::Severity::Error);
        api::keepWholeFileRaw(t);
        return;
    }
    if (const json *instructions = cl::json::child(doc, "instructions"); instructions && instructions->is_string()) {
        Message m;
        m.role = Role::System;
        m.type = "instructions";
        m.blocks.push_back(makeBlock(BlockType::Text, instructions->get<std::string>()));
        api::addSideMessage(t, api::topLevel(buf, "instructions"), "instructions", lines, std::move(m));
    }
    const json *input = cl::json::child(doc, "input");
    const auto range = api::topLevel(buf, "input");
    if (input && input->is_string() && range.begin != range.end) {
        Message m;
        m.role = Role::User;
        m.type = "message";
        m.blocks.push_back(makeBlock(BlockType::Text, input->get<std::string>()));
        api::addSideMessage(t, range, "input", lines, std::move(m));
    } else if (input && input->is_array() && range.begin != range.end) {
        api::decodeArray(t, range.begin, input, lines, ctx, decodeItem);
    } else {
        t.addDiagnostic(1, "request has no input (string or item array)", Diagnostic::Severity::Error);
    }
    t.header = std::move(doc); // the big arrays go with the erase below, never copied
    t.header.erase("input");
    t.header.erase("instructions");
    api::sortRecords(t);
}

WriteResult writeOpenAIResponses(const Transcript &t, ByteSink &out)
{
    WriteResult r;
    if (t.format == Format::OpenAIResponses
        && api::rebuildSameFormat(t, t.header.is_null() ? "" : "input", encodeResponses, r, out))
        return r;

    api::Canonical c = api::canonicalize(t, false, r.notes);
    json header = t.format == Format::OpenAIResponses && t.header.is_object() ? t.header : json::object();
    if (!c.model.empty())
        header["model"] = c.model;
    // Items are written as they are encoded; a run of reasoning items waits until the next item
    // shows whether it leads into a function_call or assistant message of its turn (else it is dropped).
    api::DocumentStream input(out, std::move(header), "input");
    std::vector<json> reasoning;
    std::size_t dropped = 0;
    for (auto &turn : c.turns) {
        const std::string role = turn.role == Role::Assistant ? "assistant"
                                 : turn.role == Role::System  ? "system"
                                                              : "user";
        for (auto &item : encodeBlocks(turn.role, std::move(turn.blocks), role, {}, r.notes)) {
            if (cl::json::str(item, "type") == "reasoning") {
                reasoning.push_back(std::move(item));
                continue;
            }
            const bool led = cl::json::str(item, "type") == "function_call" || cl::json::str(item, "role") == "assistant";
            if (led)
                for (const auto &x : reasoning)
                    input.element(x);
            else
                dropped += reasoning.size();
            reasoning.clear();
            input.element(item);
        }
        std::vector<Block>().swap(turn.blocks);
    }
    dropped += reasoning.size();
    if (dropped)
        api::addNote(r.notes, std::to_string(dropped) + " reasoning items without a following call or message dropped");
    if (input.count() == 0) {
        input.element(json{{"type", "message"}, {"role", "user"}, {"content", json::array({json{{"type", "input_text"}, {"text", "(empty conversation)"}}})}});
        api::addNote(r.notes, "inserted a placeholder user message: the conversation was empty");
    }
    input.finish();
    return r;
}

} // namespace cl::formats
