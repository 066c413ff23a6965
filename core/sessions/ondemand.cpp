// SPDX-License-Identifier: MIT
// What the scanners of every agent read the same way: the user's text in a content value.
#include "core/sessions/ondemand_internal.h"

namespace cl::sessions::detail {

std::string firstRequestIn(od::value &content)
{
    od::json_type type;
    if (content.type().get(type) != simdjson::SUCCESS)
        return {};
    if (type == od::json_type::string)
        return typedRequest(stringOf(content));
    od::array blocks;
    if (type != od::json_type::array || content.get_array().get(blocks) != simdjson::SUCCESS)
        return {};
    for (auto element : blocks) {
        od::object block;
        if (element.get_object().get(block) != simdjson::SUCCESS)
            continue;
        std::string_view blockType, text;
        for (auto field : block) {
            od::field f;
            if (std::move(field).get(f) != simdjson::SUCCESS)
                return {};
            const auto key = f.key();
            if (key == "type")
                blockType = stringOf(f.value());
            else if (key == "text" && blockType != "tool_result")
                text = stringOf(f.value());
        }
        // A user line that answers tool calls carries results, not a request.
        if (blockType == "tool_result" || blockType == "function_call_output")
            return {};
        if (!text.empty())
            if (std::string request = typedRequest(text); !request.empty())
                return request;
    }
    return {};
}

} // namespace cl::sessions::detail
