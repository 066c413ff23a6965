// SPDX-License-Identifier: MIT
#pragma once

// Results of the tools a provider runs itself (Block::serverSide results: Anthropic's web search,
// web fetch, code execution), answering a server_tool_use in the same assistant message: their
// block type, their decoding (the text is the whole block as JSON: its encrypted content can only go
// back as it was), and their text said in one line for a list.

#include "core/model/transcript.h"

#include <string>

namespace cl {

// web_search_tool_result, web_fetch_tool_result, code_execution_tool_result, ... (not mcp_tool_result:
// an MCP call is no server_tool_use).
inline bool isServerToolResult(std::string_view type)
{
    return type.size() > 12 && type.ends_with("_tool_result") && !type.starts_with("mcp_");
}

// `block` (an Anthropic content block) as a serverSide ToolResult; false when it is not one.
bool decodeServerToolResult(const nlohmann::json &block, Block &out);

// "3 results: Title (url); ..." for a web search, the page for a fetch, "error: code" for an
// error, the output's first line for code execution; "" when the text is not such a block.
std::string serverResultSummary(const Block &b);

} // namespace cl
