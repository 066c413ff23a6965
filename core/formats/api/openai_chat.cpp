// SPDX-License-Identifier: MIT
// OpenAI Chat Completions: a request {model, messages, tools, ...} or a bare messages array.
#include "core/formats/api/common.h"

#include <deque>
#include <map>

namespace cl::formats {

namespace {

using api::json;

void decodeContent(Transcript &t, const json &content, std::uint32_t line, Message &m)
{
    if (content.is_null())
        return;
    if (content.is_string()) {
        m.blocks.push_back(makeBlock(BlockType::Text, content.get<std::string>()));
        return;
    }
    if (!content.is_array()) {
        t.addDiagnostic(line, "content is neither a string nor an array of parts");
        return;
    }
    for (const auto &part : content) {
        const std::string type = cl::json::str(part, "type");
        Block b;
        if (type == "text") {
            b.text = cl::json::str(part, "text");
        } else if (type == "refusal") {
            b.text = cl::json::str(part, "refusal");
        } else if (type == "image_url") {
            b.type = BlockType::Image;
            const json *image = cl::json::child(part, "image_url");
            const std::string url = image && image->is_string() ? image->get<std::string>()
                                                                : (image ? cl::json::str(*image, "url") : std::string());
            api::parseDataUrl(url, b);
        } else if (type == "file") {
            b.type = BlockType::Document;
            if (const json *file = cl::json::object(part, "file")) {
                const std::string data = cl::json::str(*file, "file_data");
                b.text = cl::json::str(*file, "filename");
                if (!data.empty())
                    api::parseDataUrl(data, b);
            }
        } else {
            b.type = BlockType::Raw; // input_audio and future part types
            b.text = cl::json::dump(part);
        }
        m.blocks.push_back(std::move(b));
    }
}

// Decoder state: legacy function_call / role "function" messages carry no ids, so calls get
// synthesized ones and each function reply takes the oldest open call of the same name.
struct ChatDecoder {
    std::map<std::string, std::deque<std::string>> openLegacyCalls;
    std::size_t index = 0;

