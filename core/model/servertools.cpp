// SPDX-License-Identifier: MIT
#include "core/model/servertools.h"

#include "core/util/json.h"

namespace cl {

bool decodeServerToolResult(const nlohmann::json &block, Block &out)
{
    if (!isServerToolResult(cl::json::str(block, "type")) || !cl::json::child(block, "tool_use_id"))
        return false;
    out.type = BlockType::ToolResult;
    out.serverSide = true;
    out.toolId = cl::json::str(block, "tool_use_id");
    const nlohmann::json *content = cl::json::child(block, "content");
    out.isError = content && cl::json::str(*content, "type").ends_with("_error");
    out.text = cl::json::dump(block);
    return true;
}

std::string serverResultSummary(const Block &b)
{
    if (b.type != BlockType::ToolResult || !b.serverSide)
        return {};
    nlohmann::json block;
    std::string error;
    if (cl::json::parse(b.text, block, error) == cl::json::ParseStatus::Failed || !block.is_object())
        return {};
    const nlohmann::json *content = cl::json::child(block, "content");
    if (!content)
        return {};
    if (content->is_object()) {
        if (const std::string code = cl::json::str(*content, "error_code"); !code.empty())
            return "error: " + code;
        // A fetched page (url and title), or code execution's output.
        const std::string url = cl::json::str(*content, "url");
        if (!url.empty()) {
            const nlohmann::json *doc = cl::json::object(*content, "content");
            const std::string title = doc ? cl::json::str(*doc, "title") : std::string();
            return title.empty() ? url : title + " (" + url + ")";
        }
        std::string out = cl::json::str(*content, "stdout");
        if (out.empty())
            out = cl::json::str(*content, "stderr");
        return out.substr(0, out.find('\n'));
    }
    if (!content->is_array())
        return {};
    std::string s = std::to_string(content->size()) + (content->size() == 1 ? " result" : " results");
    const char *sep = ": ";
    for (const auto &item : *content) {
        const std::string title = cl::json::str(item, "title"), url = cl::json::str(item, "url");
        if (title.empty() && url.empty())
            continue;
        s += sep + (title.empty() ? url : url.empty() ? title
                                                      : title + " (" + url + ")");
        sep = "; ";
    }
    return s;
}

} // namespace cl
