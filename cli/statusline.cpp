// SPDX-License-Identifier: MIT
// `statusline [--input FILE] [--state-dir DIR | --no-state] [--color] [--prices FILE] [--json]`: the
// line Claude Code shows under its prompt when settings.json names this command as its statusLine
// (core/sessions/statusline.h). Reads the agent's JSON on standard input. The line always goes out
// with exit 0: an error is the line ("ContextLens: ..."), as the agent blanks a failing command's.
#include "cli/cli.h"
#include "cli/common.h"
#include "cli/cost.h"
#include "core/util/terminaltext.h"
#include "core/sessions/statusline.h"

#include <cerrno>
#include <chrono>

#include <unistd.h>

namespace cl::cli {

int statusline(const std::vector<std::string> &args, std::string &out, std::string &err)
{
    const std::vector<OptionSpec> specs{{"--json", "", false}, {"--help", "-h", false}, {"--input", "", true}, {"--state-dir", "", true}, {"--no-state", "", false}, {"--color", "", false}, {"--prices", "", true}};
    Args a = parseArgs(args, specs);
    Output o{out, err, a.has("--json")};
    if (a.has("--help")) {
        out += commandHelp("statusline");
        return Exit::Success;
    }
    if (!a.error.empty())
        return o.fail(a.error);
    if (!a.positional.empty())
        return o.fail("statusline reads the agent's JSON on standard input (or --input FILE); it takes no FILE");
    const auto started = std::chrono::steady_clock::now();
    const auto problem = [&](const std::string &why) {
        if (o.json)
            return o.fail("statusline: " + why);
        // Not a report command (its own colours must go out raw): the reason, which may quote a path
        // from the input, is made terminal-safe here.
        out += "ContextLens: " + util::terminalSafe(why) + "\n";
        return int(Exit::Success);
    };
    std::string json, error;
    if (!readAgentInput(a, json, error))
        return problem(error);
    statusline::Input in;
    if (!statusline::parseInput(json, in, error))
        return problem(error);
    llm::PriceTable prices;
    if (!loadPrices(a, prices, error))
        return problem(error);
    statusline::Options opts;
    opts.stateDir = a.has("--no-state") ? std::string() : a.value("--state-dir").value_or(statusline::defaultStateDir());
    opts.prices = &prices;
    opts.estimator = commandEstimator();
    // Claude Code shows the line before the session's first message is written.
    if (::access(in.transcriptPath.c_str(), F_OK) != 0 && errno == ENOENT)
        return problem("no messages yet (" + in.transcriptPath + ")");
    statusline::Figures f;
    if (!statusline::compute(in, opts, f, error))
        return problem(error);
    const std::string line = statusline::render(f, a.has("--color"));
    if (!o.json) {
        out += line + "\n";
        return Exit::Success;
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    const forecast::Compaction &c = f.compaction;
    // JSON: the figures and the plain line; the text fields are the engine's own.
    o.print(ojson{{"line", statusline::render(f, false)},
                  {"transcript", in.transcriptPath},
                  {"context",
                   {{"total", f.context.total},
                    {"fixed", f.context.fixed},
                    {"basis", tokens::basisName(f.context.basis)},
                    {"how", f.context.how},
                    {"window", f.window},
                    {"windowSource", f.windowSource}}},
                  {"compaction",
                   {{"agent", c.agent},
                    {"trigger", c.trigger},
                    {"due", c.due()},
                    {"turnsLeft", c.turnsLeft ? ojson(*c.turnsLeft) : ojson(nullptr)},
                    {"growthPerTurn", c.growthPerTurn}}},
                  {"cost",
                   {{"dollars", f.dollars},
                    {"unpricedTokens", f.unpricedTokens},
                    {"subagentFiles", f.subagentFiles},
                    {"agentReported", in.agentCostUsd ? ojson(*in.agentCostUsd) : ojson(nullptr)}}},
                  {"read",
                   {{"warm", f.warm},
                    {"why", f.why},
                    {"bytes", f.bytesRead},
                    {"liveOffset", f.liveOffset},
                    {"ms", std::round(ms * 10) / 10}}}});
    return Exit::Success;
}

} // namespace cl::cli