    bool operator()(Transcript &t, const json &element, std::uint32_t line, Message &m)
    {
        ++index;
        if (!element.is_object()) {
            t.addDiagnostic(line, "message is not an object (kept as is)");
            return false;
        }
        m.type = cl::json::str(element, "role");
        if (const std::string name = cl::json::str(element, "name"); !name.empty())
            m.meta["name"] = name;
        const json *content = cl::json::child(element, "content");
        if (m.type == "system" || m.type == "developer") {
            m.role = Role::System;
        } else if (m.type == "user") {
            m.role = Role::User;
        } else if (m.type == "assistant") {
            m.role = Role::Assistant;
            // Some compatible servers (DeepSeek, vLLM) put reasoning beside the content.
            for (const char *key : {"reasoning_content", "reasoning"})
                if (const std::string r = cl::json::str(element, key); !r.empty())
                    m.blocks.push_back(makeBlock(BlockType::Thinking, r));
        } else if (m.type == "tool" || m.type == "function") {
            m.role = Role::Tool;
            Block b;
            b.type = BlockType::ToolResult;
            b.text = content ? api::blocksText(*content) : std::string();
            if (m.type == "tool") {
                b.toolId = cl::json::str(element, "tool_call_id");
                if (b.toolId.empty())
                    t.addDiagnostic(line, "tool message without tool_call_id");
            } else {
                b.toolName = cl::json::str(element, "name");
                auto &open = openLegacyCalls[b.toolName];
                if (!open.empty()) {
                    b.toolId = open.front();
                    open.pop_front();
                }
            }
            m.blocks.push_back(std::move(b));
            return true;
        } else {
            t.addDiagnostic(line, "unknown role '" + m.type + "'");
        }
        if (content)
            decodeContent(t, *content, line, m);
        if (const std::string refusal = cl::json::str(element, "refusal"); !refusal.empty())
            m.blocks.push_back(makeBlock(BlockType::Text, refusal));
        if (const json *calls = cl::json::child(element, "tool_calls"); calls && !calls->is_null()) {
            if (!calls->is_array())
                t.addDiagnostic(line, "tool_calls is not an array");
            else
                for (const auto &call : *calls) {
                    Block b;
                    b.type = BlockType::ToolUse;
                    b.toolId = cl::json::str(call, "id");
                    const json *function = cl::json::object(call, "function");
                    if (!function) {
                        t.addDiagnostic(line, "tool call without a function object");
                        b.input = json::object();
                    } else {
                        b.toolName = cl::json::str(*function, "name");
                        const json *args = cl::json::child(*function, "arguments");
                        b.input = api::parseArguments(t, line, args ? *args : json());
                    }
                    m.blocks.push_back(std::move(b));
                }
        }
        if (const json *fc = cl::json::object(element, "function_call")) {
            Block b;
            b.type = BlockType::ToolUse;
            b.toolName = cl::json::str(*fc, "name");
            b.toolId = std::string(api::kSynthPrefix) + "fc_" + std::to_string(index);
            const json *args = cl::json::child(*fc, "arguments");
            b.input = api::parseArguments(t, line, args ? *args : json());
            openLegacyCalls[b.toolName].push_back(b.toolId);
            m.blocks.push_back(std::move(b));
        }
        return true;
    }
};

// Appends a text to a joined one, moving it when it is the first (a long text is not copied).
void join(std::string &text, std::string &&part)
{
    if (text.empty())
        text = std::move(part);
    else
        text += "\n" + part;
}

// The encoders take their blocks by value and move the texts into the JSON.
json encodeUserContent(std::vector<Block> blocks, std::vector<std::string> &notes)
{
    bool onlyText = true;
    for (const auto &b : blocks)
        onlyText = onlyText && b.type == BlockType::Text;
    if (onlyText) {
        std::string text;
        for (auto &b : blocks)
            join(text, std::move(b.text));
        return text;
    }
    json parts = json::array();
    for (auto &b : blocks) {
        if (b.type == BlockType::Text) {
            parts.push_back(json{{"type", "text"}, {"text", std::move(b.text)}});
        } else if (b.type == BlockType::Image && !api::dataUrl(b).empty()) {
            parts.push_back(json{{"type", "image_url"}, {"image_url", {{"url", api::dataUrl(b)}}}});
        } else if (b.type == BlockType::Document && cl::json::str(b.input, "url").empty() && !api::dataUrl(b).empty()) {
            json file{{"file_data", api::dataUrl(b)}};
            if (!b.text.empty())
                file["filename"] = b.text;
            parts.push_back(json{{"type", "file"}, {"file", std::move(file)}});
        } else if (b.type == BlockType::Image || b.type == BlockType::Document) {
            api::addNote(notes, "images and documents without their data replaced by a text placeholder");
            parts.push_back(json{{"type", "text"}, {"text", api::placeholderText(b)}});
        } else if (b.type == BlockType::ToolResult) {
            parts.push_back(json{{"type", "text"}, {"text", std::move(b.text)}});
        }
    }
    return parts;
}

// Assistant turn -> one message; null when there is nothing OpenAI can carry.
// Synthesized ids mark legacy function_call messages; `legacy` writes them back that way.
json encodeAssistant(std::vector<Block> blocks, std::vector<std::string> &notes, bool legacy)
{
    std::string text;
    json calls = json::array();
    json legacyCall;
    for (auto &b : blocks) {
        if (b.type == BlockType::Text) {
            join(text, std::move(b.text));
        } else if (b.type == BlockType::ToolUse) {
            const json function{{"name", b.toolName}, {"arguments", api::argumentsString(b.input)}};
            if (legacy && b.toolId.rfind(api::kSynthPrefix, 0) == 0)
                legacyCall = function;
            else
                calls.push_back(json{{"id", b.toolId}, {"type", "function"}, {"function", function}});
        } else if (b.type == BlockType::Thinking || b.type == BlockType::RedactedThinking) {
            api::addNote(notes, "thinking dropped (Chat Completions has no place for it)");
        } else if (b.type == BlockType::Image || b.type == BlockType::Document) {
            api::addNote(notes, "images in assistant messages replaced by a text placeholder");
            text += (text.empty() ? "" : "\n") + api::placeholderText(b);
        }
    }
    if (text.empty() && calls.empty() && legacyCall.is_null())
        return nullptr;
    json msg{{"role", "assistant"}, {"content", text.empty() ? json() : json(text)}};
    if (!calls.empty())
        msg["tool_calls"] = std::move(calls);
    if (!legacyCall.is_null())
        msg["function_call"] = std::move(legacyCall);
    return msg;
}

std::vector<json> encodeChat(const Message &m, std::vector<std::string> &notes)
{
    std::vector<json> out;
    switch (m.role) {
    case Role::System:
        out.push_back(json{{"role", m.type == "developer" ? "developer" : "system"}, {"content", m.plainText()}});
        break;
    case Role::Assistant:
        if (json msg = encodeAssistant(m.blocks, notes, true); !msg.is_null())
            out.push_back(std::move(msg));
        break;
    case Role::Tool:
        for (const auto &b : m.blocks) {
            if (b.type != BlockType::ToolResult)
                continue;
            if (m.type == "function")
                out.push_back(json{{"role", "function"}, {"name", b.toolName}, {"content", b.text}});
            else
                out.push_back(json{{"role", "tool"}, {"tool_call_id", b.toolId}, {"content", b.text}});
        }
        break;
    case Role::User:
    case Role::Unknown:
        out.push_back(json{{"role", m.type.empty() ? "user" : m.type}, {"content", encodeUserContent(m.blocks, notes)}});
        break;
    }
    return out;
}

} // namespace

void loadOpenAIChat(Transcript &t, const LoadContext &ctx)
{
    json doc;
    if (!api::parseDocument(t, doc)) {
        api::keepWholeFileRaw(t);
        return;
    }
    const std::string_view buf = *t.buffer;
    api::LineCounter lines(buf);
    ChatDecoder decoder;
    auto decode = [&decoder](Transcript &tr, const json &e, std::uint32_t line, Message &m) {
        return decoder(tr, e, line, m);
    };
    if (doc.is_array()) {
        api::decodeArray(t, api::documentStart(buf), &doc, lines, ctx, decode);
        return;
    }
    const auto messages = api::topLevel(buf, "messages");
    const json *parsed = cl::json::array(doc, "messages");
    if (!parsed || messages.begin == messages.end) {
        t.addDiagnostic(1, "request has no messages array", Diagnostic::Severity::Error);
        api::keepWholeFileRaw(t);
        return;
    }
    api::decodeArray(t, messages.begin, parsed, lines, ctx, decode);
    t.header = std::move(doc); // the big arrays go with the erase below, never copied
    t.header.erase("messages");
}

WriteResult writeOpenAIChat(const Transcript &t, ByteSink &out)
{
    WriteResult r;
    if (t.format == Format::OpenAIChat && api::rebuildSameFormat(t, t.header.is_null() ? "" : "messages", encodeChat, r, out))
        return r;

    api::Canonical c = api::canonicalize(t, false, r.notes);
    json header = t.format == Format::OpenAIChat && t.header.is_object() ? t.header : json::object();
    if (!c.model.empty())
        header["model"] = c.model;
    // Each message is written as soon as it is encoded; each turn's blocks are freed after it.
    api::DocumentStream messages(out, std::move(header), "messages");
    std::size_t errors = 0;
    for (auto &turn : c.turns) {
        switch (turn.role) {
        case Role::System: {
            std::string text;
            for (auto &b : turn.blocks)
                if (b.type == BlockType::Text)
                    join(text, std::move(b.text));
            messages.element(json{{"role", "system"}, {"content", std::move(text)}});
            break;
        }
        case Role::Assistant:
            if (json msg = encodeAssistant(std::move(turn.blocks), r.notes, false); !msg.is_null())
                messages.element(msg);
            break;
        case Role::Tool:
            for (auto &b : turn.blocks) {
                errors += b.isError;
                messages.element(json{{"role", "tool"}, {"tool_call_id", b.toolId}, {"content", std::move(b.text)}});
            }
            break;
        case Role::User:
        case Role::Unknown:
            messages.element(json{{"role", "user"}, {"content", encodeUserContent(std::move(turn.blocks), r.notes)}});
            break;
        }
        std::vector<Block>().swap(turn.blocks);
    }
    if (errors)
        api::addNote(r.notes, std::to_string(errors) + " tool error flags not carried (tool messages have none)");
    if (messages.count() == 0) {
        messages.element(json{{"role", "user"}, {"content", "(empty conversation)"}});
        api::addNote(r.notes, "inserted a placeholder user message: the conversation was empty");
    }
    messages.finish();
    return r;
}

} // namespace cl::formats
