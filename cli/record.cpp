// SPDX-License-Identifier: MIT
// `record`: a recording proxy between an agent and its model provider (docs/recording-format.md).
// The arguments are read here; the proxy is Qt Network code, which this library has none of, so the
// program registers it (setRecordRunner, app/cli_main.cpp) as it does the model summarizer.
#include "cli/cli.h"

#include "cli/common.h"

#include <algorithm>

namespace cl::cli {

namespace {

RecordRunner &runner()
{
    static RecordRunner r;
    return r;
}

// "HOST:PORT", "[V6]:PORT" or just "PORT" (on 127.0.0.1).
bool parseListen(const std::string &text, std::string &host, int &port)
{
    std::string portText = text;
    host = "127.0.0.1";
    if (!text.empty() && text.front() == '[') {
        const auto close = text.find("]:");
        if (close == std::string::npos)
            return false;
        host = text.substr(1, close - 1);
        portText = text.substr(close + 2);
    } else if (const auto colon = text.rfind(':'); colon != std::string::npos) {
        host = text.substr(0, colon);
        portText = text.substr(colon + 1);
    }
    if (host.empty() || portText.empty() || portText.size() > 5 || !std::all_of(portText.begin(), portText.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return false;
    if (host == "localhost")
        host = "127.0.0.1";
    port = std::stoi(portText);
    return port <= 65535;
}

} // namespace

void setRecordRunner(RecordRunner r)
{
    runner() = std::move(r);
}

int record(const std::vector<std::string> &args, std::string &out, std::string &err)
{
    // Everything after "--" is the agent's command line, options included.
    const auto dashes = std::find(args.begin(), args.end(), "--");
    const std::vector<std::string> agent(dashes == args.end() ? dashes : dashes + 1, args.end());
    Output o{out, err, false};
    nlohmann::json params;
    std::vector<std::string> own;
    std::string error;
    if (!collectParams(std::vector<std::string>(args.begin(), dashes), params, own, error))
        return o.fail("record: " + error);
    const Args a = parseArgs(own, {{"--listen", "", true}, {"--upstream", "", true}, {"--output", "-o", true}, {"--strategy", "", true}, {"--dry-run", "", false}, {"--pin", "", true}, {"--exempt", "", true}});
    if (a.has("--help")) {
        out += commandHelp("record");
        return Exit::Success;
    }
    if (!a.error.empty())
        return o.fail("record: " + a.error);
    if (!a.positional.empty())
        return o.fail("record: unexpected argument '" + a.positional.front() + "' (the agent's command goes after --)");
    if (a.has("--json"))
        return o.fail("record: --json is not an option of record (the recording itself is JSON lines)");
    const auto output = a.value("--output");
    if (!output || output->empty())
        return o.fail("record: -o FILE is required (usage: contextlens-cli record [--listen 127.0.0.1:PORT] [--upstream URL] -o FILE [-- AGENT ARGS...])");
    if (dashes != args.end() && agent.empty())
        return o.fail("record: no agent command after --");
    std::string host;
    int port = 0;
    if (const auto listen = a.value("--listen"); listen && !parseListen(*listen, host, port))
        return o.fail("record: --listen wants HOST:PORT, e.g. 127.0.0.1:8080 (port 0: any free port)");
    if (!a.value("--listen"))
        host = "127.0.0.1";
    std::optional<wire::RewriteOptions> rewrite;
    if (const auto name = a.value("--strategy")) {
        wire::RewriteOptions r;
        r.strategy = *name;
        r.params = params;
        r.dryRun = a.has("--dry-run");
        if (!guardOptions(a, r.pinned, r.exemptTools, error) || !wire::RequestRewriter::check(r, error))
            return o.fail("record: " + error);
        rewrite = std::move(r);
    } else if (a.has("--dry-run") || !params.empty() || a.value("--pin") || a.value("--exempt")) {
        return o.fail("record: --dry-run, --param, --pin and --exempt go with --strategy NAME");
    }
    if (!runner())
        return o.fail("record: this build has no recording proxy (Qt Network)");
    return runner()(host, port, a.value("--upstream").value_or(""), *output, agent, rewrite);
}

} // namespace cl::cli
