// SPDX-License-Identifier: MIT
#include "core/formats/recording/compactioncall.h"

#include "core/formats/recording/answer.h"
#include "core/util/json.h"
#include "core/util/spaces.h"

#include <algorithm>

namespace cl::recording {

namespace {

using J = json::json;

// The text parts of a content value (a string, a list of blocks / parts, one block), joined.
std::string textOf(const J &content)
{
    if (content.is_string())
        return content.get<std::string>();
    std::string s;
    if (content.is_array()) {
        for (const J &item : content) {
            const std::string t = item.is_object() ? json::str(item, "text") : std::string();
            if (!t.empty())
                s.append(s.empty() ? "" : "\n").append(t);
        }
    } else if (content.is_object()) {
        s = json::str(content, "text");
        if (const J *parts = json::array(content, "parts"))
            s = textOf(*parts);
    }
    return s;
}

// Every string under a message value, but the bookkeeping ones (ids, types, signatures).
void collectStrings(const J &v, std::string &out, int depth = 0)
{
    static constexpr std::string_view kSkip[] = {"type", "role", "id", "call_id", "tool_use_id", "signature",
                                                 "thoughtSignature", "status", "encrypted_content", "cache_control"};
    if (depth > 64)
        return;
    if (v.is_string()) {
        out.append(v.get_ref<const std::string &>()).push_back('\n');
    } else if (v.is_array()) {
        for (const J &item : v)
            collectStrings(item, out, depth + 1);
    } else if (v.is_object()) {
        for (const auto &[key, item] : v.items())
            if (std::find(std::begin(kSkip), std::end(kSkip), key) == std::end(kSkip))
                collectStrings(item, out, depth + 1);
    }
}

// The text inside the last <tag>…</tag> of `s` ("" when there is none), trimmed.
std::string inside(const std::string &s, std::string_view tag)
{
    const std::string open = "<" + std::string(tag) + ">", close = "</" + std::string(tag) + ">";
    const std::size_t end = s.rfind(close);
    const std::size_t start = end == std::string::npos ? end : s.rfind(open, end);
    if (start == std::string::npos)
        return {};
    return std::string(util::trimSpaces(std::string_view(s).substr(start + open.size(), end - start - open.size())));
}

// The role of a message array item ("" for Responses items that are not messages).
std::string roleOf(const J &item)
{
    return item.is_object() ? json::str(item, "role") : std::string();
}

// The text of the last user message of the request's array; `anthropicLastBlock`: only its last
// text block (Claude Code appends its instruction to the message that holds the last tool results).
std::string lastUserText(const J *array, bool lastBlockOnly)
{
    if (!array || array->empty())
        return {};
    for (auto it = array->rbegin(); it != array->rend(); ++it) {
        if (roleOf(*it) != "user")
            continue;
        const J *content = json::child(*it, "content");
        if (!content)
            content = json::child(*it, "parts");
        if (!content)
            return {};
        if (lastBlockOnly && content->is_array()) {
            for (auto b = content->rbegin(); b != content->rend(); ++b)
                if (b->is_object() && json::str(*b, "type") == "text")
                    return json::str(*b, "text");
            return {};
        }
        return textOf(*content);
    }
    return {};
}

// Names a <state_snapshot> outside every complete one: a request for a snapshot, not a session
// resumed from one (whose summary a later turn sends back).
bool asksForSnapshot(std::string s)
{
    constexpr std::string_view open = "<state_snapshot>", close = "</state_snapshot>";
    for (std::size_t at = s.find(open); at != std::string::npos; at = s.find(open, at)) {
        const std::size_t end = s.find(close, at + open.size());
        if (end == std::string::npos)
            return true;
        s.erase(at, end + close.size() - at);
    }
    return false;
}

// Codex's x-codex-turn-metadata header as a JSON object (null when absent or not one).
J turnMetadata(const Exchange &e)
{
    const std::string header = e.requestHeader("x-codex-turn-metadata");
    J meta;
    std::string err;
    if (header.empty() || json::parse(header, meta, err) == json::ParseStatus::Failed || !meta.is_object())
        return nullptr;
    return meta;
}

struct Marked {
    bool is = false;
    std::string agent, trigger, instruction;
    int pass = 1;
};

Marked markOf(const Exchange &e, const J &doc)
{
    Marked m;
    switch (e.api) {
    case Format::Anthropic: {
        const std::string last = lastUserText(json::array(doc, "messages"), true);
        if (last.find("<summary>") == std::string::npos)
            return m;
        m.is = true;
        m.agent = e.requestHeader("x-claude-code-session-id").empty() && e.requestHeader("x-app") != "cli" ? "Anthropic client"
                                                                                                           : "Claude Code";
        m.instruction = last;
        return m;
    }
    case Format::OpenAIResponses: {
        const J meta = turnMetadata(e);
        const bool parsed = meta.is_object();
        const std::string path = e.path.substr(0, e.path.find('?'));
        if (!(parsed && json::str(meta, "request_kind") == "compaction") && !path.ends_with("/responses/compact"))
            return m;
        m.is = true;
        m.agent = "Codex";
        if (parsed)
            if (const J *c = json::object(meta, "compaction"))
                m.trigger = json::str(*c, "trigger");
        m.instruction = lastUserText(json::array(doc, "input"), false);
        return m;
    }
    case Format::Gemini: {
        const J *system = json::child(doc, "systemInstruction");
        if (!system)
            system = json::child(doc, "system_instruction");
        if (!system || textOf(*system).find("<state_snapshot>") == std::string::npos)
            return m;
        m.is = true;
        m.agent = "Gemini CLI";
        const J *contents = json::array(doc, "contents");
        m.instruction = lastUserText(contents, false);
        if (contents) // the snapshot of the first call, given back as the model's, asks for a check
            for (const J &c : *contents)
                if (roleOf(c) == "model" && textOf(c).find("<state_snapshot>") != std::string::npos)
                    m.pass = 2;
        return m;
    }
    case Format::OpenAIChat: {
        // Qwen Code: its compression prompt as the system message, or (the cache-friendly way, its own
        // system prompt kept) as the last user message.
        const J *messages = json::array(doc, "messages");
        std::string system;
        if (messages)
            for (const J &item : *messages)
                if (roleOf(item) == "system")
                    if (const J *content = json::child(item, "content"))
                        system += textOf(*content);
        const std::string last = lastUserText(messages, false);
        if (!asksForSnapshot(system) && !asksForSnapshot(last))
            return m;
        m.is = true;
        m.agent = e.requestHeader("user-agent").rfind("QwenCode", 0) == 0 ? "Qwen Code" : "OpenAI client";
        m.instruction = last;
        return m;
    }
    default:
        return m;
    }
}

} // namespace

std::string sessionIdOf(const Exchange &e)
{
    if (std::string id = e.requestHeader("x-claude-code-session-id"); !id.empty())
        return id;
    const J meta = turnMetadata(e);
    return meta.is_object() ? json::str(meta, "session_id") : std::string();
}

std::vector<CompactionCall> findCompactionCalls(const Recording &r)
{
    std::vector<CompactionCall> out;
    for (const Exchange &e : r.exchanges) {
        if (!e.isModelCall() || e.requestBody.empty())
            continue;
        // Cheap first: every agent's marker is a literal somewhere in the request.
        if (e.requestBody.find("<summary>") == std::string::npos && e.requestBody.find("<state_snapshot>") == std::string::npos
            && e.requestHeader("x-codex-turn-metadata").find("compaction") == std::string::npos
            && e.path.find("/compact") == std::string::npos)
            continue;
        J doc;
        std::string err;
        if (json::parse(e.requestBody, doc, err) == json::ParseStatus::Failed || !doc.is_object())
            continue;
        const Marked m = markOf(e, doc);
        if (!m.is)
            continue;
        CompactionCall c;
        c.request = e.number;
        c.agent = m.agent;
        c.trigger = m.trigger;
        c.sessionId = sessionIdOf(e);
        c.time = e.time;
        c.instruction = m.instruction;
        c.pass = m.pass;
        for (const char *key : {"messages", "input", "contents"})
            if (const J *array = json::array(doc, key)) {
                c.messagesSent = array->size();
                collectStrings(*array, c.sentText);
            }
        if (e.responseLine == 0) {
            c.error = "no answer was recorded";
        } else {
            const Answer a = readAnswer(e.api, e.responseBody);
            c.usage = a.usage;
            c.answer = a.message.plainText();
            if (!a.error.empty())
                c.error = a.error;
            else if (!a.decoded)
                c.error = "the answer could not be read";
        }
        c.summary = inside(c.answer, "summary");
        if (c.summary.empty())
            c.summary = inside(c.answer, "state_snapshot");
        if (c.summary.empty())
            c.summary = c.answer;
        out.push_back(std::move(c));
    }
    return out;
}

bool holdsSummary(std::string_view sessionSummary, const CompactionCall &call)
{
    const std::string needle = util::collapseSpaces(call.summary);
    return !needle.empty() && util::collapseSpaces(sessionSummary).find(needle) != std::string::npos;
}

} // namespace cl::recording
