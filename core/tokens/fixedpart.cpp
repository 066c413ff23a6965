// SPDX-License-Identifier: MIT
#include "core/tokens/fixedpart.h"

#include "core/tokens/estimator.h"
#include "core/util/json.h"

namespace cl::tokens {

namespace {

using Json = nlohmann::json;

std::int64_t estimateJsonText(const Json &j)
{
    if (j.is_string())
        return estimateText(j.get_ref<const std::string &>());
    if (j.is_array()) {
        std::int64_t n = 0;
        for (const auto &e : j)
            n += e.is_object() && e.contains("text") ? estimateJsonText(e["text"]) : estimateJsonText(e);
        return n;
    }
    return j.is_null() ? 0 : estimateText(json::dump(j));
}

void addToolDefs(const Json &tools, FixedPart &out)
{
    for (const auto &tool : tools) {
        FixedPart::ToolDef def;
        def.name = json::str(tool, "name");
        if (def.name.empty() && tool.is_object())
            if (const Json *fn = json::object(tool, "function")) // OpenAI Chat: {type, function: {name}}
                def.name = json::str(*fn, "name");
        def.tokens = estimateText(json::dump(tool));
        out.toolTokens += def.tokens;
        out.toolDefs.push_back(std::move(def));
    }
    out.tools = out.toolDefs.size();
}

// Claude Code 2.1.3xx writes the system prompt and tool definitions of its requests as
// api-request-shape lines ({shape: {system, tools}}); the last one is what the next request sends.
bool fromRequestShape(const Transcript &t, FixedPart &out)
{
    for (std::size_t r = t.records.size(); r-- > 0;) {
        if (t.records[r].type != "api-request-shape")
            continue;
        Json o;
        std::string err;
        if (json::parse(t.recordBytes(t.records[r]), o, err) == json::ParseStatus::Failed || !o.is_object())
            continue;
        const Json *shape = json::object(o, "shape");
        if (!shape)
            continue;
        const Json *system = json::child(*shape, "system");
        const Json *tools = json::array(*shape, "tools");
        out.systemTokens = system ? estimateJsonText(*system) : 0;
        if (tools)
            addToolDefs(*tools, out);
        out.tokens = out.systemTokens + out.toolTokens;
        out.source = FixedPart::Source::Recorded;
        out.how = "system prompt and " + std::to_string(out.tools) + " tool definitions recorded on line "
                  + std::to_string(t.records[r].line) + " (api-request-shape), estimated";
        return true;
    }
    return false;
}

// An API request document carries its tool definitions (the system prompt is a message there).
bool fromDocumentTools(const Transcript &t, FixedPart &out)
{
    const Json *tools = t.header.is_object() ? json::array(t.header, "tools") : nullptr;
    if (!tools || tools->empty())
        return false;
    addToolDefs(*tools, out);
    out.tokens = out.toolTokens;
    out.source = FixedPart::Source::Recorded;
    out.how = std::to_string(out.tools) + " tool definitions in the request document, estimated";
    return true;
}

} // namespace

std::string_view fixedPartSourceName(FixedPart::Source s)
{
    switch (s) {
    case FixedPart::Source::None: return "none";
    case FixedPart::Source::Recorded: return "recorded";
    case FixedPart::Source::Measured: return "measured";
    case FixedPart::Source::Default: return "default";
    }
    return "none";
}

std::int64_t defaultFixedTokens(Format f)
{
    // Measured on the pinned agents' first requests with an empty conversation (docs/design/tokens.md).
    switch (f) {
    case Format::ClaudeCode: return 20000;
    case Format::Codex: return 9000;
    case Format::GeminiCli: return 11000;
    default: return 0;
    }
}

FixedPart fixedPart(const Transcript &t)
{
    FixedPart out;
    if (fromRequestShape(t, out) || fromDocumentTools(t, out))
        return out;
    for (const MeasuredPoint &p : measuredContext(t)) {
        if (p.measured <= p.estimated)
            break;
        out.tokens = p.measured - p.estimated;
        out.source = FixedPart::Source::Measured;
        out.how = "first measured usage (message " + std::to_string(p.message + 1) + ": "
                  + std::to_string(p.measured) + ") minus the conversation's estimate before it";
        return out;
    }
    out.tokens = defaultFixedTokens(t.format);
    if (out.tokens > 0) {
        out.source = FixedPart::Source::Default;
        out.how = "the agent's default system prompt and tools (no usage recorded), approximate";
    } else {
        out.how = "API document: nothing is sent besides its messages";
    }
    return out;
}

} // namespace cl::tokens
