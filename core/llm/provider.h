// SPDX-License-Identifier: MIT
#pragma once

// The wire formats of the model providers a summary can come from (docs/design/summaries.md):
// requests built and answers read as plain data, so that the transport (net/, Qt Network) only moves
// bytes and every format is tested without a network.
//   openai            OpenAI-compatible Chat Completions: {base}/chat/completions (OpenAI, Ollama,
//                     llama.cpp server, vLLM, LM Studio, OpenRouter; base usually ends in /v1)
//   openai-responses  OpenAI Responses: {base}/responses
//   anthropic         Anthropic Messages: {base}/v1/messages
//   gemini            Gemini generateContent: {base}/v1beta/models/{model}:generateContent
//                     (:streamGenerateContent?alt=sse when streaming)

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cl::llm {

enum class Provider : std::uint8_t {
    OpenAIChat,
    OpenAIResponses,
    Anthropic,
    Gemini
};
std::string_view providerName(Provider p); // "openai", "openai-responses", "anthropic", "gemini"
std::optional<Provider> providerFromName(std::string_view name);
std::vector<Provider> allProviders();
std::string defaultBaseUrl(Provider p);
std::string defaultApiKeyVariable(Provider p); // OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY

struct Config {
    Provider provider = Provider::OpenAIChat;
    std::string baseUrl; // "" = defaultBaseUrl
    std::string model;
    std::string apiKey; // at run time only: never written to settings, logs, caches or outputs
    int maxOutputTokens = 4096;
    double temperature = 0.2;
    int timeoutMs = 300000; // the whole call, retries and their waits included: then it fails
    int retries = 3;        // on 429 and 5xx, with backoff (Retry-After honoured within timeoutMs)
    bool stream = true;
};

struct Prompt {
    std::string system;
    std::string user;
};

struct HttpRequest {
    std::string url;
    std::vector<std::pair<std::string, std::string>> headers; // the key header among them
    std::string body;
};
HttpRequest buildRequest(const Config &c, const Prompt &p);
// The request with the key header's value replaced by "***" (for logs and error messages).
HttpRequest redacted(HttpRequest r);

// What must never be shown: the API key, and the user name and password of a URL (user:pass@host).
std::vector<std::string> secretsOf(const Config &c);
std::vector<std::string> secretsOf(const HttpRequest &r); // its key headers' values and URL credentials
std::vector<std::string> secretsOfUrl(std::string_view url);
// A text fit for a message, a log, a report or JSON: valid UTF-8 (bad bytes become U+FFFD), every
// secret and every URL's user:password replaced by "***" (also a key cut at the text's end or start;
// a URL's user name without a password stays, unless it is one of the secrets).
std::string safeMessage(std::string_view text, const std::vector<std::string> &secrets);

struct Usage {
    std::int64_t input = 0, output = 0;
};

// What came back: the text, why it stopped, what it cost, and whether the provider refused.
struct Completion {
    std::string text;
    std::string stopReason; // as the provider says it ("end_turn", "stop", "STOP", "max_tokens", ...)
    bool truncated = false; // stopped at the output limit
    bool refused = false;   // the provider's refusal (stop reason, refusal part or safety block)
    std::string refusal;    // its explanation when it gave one
    Usage usage;
    std::string error; // a failed call: the provider's message (status and body)
};

// A whole (non-streamed) answer.
Completion parseResponse(Provider p, std::string_view body);
// The provider's error message from an error body ("" when the body says nothing readable).
std::string errorMessage(std::string_view body);

// Server-sent events: bytes in (in any pieces), events out.
class SseDecoder
{
public:
    struct Event {
        std::string event, data;
    };
    std::vector<Event> feed(std::string_view bytes);
    std::vector<Event> finish(); // the last event when the stream ended without a blank line

private:
    std::string m_line, m_event, m_data;
    bool m_hasData = false;
    void endLine(std::vector<Event> &out);
};

// A streamed answer, one event at a time: text deltas as they come, the usage and stop reason at
// the end. Errors inside the stream (Anthropic `error`, Responses `response.failed`) end it.
class StreamReader
{
public:
    explicit StreamReader(Provider p)
        : m_provider(p)
    {}
    // Returns the text the event added ("" for events without text).
    std::string add(const SseDecoder::Event &e);
    bool done() const { return m_done; }
    const Completion &completion() const { return m_c; }

private:
    Provider m_provider;
    Completion m_c;
    bool m_done = false;
};

} // namespace cl::llm
