// SPDX-License-Identifier: MIT
// `validate` and `convert`: both end in a list of validity violations.
#include "core/cli/cli.h"

#include "core/cli/cli_common.h"
#include "core/validity.h"
#include "core/writer.h"

#include <filesystem>
#include <system_error>

namespace cl::cli {

namespace {

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

bool sameFile(const std::string &a, const std::string &b)
{
    std::error_code ec;
    if (std::filesystem::equivalent(a, b, ec))
        return true;
    const auto ca = std::filesystem::weakly_canonical(a, ec);
    const auto cb = std::filesystem::weakly_canonical(b, ec);
    return !ec && ca == cb;
}

} // namespace

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
        o.print(ojson{{"path", path}, {"format", std::string(formatName(rules))}, {"messages", t->messages.size()},
            {"valid", violations.empty()}, {"violations", violationsJson(violations)}, {"diagnostics", diagnosticsJson(*t)}});
    } else {
        out += diagnosticsText(*t);
        for (const auto &v : violations)
            out += violationText(path, v);
        out += path + ": " + (violations.empty() ? "valid as " + std::string(formatName(rules))
                                                 : std::to_string(violations.size()) + " violation(s) of " + std::string(formatName(rules)) + " rules")
            + (issues ? " (" + std::to_string(issues) + " load diagnostic(s))" : std::string()) + "\n";
    }
    return violations.empty() && !issues ? Exit::Success : Exit::Issues;
}

int convert(const std::vector<std::string> &args, std::string &out, std::string &err)
{
    const Args a = parseArgs(args, {{"--as", "", true}, {"--to", "", true}, {"--output", "-o", true}, {"--force", "-f", false}});
    Output o{out, err, a.has("--json")};
    if (a.has("--help")) {
        out += commandHelp("convert");
        return Exit::Success;
    }
    if (!a.error.empty())
        return o.fail("convert: " + a.error);
    const auto toName = a.value("--to");
    const auto outPath = a.value("--output");
    if (a.positional.size() != 1 || !toName || !outPath || outPath->empty())
        return o.fail("convert: usage: contextlens-cli convert FILE --to FORMAT -o OUT [--as FORMAT] [--force] [--json]");
    std::string error;
    const auto to = parseFormat(*toName, error);
    if (!to)
        return o.fail(error);
    std::optional<Format> as;
    if (const auto name = a.value("--as"); name && !(as = parseFormat(*name, error)))
        return o.fail(error);
    const std::string &in = a.positional[0];
    const bool force = a.has("--force");
    if (sameFile(in, *outPath) && !force)
        return o.fail(*outPath + ": is the input file; refusing to overwrite it (use --force)");
    std::error_code ec;
    if (std::filesystem::exists(*outPath, ec) && !force)
        return o.fail(*outPath + ": already exists; refusing to overwrite it (use --force)");

    const auto t = loadForCommand(in, as, error);
    if (!t)
        return o.fail(error);
    WriteResult w = writeTranscript(*t, *to);
    if (!w.ok)
        return o.fail(in + ": cannot write as " + std::string(formatName(*to)) + ": " + w.error);
    if (!writeFileAtomic(*outPath, w.bytes, &error))
        return o.fail(error);

    // Check what was actually written, in the shape it has in the target format.
    std::vector<Violation> violations;
    const bool checked = isApiFormat(*to);
    if (checked) {
        LoadOptions lo;
        lo.format = *to;
        lo.loadSubagents = false;
        const LoadResult back = loadBytes(w.bytes, *outPath, lo);
        if (back.ok())
            violations = cl::validate(*back.transcript, *to);
        else
            violations.push_back({-1, "written output does not load back: " + back.error});
    }
    const std::size_t issues = countIssues(*t);
    if (o.json) {
        ojson notes = ojson::array();
        for (const auto &n : w.notes)
            notes.push_back(n);
        o.print(ojson{{"input", in}, {"output", *outPath}, {"from", std::string(formatName(t->format))},
            {"to", std::string(formatName(*to))}, {"bytes", w.bytes.size()}, {"notes", notes}, {"validated", checked},
            {"valid", violations.empty()}, {"violations", violationsJson(violations)}, {"diagnostics", diagnosticsJson(*t)}});
    } else {
        out += diagnosticsText(*t);
        out += "wrote " + *outPath + " (" + std::string(formatName(*to)) + ", " + std::to_string(w.bytes.size()) + " bytes) from "
            + in + " (" + std::string(formatName(t->format)) + ")\n";
        for (const auto &n : w.notes)
            out += "note: " + n + "\n";
        for (const auto &v : violations)
            out += violationText(*outPath, v);
        if (checked)
            out += *outPath + ": " + (violations.empty() ? std::string("valid as ") + std::string(formatName(*to))
                                                         : std::to_string(violations.size()) + " violation(s)") + "\n";
    }
    return violations.empty() && !issues ? Exit::Success : Exit::Issues;
}

} // namespace cl::cli
