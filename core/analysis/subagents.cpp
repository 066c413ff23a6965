// SPDX-License-Identifier: MIT
#include "core/analysis/subagents.h"

#include "core/tokens/estimator.h"
#include "core/util/json.h"

#include <string_view>
#include <unordered_map>

namespace cl::analysis {

namespace {

std::int64_t headerNumber(const Transcript &t, const char *key)
{
    const nlohmann::json *v = t.header.is_object() ? cl::json::child(t.header, key) : nullptr;
    return v && v->is_number_integer() ? v->get<std::int64_t>() : -1;
}

std::string headerText(const Transcript &t, const char *key)
{
    return t.header.is_object() ? cl::json::str(t.header, key) : std::string();
}

std::string describe(const Block &call)
{
    std::string d = cl::json::str(call.input, "description");
    if (d.empty()) {
        d = cl::json::str(call.input, "prompt");
        d = d.substr(0, d.find('\n'));
    }
    return d;
}

// The id in "<tag>id</tag>" of `text`, "" when there is none.
std::string_view tagged(std::string_view text, std::string_view open, std::string_view close)
{
    const std::size_t from = text.find(open);
    if (from == std::string_view::npos)
        return {};
    const std::size_t start = from + open.size(), end = text.find(close, start);
    return end == std::string_view::npos ? std::string_view() : text.substr(start, end - start);
}

// The session's messages that talk to a run or report on it: a SendMessage call whose recipient is
// its name or id, a task notification carrying its id.
void linkContacts(const Transcript &t, std::vector<SubagentRun> &runs)
{
    std::unordered_map<std::string, std::size_t> byName, byId;
    for (std::size_t r = 0; r < runs.size(); ++r) {
        if (!runs[r].name.empty())
            byName.emplace(runs[r].name, r);
        if (!runs[r].agentId.empty())
            byId.emplace(runs[r].agentId, r);
    }
    if (byId.empty())
        return;
    const auto addressed = [&](const std::string &to) -> SubagentRun * {
        if (const auto it = byName.find(to); it != byName.end())
            return &runs[it->second];
        const auto it = byId.find(to);
        return it == byId.end() ? nullptr : &runs[it->second];
    };
    for (std::size_t i = 0; i < t.messages.size(); ++i) {
        const Message &m = t.messages[i];
        if (m.sidechain || !m.isConversation())
            continue;
        for (const Block &b : m.blocks) {
            if (m.role == Role::Assistant && b.type == BlockType::ToolUse && b.toolName == "SendMessage") {
                if (SubagentRun *run = addressed(cl::json::str(b.input, "to")))
                    run->messagesTo.push_back(std::int32_t(i));
            } else if (m.role == Role::User && b.type == BlockType::Text) {
                const std::string_view id = tagged(tagged(b.text, "<task-notification>", "</task-notification>"), "<task-id>", "</task-id>");
                const auto it = id.empty() ? byId.end() : byId.find(std::string(id));
                if (it == byId.end())
                    continue;
                std::vector<std::int32_t> &seen = runs[it->second].notifications;
                if (seen.empty() || seen.back() != std::int32_t(i))
                    seen.push_back(std::int32_t(i));
            }
        }
    }
}

} // namespace

std::vector<SubagentRun> subagentRuns(const Transcript &t)
{
    std::vector<SubagentRun> runs;
    if (t.subagents.empty())
        return runs;
    // Every call by its id: in the session (run -1) and in each subagent's conversation.
    struct Call {
        std::int32_t run, message, block;
    };
    std::unordered_map<std::string, Call> calls;
    auto addCalls = [&calls](const Transcript &owner, std::int32_t run) {
        for (std::size_t i = 0; i < owner.messages.size(); ++i) {
            const Message &m = owner.messages[i];
            if ((run < 0 && m.sidechain) || m.role != Role::Assistant)
                continue;
            for (std::size_t k = 0; k < m.blocks.size(); ++k)
                if (m.blocks[k].type == BlockType::ToolUse && !m.blocks[k].toolId.empty())
                    calls.emplace(m.blocks[k].toolId, Call{run, std::int32_t(i), std::int32_t(k)});
        }
    };
    addCalls(t, -1);
    for (std::size_t s = 0; s < t.subagents.size(); ++s)
        addCalls(*t.subagents[s], std::int32_t(s));
    std::unordered_map<std::string, std::int32_t> byAgentId;
    for (std::size_t s = 0; s < t.subagents.size(); ++s) {
        const Transcript &sub = *t.subagents[s];
        SubagentRun run;
        run.subagent = s;
        std::int64_t first = kNoTime, last = kNoTime;
        for (const Message &m : sub.messages) {
            if (run.agentId.empty())
                run.agentId = m.agentId;
            if (m.timeMs != kNoTime) {
                first = first == kNoTime ? m.timeMs : std::min(first, m.timeMs);
                last = last == kNoTime ? m.timeMs : std::max(last, m.timeMs);
            }
            if (!m.isConversation())
                continue;
            ++run.messages;
            run.tokens += tokens::estimateMessage(m);
        }
        run.durationMs = headerNumber(sub, "totalDurationMs");
        if (run.durationMs < 0 && first != kNoTime)
            run.durationMs = last - first;
        run.recordedTokens = headerNumber(sub, "totalTokens");
        run.toolUses = headerNumber(sub, "totalToolUseCount");
        run.agentType = headerText(sub, "agentType");
        if (const auto it = calls.find(headerText(sub, "parentToolUseId")); it != calls.end() && it->second.run != std::int32_t(s)) {
            const Call &c = it->second;
            run.parentRun = c.run;
            run.message = c.message;
            run.block = c.block;
            const Transcript &owner = c.run < 0 ? t : *t.subagents[std::size_t(c.run)];
            run.description = describe(owner.messages[std::size_t(c.message)].blocks[std::size_t(c.block)]);
        }
        if (run.description.empty())
            run.description = headerText(sub, "description");
        run.name = headerText(sub, "agentName");
        run.background = sub.header.is_object() && sub.header.value("background", false);
        if (!run.agentId.empty())
            byAgentId.emplace(run.agentId, std::int32_t(s));
        runs.push_back(std::move(run));
    }
    // A run whose call was not found but whose meta file names the agent that started it.
    for (SubagentRun &run : runs)
        if (run.parentRun < 0 && run.message < 0)
            if (const auto it = byAgentId.find(headerText(*t.subagents[run.subagent], "parentAgentId"));
                it != byAgentId.end() && it->second != std::int32_t(run.subagent))
                run.parentRun = it->second;
    linkContacts(t, runs);
    // Depth and the session's call, up the chain; a chain that loops (damaged files) is cut.
    for (SubagentRun &run : runs) {
        const SubagentRun *top = &run;
        int depth = 1;
        while (top->parentRun >= 0 && depth <= int(runs.size())) {
            top = &runs[std::size_t(top->parentRun)];
            ++depth;
        }
        if (depth > int(runs.size())) {
            run.parentRun = -1;
            run.message = run.block = -1;
            continue;
        }
        run.depth = depth;
        run.sessionMessage = top->message;
        run.sessionBlock = top->block;
    }
    return runs;
}

} // namespace cl::analysis
