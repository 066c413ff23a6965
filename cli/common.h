// SPDX-License-Identifier: MIT
#pragma once

// Argument parsing and output helpers shared by the CLI commands.

#include "core/model/format.h"
#include "core/io/loader.h"
#include "core/io/validity.h"
#include "core/io/writer.h"
#include "core/tokens/contextfigure.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cl::strategy {
class Strategy;
}

namespace cl::cli {

using ojson = nlohmann::ordered_json;

struct Args {
    std::vector<std::string> positional;
    std::map<std::string, std::string> values; // options that take a value, by their long name
    std::set<std::string> flags;
    std::string error; // set on bad usage
    bool has(const std::string &flag) const { return flags.count(flag) != 0; }
    std::optional<std::string> value(const std::string &name) const;
};

struct OptionSpec {
    std::string name;  // "--to"
    std::string alias; // "-o" or ""
    bool takesValue = false;
};

// "--opt value", "--opt=value", "-o value"; "--json" and "--help" are always accepted.
Args parseArgs(const std::vector<std::string> &args, const std::vector<OptionSpec> &specs);

// Where a command writes: text or JSON on out, messages on err.
struct Output {
    std::string &out;
    std::string &err;
    bool json = false;
    // Reports a failure (as {"error": ...} on out in JSON mode) and returns Exit::Failure.
    int fail(const std::string &message);
    void print(const ojson &j) { out += j.dump(2, ' ', false, ojson::error_handler_t::replace) + "\n"; }
};

std::string formatList(); // "claude-code, codex, ..."
// Parses a --as / --to / --format value; sets error when the name is unknown.
std::optional<Format> parseFormat(const std::string &name, std::string &error);

// What an agent hands a command on standard input (statusline, hook), or --input FILE's bytes; false
// with error when FILE cannot be read.
bool readAgentInput(const Args &a, std::string &out, std::string &error);

// Loads a file for a command; on failure returns null with error naming the file.
std::shared_ptr<Transcript> loadForCommand(const std::string &path, std::optional<Format> as, std::string &error);
// How this run counts the live context (--estimator, any command; tokens/contextfigure.h).
tokens::Estimator commandEstimator();

std::size_t countIssues(const Transcript &t); // diagnostics of severity warning or error
ojson diagnosticsJson(const Transcript &t);
std::string diagnosticsText(const Transcript &t); // "severity: file:line: message" lines
ojson violationsJson(const std::vector<Violation> &violations);
std::string violationText(const std::string &file, const Violation &v); // "file: message N: reason"
std::string severityName(Diagnostic::Severity s);

std::string commandHelp(const std::string &command);

// Standard output as a descriptor when the CLI runs as a program (run(argc, argv, ...) sets it), so
// that a transcript written to "-" streams there; -1 in-process (tests), where it goes to `out`.
void setStdoutDescriptor(int fd);

// Why -o OUTPUT cannot be written (empty when it can): empty name, a directory, the input itself or
// an existing file without --force. "-" is standard output.
// (compact saves over its input in place, with a backup: core/io/saveinplace.h.)
std::string checkOutputPath(const std::string &output, const std::string &input, bool force);
// The same file (also through links or another spelling of the path).
bool isSameFile(const std::string &a, const std::string &b);

// A transcript written by `write` to OUTPUT (a file, atomically, or "-"), then loaded back as
// `target` and validated with the rules `validate` uses. `release` runs between the two, so that the
// input can be freed before its output is loaded (peak memory). cli/write.cpp.
struct Written {
    bool ok = false;                   // written
    std::string error;                 // why not
    WriteResult write;                 // notes and size
    std::vector<Violation> violations; // of the written bytes
};
Written writeChecked(const std::string &output, Format target, const std::function<WriteResult(ByteSink &)> &write,
                     const std::function<void()> &release, std::string &out);

// Strategy parameters: --param NAME=VALUE / -p / --param=NAME=VALUE may repeat (parseArgs keeps one
// value per option); they go to params, every other argument to rest (cli/strategy.cpp).
bool collectParams(const std::vector<std::string> &args, nlohmann::json &params, std::vector<std::string> &rest,
                   std::string &error);
// The strategy named by --strategy; null with error ("<command> needs --strategy NAME" / "unknown
// strategy 'x'") when it is missing or unknown (cli/strategy.cpp).
// --pin I,J (transcript indices) and --exempt TOOL,TOOL; false with an error naming a bad index.
bool guardOptions(const Args &a, std::vector<std::size_t> &pinned, std::vector<std::string> &exempt, std::string &error);
const strategy::Strategy *strategyOption(const Args &a, const std::string &command, std::string &error);

} // namespace cl::cli
