// SPDX-License-Identifier: MIT
// Anthropic content blocks as Claude Code writes them, to and from the neutral Block.
#include "core/formats/claudecode/internal.h"

#include <algorithm>

namespace cl::formats::claudecode {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

// Moves a string field out of obj (the DOM is thrown away afterwards anyway).
std::string take(json &obj, std::string_view key)
{
    if (!obj.is_object())
        return {};
    const auto it = obj.find(key);
    if (it == obj.end() || !it->is_string())
        return {};
    return std::move(it->get_ref<std::string &>());
}

std::size_t dataLength(const json &source)
{
    const json *data = cl::json::child(source, "data");
    return data && data->is_string() ? data->get_ref<const std::string &>().size() : 0;
}

void rawBlock(const json &value, std::vector<Block> &blocks)
{
    Block b;
    b.type = BlockType::Raw;
    b.text = cl::json::dump(value);
    blocks.push_back(std::move(b));
}

// tool_result content: text items joined, images kept as Image blocks right after the result (so
// they are counted as images, not as base64 text), anything else as compact JSON.
void decodeToolResultContent(json &content, Block &result, std::vector<Block> &images,
                             std::vector<Problem> &problems)
{
    if (content.is_string()) {
        result.text = std::move(content.get_ref<std::string &>());
        return;
    }
    if (content.is_null())
        return;
    if (!content.is_array()) {
        problems.push_back({Diagnostic::Severity::Warning, "tool_result content is neither a string nor an array"});
        result.text = cl::json::dump(content);
        return;
    }
    for (auto &item : content) {
        if (cl::json::str(item, "type") == "image") {
            Block img;
            img.type = BlockType::Image;
            img.toolId = result.toolId;
            if (const json *src = cl::json::object(item, "source")) {
                img.mediaType = cl::json::str(*src, "media_type");
                img.dataSize = dataLength(*src);
            }
            images.push_back(std::move(img));
            continue;
        }
        if (!result.text.empty())
            result.text += '\n';
        if (item.is_string())
            result.text += item.get_ref<const std::string &>();
        else if (const json *t = cl::json::child(item, "text"); t && t->is_string())
            result.text += t->get_ref<const std::string &>();
        else
            result.text += cl::json::dump(item);
    }
}

} // namespace

void decodeBlock(json &block, std::vector<Block> &blocks, std::vector<Problem> &problems)
{
    if (!block.is_object()) {
        problems.push_back({Diagnostic::Severity::Warning, "content block is not an object"});
        rawBlock(block, blocks);
        return;
    }
    const std::string type = cl::json::str(block, "type");
    Block b;
    if (type == "text") {
        const json *text = cl::json::child(block, "text");
        if (!text || !text->is_string()) {
            problems.push_back({Diagnostic::Severity::Warning, "text block without a string \"text\""});
            rawBlock(block, blocks);
            return;
        }
        b.text = take(block, "text");
    } else if (type == "tool_use" || type == "server_tool_use") {
        b.type = BlockType::ToolUse;
        b.serverSide = type == "server_tool_use";
        b.toolId = take(block, "id");
        b.toolName = take(block, "name");
        if (auto it = block.find("input"); it != block.end())
            b.input = std::move(*it);
    } else if (type == "tool_result") {
        b.type = BlockType::ToolResult;
        b.toolId = take(block, "tool_use_id");
        b.isError = cl::json::boolean(block, "is_error");
        std::vector<Block> images;
        if (auto it = block.find("content"); it != block.end())
            decodeToolResultContent(*it, b, images, problems);
        blocks.push_back(std::move(b));
        for (auto &img : images)
            blocks.push_back(std::move(img));
        return;
    } else if (decodeServerToolResult(block, b)) {
        // web_search_tool_result, ... (core/model/servertools.h)
    } else if (type == "thinking") {
        b.type = BlockType::Thinking;
        b.text = take(block, "thinking");
    } else if (type == "redacted_thinking") {
        b.type = BlockType::RedactedThinking;
        b.dataSize = dataLength(block);
    } else if (type == "image" || type == "document") {
        b.type = type == "image" ? BlockType::Image : BlockType::Document;
        if (const json *src = cl::json::object(block, "source")) {
            b.mediaType = cl::json::str(*src, "media_type");
            b.dataSize = dataLength(*src);
        }
    } else {
        rawBlock(block, blocks);
        return;
    }
    blocks.push_back(std::move(b));
}

void decodeContent(json &content, std::vector<Block> &blocks, std::vector<Problem> &problems)
{
    if (content.is_string()) {
        Block b;
        b.text = std::move(content.get_ref<std::string &>());
        blocks.push_back(std::move(b));
        return;
    }
    if (content.is_array()) {
        blocks.reserve(content.size());
        for (auto &item : content)
            decodeBlock(item, blocks, problems);
        return;
    }
    problems.push_back({Diagnostic::Severity::Warning,
                        std::string("message.content is ") + content.type_name() + ", expected a string or an array"});
    rawBlock(content, blocks);
}

