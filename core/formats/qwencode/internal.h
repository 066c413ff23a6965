// SPDX-License-Identifier: MIT
#pragma once

// Pieces shared by the Qwen Code session loader and writer (core/formats/qwencode/).

#include "core/util/json.h"

#include <string_view>

namespace cl::formats::qwencode {

// System record subtypes Qwen Code's chain walk skips: session artifacts and managed-session
// bookkeeping (its transcript record preparation leaves them out of the conversation).
bool outsideChain(std::string_view subtype);

// What a chat_compression record says about itself (systemPayload.info and trigger fields), small
// enough for Message::meta.
nlohmann::json compressionInfo(const nlohmann::json &payload);

} // namespace cl::formats::qwencode
