// SPDX-License-Identifier: MIT
// `validate` and `convert`: both end in a list of validity violations.
#include "cli/cli.h"

#include "cli/common.h"
#include "cli/redaction.h"
#include "core/io/validity.h"
#include "core/io/writer.h"

namespace cl::cli {

ojson violationsJson(const std::vector<Violation> &violations)
{
    ojson list = ojson::array();
    for (const auto &v : violations)
        list.push_back(ojson{{"message", v.message}, {"reason", v.reason}});
    return list;
}

std::string violationText(const std::string &file, const Violation &v)
{
    return file + ": " + (v.message < 0 ? std::string("request") : "message " + std::to_string(v.message)) + ": " + v.reason + "\n";
}

std::string diagnosticsText(const Transcript &t)
{
    std::string s;
    for (const auto &d : diagnosticsJson(t))
        s += d["severity"].get<std::string>() + ": " + d["text"].get<std::string>() + "\n";
    return s;
}

int validate(const std::vector<std::string> &args, std::string &out, std::string &err)
{
    const Args a = parseArgs(args, {{"--as", "", true}});
    Output o{out, err, a.has("--json")};
    if (a.has("--help")) {
        out += commandHelp("validate");
        return Exit::Success;
    }
    if (!a.error.empty())
        return o.fail("validate: " + a.error);
    if (a.positional.size() != 1)
        return o.fail("validate: expected one FILE (usage: contextlens-cli validate FILE [--as FORMAT] [--json])");
    std::optional<Format> as;
    std::string error;
    if (const auto name = a.value("--as"); name && !(as = parseFormat(*name, error)))
        return o.fail(error);
    const std::string &path = a.positional[0];
    const auto t = loadForCommand(path, as, error);
    if (!t)
        return o.fail(error);
    const Format rules = as.value_or(t->format);
    const auto violations = cl::validate(*t, rules);
    const std::size_t issues = countIssues(*t);
    if (o.json) {
        // clang-format off
        o.print(ojson{{"path", path}, {"format", std::string(formatName(rules))}, {"messages", t->messages.size()},
            {"valid", violations.empty()}, {"violations", violationsJson(violations)}, {"diagnostics", diagnosticsJson(*t)}});
        // clang-format on
    } else {
        out += diagnosticsText(*t);
        for (const auto &v : violations)
            out += violationText(path, v);
        out += path + ": " + (violations.empty() ? "valid as " + std::string(formatName(rules)) : std::to_string(violations.size()) + " violation(s) of " + std::string(formatName(rules)) + " rules")
               + (issues ? " (" + std::to_string(issues) + " load diagnostic(s))" : std::string()) + "\n";
    }
    return violations.empty() && !issues ? Exit::Success : Exit::Issues;
}

int convert(const std::vector<std::string> &args, std::string &out, std::string &err)
{
    std::vector<OptionSpec> specs = {{"--as", "", true}, {"--to", "", true}, {"--output", "-o", true}, {"--force", "-f", false}};
    specs.insert(specs.end(), redactionOptions().begin(), redactionOptions().end());
    const Args a = parseArgs(args, specs);
    Output o{out, err, a.has("--json")};
    if (a.has("--help")) {
        out += commandHelp("convert");
        return Exit::Success;
    }
    if (!a.error.empty())
        return o.fail("convert: " + a.error);
    const auto toName = a.value("--to");
    const auto outPath = a.value("--output");
    if (a.positional.size() != 1 || !toName || !outPath)
        return o.fail("convert: usage: contextlens-cli convert FILE --to FORMAT -o OUT [--as FORMAT] [--force] [--json]");
    std::string error;
    const auto to = parseFormat(*toName, error);
    if (!to)
        return o.fail(error);
    std::optional<Format> as;
    if (const auto name = a.value("--as"); name && !(as = parseFormat(*name, error)))
        return o.fail(error);
    const std::string &in = a.positional[0];
    if (const std::string why = checkOutputPath(*outPath, in, a.has("--force")); !why.empty())
        return o.fail("convert: " + why);
    const bool toStdout = *outPath == "-";
    std::unique_ptr<redact::Redactor> redactor;
    if (!redactorFromArgs(a, redactor, error))
        return o.fail("convert: " + error);

    auto t = loadForCommand(in, as, error);
    if (!t)
        return o.fail(error);
    // An input that breaks its own format's rules is said to be so: its conversion carries them over.
    const Format from = t->format;
    const std::vector<Violation> inputViolations = cl::validate(*t, from);
    const std::size_t issues = countIssues(*t);
    const ojson diagnostics = diagnosticsJson(*t);
    const std::string diagnosticLines = diagnosticsText(*t);
    const Written w = writeChecked(
        *outPath, *to, redactingWrite([&](ByteSink &sink) { return writeTranscript(*t, *to, sink); }, redactor.get()), [&] { t.reset(); }, out);
    if (!w.ok)
        return o.fail(in + ": cannot write as " + std::string(formatName(*to)) + ": " + w.error);

    const std::string shownOut = toStdout ? std::string("(standard output)") : *outPath;
    // With the transcript on standard output, the report goes to standard error.
    std::string &report = toStdout ? err : out;
    if (o.json) {
        ojson notes = ojson::array();
        for (const auto &n : w.write.notes)
            notes.push_back(n);
        // clang-format off
        ojson j{{"input", in}, {"output", *outPath}, {"from", std::string(formatName(from))},
            {"to", std::string(formatName(*to))}, {"bytes", w.write.size}, {"notes", notes}, {"validated", true},
            {"valid", w.violations.empty()}, {"violations", violationsJson(w.violations)},
            {"inputValid", inputViolations.empty()}, {"inputViolations", violationsJson(inputViolations)},
            {"diagnostics", diagnostics}};
        // clang-format on
        if (redactor)
            j["redaction"] = redactionJson(*redactor);
        report += j.dump(2, ' ', false, ojson::error_handler_t::replace) + "\n";
    } else {
        report += diagnosticLines;
        for (const auto &v : inputViolations)
            report += violationText(in, v);
        if (!inputViolations.empty())
            report += in + ": not valid as " + std::string(formatName(from)) + " (" + std::to_string(inputViolations.size())
                      + " violation(s)); the conversion carries them over\n";
        report += "wrote " + shownOut + " (" + std::string(formatName(*to)) + ", " + std::to_string(w.write.size) + " bytes) from "
                  + in + " (" + std::string(formatName(from)) + ")\n";
        if (redactor)
            report += redactionText(*redactor);
        for (const auto &n : w.write.notes)
            report += "note: " + n + "\n";
        for (const auto &v : w.violations)
            report += violationText(shownOut, v);
        // clang-format off
        report += shownOut + ": " + (w.violations.empty() ? std::string("valid as ") + std::string(formatName(*to))
                                                          : std::to_string(w.violations.size()) + " violation(s) of " + std::string(formatName(*to)) + " rules") + "\n";
        // clang-format on
    }
    return w.violations.empty() && inputViolations.empty() && !issues ? Exit::Success : Exit::Issues;
}

} // namespace cl::cli
