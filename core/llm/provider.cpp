// SPDX-License-Identifier: MIT
#include "core/llm/provider.h"

#include "core/util/json.h"

#include <algorithm>
#include <cstdint>

namespace cl::llm {

namespace {

using Json = nlohmann::json;

std::string trimSlash(std::string s)
{
    while (!s.empty() && s.back() == '/')
        s.pop_back();
    return s;
}

const Json *get(const Json &j, const char *key)
{
    if (!j.is_object())
        return nullptr;
    const auto it = j.find(key);
    return it == j.end() ? nullptr : &*it;
}

std::string str(const Json &j, const char *key)
{
    const Json *v = get(j, key);
    return v && v->is_string() ? v->get<std::string>() : std::string();
}

std::int64_t num(const Json &j, const char *key)
{
    const Json *v = get(j, key);
    if (!v || !v->is_number())
        return 0;
    // Token counts: a hostile 1e308 or 2^64 is clamped (sums of them never overflow), never undefined.
    constexpr std::int64_t kMax = 1'000'000'000'000'000;
    if (v->is_number_float()) {
        const double d = v->get<double>();
        return d > 0 ? (d < double(kMax) ? std::int64_t(d) : kMax) : 0;
    }
    if (v->is_number_unsigned())
        return std::int64_t(std::min<std::uint64_t>(v->get<std::uint64_t>(), kMax));
    return std::clamp<std::int64_t>(v->get<std::int64_t>(), 0, kMax);
}

// Never throws: invalid UTF-8 is replaced (a model's text keeps the rest), absurd nesting fails.
Json parse(std::string_view s)
{
    Json out;
    std::string error;
    if (cl::json::parse(s, out, error) == cl::json::ParseStatus::Failed)
        return Json(nullptr);
    return out;
}

// At most `max` bytes of s, cut before a UTF-8 continuation byte, invalid bytes replaced.
std::string excerpt(std::string_view s, std::size_t max)
{
    if (s.size() > max) {
        std::size_t n = max;
        while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80)
            --n;
        s = s.substr(0, n);
    }
    return cl::json::sanitizeUtf8(s);
}

// The texts of an Anthropic message / Responses output / Gemini candidate, with refusals noted.
void readAnthropic(const Json &m, Completion &c)
{
    if (const Json *content = get(m, "content"); content && content->is_array())
        for (const auto &b : *content)
            if (str(b, "type") == "text")
                c.text += str(b, "text");
    c.stopReason = str(m, "stop_reason");
    if (const Json *u = get(m, "usage")) {
        c.usage.input = num(*u, "input_tokens") + num(*u, "cache_creation_input_tokens") + num(*u, "cache_read_input_tokens");
        c.usage.output = num(*u, "output_tokens");
    }
}

void readResponses(const Json &r, Completion &c)
{
    if (const Json *out = get(r, "output"); out && out->is_array())
        for (const auto &item : *out)
            if (str(item, "type") == "message")
                if (const Json *content = get(item, "content"); content && content->is_array())
                    for (const auto &part : *content) {
                        if (str(part, "type") == "output_text")
                            c.text += str(part, "text");
                        else if (str(part, "type") == "refusal") {
                            c.refused = true;
                            c.refusal += str(part, "refusal");
                        }
                    }
    c.stopReason = str(r, "status");
    if (const Json *details = get(r, "incomplete_details"); details && str(*details, "reason") == "max_output_tokens")
        c.truncated = true;
    if (const Json *u = get(r, "usage")) {
        c.usage.input = num(*u, "input_tokens");
        c.usage.output = num(*u, "output_tokens");
    }
}

void readGeminiChunk(const Json &r, Completion &c, std::string *delta)
{
    if (const Json *cands = get(r, "candidates"); cands && cands->is_array() && !cands->empty()) {
        const Json &cand = cands->front();
        if (const Json *content = get(cand, "content"))
            if (const Json *parts = get(*content, "parts"); parts && parts->is_array())
                for (const auto &part : *parts)
                    if (!get(part, "thought") || !get(part, "thought")->is_boolean() || !get(part, "thought")->get<bool>()) {
                        const std::string t = str(part, "text");
                        c.text += t;
                        if (delta)
                            *delta += t;
                    }
        if (const std::string reason = str(cand, "finishReason"); !reason.empty())
            c.stopReason = reason;
    }
    if (const Json *fb = get(r, "promptFeedback"); fb && !str(*fb, "blockReason").empty()) {
        c.refused = true;
        c.refusal = "prompt blocked: " + str(*fb, "blockReason");
    }
    if (const Json *u = get(r, "usageMetadata")) {
        c.usage.input = num(*u, "promptTokenCount");
        c.usage.output = num(*u, "candidatesTokenCount");
    }
}

// Stop reasons every provider uses for "refused" and "hit the limit".
void classifyStop(Provider p, Completion &c)
{
    const std::string &s = c.stopReason;
    if (s == "max_tokens" || s == "length" || s == "MAX_TOKENS")
        c.truncated = true;
    if (s == "refusal" || s == "content_filter" || s == "SAFETY" || s == "RECITATION" || s == "PROHIBITED_CONTENT"
        || s == "BLOCKLIST" || s == "SPII") {
        c.refused = true;
        if (c.refusal.empty())
            c.refusal = std::string(providerName(p)) + " stopped with " + s;
    }
}

} // namespace

