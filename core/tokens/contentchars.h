// SPDX-License-Identifier: MIT
#pragma once
// The length of a message serialized as a Gemini Content object ({"role":..,"parts":[..]}), the
// measure gemini-cli's history split uses, computed without building the JSON: tool inputs are
// measured by walking their values (json::dump().size() exactly), texts as quoted strings without
// their escapes. Per transcript it is a table (TranscriptTables::contentChars).

#include "core/model/transcript.h"

#include <cstddef>

namespace cl {

std::size_t contentChars(const Message &m);

} // namespace cl
