// SPDX-License-Identifier: MIT
#pragma once

// Pieces shared by the Codex rollout loader (formats/codex/loader.cpp) and writer (formats/codex/writer.cpp).

#include "core/util/json.h"
#include "core/model/transcript.h"

#include <string>

namespace cl::formats::codex {

// Flattens a function_call_output "output" (a string, a JSON-encoded {output, metadata} string,
// an object with content/output/text, or an array of content parts) into text, and says whether it
// reports a failure (non-zero exit code, success:false).
void decodeOutput(const nlohmann::json &output, std::string &text, bool &isError);

// Text of Responses content parts; images become "[image]" so a tool output holding a screenshot
// is not estimated as kilobytes of base64.
std::string partsText(const nlohmann::json &parts);

// Response items (Responses API shape, as Codex records them) for one conversation message:
// message / function_call / function_call_output / reasoning. Notes get what cannot be carried.
std::vector<nlohmann::ordered_json> encodeItems(const Message &m, std::vector<std::string> &notes);

// RFC 3339 UTC with milliseconds, like Codex writes.

} // namespace cl::formats::codex
