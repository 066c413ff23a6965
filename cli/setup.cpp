// SPDX-License-Identifier: MIT
// `setup claude-code|gemini-cli|qwen-code [--home DIR | --settings FILE] [--no-statusline] [--no-hooks]
// [--replace-status-line] [--command CMD] [--dry-run] [--json]`: puts the status line and the
// compaction hooks into the agent's settings.json (core/io/agentsettings.h), merged, after a backup.
#include "cli/cli.h"
#include "cli/common.h"
#include "core/io/agentsettings.h"

#include <cstdlib>
#include <filesystem>

#include <unistd.h>

namespace cl::cli {

namespace {

// This program as the agent should run it: its absolute path when it is contextlens-cli (a build
// tree or a prefix), else the name on PATH.
std::string selfCommand()
{
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec || self.filename() != "contextlens-cli")
        return "contextlens-cli";
    return agentsettings::commandFor(self.string());
}

} // namespace

int setup(const std::vector<std::string> &args, std::string &out, std::string &err)
{
    const std::vector<OptionSpec> specs{{"--json", "", false}, {"--help", "-h", false}, {"--home", "", true}, {"--settings", "", true}, {"--no-statusline", "", false}, {"--no-hooks", "", false}, {"--replace-status-line", "", false}, {"--command", "", true}, {"--dry-run", "", false}};
    Args a = parseArgs(args, specs);
    Output o{out, err, a.has("--json")};
    if (a.has("--help")) {
        out += commandHelp("setup");
        return Exit::Success;
    }
    if (!a.error.empty())
        return o.fail(a.error);
    const std::string name = a.positional.size() == 1 ? a.positional[0] : std::string();
    if (name != "claude-code" && name != "gemini-cli" && name != "qwen-code")
        return o.fail("setup: name the agent: claude-code, gemini-cli or qwen-code (Codex: see contextlens-cli help hook)");
    agentsettings::Request r;
    r.agent = name == "claude-code" ? agentsettings::Agent::ClaudeCode
              : name == "qwen-code" ? agentsettings::Agent::QwenCode
                                    : agentsettings::Agent::GeminiCli;
    const char *home = std::getenv("HOME");
    r.settingsFile = a.value("--settings").value_or(agentsettings::settingsFileOf(r.agent, a.value("--home").value_or(home ? home : ".")));
    r.command = a.value("--command").value_or(selfCommand());
    r.statusLine = !a.has("--no-statusline");
    r.hooks = !a.has("--no-hooks");
    r.replaceStatusLine = a.has("--replace-status-line");
    r.dryRun = a.has("--dry-run");
    agentsettings::Outcome res;
    std::string error;
    if (!agentsettings::install(r, res, error))
        return o.fail("setup: " + error);
    if (o.json) {
        o.print(ojson{{"settings", r.settingsFile},
                      {"added", res.added},
                      {"kept", res.kept},
                      {"refused", res.refused},
                      {"backup", res.backup.empty() ? ojson(nullptr) : ojson(res.backup)},
                      {"written", res.written},
                      {"dryRun", r.dryRun}});
        return res.refused.empty() ? int(Exit::Success) : int(Exit::Issues);
    }
    const auto list = [](const std::vector<std::string> &v) {
        std::string s;
        for (const std::string &x : v)
            s += (s.empty() ? "" : ", ") + x;
        return s;
    };
    if (!res.added.empty())
        out += std::string(r.dryRun ? "would add " : "added ") + list(res.added) + " to " + r.settingsFile + "\n";
    if (!res.kept.empty())
        out += "already there: " + list(res.kept) + "\n";
    for (const std::string &why : res.refused)
        out += "left alone: " + why + " (--replace-status-line to use ContextLens's)\n";
    if (!res.backup.empty())
        out += "the file as it was: " + res.backup + "\n";
    if (r.dryRun)
        out += res.text;
    return res.refused.empty() ? int(Exit::Success) : int(Exit::Issues);
}

} // namespace cl::cli
