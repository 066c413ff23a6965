// SPDX-License-Identifier: MIT
#include "core/analysis/subagents.h"

#include "core/tokens/estimator.h"
#include "core/util/json.h"

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
