// SPDX-License-Identifier: MIT
#pragma once

// contextlens-cli: inspect, validate, convert and generate transcripts from a terminal or a script.
// Every command is a plain function from arguments to an exit code plus text, so the tests run them
// in-process. Exit codes: 0 success; 1 loaded or validated, but with diagnostics or violations;
// 2 failure (unreadable file, unknown format, bad usage, write error).

#include "core/workflow/requestrewrite.h"

#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cl::cli {

constexpr const char *kVersion = "0.1.0";

enum Exit : int {
    Success = 0,
    Issues = 1,
    Failure = 2
};

// args: everything after the program name. Output goes to out (results) and err (messages).
int run(const std::vector<std::string> &args, std::string &out, std::string &err);
int run(int argc, char **argv, std::FILE *out, std::FILE *err);

// The commands; args start after the command name.
int info(const std::vector<std::string> &args, std::string &out, std::string &err);
int validate(const std::vector<std::string> &args, std::string &out, std::string &err);
int convert(const std::vector<std::string> &args, std::string &out, std::string &err);
int generate(const std::vector<std::string> &args, std::string &out, std::string &err);
int analyze(const std::vector<std::string> &args, std::string &out, std::string &err);    // cli/analyze.cpp
int tokens(const std::vector<std::string> &args, std::string &out, std::string &err);     // cli/tokens.cpp
int strategies(const std::vector<std::string> &args, std::string &out, std::string &err); // cli/strategy.cpp
int compact(const std::vector<std::string> &args, std::string &out, std::string &err);
int compare(const std::vector<std::string> &args, std::string &out, std::string &err);
int simulate(const std::vector<std::string> &args, std::string &out, std::string &err);       // cli/simulate.cpp
int context(const std::vector<std::string> &args, std::string &out, std::string &err);        // cli/context.cpp
int audit(const std::vector<std::string> &args, std::string &out, std::string &err);          // cli/audit.cpp
int backupsCommand(const std::vector<std::string> &args, std::string &out, std::string &err); // cli/backups.cpp
int sessions(const std::vector<std::string> &args, std::string &out, std::string &err);       // cli/sessions.cpp
int report(const std::vector<std::string> &args, std::string &out, std::string &err);         // cli/report.cpp
int exportMarkdown(const std::vector<std::string> &args, std::string &out, std::string &err); // cli/report.cpp
int costCommand(const std::vector<std::string> &args, std::string &out, std::string &err);    // cli/cost.cpp
int watch(const std::vector<std::string> &args, std::string &out, std::string &err);          // cli/watch.cpp
int record(const std::vector<std::string> &args, std::string &out, std::string &err);         // cli/record.cpp
int requests(const std::vector<std::string> &args, std::string &out, std::string &err);       // cli/requests.cpp
int statusline(const std::vector<std::string> &args, std::string &out, std::string &err);     // cli/statusline.cpp
int hook(const std::vector<std::string> &args, std::string &out, std::string &err);           // cli/hook.cpp
int setup(const std::vector<std::string> &args, std::string &out, std::string &err);          // cli/setup.cpp

// The recording proxy of `record` (net/recordsession.h), registered by the program: (host, port,
// upstream URL or "", output file, agent command line or none) -> exit code.
using RecordRunner = std::function<int(const std::string &host, int port, const std::string &upstream, const std::string &output,
                                       const std::vector<std::string> &agent, const std::optional<wire::RewriteOptions> &rewrite)>;
void setRecordRunner(RecordRunner runner);

std::string helpText();

} // namespace cl::cli
