// SPDX-License-Identifier: MIT
#include "core/formats/claudecode/agentmeta.h"

#include "core/util/json.h"

#include <cstdio>
#include <filesystem>

namespace cl::formats::claudecode {

AgentMeta readAgentMeta(const std::string &agentFile)
{
    AgentMeta meta;
    const std::filesystem::path file(agentFile);
    std::FILE *f = std::fopen((file.parent_path() / (file.stem().string() + ".meta.json")).string().c_str(), "rb");
    if (!f)
        return meta;
    std::string bytes(64 * 1024, '\0'); // a few hundred bytes; more is no meta file of Claude Code's
    bytes.resize(std::fread(bytes.data(), 1, bytes.size(), f));
    std::fclose(f);
    nlohmann::json j;
    std::string error;
    if (cl::json::parse(bytes, j, error) == cl::json::ParseStatus::Failed || !j.is_object())
        return meta;
    meta.toolUseId = cl::json::str(j, "toolUseId");
    meta.parentAgentId = cl::json::str(j, "parentAgentId");
    meta.agentType = cl::json::str(j, "agentType");
    meta.description = cl::json::str(j, "description");
    meta.name = cl::json::str(j, "name");
    meta.background = cl::json::str(j, "requestShape") == "background";
    return meta;
}

} // namespace cl::formats::claudecode
