// SPDX-License-Identifier: MIT
// A session's measured usage by model (Session::usage), as the scanners and the cache keep it.
#include "core/sessions/internal.h"

#include "core/util/json.h"

#include <algorithm>
#include <fstream>

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
    SubagentUsage sub{subagentName(path), std::move(usage), 0, 0, {}, {}};
    const std::string meta = path.substr(0, path.size() - (path.size() > 6 ? 6 : 0)) + ".meta.json";
    std::ifstream in(meta, std::ios::binary);
    if (!in)
        return sub;
    std::string bytes(64 * 1024, '\0');
    in.read(bytes.data(), std::streamsize(bytes.size()));
    bytes.resize(std::size_t(in.gcount()));
    nlohmann::json j;
    std::string error;
    if (cl::json::parse(bytes, j, error) == cl::json::ParseStatus::Failed || !j.is_object())
        return sub;
    sub.description = cl::json::str(j, "description");
    if (const std::string parent = cl::json::str(j, "parentAgentId"); !parent.empty())
        sub.startedBy = "agent-" + parent;
    return sub;
}

} // namespace cl::sessions::detail
