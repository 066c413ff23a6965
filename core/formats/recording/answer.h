// SPDX-License-Identifier: MIT
#pragma once

// A model's answer as the agent received it, reassembled from a recorded response body: one JSON
// document, or a stream of server-sent events (Anthropic Messages, OpenAI Chat Completions and
// Responses, Gemini streamGenerateContent with or without alt=sse) put back together into the
// assistant message and the usage the provider reported for the request.

#include "core/model/transcript.h"

#include <optional>
#include <string>
#include <string_view>

namespace cl::recording {

struct Answer {
    bool decoded = false;       // something was recognized (false: an error page, a compressed body)
    Message message;            // role Assistant; blocks text / thinking / tool calls, model, apiMessageId
    std::optional<Usage> usage; // context tokens = the request's size as the provider counted it
    std::string stopReason;
    std::string error; // the provider's own error message, when the body is one
};

Answer readAnswer(Format api, std::string_view body);

} // namespace cl::recording
