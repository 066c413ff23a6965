// SPDX-License-Identifier: MIT
// Command dispatch and the helpers every command shares (the help texts: cli/help.cpp).
#include "cli/cli.h"

#include "cli/common.h"
#include "core/io/recordedrequest.h"
#include "core/util/terminaltext.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <set>
#include <sstream>
#include <string_view>
#include <sys/stat.h>

namespace cl::cli {

std::optional<std::string> Args::value(const std::string &name) const
{
    const auto it = values.find(name);
    if (it == values.end())
        return std::nullopt;
    return it->second;
}

Args parseArgs(const std::vector<std::string> &args, const std::vector<OptionSpec> &specs)
{
    Args a;
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string arg = args[i];
        if (arg.size() < 2 || arg[0] != '-' || arg == "--") {
            a.positional.push_back(arg);
            continue;
        }
        std::optional<std::string> inlineValue;
        if (const auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
            inlineValue = arg.substr(eq + 1);
            arg.resize(eq);
        }
        if (arg == "--json" || arg == "--help" || arg == "-h") {
            a.flags.insert(arg == "-h" ? "--help" : arg);
            continue;
        }
        const OptionSpec *spec = nullptr;
        for (const auto &s : specs)
            if (arg == s.name || (!s.alias.empty() && arg == s.alias))
                spec = &s;
        if (!spec) {
            a.error = "unknown option " + arg;
            return a;
        }
        if (!spec->takesValue) {
            a.flags.insert(spec->name);
            continue;
        }
        if (inlineValue) {
            a.values[spec->name] = *inlineValue;
        } else if (i + 1 < args.size()) {
            a.values[spec->name] = args[++i];
        } else {
            a.error = "option " + arg + " needs a value";
            return a;
        }
    }
    return a;
}

int Output::fail(const std::string &message)
{
    if (json)
        print(ojson{{"error", message}});
    err += "contextlens-cli: " + message + "\n";
    return Exit::Failure;
}

std::string formatList()
{
    std::string s;
    for (Format f : allFormats()) {
        if (!s.empty())
            s += ", ";
        s += formatName(f);
    }
    return s;
}

std::optional<Format> parseFormat(const std::string &name, std::string &error)
{
    const auto f = formatFromName(name);
    if (!f || *f == Format::Unknown) {
        error = "unknown format '" + name + "' (one of: " + formatList() + ")";
        return std::nullopt;
    }
    return f;
}

namespace {
bool g_wholeHistory = false;                                   // --whole-history, for every command of this run
tokens::Estimator g_estimator = tokens::Estimator::Calibrated; // --estimator, likewise
} // namespace

tokens::Estimator commandEstimator()
{
    return g_estimator;
}

bool readAgentInput(const Args &a, std::string &out, std::string &error)
{
    if (const auto input = a.value("--input")) {
        std::ifstream in(*input, std::ios::binary);
        if (!in) {
            error = "cannot read " + *input;
            return false;
        }
        std::stringstream ss;
        ss << in.rdbuf();
        out = ss.str();
        return true;
    }
    out.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    return true;
}

std::shared_ptr<Transcript> loadForCommand(const std::string &path, std::optional<Format> as, std::string &error)
{
    struct stat st = {};
    // "-": standard input; "recording.jsonl#N": request N of a recording (core/io/recordedrequest.h).
    const auto request = path != "-" && ::stat(path.c_str(), &st) != 0 ? splitRequestPath(path) : std::nullopt;
    if (path != "-" && ::stat(request ? request->file.c_str() : path.c_str(), &st) != 0) {
        error = path + ": no such file";
        return nullptr;
    }
    if (path != "-" && S_ISDIR(st.st_mode)) {
        error = path + ": is a directory";
        return nullptr;
    }
    LoadOptions opts;
    opts.format = as;
    opts.wholeHistory = g_wholeHistory;
    LoadResult r = loadFile(path, opts);
    if (!r.ok()) {
        error = r.error.empty() ? path + ": cannot load" : r.error;
        return nullptr;
    }
    if (r.transcript->format == Format::Unknown) {
        // Say why when the loader knows (binary, UTF-32, empty), not only that detection failed.
        std::string why;
        for (const auto &d : r.transcript->diagnostics)
            if (d.line == 0 && d.severity != Diagnostic::Severity::Info)
                why += (why.empty() ? "" : "; ") + d.message;
        error = r.transcript->path + ": " + (why.empty() ? std::string("cannot detect the transcript format") : why)
                + " (use --as FORMAT; one of: " + formatList() + ")";
        return nullptr;
    }
    return r.transcript;
}