std::string_view providerName(Provider p)
{
    switch (p) {
    case Provider::OpenAIChat: return "openai";
    case Provider::OpenAIResponses: return "openai-responses";
    case Provider::Anthropic: return "anthropic";
    case Provider::Gemini: return "gemini";
    }
    return "openai";
}

std::optional<Provider> providerFromName(std::string_view name)
{
    for (const Provider p : allProviders())
        if (providerName(p) == name)
            return p;
    return std::nullopt;
}

std::vector<Provider> allProviders()
{
    return {Provider::OpenAIChat, Provider::OpenAIResponses, Provider::Anthropic, Provider::Gemini};
}

std::string defaultBaseUrl(Provider p)
{
    switch (p) {
    case Provider::OpenAIChat:
    case Provider::OpenAIResponses: return "https://api.openai.com/v1";
    case Provider::Anthropic: return "https://api.anthropic.com";
    case Provider::Gemini: return "https://generativelanguage.googleapis.com";
    }
    return {};
}

std::string defaultApiKeyVariable(Provider p)
{
    switch (p) {
    case Provider::OpenAIChat:
    case Provider::OpenAIResponses: return "OPENAI_API_KEY";
    case Provider::Anthropic: return "ANTHROPIC_API_KEY";
    case Provider::Gemini: return "GEMINI_API_KEY";
    }
    return {};
}

HttpRequest buildRequest(const Config &c, const Prompt &p)
{
    HttpRequest r;
    const std::string base = trimSlash(c.baseUrl.empty() ? defaultBaseUrl(c.provider) : c.baseUrl);
    r.headers.emplace_back("content-type", "application/json");
    Json body;
    switch (c.provider) {
    case Provider::OpenAIChat:
        r.url = base + "/chat/completions";
        if (!c.apiKey.empty())
            r.headers.emplace_back("authorization", "Bearer " + c.apiKey);
        body = {{"model", c.model},
                {"messages", Json::array({{{"role", "system"}, {"content", p.system}}, {{"role", "user"}, {"content", p.user}}})},
                {"max_tokens", c.maxOutputTokens},
                {"temperature", c.temperature},
                {"stream", c.stream}};
        if (c.stream)
            body["stream_options"] = {{"include_usage", true}};
        break;
    case Provider::OpenAIResponses:
        r.url = base + "/responses";
        if (!c.apiKey.empty())
            r.headers.emplace_back("authorization", "Bearer " + c.apiKey);
        body = {{"model", c.model},
                {"instructions", p.system},
                {"input", Json::array({{{"role", "user"}, {"content", Json::array({{{"type", "input_text"}, {"text", p.user}}})}}})},
                {"max_output_tokens", c.maxOutputTokens},
                {"temperature", c.temperature},
                {"store", false},
                {"stream", c.stream}};
        break;
    case Provider::Anthropic:
        r.url = base + "/v1/messages";
        if (!c.apiKey.empty())
            r.headers.emplace_back("x-api-key", c.apiKey);
        r.headers.emplace_back("anthropic-version", "2023-06-01");
        body = {{"model", c.model},
                {"system", p.system},
                {"messages", Json::array({{{"role", "user"}, {"content", p.user}}})},
                {"max_tokens", c.maxOutputTokens},
                {"temperature", c.temperature},
                {"stream", c.stream}};
        break;
    case Provider::Gemini:
        r.url = base + "/v1beta/models/" + c.model + (c.stream ? ":streamGenerateContent?alt=sse" : ":generateContent");
        if (!c.apiKey.empty())
            r.headers.emplace_back("x-goog-api-key", c.apiKey);
        body = {{"systemInstruction", {{"parts", Json::array({{{"text", p.system}}})}}},
                {"contents", Json::array({{{"role", "user"}, {"parts", Json::array({{{"text", p.user}}})}}})},
                {"generationConfig", {{"maxOutputTokens", c.maxOutputTokens}, {"temperature", c.temperature}}}};
        break;
    }
    if (c.stream)
        r.headers.emplace_back("accept", "text/event-stream");
    r.body = cl::json::dump(body); // never throws: text that is not UTF-8 goes as U+FFFD
    return r;
}

