// SPDX-License-Identifier: MIT
#include "core/io/agentsettings.h"

#include "core/io/backups.h"
#include "core/io/writer.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace cl::agentsettings {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace {

// Whether some hook of an event's matcher groups runs `command`.
bool hasHook(const ojson &groups, const std::string &command)
{
    if (!groups.is_array())
        return false;
    for (const ojson &g : groups) {
        const auto hooks = g.find("hooks");
        if (hooks == g.end() || !hooks->is_array())
            continue;
        for (const ojson &h : *hooks)
            if (h.is_object() && h.value("command", std::string()) == command)
                return true;
    }
    return false;
}

void addHook(ojson &settings, const std::string &event, const std::string &command, Outcome &out)
{
    ojson &hooks = settings["hooks"];
    if (!hooks.is_object())
        hooks = ojson::object();
    ojson &groups = hooks[event];
    if (!groups.is_array())
        groups = ojson::array();
    const std::string name = "hooks." + event;
    if (hasHook(groups, command)) {
        out.kept.push_back(name);
        return;
    }
    groups.push_back({{"hooks", ojson::array({{{"type", "command"}, {"command", command}}})}});
    out.added.push_back(name);
}

} // namespace

std::string commandFor(const std::string &program)
{
    if (!program.empty() && program.find_first_of(" '\"$`\\;&|<>()*?!#~\t") == std::string::npos)
        return program;
    std::string quoted = "'";
    for (const char c : program)
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

std::string settingsFileOf(Agent a, const std::string &home)
{
    const char *folder = a == Agent::ClaudeCode ? ".claude" : a == Agent::QwenCode ? ".qwen"
                                                                                   : ".gemini";
    return (fs::path(home) / folder / "settings.json").string();
}

bool install(const Request &r, Outcome &out, std::string &error)
{
    out = Outcome{};
    std::error_code ec;
    const bool exists = fs::exists(r.settingsFile, ec);
    ojson settings = ojson::object();
    if (exists) {
        std::ifstream in(r.settingsFile, std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        settings = ojson::parse(ss.str(), nullptr, false);
        if (!settings.is_object()) {
            error = r.settingsFile + ": not a JSON object; left as it is";
            return false;
        }
    }
    const std::string statusCommand = r.command + " statusline --color";
    const std::string hookCommand = r.command + " hook";
    if (r.statusLine && r.agent == Agent::ClaudeCode) {
        const auto it = settings.find("statusLine");
        const std::string current = it != settings.end() && it->is_object() ? it->value("command", std::string()) : std::string();
        if (current == statusCommand)
            out.kept.push_back("statusLine");
        else if (!current.empty() && !r.replaceStatusLine)
            out.refused.push_back("statusLine: runs '" + current + "' already");
        else {
            settings["statusLine"] = {{"type", "command"}, {"command", statusCommand}};
            out.added.push_back("statusLine");
        }
    }
    if (r.hooks) {
        if (r.agent == Agent::ClaudeCode || r.agent == Agent::QwenCode) {
            addHook(settings, "PreCompact", hookCommand, out);
            addHook(settings, "PostCompact", hookCommand, out);
        } else {
            addHook(settings, "PreCompress", hookCommand, out);
        }
    }
    out.text = settings.dump(2) + "\n";
    if (r.dryRun || out.added.empty())
        return true;
    if (exists) {
        backups::Entry made;
        if (!backups::create(r.backupsRoot.empty() ? backups::defaultRoot() : r.backupsRoot, r.settingsFile, &made, &error))
            return false;
        out.backup = made.path;
    } else {
        fs::create_directories(fs::path(r.settingsFile).parent_path(), ec);
    }
    if (!writeFileAtomic(r.settingsFile, out.text, &error))
        return false;
    out.written = true;
    return true;
}

} // namespace cl::agentsettings