std::string severityName(Diagnostic::Severity s)
{
    switch (s) {
    case Diagnostic::Severity::Info: return "info";
    case Diagnostic::Severity::Warning: return "warning";
    case Diagnostic::Severity::Error: return "error";
    }
    return "warning";
}

namespace {

template <typename F>
void forEachDiagnostic(const Transcript &t, F f)
{
    for (const auto &d : t.diagnostics)
        f(d);
    for (const auto &sub : t.subagents)
        if (sub)
            for (const auto &d : sub->diagnostics)
                f(d);
}

} // namespace

std::size_t countIssues(const Transcript &t)
{
    std::size_t n = 0;
    forEachDiagnostic(t, [&n](const Diagnostic &d) { n += d.severity != Diagnostic::Severity::Info; });
    return n;
}

ojson diagnosticsJson(const Transcript &t)
{
    ojson list = ojson::array();
    forEachDiagnostic(t, [&list](const Diagnostic &d) {
        list.push_back(ojson{{"file", d.file}, {"line", d.line}, {"severity", severityName(d.severity)}, {"message", d.message}, {"text", d.toString()}});
    });
    return list;
}

namespace {

int runCommand(const std::vector<std::string> &args, std::string &out, std::string &err)
{
    if (args.empty()) {
        err += helpText();
        return Exit::Failure;
    }
    const std::string &cmd = args.front();
    // --whole-history: every message counts, history before the last compaction included.
    // --estimator seed|calibrated|exact: how the live context is counted.
    std::vector<std::string> rest;
    g_wholeHistory = false;
    g_estimator = tokens::Estimator::Calibrated;
    for (auto it = args.begin() + 1; it != args.end(); ++it)
        if (*it == "--" && cmd == "record") { // the agent's own command line follows, untouched
            rest.insert(rest.end(), it, args.end());
            break;
        } else if (*it == "--whole-history") {
            g_wholeHistory = true;
        } else if (*it == "--estimator") {
            const auto e = it + 1 != args.end() ? tokens::parseEstimator(*(it + 1)) : std::nullopt;
            if (!e) {
                err += "--estimator: expected seed, calibrated or exact\n";
                return Exit::Failure;
            }
            g_estimator = *e;
            ++it;
        } else {
            rest.push_back(*it);
        }
    bool json = false;
    for (const auto &a : rest) {
        if (a == "--" && cmd == "record")
            break;
        json = json || a == "--json";
    }
    if (cmd == "--version" || cmd == "version") {
        if (json)
            out += ojson{{"version", kVersion}}.dump() + "\n";
        else
            out += "contextlens-cli " + std::string(kVersion) + "\n";
        return Exit::Success;
    }
    if (cmd == "help" || cmd == "--help" || cmd == "-h") {
        std::string topic;
        for (const auto &a : rest)
            if (a != "--json")
                topic = a;
        const std::string text = topic.empty() ? helpText() : commandHelp(topic);
        if (json) {
            ojson codes{{"0", "success"}, {"1", "loaded or validated, but with diagnostics or violations"}, {"2", "failure: unreadable file, unknown format, bad usage, write error"}};
            ojson formats = ojson::array();
            for (Format f : allFormats())
                formats.push_back(std::string(formatName(f)));
            // clang-format off
            out += ojson{{"version", kVersion}, {"commands", {"info", "validate", "convert", "generate", "analyze", "tokens", "strategies", "compact", "compare", "simulate", "context", "audit", "backups", "sessions", "report", "export-markdown", "cost", "watch", "record", "requests", "statusline", "hook", "setup", "help"}},
                {"formats", formats}, {"exitCodes", codes}, {"help", text}}.dump(2) + "\n";
            // clang-format on
        } else {
            out += text;
        }
        return Exit::Success;
    }
    if (cmd == "info")
        return info(rest, out, err);
    if (cmd == "validate")
        return validate(rest, out, err);
    if (cmd == "convert")
        return convert(rest, out, err);
    if (cmd == "generate")
        return generate(rest, out, err);
    if (cmd == "analyze")
        return analyze(rest, out, err);
    if (cmd == "tokens")
        return tokens(rest, out, err);
    if (cmd == "strategies")
        return strategies(rest, out, err);
    if (cmd == "compact")
        return compact(rest, out, err);
    if (cmd == "compare")
        return compare(rest, out, err);
    if (cmd == "simulate")
        return simulate(rest, out, err);
    if (cmd == "context")
        return context(rest, out, err);
    if (cmd == "audit")
        return audit(rest, out, err);
    if (cmd == "backups")
        return backupsCommand(rest, out, err);
    if (cmd == "sessions")
        return sessions(rest, out, err);
    if (cmd == "report")
        return report(rest, out, err);
    if (cmd == "export-markdown")
        return exportMarkdown(rest, out, err);
    if (cmd == "cost")
        return costCommand(rest, out, err);
    if (cmd == "watch")
        return watch(rest, out, err);
    if (cmd == "record")
        return record(rest, out, err);
    if (cmd == "requests")
        return requests(rest, out, err);
    if (cmd == "statusline")
        return statusline(rest, out, err);
    if (cmd == "hook")
        return hook(rest, out, err);
    if (cmd == "setup")
        return setup(rest, out, err);
    Output o{out, err, json};
    return o.fail("unknown command '" + cmd + "' (try: contextlens-cli help)");
}

// Commands whose standard output is a report for a person, never a transcript written to "-".
bool isReportCommand(const std::string &cmd)
{
    static const std::set<std::string> reports = {"info", "validate", "analyze", "tokens", "strategies", "compare",
                                                  "simulate", "context", "audit", "backups", "sessions", "cost", "requests"};
    return reports.count(cmd) != 0;
}

// C0 control characters other than line breaks: never raw in JSON as the commands write it (DEL
// and C1 are, which jsonTerminalSafe escapes).
bool hasRawControls(std::string_view text)
{
    for (const char c : text)
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t')
            return true;
    return false;
}

} // namespace

