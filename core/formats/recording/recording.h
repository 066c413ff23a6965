// SPDX-License-Identifier: MIT
#pragma once

// Reading a recording of `contextlens-cli record` (docs/recording-format.md): JSON lines of
// requests and their responses, paired by id within each run. Each request is one exchange, numbered
// from 1 in file order across runs (the number a user names a request by). Bad lines are said as
// diagnostics with their line and skipped; nothing here throws.

#include "core/model/transcript.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cl::recording {

// What compaction on the wire (`record --strategy`) did to a request: its "rewrite" line.
struct Rewrite {
    std::string strategy, mode; // mode "live" or "dry-run"
    bool changed = false, valid = true;
    bool forwarded = false; // the compacted body went upstream (requestBody is it; agentBody the original)
    std::int64_t tokensBefore = 0, tokensAfter = 0, predictedBefore = 0, predictedAfter = 0;
    bool calibrated = false; // the prediction used the provider's count of an earlier answer
    std::string note, error;
    std::vector<std::string> violations;
    std::string body; // the compacted request ("" when unchanged)
};

struct Exchange {
    std::size_t number = 0; // 1-based, in file order of the request lines
    std::size_t run = 0;    // 1-based: which `recording` line it follows (0: none before it)
    std::int64_t id = 0;    // as recorded (counts from 1 in each run)
    std::string time;       // the request line's time
    std::string method, path;
    Format api = Format::Unknown; // the wire API of a model call; Unknown: any other request
    std::string requestBody;      // empty when the body was not UTF-8 text (requestBinary)
    bool requestBinary = false;
    std::vector<std::pair<std::string, std::string>> requestHeaders; // as recorded (names lower case)
    // Compaction on the wire: what the strategy made of the request. When the compacted body went
    // upstream, requestBody is that body (what the model saw) and agentBody what the agent sent.
    std::optional<Rewrite> rewrite;
    std::string agentBody;
    std::uint32_t requestLine = 0;
    // Its response; responseLine 0: none recorded (still running, or the proxy stopped first).
    std::uint32_t responseLine = 0;
    int status = 0;
    std::string contentType, contentEncoding;
    std::string responseBody; // empty when not UTF-8 (responseBinary), e.g. a compressed answer
    bool responseBinary = false;
    std::optional<std::int64_t> firstByteMs, totalMs;
    std::string error;
    bool isModelCall() const { return api != Format::Unknown && method == "POST"; }
    std::string requestHeader(std::string_view name) const; // "" when not recorded
};

struct Recording {
    std::vector<Exchange> exchanges;
    std::vector<std::string> upstreams; // each run's upstream, in order
    std::vector<Diagnostic> diagnostics;
};

// Whether the bytes start like a recording: the first non-empty line is {"type":"recording",...}.
bool looksLikeRecording(std::string_view bytes);
Recording readRecording(std::string_view bytes, const std::string &path);
// The wire API a request path calls (query ignored): /v1/messages → Anthropic, …/chat/completions →
// OpenAI Chat, …/responses → OpenAI Responses, …:generateContent / :streamGenerateContent → Gemini.
// Unknown for anything else (count_tokens, model lists, telemetry).
Format apiOfPath(std::string_view path);
// The model a Gemini request path names (…/models/NAME:verb); "" when none.
std::string modelInPath(std::string_view path);
// The exchange a user means by `number` (1-based); for 0, the last model call that sent tool
// definitions (the agent's own loop), else the last model call; null when none.
const Exchange *pick(const Recording &r, std::size_t number);

} // namespace cl::recording
