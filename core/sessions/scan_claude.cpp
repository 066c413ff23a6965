// SPDX-License-Identifier: MIT
// A Claude Code session's summary from one pass over its lines. Each API response is written as
// several lines sharing message.id that repeat its usage: responses are counted once and the
// usage of their last line is the one kept (docs/design/formats.md), folded by core/cost's
// ResponseFolder as contextlens-cli cost folds them.
#include "core/sessions/ondemand_internal.h"

#include <algorithm>

namespace cl::sessions::detail {

namespace {

// What one line says; views point into the parser's buffers and live until the next line.
struct Line {
    std::string_view type, subtype, timestamp, cwd, sessionId, customTitle, aiTitle;
    std::string_view messageId, model;
    bool isMeta = false;
    bool compactSummary = false;
    bool hasUsage = false;       // an input count: the line says how large the context was
    bool hasUsageObject = false; // usage is an object: the line's tokens count for the cost
    std::int64_t context = 0;
    std::int64_t input = 0, cacheCreation = 0, cacheRead = 0, output = 0;
    bool split = false; // usage.cache_creation: the writes by TTL
    std::int64_t split5m = 0, split1h = 0;
    std::string request; // a user line's typed text, when still wanted
};

bool readSplit(od::value &v, Line &line)
{
    od::object split;
    if (v.get_object().get(split) != simdjson::SUCCESS)
        return true;
    line.split = true;
    for (auto field : split) {
        od::field f;
        if (std::move(field).get(f) != simdjson::SUCCESS)
            return false;
        if (f.key() == "ephemeral_5m_input_tokens")
            line.split5m = intOf(f.value());
        else if (f.key() == "ephemeral_1h_input_tokens")
            line.split1h = intOf(f.value());
    }
    return true;
}

bool readUsage(od::value &v, Line &line)
{
    od::object usage;
    if (v.get_object().get(usage) != simdjson::SUCCESS)
        return true; // null or another type: no usage
    line.hasUsageObject = true;
    for (auto field : usage) {
        od::field f;
        if (std::move(field).get(f) != simdjson::SUCCESS)
            return false;
        const auto key = f.key();
        std::int64_t *count = key == "input_tokens"                  ? &line.input
                              : key == "cache_creation_input_tokens" ? &line.cacheCreation
                              : key == "cache_read_input_tokens"     ? &line.cacheRead
                                                                     : nullptr;
        if (count) {
            *count = intOf(f.value());
            line.context += *count;
            line.hasUsage = true;
        } else if (key == "output_tokens") {
            line.output = intOf(f.value());
        } else if (key == "cache_creation" && !readSplit(f.value(), line)) {
            return false;
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
    cost::SessionUsage usage;
    cost::ResponseFolder folder(usage);
    std::vector<std::int64_t> contexts; // per response: the context its last line with an input count says
    std::size_t userLines = 0;
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
            // Synthetic responses are folded too, so that they count as messages; usageByModel()
            // leaves them out of the cost, as core/cost does.
            cost::ResponseLine l;
            l.id = line.messageId;
            l.model = line.model;
            const cost::Tokens tokens = cost::claudeTokens(line.input, line.cacheCreation, line.cacheRead, line.output,
                                                           line.split, line.split5m, line.split1h);
            if (line.hasUsageObject)
                l.tokens = &tokens;
            const std::size_t i = folder.add(l);
            if (i >= contexts.size())
                contexts.resize(i + 1, 0);
            if (line.hasUsage || line.messageId.empty())
                contexts[i] = line.context;
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
    out.messages = userLines + folder.responses();
    out.peakContext = contexts.empty() ? 0 : *std::max_element(contexts.begin(), contexts.end());
    folder.finish();
    out.usage = usageByModel(usage);
    out.title = firstLine(!customTitle.empty() ? customTitle : aiTitle);
}

} // namespace cl::sessions::detail