HttpRequest redacted(HttpRequest r)
{
    for (auto &[name, value] : r.headers)
        if (name == "authorization" || name == "x-api-key" || name == "x-goog-api-key")
            value = "***";
    return r;
}

Completion parseResponse(Provider p, std::string_view body)
{
    Completion c;
    const Json j = parse(body);
    if (!j.is_object()) {
        c.error = "the answer is not JSON: " + excerpt(body, 200);
        return c;
    }
    if (get(j, "error")) {
        c.error = errorMessage(body);
        return c;
    }
    switch (p) {
    case Provider::OpenAIChat:
        if (const Json *choices = get(j, "choices"); choices && choices->is_array() && !choices->empty()) {
            const Json &ch = choices->front();
            if (const Json *m = get(ch, "message")) {
                c.text = str(*m, "content");
                if (const std::string refusal = str(*m, "refusal"); !refusal.empty()) {
                    c.refused = true;
                    c.refusal = refusal;
                }
            }
            c.stopReason = str(ch, "finish_reason");
        }
        if (const Json *u = get(j, "usage")) {
            c.usage.input = num(*u, "prompt_tokens");
            c.usage.output = num(*u, "completion_tokens");
        }
        break;
    case Provider::OpenAIResponses: readResponses(j, c); break;
    case Provider::Anthropic: readAnthropic(j, c); break;
    case Provider::Gemini: readGeminiChunk(j, c, nullptr); break;
    }
    classifyStop(p, c);
    return c;
}

namespace {

std::string messageOf(std::string_view body)
{
    const Json j = parse(body);
    if (j.is_object()) {
        if (const Json *e = get(j, "error")) {
            if (e->is_string())
                return e->get<std::string>();
            std::string m = str(*e, "message");
            const std::string type = !str(*e, "type").empty() ? str(*e, "type") : str(*e, "status");
            if (!type.empty())
                m = type + (m.empty() ? "" : ": " + m);
            if (!m.empty())
                return m;
        }
        if (const std::string m = str(j, "message"); !m.empty())
            return m;
        if (const std::string m = str(j, "detail"); !m.empty())
            return m;
    } else if (j.is_array() && !j.empty() && j.front().is_object()) { // Gemini sometimes wraps it in a list
        return messageOf(cl::json::dump(j.front()));
    }
    std::string raw = excerpt(body, 300);
    while (!raw.empty() && (raw.back() == '\n' || raw.back() == '\r' || raw.back() == ' '))
        raw.pop_back();
    return raw;
}

} // namespace

std::string errorMessage(std::string_view body)
{
    return excerpt(messageOf(body), 500);
}

std::vector<std::string> secretsOf(const Config &c)
{
    std::vector<std::string> out;
    if (!c.apiKey.empty())
        out.push_back(c.apiKey);
    for (auto &s : secretsOfUrl(c.baseUrl))
        out.push_back(std::move(s));
    return out;
}

