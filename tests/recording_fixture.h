// SPDX-License-Identifier: MIT
#pragma once

// A recording as `contextlens-cli record` writes one (docs/recording-format.md), made up for tests:
// eight requests over two runs and a broken line (line 12). Request 1: Anthropic, streamed, text and
// a Bash call, usage 10 uncached + 1000 read + 50 written; 2: count_tokens (not a model call); 3:
// OpenAI Chat, streamed, a read_file call, 500 prompt tokens (100 cached); 4: OpenAI Responses, one
// JSON answer; 5: Gemini streamGenerateContent (model in the path, two function declarations); 6:
// Anthropic answered 500 "Overloaded"; 7: Anthropic without an answer; 8 (the second run's id 1):
// Anthropic with tools, a JSON answer "Here.".

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace cl::test::recordingfixture {

using Json = nlohmann::json;

inline std::string sse(const std::string &event, const Json &data)
{
    return (event.empty() ? std::string() : "event: " + event + "\n") + "data: " + data.dump() + "\n\n";
}

inline Json requestLine(int id, const std::string &path, const Json &body)
{
    return {{"type", "request"}, {"id", id}, {"time", "2026-11-30T10:00:0" + std::to_string(id % 10) + ".000Z"}, {"method", "POST"}, {"path", path}, {"headers", {{"content-type", "application/json"}}}, {"body", body.dump()}};
}

inline Json responseLine(int id, int status, const std::string &contentType, const std::string &body)
{
    return {{"type", "response"}, {"id", id}, {"time", "2026-11-30T10:00:09.000Z"}, {"status", status}, {"headers", {{"content-type", contentType}}}, {"body", body}, {"firstByteMs", 40 + id}, {"totalMs", 400 + id}};
}

inline const Json kBashTool = {{"name", "Bash"}, {"description", "Runs a shell command"}, {"input_schema", {{"type", "object"}, {"properties", {{"command", {{"type", "string"}}}}}}}};

inline std::string anthropicStream()
{
    std::string s;
    s += sse("message_start", {{"type", "message_start"},
                               {"message", {{"id", "msg_1"}, {"type", "message"}, {"role", "assistant"}, {"model", "claude-sonnet-4-5"}, {"content", Json::array()}, {"usage", {{"input_tokens", 10}, {"cache_creation_input_tokens", 50}, {"cache_read_input_tokens", 1000}, {"output_tokens", 1}}}}}});
    s += sse("content_block_start", {{"type", "content_block_start"}, {"index", 0}, {"content_block", {{"type", "text"}, {"text", ""}}}});
    for (const char *piece : {"Let me ", "look."})
        s += sse("content_block_delta", {{"type", "content_block_delta"}, {"index", 0}, {"delta", {{"type", "text_delta"}, {"text", piece}}}});
    s += sse("content_block_stop", {{"type", "content_block_stop"}, {"index", 0}});
    s += sse("content_block_start", {{"type", "content_block_start"}, {"index", 1}, {"content_block", {{"type", "tool_use"}, {"id", "toolu_1"}, {"name", "Bash"}, {"input", Json::object()}}}});
    for (const char *piece : {"{\"comm", "and\": \"ls\"}"})
        s += sse("content_block_delta", {{"type", "content_block_delta"}, {"index", 1}, {"delta", {{"type", "input_json_delta"}, {"partial_json", piece}}}});
    s += sse("content_block_stop", {{"type", "content_block_stop"}, {"index", 1}});
    s += sse("message_delta", {{"type", "message_delta"}, {"delta", {{"stop_reason", "tool_use"}}}, {"usage", {{"output_tokens", 30}}}});
    s += sse("message_stop", {{"type", "message_stop"}});
    return s;
}

inline std::string chatStream()
{
    const Json base = {{"id", "chatcmpl-1"}, {"object", "chat.completion.chunk"}, {"model", "gpt-4.1"}};
    auto chunk = [&](const Json &delta, const Json &finish = nullptr) {
        Json c = base;
        c["choices"] = Json::array({{{"index", 0}, {"delta", delta}, {"finish_reason", finish}}});
        return sse("", c);
    };
    std::string s = chunk({{"role", "assistant"}, {"content", "Reading "}}) + chunk({{"content", "the file."}});
    s += chunk({{"tool_calls", Json::array({{{"index", 0}, {"id", "call_1"}, {"type", "function"}, {"function", {{"name", "read_file"}, {"arguments", "{\"pa"}}}}})}});
    s += chunk({{"tool_calls", Json::array({{{"index", 0}, {"function", {{"arguments", "th\": \"a.txt\"}"}}}}})}});
    s += chunk(Json::object(), "tool_calls");
    Json usage = base;
    usage["choices"] = Json::array();
    usage["usage"] = {{"prompt_tokens", 500}, {"completion_tokens", 12}, {"prompt_tokens_details", {{"cached_tokens", 100}}}};
    return s + sse("", usage) + "data: [DONE]\n\n";
}

inline std::string responsesDocument()
{
    return Json{{"id", "resp_1"}, {"object", "response"}, {"model", "gpt-5-codex"}, {"status", "completed"}, {"output", Json::array({{{"type", "message"}, {"role", "assistant"}, {"content", Json::array({{{"type", "output_text"}, {"text", "Running it."}}})}}, {{"type", "function_call"}, {"call_id", "call_9"}, {"name", "shell"}, {"arguments", "{\"command\":[\"ls\"]}"}}})}, {"usage", {{"input_tokens", 300}, {"input_tokens_details", {{"cached_tokens", 200}}}, {"output_tokens", 8}}}}
        .dump();
}

inline std::string geminiStream()
{
    auto chunk = [](const std::string &text, bool last) {
        Json c = {{"candidates", Json::array({{{"content", {{"role", "model"}, {"parts", Json::array({{{"text", text}}})}}}, {"index", 0}}})},
                  {"modelVersion", "gemini-2.5-pro"}};
        if (last) {
            c["candidates"][0]["finishReason"] = "STOP";
            c["usageMetadata"] = {{"promptTokenCount", 700}, {"cachedContentTokenCount", 600}, {"candidatesTokenCount", 9}};
        }
        return sse("", c);
    };
    return chunk("All ", false) + chunk("done.", true);
}

// Eight requests over two runs, a broken line among them (line 12).
inline std::string recordingText()
{
    std::vector<Json> lines;
    lines.push_back({{"type", "recording"}, {"version", 1}, {"started", "2026-11-30T10:00:00.000Z"}, {"upstream", "by path"}});
    lines.push_back(requestLine(1, "/v1/messages?beta=true",
                                {{"model", "claude-sonnet-4-5"}, {"max_tokens", 4096}, {"stream", true}, {"system", Json::array({{{"type", "text"}, {"text", "You are a careful assistant."}}})}, {"tools", Json::array({kBashTool})}, {"messages", Json::array({{{"role", "user"}, {"content", "List the files."}}})}}));
    lines.push_back(responseLine(1, 200, "text/event-stream", anthropicStream()));
    lines.push_back(requestLine(2, "/v1/messages/count_tokens?beta=true", {{"model", "claude-sonnet-4-5"}, {"messages", Json::array()}}));
    lines.push_back(responseLine(2, 200, "application/json", R"({"input_tokens":5})"));
    lines.push_back(requestLine(3, "/v1/chat/completions",
                                {{"model", "gpt-4.1"}, {"stream", true}, {"messages", Json::array({{{"role", "system"}, {"content", "Be brief."}}, {{"role", "user"}, {"content", "Read a.txt"}}})}, {"tools", Json::array({{{"type", "function"}, {"function", {{"name", "read_file"}, {"parameters", Json::object()}}}}})}}));
    lines.push_back(responseLine(3, 200, "text/event-stream", chatStream()));
    lines.push_back(requestLine(4, "/v1/responses",
                                {{"model", "gpt-5-codex"}, {"instructions", "You are Codex."}, {"input", Json::array({{{"type", "message"}, {"role", "user"}, {"content", Json::array({{{"type", "input_text"}, {"text", "ls please"}}})}}})}, {"tools", Json::array({{{"type", "function"}, {"name", "shell"}, {"parameters", Json::object()}}})}}));
    lines.push_back(responseLine(4, 200, "application/json", responsesDocument()));
    lines.push_back(requestLine(5, "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse&key=REDACTED",
                                {{"contents", Json::array({{{"role", "user"}, {"parts", Json::array({{{"text", "Finish up."}}})}}})},
                                 {"systemInstruction", {{"parts", Json::array({{{"text", "You are Gemini CLI."}}})}}},
                                 {"tools", Json::array({{{"functionDeclarations", Json::array({{{"name", "ls"}}, {{"name", "read"}}})}}})}}));
    lines.push_back(responseLine(5, 200, "text/event-stream", geminiStream()));
    lines.push_back(Json("broken")); // replaced by a broken line below
    lines.push_back(requestLine(6, "/v1/messages", {{"model", "claude-sonnet-4-5"}, {"messages", Json::array({{{"role", "user"}, {"content", "Again."}}})}}));
    lines.push_back(responseLine(6, 500, "application/json", R"({"type":"error","error":{"type":"api_error","message":"Overloaded"}})"));
    lines.push_back(requestLine(7, "/v1/messages",
                                {{"model", "claude-sonnet-4-5"}, {"tools", Json::array({kBashTool})}, {"messages", Json::array({{{"role", "user"}, {"content", "Still there?"}}})}}));
    lines.push_back({{"type", "recording"}, {"version", 1}, {"started", "2026-11-30T11:00:00.000Z"}, {"upstream", "https://api.anthropic.com"}});
    lines.push_back(requestLine(1, "/v1/messages",
                                {{"model", "claude-sonnet-4-5"}, {"tools", Json::array({kBashTool})}, {"messages", Json::array({{{"role", "user"}, {"content", "Second run."}}})}}));
    lines.push_back(responseLine(1, 200, "application/json",
                                 Json{{"id", "msg_2"}, {"type", "message"}, {"role", "assistant"}, {"model", "claude-sonnet-4-5"}, {"content", Json::array({{{"type", "text"}, {"text", "Here."}}})}, {"stop_reason", "end_turn"}, {"usage", {{"input_tokens", 70}, {"output_tokens", 2}}}}
                                     .dump()));
    std::string text;
    for (const Json &l : lines)
        text += (l.is_string() ? std::string("{\"type\":\"request\",\"id\":") : l.dump()) + "\n";
    return text;
}

} // namespace cl::test::recordingfixture