ordered_json encodeBlocks(const std::vector<Block> &blocks, std::vector<std::string> *notes)
{
    ordered_json out = ordered_json::array();
    auto note = [notes](const char *what) {
        if (notes && std::find(notes->begin(), notes->end(), what) == notes->end())
            notes->push_back(what);
    };
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        const Block &b = blocks[i];
        ordered_json o = ordered_json::object();
        switch (b.type) {
        case BlockType::Text:
            o["type"] = "text";
            o["text"] = b.text;
            break;
        case BlockType::ToolUse:
            o["type"] = b.serverSide ? "server_tool_use" : "tool_use";
            o["id"] = b.toolId;
            o["name"] = b.toolName;
            o["input"] = b.input.is_null() ? ordered_json::object() : ordered_json::parse(cl::json::dump(b.input));
            break;
        case BlockType::ToolResult: {
            if (b.serverSide) { // the whole block, as it was read
                json parsed;
                std::string err;
                if (cl::json::parse(b.text, parsed, err) != cl::json::ParseStatus::Failed && parsed.is_object()) {
                    o = ordered_json::parse(cl::json::dump(parsed));
                    break;
                }
            }
            o["type"] = "tool_result";
            o["tool_use_id"] = b.toolId;
            // Images that were nested in this result follow it with the same id.
            ordered_json nested = ordered_json::array();
            while (i + 1 < blocks.size() && blocks[i + 1].type == BlockType::Image && !b.toolId.empty()
                   && blocks[i + 1].toolId == b.toolId) {
                const Block &img = blocks[++i];
                nested.push_back({{"type", "image"},
                                  {"source", {{"type", "base64"}, {"media_type", img.mediaType}, {"data", ""}}}});
                note("image data is not kept in the neutral model; images were written empty");
            }
            if (nested.empty()) {
                o["content"] = b.text;
            } else {
                if (!b.text.empty())
                    nested.insert(nested.begin(), ordered_json{{"type", "text"}, {"text", b.text}});
                o["content"] = std::move(nested);
            }
            if (b.isError)
                o["is_error"] = true;
            break;
        }
        case BlockType::Thinking:
            o["type"] = "thinking";
            o["thinking"] = b.text;
            o["signature"] = "";
            note("thinking signatures are not kept in the neutral model; thinking blocks were written unsigned");
            break;
        case BlockType::RedactedThinking:
            o["type"] = "redacted_thinking";
            o["data"] = "";
            note("redacted thinking data is not kept in the neutral model");
            break;
        case BlockType::Image:
        case BlockType::Document:
            o["type"] = b.type == BlockType::Image ? "image" : "document";
            o["source"] = {{"type", "base64"}, {"media_type", b.mediaType}, {"data", ""}};
            note("image data is not kept in the neutral model; images were written empty");
            break;
        case BlockType::Raw: {
            json parsed;
            std::string err;
            if (cl::json::parse(b.text, parsed, err) != cl::json::ParseStatus::Failed && parsed.is_object()) {
                o = ordered_json::parse(cl::json::dump(parsed));
            } else {
                o["type"] = "text";
                o["text"] = b.text;
            }
            break;
        }
        }
        out.push_back(std::move(o));
    }
    return out;
}

bool sameBlock(const Block &a, const Block &b)
{
    return a.type == b.type && a.text == b.text && a.toolId == b.toolId && a.toolName == b.toolName
           && a.input == b.input && a.mediaType == b.mediaType && a.dataSize == b.dataSize && a.isError == b.isError
           && a.serverSide == b.serverSide;
}

namespace {
// True when j has at most `budget` nodes and strings shorter than 2 KB.
bool isSmall(const json &j, int &budget)
{
    if (--budget < 0)
        return false;
    if (j.is_string())
        return j.get_ref<const std::string &>().size() <= 2048;
    if (j.is_structured())
        for (const auto &c : j)
            if (!isSmall(c, budget))
                return false;
    return true;
}
} // namespace

json smallMeta(const json &obj, std::initializer_list<std::string_view> skip)
{
    json meta = json::object();
    if (!obj.is_object())
        return meta;
    for (auto it = obj.begin(); it != obj.end(); ++it) {
        if (std::find(skip.begin(), skip.end(), std::string_view(it.key())) != skip.end())
            continue;
        int budget = 64;
        if (isSmall(it.value(), budget))
            meta[it.key()] = it.value();
    }
    return meta;
}

} // namespace cl::formats::claudecode
