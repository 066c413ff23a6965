// SPDX-License-Identifier: MIT
// `report` (a self-contained HTML or Markdown report of a session) and `export-markdown` (the
// transcript itself as Markdown, for sharing): core/report/report.h. Markdown is not a transcript
// format (nothing loads it back), so it is a command of its own rather than a `convert --to`, whose
// output is always loaded back and validated.
#include "cli/cli.h"

#include "cli/common.h"
#include "cli/redaction.h"
#include "core/report/markdownimages.h"
#include "core/report/report.h"
#include "core/strategies/registry.h"
#include "core/workflow/audit.h"

#include <cstdlib>

namespace cl::cli {

namespace {

// Writes bytes to OUT (atomically) or, for "-", to out; where the command's own report then goes.
// A report or Markdown is never written over the session it is made from, whatever the flags: it is
// not a transcript, and --force is for replacing an earlier report (issue 29, finding 3). The same
// file through a symbolic or hard link counts (device and inode).
std::string overInput(const std::string &command, const std::string &output, const std::string &input)
{
    if (output == "-" || input == "-" || !isSameFile(input, output))
        return {};
    return command + ": " + output + " is the session " + input + " itself; a " + (command == "report" ? "report" : "Markdown export")
           + " never replaces it: write it to another file";
}

// The options every sharing command has: --redact [--redact-patterns FILE], --no-remote-images.
void addSharingOptions(std::vector<OptionSpec> &specs)
{
    specs.insert(specs.end(), redactionOptions().begin(), redactionOptions().end());
    specs.push_back({"--no-remote-images", "", false});
}

// The Markdown as written: remote images made links with --redact or --no-remote-images.
std::string finishMarkdown(std::string markdown, const Args &a, const redact::Redactor *redactor, std::size_t &images)
{
    images = 0;
    if (!redactor && !a.has("--no-remote-images"))
        return markdown;
    return report::neutraliseRemoteImages(markdown, &images);
}

bool writeOutput(const std::string &path, const std::string &bytes, std::string &out, std::string &error)
{
    if (path == "-") {
        out += bytes;
        return true;
    }
    return writeFileAtomic(path, bytes, &error);
}

std::string formatWord(report::ReportFormat f)
{
    return f == report::ReportFormat::Html ? "html" : "markdown";
}

// "a,b" or "none" (no strategy); false with an error naming an unknown strategy.
bool strategyList(const std::string &list, std::vector<std::string> &names, std::string &error)
{
    if (list == "none")
        return true;
    std::size_t from = 0;
    while (from <= list.size()) {
        const std::size_t comma = std::min(list.find(',', from), list.size());
        const std::string n = list.substr(from, comma - from);
        if (!strategy::find(n)) {
            error = "unknown strategy '" + n + "' (see contextlens-cli strategies)";
            return false;
        }
        names.push_back(n);
        from = comma + 1;
    }
    return true;
}

} // namespace

int report(const std::vector<std::string> &args, std::string &out, std::string &err)
{
    nlohmann::json params;
    std::vector<std::string> rest;
    std::string paramError;
    const bool paramsOk = collectParams(args, params, rest, paramError);
    std::vector<OptionSpec> specs = {{"--as", "", true}, {"--output", "-o", true}, {"--force", "-f", false}, {"--to", "", true}, {"--strategies", "", true}, {"--preview", "", true}, {"--window", "", true}};
    addSharingOptions(specs);
    const Args a = parseArgs(rest, specs);
    Output o{out, err, a.has("--json")};
    if (a.has("--help")) {
        out += commandHelp("report");
        return Exit::Success;
    }
    if (!a.error.empty())
        return o.fail("report: " + a.error);
    if (!paramsOk)
        return o.fail("report: " + paramError);
    const auto outPath = a.value("--output");
    if (a.positional.size() != 1 || !outPath)
        return o.fail("report: usage: contextlens-cli report FILE -o OUT.html|OUT.md [--strategies a,b|none] [--preview NAME] [--force] [--json]");
    std::string error;
    std::optional<Format> as;
    if (const auto name = a.value("--as"); name && !(as = parseFormat(*name, error)))
        return o.fail(error);
    std::optional<report::ReportFormat> format;
    if (const auto to = a.value("--to")) {
        if (*to == "html")
            format = report::ReportFormat::Html;
        else if (*to == "markdown" || *to == "md")
            format = report::ReportFormat::Markdown;
        else
            return o.fail("report: --to html or markdown, not '" + *to + "'");
    } else {
        format = report::reportFormatForPath(*outPath);
        if (!format)
            return o.fail("report: cannot tell the report format from '" + *outPath + "' (name it .html or .md, or use --to html|markdown)");
    }
    report::ReportOptions ro;
    if (const auto list = a.value("--strategies")) {
        std::vector<std::string> names;
        if (!strategyList(*list, names, error))
            return o.fail("report: " + error);
        ro.strategies = std::move(names);
    }
    if (const auto preview = a.value("--preview")) {
        const strategy::Strategy *s = strategy::find(*preview);
        if (!s)
            return o.fail("report: unknown strategy '" + *preview + "' for --preview (see contextlens-cli strategies)");
        strategy::Params resolved;
        if (!strategy::resolveParams(s->params(), params, resolved, error))
            return o.fail("report: --preview " + *preview + ": " + error);
        ro.previewStrategy = *preview;
        ro.previewParams = params;
    } else if (!params.empty()) {
        return o.fail("report: --param is for the --preview strategy");
    }
    if (const auto w = a.value("--window")) {
        ro.contextWindow = std::atoll(w->c_str());
        if (ro.contextWindow <= 0)
            return o.fail("report: --window wants a positive token count, not " + *w);
    }
    const std::string &in = a.positional[0];
    if (const std::string why = overInput("report", *outPath, in); !why.empty())
        return o.fail(why);
    if (const std::string why = checkOutputPath(*outPath, in, a.has("--force")); !why.empty())
        return o.fail("report: " + why);
    std::unique_ptr<redact::Redactor> redactor;
    if (!redactorFromArgs(a, redactor, error))
        return o.fail("report: " + error);
    auto t = loadForCommand(in, as, error);
    if (!t)
        return o.fail(error);
    if (redactor)
        t = redact::redactedCopy(*t, *redactor);

    std::size_t images = 0;
    std::string bytes = report::renderReport(*t, ro, *format);
    if (*format == report::ReportFormat::Markdown)
        bytes = finishMarkdown(std::move(bytes), a, redactor.get(), images);
    if (!writeOutput(*outPath, bytes, out, error))
        return o.fail("report: cannot write " + error);
    std::string &said = *outPath == "-" ? err : out; // with the report on standard output, the rest goes to standard error
    const std::size_t compactions = audit::compactionBoundaries(*t).size();
    if (o.json) {
        said += ojson{{"input", in},
                      {"output", *outPath},
                      {"format", formatWord(*format)},
                      {"bytes", bytes.size()},
                      {"transcriptFormat", std::string(formatName(t->format))},
                      {"messages", t->messages.size()},
                      {"compactions", compactions},
                      {"strategies", ro.strategies ? ojson(*ro.strategies) : ojson("all")},
                      {"preview", ro.previewStrategy.empty() ? ojson(nullptr) : ojson(ro.previewStrategy)},
                      {"remoteImagesLinked", images},
                      {"redaction", redactor ? redactionJson(*redactor) : ojson(nullptr)}}
                    .dump(2, ' ', false, ojson::error_handler_t::replace)
                + "\n";
    } else {
        said += "wrote " + (*outPath == "-" ? std::string("(standard output)") : *outPath) + " (" + formatWord(*format) + " report, "
                + std::to_string(bytes.size()) + " bytes) of " + in + " (" + std::string(formatName(t->format)) + ", "
                + std::to_string(t->messages.size()) + " messages, " + std::to_string(compactions) + " compactions)\n";
        if (redactor)
            said += redactionText(*redactor);
        if (images)
            said += std::to_string(images) + " remote image(s) turned into links\n";
    }
    return Exit::Success;
}

int exportMarkdown(const std::vector<std::string> &args, std::string &out, std::string &err)
{
    std::vector<OptionSpec> specs = {{"--as", "", true}, {"--output", "-o", true}, {"--force", "-f", false}, {"--max-result-chars", "", true}, {"--no-thinking", "", false}, {"--no-history", "", false}, {"--no-sidechains", "", false}, {"--metadata", "", false}};
    addSharingOptions(specs);
    const Args a = parseArgs(args, specs);
    Output o{out, err, a.has("--json")};
    if (a.has("--help")) {
        out += commandHelp("export-markdown");
        return Exit::Success;
    }
    if (!a.error.empty())
        return o.fail("export-markdown: " + a.error);
    const auto outPath = a.value("--output");
    if (a.positional.size() != 1 || !outPath)
        return o.fail("export-markdown: usage: contextlens-cli export-markdown FILE -o OUT.md [--max-result-chars N] [--force] [--json]");
    std::string error;
    std::optional<Format> as;
    if (const auto name = a.value("--as"); name && !(as = parseFormat(*name, error)))
        return o.fail(error);
    report::MarkdownOptions mo;
    if (const auto n = a.value("--max-result-chars")) {
        const long long v = std::atoll(n->c_str());
        if (v <= 0)
            return o.fail("export-markdown: --max-result-chars wants a positive number, not " + *n);
        mo.maxResultChars = std::size_t(v);
    }
    mo.thinking = !a.has("--no-thinking");
    mo.history = !a.has("--no-history");
    mo.sidechains = !a.has("--no-sidechains");
    mo.metadata = a.has("--metadata");
    const std::string &in = a.positional[0];
    if (const std::string why = overInput("export-markdown", *outPath, in); !why.empty())
        return o.fail(why);
    if (const std::string why = checkOutputPath(*outPath, in, a.has("--force")); !why.empty())
        return o.fail("export-markdown: " + why);
    std::unique_ptr<redact::Redactor> redactor;
    if (!redactorFromArgs(a, redactor, error))
        return o.fail("export-markdown: " + error);
    auto t = loadForCommand(in, as, error);
    if (!t)
        return o.fail(error);
    if (redactor)
        t = redact::redactedCopy(*t, *redactor);
    std::size_t images = 0;
    const std::string bytes = finishMarkdown(report::markdownTranscript(*t, mo), a, redactor.get(), images);
    if (!writeOutput(*outPath, bytes, out, error))
        return o.fail("export-markdown: cannot write " + error);
    std::size_t included = 0;
    for (const Message &m : t->messages)
        included += report::includedInMarkdown(m, mo);
    std::string &said = *outPath == "-" ? err : out;
    if (o.json) {
        said += ojson{{"input", in},
                      {"output", *outPath},
                      {"format", "markdown"},
                      {"bytes", bytes.size()},
                      {"transcriptFormat", std::string(formatName(t->format))},
                      {"messages", included},
                      {"remoteImagesLinked", images},
                      {"redaction", redactor ? redactionJson(*redactor) : ojson(nullptr)}}
                    .dump(2, ' ', false, ojson::error_handler_t::replace)
                + "\n";
    } else {
        said += "wrote " + (*outPath == "-" ? std::string("(standard output)") : *outPath) + " (markdown, " + std::to_string(bytes.size())
                + " bytes, " + std::to_string(included) + " messages) from " + in + " (" + std::string(formatName(t->format)) + ")\n";
        if (redactor)
            said += redactionText(*redactor);
        if (images)
            said += std::to_string(images) + " remote image(s) turned into links\n";
    }
    return Exit::Success;
}

} // namespace cl::cli
