// SPDX-License-Identifier: MIT
#pragma once

// Pieces shared by the Gemini CLI session loader (formats/geminicli/loader.cpp) and writer (formats/geminicli/writer.cpp).

#include "core/util/json.h"
#include "core/model/transcript.h"

#include <string>

namespace cl::formats::geminicli {

// Text of one recorded thought {subject, description}.
std::string thoughtText(const nlohmann::json &thought);

// Flattened output of a toolCall "result" (PartListUnion: functionResponse parts, text parts, a
// string); sets isError when a functionResponse carries an "error".
std::string resultText(const nlohmann::json &result, bool &isError);

// Where the legacy ConversationRecord keeps its messages: byte range of each element of the
// "messages" array, plus the array's own bounds. ok=false when the document is not that shape.
struct LegacyLayout {
    bool ok = false;
    std::size_t arrayBegin = 0; // '['
    std::size_t arrayEnd = 0;   // one past ']'
    std::vector<json::Range> elements;
};
LegacyLayout legacyLayout(std::string_view doc);

} // namespace cl::formats::geminicli