std::vector<std::string> secretsOf(const HttpRequest &r)
{
    std::vector<std::string> out;
    for (const auto &[name, value] : r.headers)
        if (name == "authorization" || name == "x-api-key" || name == "x-goog-api-key") {
            out.push_back(value);
            if (value.rfind("Bearer ", 0) == 0)
                out.push_back(value.substr(7));
        }
    for (auto &s : secretsOfUrl(r.url))
        out.push_back(std::move(s));
    return out;
}

std::vector<std::string> secretsOfUrl(std::string_view url)
{
    std::vector<std::string> out;
    const std::size_t scheme = url.find("://");
    if (scheme == std::string_view::npos)
        return out;
    const std::size_t from = scheme + 3;
    const std::size_t end = url.find_first_of("/?#", from);
    const std::string_view authority = url.substr(from, end == std::string_view::npos ? std::string_view::npos : end - from);
    const std::size_t at = authority.rfind('@');
    if (at == std::string_view::npos)
        return out;
    const std::string_view userinfo = authority.substr(0, at);
    const std::size_t colon = userinfo.find(':');
    out.emplace_back(userinfo);
    if (colon != std::string_view::npos) {
        out.emplace_back(userinfo.substr(0, colon));
        out.emplace_back(userinfo.substr(colon + 1));
    }
    return out;
}

std::string safeMessage(std::string_view text, const std::vector<std::string> &secrets)
{
    std::string s = cl::json::sanitizeUtf8(text);
    // user:password@ in any URL the text holds.
    for (std::size_t p = s.find("://"); p != std::string::npos; p = s.find("://", p + 3)) {
        const std::size_t from = p + 3;
        const std::size_t end = std::min(s.find_first_of("/?# \t\r\n\"'<>", from), s.size());
        const std::size_t at = s.rfind('@', end == 0 ? 0 : end - 1);
        // Only user:password (ssh://git@host names a user, and stays as written).
        if (at != std::string::npos && at >= from && at < end && s.find(':', from) < at)
            s.replace(from, at - from, "***");
    }
    std::vector<std::string> sorted;
    for (const auto &k : secrets)
        if (k.size() >= 4 && k != "***")
            sorted.push_back(cl::json::sanitizeUtf8(k));
    std::sort(sorted.begin(), sorted.end(), [](const std::string &a, const std::string &b) { return a.size() > b.size(); });
    for (const auto &k : sorted) {
        for (std::size_t p = s.find(k); p != std::string::npos; p = s.find(k, p + 3))
            s.replace(p, k.size(), "***");
        // A text cut in the middle of the key (an excerpt of a body) keeps no part of it that long.
        if (k.size() >= 12) {
            for (std::size_t n = k.size() - 1; n >= 8; --n)
                if (s.size() >= n && s.compare(s.size() - n, n, k, 0, n) == 0) {
                    s.replace(s.size() - n, n, "***");
                    break;
                }
            for (std::size_t n = k.size() - 1; n >= 8; --n)
                if (s.size() >= n && s.compare(0, n, k, k.size() - n, n) == 0) {
                    s.replace(0, n, "***");
                    break;
                }
        }
    }
    return s;
}

// ---- Server-sent events --------------------------------------------------------------------------

void SseDecoder::endLine(std::vector<Event> &out)
{
    std::string line = std::move(m_line);
    m_line.clear();
    if (!line.empty() && line.back() == '\r')
        line.pop_back();
    if (line.empty()) { // dispatch
        if (m_hasData || !m_event.empty())
            out.push_back({std::move(m_event), std::move(m_data)});
        m_event.clear();
        m_data.clear();
        m_hasData = false;
        return;
    }
    if (line.front() == ':')
        return; // a comment (keep-alive)
    const std::size_t colon = line.find(':');
    const std::string field = line.substr(0, colon);
    std::string value = colon == std::string::npos ? std::string() : line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ')
        value.erase(0, 1);
    if (field == "event")
        m_event = std::move(value);
    else if (field == "data") {
        if (m_hasData)
            m_data += '\n';
        m_data += value;
        m_hasData = true;
    }
}

