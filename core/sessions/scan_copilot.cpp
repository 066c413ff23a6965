// SPDX-License-Identifier: MIT
// A GitHub Copilot CLI session's summary from one pass over its events.jsonl ({type, data, id,
// timestamp, parentId}), read as the loader reads it (core/formats/copilotcli/loader.cpp).
#include "core/sessions/ondemand_internal.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace cl::sessions::detail {

namespace {

struct CopilotState {
    bool sawStart = false;
    // The usage of each model call, by apiCallId; counted for the calls an assistant.message
    // answers (as the loader attaches them), so a compaction's own call is not a response.
    std::unordered_map<std::string, std::pair<std::string, cost::Tokens>> usage;
    std::vector<std::string> order;
    std::unordered_set<std::string> answered;
};

void readUsage(od::object &data, CopilotState &state, Session &out)
{
    od::value v;
    od::object u;
    if (!field(data, "usage", v) || v.get_object().get(u) != simdjson::SUCCESS)
        return;
    const std::string model(stringField(u, "model"));
    const std::int64_t input = intField(u, "inputTokens"); // the whole prompt, cached tokens included
    cost::Tokens tokens;
    tokens.cacheRead = intField(u, "cacheReadTokens");
    tokens.cacheWrite5m = intField(u, "cacheWriteTokens");
    tokens.input = std::max<std::int64_t>(0, input - tokens.cacheRead - tokens.cacheWrite5m);
    tokens.output = intField(u, "outputTokens");
    const std::string call(stringField(u, "apiCallId"));
    if (call.empty())
        return;
    if (!state.usage.count(call))
        state.order.push_back(call);
    state.usage[call] = {model, tokens};
    out.peakContext = std::max(out.peakContext, tokens.context());
}

void readLine(od::object &object, CopilotState &state, Session &out)
{
    const std::string_view type = stringField(object, "type");
    noteTime(out, stringField(object, "timestamp"));
    od::value v;
    od::object data;
    if (!field(object, "data", v) || v.get_object().get(data) != simdjson::SUCCESS)
        return;
    if (type == "session.start") {
        if (state.sawStart) // a later start (a resumed or forked run) does not describe this file
            return;
        state.sawStart = true;
        out.sessionId = stringField(data, "sessionId");
        if (const auto model = stringField(data, "selectedModel"); !model.empty())
            out.model = model;
        od::object context;
        if (field(data, "context", v) && v.get_object().get(context) == simdjson::SUCCESS)
            out.project = stringField(context, "cwd");
    } else if (type == "user.message") {
        ++out.messages;
        if (out.firstRequest.empty())
            out.firstRequest = firstLine(typedRequest(stringField(data, "content")));
    } else if (type == "assistant.message") {
        ++out.messages;
        if (const auto model = stringField(data, "model"); !model.empty())
            out.model = model;
        if (const auto call = stringField(data, "apiCallId"); !call.empty())
            state.answered.insert(std::string(call));
    } else if (type == "tool.execution_complete") {
        ++out.messages;
    } else if (type == "session.usage_record") {
        readUsage(data, state, out);
    } else if (type == "session.compaction_complete") {
        if (field(data, "success", v) && isTrue(v))
            ++out.compactions;
    }
}

} // namespace

void scanCopilot(OnDemand &parser, const PaddedBytes &bytes, Session &out)
{
    out.format = Format::CopilotCli;
    CopilotState state;
    parser.forEachLine(bytes, [&](od::object &object) { readLine(object, state, out); });
    for (const std::string &call : state.order)
        if (state.answered.count(call)) {
            const auto &[model, tokens] = state.usage[call];
            addUsage(out.usage, model, tokens);
        }
}

} // namespace cl::sessions::detail
