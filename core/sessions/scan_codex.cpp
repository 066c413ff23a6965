// SPDX-License-Identifier: MIT
// A Codex CLI rollout's summary from one pass over its lines ({timestamp, type, payload}).
#include "core/sessions/ondemand_internal.h"

#include <algorithm>

namespace cl::sessions::detail {

namespace {

struct CodexState {
    bool sawMeta = false;
    std::string model;                                           // the latest turn_context's
    std::int64_t lastAssistant = -1;                             // the latest assistant response item (index among them)
    std::string lastAssistantModel;                              // the model when it was written
    std::int64_t measuredAssistant = -1;                         // the item the last of `responses` belongs to
    std::vector<std::pair<std::string, cost::Tokens>> responses; // model and usage of each measured response
    std::string eventRequest;                                    // event_msg user_message: exactly what the user typed
    std::string itemRequest;                                     // else the first user message item that is not injected context
    std::string turnCwd;
};

// One token_count report's usage, as the loader reads it (core/formats/codex/loader.cpp): OpenAI input
// tokens include the cached ones; false for the all-zero report before the first response.
bool reportedUsage(od::object &payload, cost::Tokens &out)
{
    od::value v;
    od::object info, usage;
    if (!field(payload, "info", v) || v.get_object().get(info) != simdjson::SUCCESS)
        return false;
    if (!field(info, "last_token_usage", v) && !field(info, "total_token_usage", v))
        return false;
    if (v.get_object().get(usage) != simdjson::SUCCESS)
        return false;
    const std::int64_t input = intField(usage, "input_tokens");
    const std::int64_t cached = intField(usage, "cached_input_tokens");
    const std::int64_t written = intField(usage, "cache_write_input_tokens");
    const std::int64_t output = intField(usage, "output_tokens");
    if (input == 0 && output == 0)
        return false;
    out = {};
    out.input = std::max<std::int64_t>(0, input - cached);
    out.cacheRead = cached;
    out.cacheWrite5m = written;
    out.output = output;
    return true;
}

// Response items the loader reads as the assistant's (core/formats/codex/loader.cpp responseItem).
bool isAssistantItem(std::string_view type, od::object &payload)
{
    if (type == "message")
        return stringField(payload, "role") == "assistant";
    return type == "reasoning" || type == "function_call" || type == "custom_tool_call" || type == "local_shell_call"
           || type == "web_search_call" || type == "tool_search_call";
}

// A report belongs to the latest assistant item; reports repeated for it replace each other.
void noteUsage(CodexState &state, const cost::Tokens &tokens)
{
    if (state.lastAssistant < 0)
        return;
    if (state.measuredAssistant != state.lastAssistant)
        state.responses.push_back({state.lastAssistantModel, {}});
    state.responses.back().second = tokens;
    state.measuredAssistant = state.lastAssistant;
}

void readLine(od::object &object, CodexState &state, Session &out)
{
    od::value v;
    const std::string_view type = field(object, "type", v) ? stringOf(v) : std::string_view();
    noteTime(out, stringField(object, "timestamp"));
    if (type == "compacted") {
        ++out.compactions;
        return;
    }
    od::object payload;
    if (!field(object, "payload", v) || v.get_object().get(payload) != simdjson::SUCCESS)
        return;
    if (type == "session_meta") {
        // The first one describes this file; later ones (forks, resumed parents) do not.
        if (state.sawMeta)
            return;
        state.sawMeta = true;
        out.sessionId = stringField(payload, "id");
        out.project = stringField(payload, "cwd");
        noteTime(out, stringField(payload, "timestamp"));
    } else if (type == "turn_context") {
        if (const auto model = stringField(payload, "model"); !model.empty()) {
            out.model = model;
            state.model = model;
        }
        if (const auto cwd = stringField(payload, "cwd"); state.turnCwd.empty())
            state.turnCwd = cwd;
    } else if (type == "response_item") {
        ++out.messages;
        if (isAssistantItem(stringField(payload, "type"), payload)) {
            ++state.lastAssistant;
            state.lastAssistantModel = state.model;
        }
        if (!state.itemRequest.empty() || stringField(payload, "type") != "message" || stringField(payload, "role") != "user")
            return;
        if (field(payload, "content", v))
            state.itemRequest = firstRequestIn(v);
    } else if (type == "event_msg") {
        const std::string_view event = stringField(payload, "type");
        if (cost::Tokens tokens; event == "token_count" && reportedUsage(payload, tokens)) {
            out.peakContext = std::max(out.peakContext, tokens.context());
            noteUsage(state, tokens);
        } else if (event == "user_message" && state.eventRequest.empty() && field(payload, "message", v))
            state.eventRequest = typedRequest(stringOf(v));
    }
}

} // namespace

void scanCodex(OnDemand &parser, const PaddedBytes &bytes, Session &out)
{
    out.format = Format::Codex;
    CodexState state;
    parser.forEachLine(bytes, [&](od::object &object) { readLine(object, state, out); });
    if (out.project.empty())
        out.project = state.turnCwd;
    for (const auto &[model, tokens] : state.responses)
        addUsage(out.usage, model, tokens);
    out.firstRequest = firstLine(!state.eventRequest.empty() ? state.eventRequest : state.itemRequest);
}

} // namespace cl::sessions::detail
