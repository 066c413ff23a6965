// SPDX-License-Identifier: MIT
// A session's measured usage by model (Session::usage), as the scanners and the cache keep it.
#include "core/sessions/internal.h"

#include "core/formats/claudecode/agentmeta.h"

#include <algorithm>

namespace cl::sessions::detail {

void addUsage(std::vector<ModelUsage> &usage, std::string_view model, const cost::Tokens &tokens, std::size_t responses)
{
    auto it = std::find_if(usage.begin(), usage.end(), [&](const ModelUsage &u) { return u.model == model; });
    if (it == usage.end()) {
        usage.push_back({std::string(model), 0, {}});
        it = usage.end() - 1;
    }
    it->responses += responses;
    it->tokens += tokens;
}

std::vector<ModelUsage> usageByModel(const cost::SessionUsage &usage)
{
    std::vector<ModelUsage> out;
    for (const cost::Response &r : usage.responses)
        if (r.model != "<synthetic>")
            addUsage(out, r.model, r.tokens);
    return out;
}

std::string subagentName(std::string_view path)
{
    std::string_view name = path.substr(path.find_last_of('/') + 1);
    if (name.size() > 6 && name.substr(name.size() - 6) == ".jsonl")
        name.remove_suffix(6);
    return std::string(name);
}

SubagentUsage subagentUsage(const std::string &path, std::vector<ModelUsage> usage)
{
    const formats::claudecode::AgentMeta meta = formats::claudecode::readAgentMeta(path);
    return {subagentName(path), std::move(usage), 0, 0, meta.description, meta.parentAgentId.empty() ? std::string() : "agent-" + meta.parentAgentId};
}

} // namespace cl::sessions::detail
