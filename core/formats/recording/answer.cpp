// SPDX-License-Identifier: MIT
#include "core/formats/recording/answer.h"

#include "core/formats/api/common.h"
#include "core/util/json.h"

#include <algorithm>
#include <functional>
#include <map>

namespace cl::recording {

namespace {

using J = json::json;

Block toolCall(std::string id, std::string name, J input, bool serverSide = false)
{
    Block b;
    b.type = BlockType::ToolUse;
    b.toolId = std::move(id);
    b.toolName = std::move(name);
    b.input = input.is_object() ? std::move(input) : J{{"input", std::move(input)}};
    b.serverSide = serverSide;
    return b;
}

// A tool's arguments as sent in a string; kept as {"arguments": text} when they are not JSON.
J arguments(const std::string &text)
{
    J v;
    std::string err;
    if (text.empty())
        return J::object();
    if (json::parse(text, v, err) == json::ParseStatus::Failed)
        return J{{"arguments", text}};
    return v;
}

// Server-sent events: calls `event(name, data)` for each event with data.
void forEachEvent(std::string_view body, const std::function<void(const std::string &, const std::string &)> &event)
{
    std::string name, data;
    bool any = false;
    auto dispatch = [&] {
        if (any)
            event(name, data);
        name.clear();
        data.clear();
        any = false;
    };
    std::size_t pos = 0;
    while (pos <= body.size()) {
        const std::size_t nl = body.find('\n', pos);
        std::string_view line = body.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
        pos = nl == std::string_view::npos ? body.size() + 1 : nl + 1;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        if (line.empty()) {
            dispatch();
            continue;
        }
        if (line.front() == ':')
            continue;
        const std::size_t colon = line.find(':');
        const std::string_view field = line.substr(0, colon);
        std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
        if (!value.empty() && value.front() == ' ')
            value.remove_prefix(1);
        if (field == "event") {
            name = value;
        } else if (field == "data") {
            if (any)
                data += '\n';
            data += value;
            any = true;
        }
    }
    dispatch();
}

bool isEventStream(std::string_view body)
{
    const std::size_t start = body.find_first_not_of(" \t\r\n");
    return start != std::string_view::npos && (body.substr(start, 6) == "event:" || body.substr(start, 5) == "data:");
}

bool parseJson(std::string_view text, J &out)
{
    std::string err;
    return json::parse(text, out, err) != json::ParseStatus::Failed;
}

std::string errorText(const J &doc)
{
    if (const J *e = json::object(doc, "error"))
        return json::str(*e, "message", json::dump(*e));
    if (const J *e = json::child(doc, "error"); e && e->is_string())
        return e->get<std::string>();
    return {};
}

// ---- Anthropic Messages ----

void anthropicContent(const J &content, Message &m)
{
    if (!content.is_array())
        return;
    for (const J &b : content) {
        const std::string type = json::str(b, "type");
        if (type == "text") {
            m.blocks.push_back(makeBlock(BlockType::Text, json::str(b, "text")));
        } else if (type == "thinking") {
            Block t = makeBlock(BlockType::Thinking, json::str(b, "thinking"));
            t.input = J{{"signature", json::str(b, "signature")}};
            m.blocks.push_back(std::move(t));
        } else if (type == "redacted_thinking") {
            Block t = makeBlock(BlockType::RedactedThinking, {});
            t.input = J{{"data", json::str(b, "data")}};
            m.blocks.push_back(std::move(t));
        } else if (type == "tool_use" || type == "server_tool_use") {
            const J *input = json::child(b, "input");
            m.blocks.push_back(toolCall(json::str(b, "id"), json::str(b, "name"), input ? *input : J::object(),
                                        type == "server_tool_use"));
        } else {
            m.blocks.push_back(makeBlock(BlockType::Raw, json::dump(b)));
        }
    }
}

void anthropicUsage(const J &u, Usage &usage)
{
    if (u.contains("input_tokens"))
        usage.inputTokens = json::num(u, "input_tokens");
    if (u.contains("cache_creation_input_tokens"))
        usage.cacheCreationTokens = json::num(u, "cache_creation_input_tokens");
    if (u.contains("cache_read_input_tokens"))
        usage.cacheReadTokens = json::num(u, "cache_read_input_tokens");
    if (u.contains("output_tokens"))
        usage.outputTokens = json::num(u, "output_tokens");
}

void anthropicMessage(const J &msg, Answer &a)
{
    a.decoded = true;
    a.message.apiMessageId = json::str(msg, "id");
    a.message.model = json::str(msg, "model");
    if (const J *c = json::child(msg, "content"))
        anthropicContent(*c, a.message);
    a.stopReason = json::str(msg, "stop_reason", a.stopReason);
    if (const J *u = json::object(msg, "usage")) {
        Usage usage = a.usage.value_or(Usage{});
        anthropicUsage(*u, usage);
        a.usage = usage;
    }
}

void anthropicStream(std::string_view body, Answer &a)
{
    J message;
    J content = J::array();
    std::map<std::size_t, std::string> partial; // tool input JSON arriving in pieces, by block index
    forEachEvent(body, [&](const std::string &, const std::string &data) {
        J e;
        if (!parseJson(data, e))
            return;
        const std::string type = json::str(e, "type");
        const std::size_t index = std::size_t(std::max<std::int64_t>(0, json::num(e, "index")));
        if (type == "message_start") {
            if (const J *m = json::object(e, "message"))
                message = *m;
        } else if (type == "content_block_start") {
            if (const J *b = json::object(e, "content_block")) {
                while (content.size() <= index)
                    content.push_back(J::object());
                content[index] = *b;
            }
        } else if (type == "content_block_delta" && index < content.size()) {
            const J *d = json::object(e, "delta");
            if (!d)
                return;
            J &b = content[index];
            const std::string kind = json::str(*d, "type");
            if (kind == "text_delta")
                b["text"] = json::str(b, "text") + json::str(*d, "text");
            else if (kind == "thinking_delta")
                b["thinking"] = json::str(b, "thinking") + json::str(*d, "thinking");
            else if (kind == "signature_delta")
                b["signature"] = json::str(b, "signature") + json::str(*d, "signature");
            else if (kind == "input_json_delta")
                partial[index] += json::str(*d, "partial_json");
        } else if (type == "message_delta") {
            if (const J *d = json::object(e, "delta"); d && d->contains("stop_reason"))
                message["stop_reason"] = (*d)["stop_reason"];
            if (const J *u = json::object(e, "usage")) {
                J &mu = message["usage"];
                if (!mu.is_object())
                    mu = J::object();
                for (auto it = u->begin(); it != u->end(); ++it)
                    if (!it.value().is_null())
                        mu[it.key()] = it.value();
            }
        } else if (type == "error") {
            a.error = errorText(e);
        }
    });
    for (auto &[index, text] : partial)
        if (index < content.size())
            content[index]["input"] = arguments(text);
    if (message.is_object()) {
        message["content"] = std::move(content);
        anthropicMessage(message, a);
    }
}

// ---- OpenAI Chat Completions ----

void chatUsage(const J &u, Answer &a)
{
    Usage usage;
    std::int64_t cached = 0;
    if (const J *d = json::object(u, "prompt_tokens_details"))
        cached = json::num(*d, "cached_tokens");
    usage.cacheReadTokens = cached;
    usage.inputTokens = std::max<std::int64_t>(0, json::num(u, "prompt_tokens") - cached);
    usage.outputTokens = json::num(u, "completion_tokens");
    if (const J *d = json::object(u, "completion_tokens_details"))
        usage.reasoningTokens = json::num(*d, "reasoning_tokens");
    a.usage = usage;
}

void chatMessage(const J &msg, Message &m)
{
    const std::string reasoning = json::str(msg, "reasoning_content");
    if (!reasoning.empty())
        m.blocks.push_back(makeBlock(BlockType::Thinking, reasoning));
    const std::string text = json::str(msg, "content");
    if (!text.empty())
        m.blocks.push_back(makeBlock(BlockType::Text, text));
    if (const J *calls = json::array(msg, "tool_calls"))
        for (const J &c : *calls) {
            const J *f = json::object(c, "function");
            m.blocks.push_back(toolCall(json::str(c, "id"), f ? json::str(*f, "name") : std::string(),
                                        arguments(f ? json::str(*f, "arguments") : std::string())));
        }
}

void chatDocument(const J &doc, Answer &a)
{
    a.message.apiMessageId = json::str(doc, "id");
    a.message.model = json::str(doc, "model");
    if (const J *choices = json::array(doc, "choices"); choices && !choices->empty()) {
        a.decoded = true;
        if (const J *m = json::object(choices->front(), "message"))
            chatMessage(*m, a.message);
        a.stopReason = json::str(choices->front(), "finish_reason");
    }
    if (const J *u = json::object(doc, "usage")) {
        a.decoded = true;
        chatUsage(*u, a);
    }
}

void chatStream(std::string_view body, Answer &a)
{
    J merged = {{"role", "assistant"}, {"content", ""}, {"reasoning_content", ""}};
    std::map<std::int64_t, J> calls;
    forEachEvent(body, [&](const std::string &, const std::string &data) {
        J c;
        if (data == "[DONE]" || !parseJson(data, c))
            return;
        if (a.message.model.empty())
            a.message.model = json::str(c, "model");
        if (a.message.apiMessageId.empty())
            a.message.apiMessageId = json::str(c, "id");
        if (const J *err = json::object(c, "error"))
            a.error = json::str(*err, "message");
        if (const J *u = json::object(c, "usage"))
            chatUsage(*u, a);
        const J *choices = json::array(c, "choices");
        if (!choices || choices->empty())
            return;
        a.decoded = true;
        const J &choice = choices->front();
        if (const std::string fin = json::str(choice, "finish_reason"); !fin.empty())
            a.stopReason = fin;
        const J *d = json::object(choice, "delta");
        if (!d)
            return;
        merged["content"] = merged["content"].get<std::string>() + json::str(*d, "content");
        merged["reasoning_content"] = merged["reasoning_content"].get<std::string>() + json::str(*d, "reasoning_content");
        if (const J *tc = json::array(*d, "tool_calls"))
            for (const J &piece : *tc) {
                J &call = calls[json::num(piece, "index")];
                if (!call.is_object())
                    call = {{"id", ""}, {"function", {{"name", ""}, {"arguments", ""}}}};
                if (const std::string id = json::str(piece, "id"); !id.empty())
                    call["id"] = id;
                if (const J *f = json::object(piece, "function")) {
                    call["function"]["name"] = call["function"]["name"].get<std::string>() + json::str(*f, "name");
                    call["function"]["arguments"] =
                        call["function"]["arguments"].get<std::string>() + json::str(*f, "arguments");
                }
            }
    });
    if (!calls.empty()) {
        merged["tool_calls"] = J::array();
        for (auto &[index, call] : calls)
            merged["tool_calls"].push_back(std::move(call));
    }
    chatMessage(merged, a.message);
    if (a.usage)
        a.decoded = true;
}

// ---- OpenAI Responses ----

void responsesItem(const J &item, Message &m)
{
    const std::string type = json::str(item, "type");
    if (type == "message") {
        if (const J *content = json::array(item, "content"))
            for (const J &c : *content) {
                const std::string t = json::str(c, "type");
                if (t == "output_text" || t == "text")
                    m.blocks.push_back(makeBlock(BlockType::Text, json::str(c, "text")));
                else if (t == "refusal")
                    m.blocks.push_back(makeBlock(BlockType::Text, json::str(c, "refusal")));
            }
    } else if (type == "function_call") {
        m.blocks.push_back(toolCall(json::str(item, "call_id"), json::str(item, "name"), arguments(json::str(item, "arguments"))));
    } else if (type == "custom_tool_call") {
        m.blocks.push_back(toolCall(json::str(item, "call_id"), json::str(item, "name"), J{{"input", json::str(item, "input")}}));
    } else if (type == "reasoning") {
        std::string text;
        if (const J *summary = json::array(item, "summary"))
            for (const J &s : *summary)
                text += (text.empty() ? "" : "\n") + json::str(s, "text");
        Block t = makeBlock(BlockType::Thinking, std::move(text));
        if (const std::string enc = json::str(item, "encrypted_content"); !enc.empty())
            t.input = J{{"encrypted_content", enc}};
        m.blocks.push_back(std::move(t));
    } else if (type == "web_search_call") {
        const J *action = json::child(item, "action");
        m.blocks.push_back(toolCall(json::str(item, "id"), "web_search", action ? *action : J::object(), true));
    } else {
        m.blocks.push_back(makeBlock(BlockType::Raw, json::dump(item)));
    }
}

void responsesDocument(const J &resp, Answer &a)
{
    a.decoded = true;
    a.message.apiMessageId = json::str(resp, "id");
    a.message.model = json::str(resp, "model");
    a.stopReason = json::str(resp, "status");
    if (const std::string e = errorText(resp); !e.empty())
        a.error = e;
    if (const J *output = json::array(resp, "output"))
        for (const J &item : *output)
            responsesItem(item, a.message);
    if (const J *u = json::object(resp, "usage")) {
        Usage usage;
        std::int64_t cached = 0;
        if (const J *d = json::object(*u, "input_tokens_details"))
            cached = json::num(*d, "cached_tokens");
        usage.cacheReadTokens = cached;
        usage.inputTokens = std::max<std::int64_t>(0, json::num(*u, "input_tokens") - cached);
        usage.outputTokens = json::num(*u, "output_tokens");
        if (const J *d = json::object(*u, "output_tokens_details"))
            usage.reasoningTokens = json::num(*d, "reasoning_tokens");
        a.usage = usage;
    }
}

void responsesStream(std::string_view body, Answer &a)
{
    J final, started;
    J items = J::array();
    forEachEvent(body, [&](const std::string &, const std::string &data) {
        J e;
        if (!parseJson(data, e))
            return;
        const std::string type = json::str(e, "type");
        if (type == "response.completed" || type == "response.incomplete" || type == "response.failed") {
            if (const J *r = json::object(e, "response"))
                final = *r;
        } else if (type == "response.created") {
            if (const J *r = json::object(e, "response"))
                started = *r;
        } else if (type == "response.output_item.done") {
            if (const J *item = json::object(e, "item"))
                items.push_back(*item);
        } else if (type == "error") {
            a.error = json::str(e, "message", errorText(e));
        }
    });
    if (final.is_object()) {
        // Some providers leave the final output empty and send the items only as they finish.
        if (const J *output = json::array(final, "output"); (!output || output->empty()) && !items.empty())
            final["output"] = items;
        responsesDocument(final, a);
    } else if (started.is_object() || !items.empty()) {
        J partial = started.is_object() ? started : J::object();
        partial["output"] = items;
        partial.erase("usage");
        responsesDocument(partial, a);
        a.stopReason = "incomplete";
    }
}

// ---- Gemini ----

void geminiChunk(const J &c, Answer &a)
{
    if (const std::string e = errorText(c); !e.empty())
        a.error = e;
    if (a.message.model.empty())
        a.message.model = json::str(c, "modelVersion");
    if (a.message.apiMessageId.empty())
        a.message.apiMessageId = json::str(c, "responseId");
    if (const J *u = json::object(c, "usageMetadata")) {
        Usage usage;
        usage.cacheReadTokens = json::num(*u, "cachedContentTokenCount");
        usage.inputTokens = std::max<std::int64_t>(0, json::num(*u, "promptTokenCount") - usage.cacheReadTokens);
        usage.outputTokens = json::num(*u, "candidatesTokenCount");
        usage.reasoningTokens = json::num(*u, "thoughtsTokenCount");
        a.usage = usage;
        a.decoded = true;
    }
    const J *candidates = json::array(c, "candidates");
    if (!candidates || candidates->empty())
        return;
    a.decoded = true;
    const J &cand = candidates->front();
    if (const std::string fin = json::str(cand, "finishReason"); !fin.empty())
        a.stopReason = fin;
    const J *content = json::object(cand, "content");
    const J *parts = content ? json::array(*content, "parts") : nullptr;
    if (!parts)
        return;
    auto &blocks = a.message.blocks;
    for (const J &p : *parts) {
        if (const J *call = json::object(p, "functionCall")) {
            const J *args = json::child(*call, "args");
            blocks.push_back(toolCall(json::str(*call, "id"), json::str(*call, "name"), args ? *args : J::object()));
        } else if (p.contains("text")) {
            const BlockType type = json::boolean(p, "thought") ? BlockType::Thinking : BlockType::Text;
            // A streamed text arrives in pieces: one block while the kind stays the same.
            if (!blocks.empty() && blocks.back().type == type)
                blocks.back().text += json::str(p, "text");
            else
                blocks.push_back(makeBlock(type, json::str(p, "text")));
        } else {
            blocks.push_back(makeBlock(BlockType::Raw, json::dump(p)));
        }
    }
}

} // namespace

Answer readAnswer(Format api, std::string_view body)
{
    Answer a;
    a.message.role = Role::Assistant;
    a.message.type = "response";
    const bool stream = isEventStream(body);
    J doc;
    if (!stream && !parseJson(body, doc))
        return a;
    switch (api) {
    case Format::Anthropic:
        if (stream)
            anthropicStream(body, a);
        else if (json::str(doc, "type") == "error" || doc.contains("error"))
            a.error = errorText(doc);
        else
            anthropicMessage(doc, a);
        break;
    case Format::OpenAIChat:
        if (stream)
            chatStream(body, a);
        else
            chatDocument(doc, a), a.error = errorText(doc);
        break;
    case Format::OpenAIResponses:
        if (stream)
            responsesStream(body, a);
        else if (doc.contains("output"))
            responsesDocument(doc, a);
        else
            a.error = errorText(doc);
        break;
    case Format::Gemini:
        if (stream)
            forEachEvent(body, [&](const std::string &, const std::string &data) {
                J c;
                if (parseJson(data, c))
                    geminiChunk(c, a);
            });
        else if (doc.is_array())
            for (const J &c : doc)
                geminiChunk(c, a);
        else
            geminiChunk(doc, a);
        break;
    default: break;
    }
    if (!a.error.empty() && a.message.blocks.empty() && !a.usage)
        a.decoded = false;
    return a;
}

} // namespace cl::recording