std::vector<SseDecoder::Event> SseDecoder::feed(std::string_view bytes)
{
    std::vector<Event> out;
    for (const char ch : bytes) {
        if (ch == '\n')
            endLine(out);
        else
            m_line += ch;
    }
    return out;
}

std::vector<SseDecoder::Event> SseDecoder::finish()
{
    std::vector<Event> out;
    if (!m_line.empty())
        endLine(out);
    if (m_hasData || !m_event.empty()) {
        out.push_back({std::move(m_event), std::move(m_data)});
        m_event.clear();
        m_data.clear();
        m_hasData = false;
    }
    return out;
}

std::string StreamReader::add(const SseDecoder::Event &e)
{
    if (m_done)
        return {};
    if (e.data == "[DONE]") {
        m_done = true;
        return {};
    }
    const Json j = parse(e.data);
    if (!j.is_object())
        return {};
    std::string delta;
    const std::string type = str(j, "type");
    switch (m_provider) {
    case Provider::OpenAIChat:
        if (get(j, "error")) {
            m_c.error = errorMessage(e.data);
            m_done = true;
            break;
        }
        if (const Json *choices = get(j, "choices"); choices && choices->is_array() && !choices->empty()) {
            const Json &ch = choices->front();
            if (const Json *d = get(ch, "delta")) {
                delta = str(*d, "content");
                if (const std::string refusal = str(*d, "refusal"); !refusal.empty()) {
                    m_c.refused = true;
                    m_c.refusal += refusal;
                }
            }
            if (const std::string reason = str(ch, "finish_reason"); !reason.empty())
                m_c.stopReason = reason;
        }
        if (const Json *u = get(j, "usage"); u && u->is_object()) {
            m_c.usage.input = num(*u, "prompt_tokens");
            m_c.usage.output = num(*u, "completion_tokens");
        }
        break;
    case Provider::OpenAIResponses:
        if (type == "response.output_text.delta")
            delta = str(j, "delta");
        else if (type == "response.refusal.delta") {
            m_c.refused = true;
            m_c.refusal += str(j, "delta");
        } else if (type == "response.completed" || type == "response.incomplete") {
            if (const Json *r = get(j, "response")) {
                Completion whole;
                readResponses(*r, whole);
                m_c.usage = whole.usage;
                m_c.stopReason = whole.stopReason;
                m_c.truncated = whole.truncated;
            }
            m_done = true;
        } else if (type == "response.failed" || type == "error") {
            const Json *r = get(j, "response");
            const Json *err = r ? get(*r, "error") : get(j, "error");
            m_c.error = err ? errorMessage(Json{{"error", *err}}.dump()) : str(j, "message");
            if (m_c.error.empty())
                m_c.error = "the response failed";
            m_done = true;
        }
        break;
    case Provider::Anthropic:
        if (type == "message_start") {
            if (const Json *m = get(j, "message"))
                if (const Json *u = get(*m, "usage"))
                    m_c.usage.input = num(*u, "input_tokens") + num(*u, "cache_creation_input_tokens")
                                      + num(*u, "cache_read_input_tokens");
        } else if (type == "content_block_delta") {
            if (const Json *d = get(j, "delta"); d && str(*d, "type") == "text_delta")
                delta = str(*d, "text");
        } else if (type == "message_delta") {
            if (const Json *d = get(j, "delta"))
                if (const std::string reason = str(*d, "stop_reason"); !reason.empty())
                    m_c.stopReason = reason;
            if (const Json *u = get(j, "usage"))
                m_c.usage.output = num(*u, "output_tokens");
        } else if (type == "message_stop") {
            m_done = true;
        } else if (type == "error") {
            m_c.error = errorMessage(e.data);
            m_done = true;
        }
        break;
    case Provider::Gemini:
        if (get(j, "error")) {
            m_c.error = errorMessage(e.data);
            m_done = true;
            break;
        }
        readGeminiChunk(j, m_c, &delta);
        m_c.text.resize(m_c.text.size() - delta.size()); // appended below with the others
        break;
    }
    m_c.text += delta;
    if (m_done || !m_c.stopReason.empty())
        classifyStop(m_provider, m_c);
    return delta;
}

} // namespace cl::llm