// Transcripts may hold terminal control sequences (ESC[2J clears the screen, OSC sets the window
// title): what a report command prints, and every message, is made terminal-safe (core/util/
// terminaltext.h). JSON keeps its meaning: only DEL and C1, which JSON lets through raw, become \u
// escapes there.
int run(const std::vector<std::string> &args, std::string &out, std::string &err)
{
    const std::size_t errFrom = err.size();
    int code = 0;
    if (!args.empty() && isReportCommand(args.front())) {
        std::string report;
        code = runCommand(args, report, err);
        const bool json = std::find(args.begin(), args.end(), "--json") != args.end();
        out += json && !hasRawControls(report) ? util::jsonTerminalSafe(report) : util::terminalSafe(report);
    } else {
        code = runCommand(args, out, err);
    }
    if (!util::isTerminalSafe(std::string_view(err).substr(errFrom)))
        err.replace(errFrom, std::string::npos, util::terminalSafe(std::string_view(err).substr(errFrom)));
    return code;
}

int run(int argc, char **argv, std::FILE *out, std::FILE *err)
{
    std::vector<std::string> args;
    for (int i = 1; i < argc; ++i)
        args.emplace_back(argv[i]);
    std::string o, e;
    std::fflush(out);
    setStdoutDescriptor(::fileno(out)); // a transcript written to "-" streams there
    int code = run(args, o, e);
    setStdoutDescriptor(-1);
    // A full disk or a closed pipe on standard output is a failure, not a success with nothing shown.
    const bool written = std::fwrite(o.data(), 1, o.size(), out) == o.size();
    if ((!written || std::fflush(out) != 0 || std::ferror(out)) && code != Exit::Failure) {
        e += "contextlens-cli: cannot write to standard output: " + std::string(std::strerror(errno)) + "\n";
        code = Exit::Failure;
    }
    std::fwrite(e.data(), 1, e.size(), err);
    std::fflush(err);
    return code;
}

} // namespace cl::cli
