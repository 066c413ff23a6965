// SPDX-License-Identifier: MIT
// A Claude Code session's summary from one pass over its lines. Each API response is written as
// several lines sharing message.id that repeat its usage: responses are counted once and the
// usage of their last line is the one kept (docs/design/formats.md).
#include "core/sessions/ondemand_internal.h"

#include <algorithm>
#include <unordered_map>

namespace cl::sessions::detail {

namespace {

// What one line says; views point into the parser's buffers and live until the next line.
struct Line {
    std::string_view type, subtype, timestamp, cwd, sessionId, customTitle, aiTitle;
    std::string_view messageId, model;
    bool isMeta = false;
    bool compactSummary = false;
    bool hasUsage = false;
    std::int64_t context = 0;
    std::string request; // a user line's typed text, when still wanted
};

bool readUsage(od::value &v, Line &line)
{
    od::object usage;
    if (v.get_object().get(usage) != simdjson::SUCCESS)
        return true; // null or another type: no usage
    for (auto field : usage) {
        od::field f;
        if (std::move(field).get(f) != simdjson::SUCCESS)
            return false;
        const auto key = f.key();
        if (key == "input_tokens" || key == "cache_creation_input_tokens" || key == "cache_read_input_tokens") {
            line.context += intOf(f.value());
            line.hasUsage = true;
        }
    }
    return true;
}

bool readMessage(od::value &v, Line &line, bool wantRequest)
{
    od::object message;
    if (v.get_object().get(message) != simdjson::SUCCESS)
        return true;
    std::string_view role;
    for (auto field : message) {
        od::field f;
        if (std::move(field).get(f) != simdjson::SUCCESS)
            return false;
        const auto key = f.key();
        if (key == "id")
            line.messageId = stringOf(f.value());
        else if (key == "model")
            line.model = stringOf(f.value());
        else if (key == "role")
            role = stringOf(f.value());
        else if (key == "usage" && !readUsage(f.value(), line))
            return false;
        else if (key == "content" && wantRequest && role != "assistant" && line.type != "assistant")
            line.request = firstRequestIn(f.value());
    }
    return true;
}

bool readLine(od::object &object, Line &line, bool wantRequest)
{
    for (auto field : object) {
        od::field f;
        if (std::move(field).get(f) != simdjson::SUCCESS)
            return false;
        const auto key = f.key();
        if (key == "type")
            line.type = stringOf(f.value());
        else if (key == "subtype")
            line.subtype = stringOf(f.value());
        else if (key == "timestamp")
            line.timestamp = stringOf(f.value());
        else if (key == "cwd")
            line.cwd = stringOf(f.value());
        else if (key == "sessionId")
            line.sessionId = stringOf(f.value());
        else if (key == "isMeta")
            line.isMeta = isTrue(f.value());
        else if (key == "isCompactSummary")
            line.compactSummary = isTrue(f.value());
        else if (key == "customTitle")
            line.customTitle = stringOf(f.value());
        else if (key == "aiTitle")
            line.aiTitle = stringOf(f.value());
        else if (key == "message" && !readMessage(f.value(), line, wantRequest))
            return false;
    }
    return true;
}

} // namespace

void scanClaudeCode(OnDemand &parser, const PaddedBytes &bytes, Session &out)
{
    out.format = Format::ClaudeCode;
    std::unordered_map<std::string, std::int64_t> contextById; // the last line's usage of each response
    std::size_t userLines = 0, responsesWithoutId = 0;
    std::int64_t peak = 0;
    std::string customTitle, aiTitle;
    parser.forEachLine(bytes, [&](od::object &object) {
        Line line;
        if (!readLine(object, line, out.firstRequest.empty()))
            return;
        noteTime(out, line.timestamp);
        if (out.project.empty() && !line.cwd.empty())
            out.project = line.cwd;
        if (out.sessionId.empty() && !line.sessionId.empty())
            out.sessionId = line.sessionId;
        if (line.type == "user") {
            ++userLines;
            if (out.firstRequest.empty() && !line.isMeta && !line.compactSummary && !line.request.empty())
                out.firstRequest = firstLine(line.request);
        } else if (line.type == "assistant") {
            if (line.messageId.empty()) {
                ++responsesWithoutId;
                peak = std::max(peak, line.context);
            } else {
                auto &context = contextById[std::string(line.messageId)];
                if (line.hasUsage)
                    context = line.context;
            }
            if (!line.model.empty() && line.model != "<synthetic>")
                out.model = line.model;
        } else if (line.type == "system" && line.subtype == "compact_boundary") {
            ++out.compactions;
        } else if (line.type == "custom-title" && !line.customTitle.empty()) {
            customTitle = line.customTitle; // renamed again: the latest name wins
        } else if (line.type == "ai-title" && !line.aiTitle.empty()) {
            aiTitle = line.aiTitle;
        }
    });
    for (const auto &[id, context] : contextById)
        peak = std::max(peak, context);
    out.messages = userLines + responsesWithoutId + contextById.size();
    out.peakContext = peak;
    out.title = firstLine(!customTitle.empty() ? customTitle : aiTitle);
}

} // namespace cl::sessions::detail
