// SPDX-License-Identifier: MIT
// `hook [--input FILE] [--root DIR] [--json]`: the command an agent runs on its compaction hooks
// (Claude Code and Codex PreCompact / PostCompact, Gemini CLI PreCompress; core/workflow/compactionhook.h).
// Reads the agent's JSON on standard input. Prints nothing on success (the agents show a hook's
// output), the record with --json; a failure is one line on standard error with exit 1, which every
// agent treats as a warning: the compaction goes on.
#include "cli/cli.h"
#include "cli/common.h"
#include "core/io/backups.h"
#include "core/workflow/compactionhook.h"

namespace cl::cli {

int hook(const std::vector<std::string> &args, std::string &out, std::string &err)
{
    const std::vector<OptionSpec> specs{{"--json", "", false}, {"--help", "-h", false}, {"--input", "", true}, {"--root", "", true}};
    Args a = parseArgs(args, specs);
    Output o{out, err, a.has("--json")};
    if (a.has("--help")) {
        out += commandHelp("hook");
        return Exit::Success;
    }
    if (!a.error.empty())
        return o.fail(a.error);
    if (!a.positional.empty())
        return o.fail("hook reads the agent's JSON on standard input (or --input FILE); it takes no FILE");
    std::string json, error;
    if (!readAgentInput(a, json, error))
        return o.fail("hook: " + error);
    const auto warn = [&](const std::string &why) {
        if (o.json)
            return o.fail("hook: " + why);
        err += "ContextLens hook: " + why + "\n";
        return int(Exit::Issues);
    };
    compactionhook::Event e;
    if (!compactionhook::parseEvent(json, e, error))
        return warn(error);
    compactionhook::Record r;
    if (!compactionhook::handle(e, a.value("--root").value_or(backups::defaultRoot()), r, error))
        return warn(error);
    if (o.json)
        out += compactionhook::recordJson(r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    return Exit::Success;
}

} // namespace cl::cli
