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
    std::unordered_map<std::string, std::pair<std::int32_t, std::int32_t>> calls;
    for (std::size_t i = 0; i < t.messages.size(); ++i) {
        const Message &m = t.messages[i];
        if (m.sidechain || m.role != Role::Assistant)
            continue;
        for (std::size_t k = 0; k < m.blocks.size(); ++k)
            if (m.blocks[k].type == BlockType::ToolUse && !m.blocks[k].toolId.empty())
                calls.emplace(m.blocks[k].toolId, std::pair{std::int32_t(i), std::int32_t(k)});
    }
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
        const std::string id = sub.header.is_object() ? cl::json::str(sub.header, "parentToolUseId") : std::string();
        if (auto it = calls.find(id); !id.empty() && it != calls.end()) {
            run.message = it->second.first;
            run.block = it->second.second;
            run.description = describe(t.messages[std::size_t(run.message)].blocks[std::size_t(run.block)]);
        }
        runs.push_back(std::move(run));
    }
    return runs;
}

} // namespace cl::analysis
