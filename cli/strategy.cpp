// SPDX-License-Identifier: MIT
// `strategies`, `compact` and `compare`: the strategy engine from the command line. Parameter flags
// come from each strategy's ParamSpec list, the same data the GUI builds its forms from.
#include "cli/cli.h"
#include "cli/common.h"
#include "cli/redaction.h"
#include "cli/cost.h"
#include "cli/summarizer.h"
#include "core/io/saveinplace.h"
#include "core/workflow/compare.h"
#include "core/io/export.h"
#include "core/strategy/strategy.h"
#include "core/strategies/registry.h"
#include "core/util/json.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cl::cli {

namespace {

using namespace cl::strategy;

double round4(double v) { return std::round(v * 10000) / 10000; }

std::string percent(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %%", v * 100);
    return buf;
}

ojson specJson(const ParamSpec &s)
{
    ojson j{{"name", s.name}, {"type", std::string(paramTypeName(s.type))}, {"default", ojson::parse(s.defaultValue.dump())}, {"help", s.help}};
    if (s.min != s.max)
        j["range"] = ojson::array({s.min, s.max});
    if (!s.choices.empty())
        j["choices"] = s.choices;
    return j;
}

ojson statsJson(const Stats &s)
{
    ojson fates = ojson::object();
    for (std::size_t f = 0; f < kFateCount; ++f)
        if (s.fateCounts[f])
            fates[std::string(fateName(static_cast<Fate>(f)))] = s.fateCounts[f];
    // clang-format off
    return ojson{{"messagesBefore", s.messagesBefore}, {"messagesAfter", s.messagesAfter},
        {"liveBefore", s.liveBefore}, {"liveAfter", s.liveAfter}, {"liveReduction", round4(s.liveReduction)},
        {"tokensBefore", s.tokensBefore}, {"tokensAfter", s.tokensAfter}, {"reduction", round4(s.reduction)},
        {"efficiency", round4(s.efficiency)}, {"factsTotal", s.factsTotal}, {"factsKept", s.factsKept},
        {"factRetention", round4(s.factRetention)}, {"cachePrefixTokens", s.cachePrefixTokens},
        {"cachePrefixShare", round4(s.cachePrefixShare)}, {"millis", round4(s.millis)}, {"fates", fates}};
    // clang-format on
}

ojson violationsJson(const Result &r)
{
    ojson a = ojson::array();
    for (const auto &v : r.violations)
        a.push_back(ojson{{"message", v.message}, {"reason", v.reason}});
    return a;
}

// "a,b,,c" -> {a, b, c}: --exempt, --pin and --only take comma-separated lists.
std::vector<std::string> splitList(const std::string &s)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= s.size()) {
        const auto comma = s.find(',', start);
        std::string item = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!item.empty())
            out.push_back(std::move(item));
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return out;
}

bool applyCommon(const Args &a, Input &in, std::string &error)
{
    in.options.estimator = commandEstimator();
    if (auto w = a.value("--window"))
        in.options.contextWindow = std::max<std::int64_t>(0, std::atoll(w->c_str()));
    return guardOptions(a, in.pinned, in.exemptTools, error);
}

// " [model $0.0012]" for a row whose summaries a model wrote ("" otherwise).
std::string modelCostText(const Result &r)
{
    const nlohmann::json *cost = r.extra.is_object() ? json::child(r.extra, "modelCost") : nullptr;
    if (!cost)
        return {};
    char buf[64] = " [model, cost unknown]";
    if (cost->is_number())
        std::snprintf(buf, sizeof buf, " [model $%.4f]", cost->get<double>());
    return buf;
}

// One line per model summary: model, tokens, cost, sections and facts it missed, or why it was rejected.
std::string summaryReportText(const nlohmann::json &reports)
{
    std::string text;
    for (const auto &r : reports) {
        text += "  model summary: " + r.value("provider", std::string()) + " " + r.value("model", std::string()) + ", preset "
                + r.value("preset", std::string());
        if (r.contains("error") && r["error"].is_string()) {
            text += ": REJECTED: " + r["error"].get<std::string>() + "\n";
            continue;
        }
        char cost[64] = "cost unknown";
        if (r["cost"].is_number())
            std::snprintf(cost, sizeof cost, "$%.4f", r["cost"].get<double>());
        text += ", " + std::to_string(r.value("inputTokens", 0)) + " in / " + std::to_string(r.value("outputTokens", 0))
                + " out tokens, " + cost + (r.value("cached", false) ? " (cached)" : "") + (r.value("verified", false) ? ", verified" : "")
                + "\n";
        if (!r["missingSections"].empty())
            text += "    missing sections: " + r["missingSections"].dump() + "\n";
        if (!r["emptySections"].empty())
            text += "    empty sections: " + r["emptySections"].dump() + "\n";
        text += "    facts kept " + std::to_string(r.value("keptFacts", 0)) + ", dropped " + std::to_string(r["droppedFacts"].size())
                + (r.value("droppedFactsAppended", false) ? " (listed in an appendix)" : "") + "\n";
        for (const auto &f : r["droppedFacts"])
            text += "      dropped " + f.value("kind", std::string()) + ": " + f.value("text", std::string()) + "\n";
        if (r.value("droppedMessages", 0) > 0)
            text += "    " + std::to_string(r.value("droppedMessages", 0)) + " oldest messages did not fit the model's input\n";
    }
    return text;
}

const std::vector<OptionSpec> kCommon{{"--as", "", true}, {"--window", "", true}, {"--exempt", "", true}, {"--pin", "", true}};

} // namespace

bool guardOptions(const Args &a, std::vector<std::size_t> &pinned, std::vector<std::string> &exempt, std::string &error)
{
    if (auto ex = a.value("--exempt"))
        exempt = splitList(*ex);
    if (auto pin = a.value("--pin")) {
        for (const auto &item : splitList(*pin)) {
            // A typo must not pin message 0 silently (atoll("x") == 0).
            if (item.find_first_not_of("0123456789") != std::string::npos || item.size() > 18) {
                error = "--pin: '" + item + "' is not a message index";
                return false;
            }
            pinned.push_back(static_cast<std::size_t>(std::stoull(item)));
        }
    }
    return true;
}

const Strategy *strategyOption(const Args &a, const std::string &command, std::string &error)
{
    const auto name = a.value("--strategy");
    if (!name) {
        error = command + " needs --strategy NAME (contextlens-cli strategies lists them)";
        return nullptr;
    }
    const Strategy *s = find(*name);
    if (!s)
        error = "unknown strategy '" + *name + "' (contextlens-cli strategies lists them)";
    return s;
}

// --param k=v may repeat; parseArgs keeps one value per option, so collect them here.
bool collectParams(const std::vector<std::string> &args, nlohmann::json &params, std::vector<std::string> &rest,
                   std::string &error)
{
    params = nlohmann::json::object();
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string &a = args[i];
        std::string value;
        if (a == "--param" || a == "-p") {
            if (i + 1 >= args.size()) {
                error = a + " needs name=value";
                return false;
            }
            value = args[++i];
        } else if (a.rfind("--param=", 0) == 0) {
            value = a.substr(8);
        } else {
            rest.push_back(a);
            continue;
        }
        if (!json::isValidUtf8(value)) { // it would go into JSON: a report, a file, a model's request
            error = a + ": '" + json::sanitizeUtf8(value) + "' is not UTF-8 text";
            return false;
        }
        if (!strategy::parseAssignment(value, params, error))
            return false;
    }
    return true;
}

int strategies(const std::vector<std::string> &args, std::string &out, std::string &err)
{
    Args a = parseArgs(args, {});
    Output o{out, err, a.has("--json")};
    if (a.has("--help")) {
        out += commandHelp("strategies");
        return Exit::Success;
    }
    if (!a.error.empty())
        return o.fail(a.error);
    ojson list = ojson::array();
    for (const Strategy *s : all()) {
        ojson params = ojson::array();
        for (const auto &p : s->params())
            params.push_back(specJson(p));
        // clang-format off
        list.push_back(ojson{{"name", std::string(s->name())}, {"title", std::string(s->title())},
            {"group", std::string(groupTitle(s->group()))}, {"follows", std::string(s->follows())},
            {"source", std::string(s->source())}, {"description", std::string(s->description())}, {"params", params}});
        // clang-format on
    }
    if (o.json) {
        o.print(ojson{{"strategies", list}});
        return Exit::Success;
    }
    for (const auto &s : list) {
        const std::string follows = s["follows"].get<std::string>();
        out += s["name"].get<std::string>() + "  " + s["title"].get<std::string>() + "  (" + s["group"].get<std::string>()
               + (follows.empty() ? std::string() : ", " + follows + "'s policy") + ")\n";
        out += "    " + s["description"].get<std::string>() + "\n";
        for (const auto &p : s["params"]) {
            out += "    --param " + p["name"].get<std::string>() + "=" + p["default"].dump() + "  [" + p["type"].get<std::string>();
            if (p.contains("range"))
                out += " " + p["range"][0].dump() + ".." + p["range"][1].dump();
            if (p.contains("choices")) {
                std::string c;
                for (const auto &x : p["choices"])
                    c += (c.empty() ? "" : "|") + x.get<std::string>();
                out += " " + c;
            }
            out += "]  " + p["help"].get<std::string>() + "\n";
        }
        out += "\n";
    }
    return Exit::Success;
}

int compact(const std::vector<std::string> &args, std::string &out, std::string &err)
{
    nlohmann::json params;
    std::vector<std::string> rest;
    std::string perr;
    const bool paramsOk = collectParams(args, params, rest, perr);
    std::vector<OptionSpec> specs = kCommon;
    specs.push_back({"--strategy", "-s", true});
    specs.push_back({"--output", "-o", true});
    specs.push_back({"--to", "", true});
    specs.push_back({"--force", "", false});
    specs.push_back({"--no-compaction-style", "", false});
    specs.push_back({"--in-place", "", false});
    specs.push_back({"--backup-root", "", true});
    specs.insert(specs.end(), summarizerOptions().begin(), summarizerOptions().end());
    specs.insert(specs.end(), redactionOptions().begin(), redactionOptions().end());
    Args a = parseArgs(rest, specs);
    Output o{out, err, a.has("--json")};
    if (a.has("--help")) {
        out += commandHelp("compact");
        return Exit::Success;
    }
    if (!paramsOk)
        return o.fail(perr);
    if (!a.error.empty())
        return o.fail(a.error);
    if (a.positional.size() != 1)
        return o.fail("compact needs exactly one FILE (see contextlens-cli compact --help)");
    std::string error;
    const Strategy *s = strategyOption(a, "compact", error);
    if (!s)
        return o.fail(error);
    const std::unique_ptr<llm::ReportingSummarizer> summarizer = summarizerFromArgs(a, error);
    if (!error.empty())
        return o.fail(error);
    std::optional<Format> as;
    if (auto f = a.value("--as")) {
        as = parseFormat(*f, error);
        if (!as)
            return o.fail(error);
    }
    const std::string path = a.positional.front();
    auto outPath = a.value("--output");
    if (outPath)
        if (const std::string why = checkOutputPath(*outPath, path, a.has("--force")); !why.empty())
            return o.fail("compact: " + why);
    // Over the input itself (--in-place, or -o FILE --force): saved in place, with a backup, only when
    // the file did not change since it was read and the result reloads with the same live context.
    const bool inPlace = a.has("--in-place") || (outPath && *outPath != "-" && isSameFile(*outPath, path));
    if (a.has("--in-place") && outPath)
        return o.fail("compact: --in-place writes FILE itself; leave out -o");
    if (inPlace && (path == "-" || a.value("--to") || a.has("--no-compaction-style")))
        return o.fail("compact: saving in place needs a FILE, in its own format, written as its agent compacts");
    // --redact is for a copy to share: never for the session itself.
    std::unique_ptr<redact::Redactor> redactor;
    if (!redactorFromArgs(a, redactor, error))
        return o.fail("compact: " + error);
    if (redactor && (inPlace || !outPath))
        return o.fail("compact: --redact is for a copy written with -o OUT, never for FILE itself");
    if (inPlace)
        outPath.reset();
    const std::optional<FileStamp> loadedStamp = inPlace ? stampOf(path) : std::nullopt;
    if (inPlace && !loadedStamp)
        return o.fail("compact: " + path + ": cannot read it");
    // The run and its report, in a scope of their own: only the result to write (m) outlives it, so
    // that the input, its analysis and the result are freed before the output is loaded back.
    Format target = Format::Unknown;
    ojson j;
    std::string text; // the report without the output part
    bool resultValid = true;
    std::string summaryFailure;    // why a model summary failed ("" when none did): then nothing is written
    std::int64_t tokensBefore = 0; // what the strategy started from (the export's preTokens)
    // The mark of the compaction written (core/io/export.h): the strategy that made it.
    nlohmann::json origin = nlohmann::json::object();
    std::unique_ptr<Transcript> m;
    {
        auto t = loadForCommand(path, as, error);
        if (!t)
            return o.fail(error);
        target = t->format;
        if (auto to = a.value("--to")) {
            auto f = parseFormat(*to, error);
            if (!f)
                return o.fail(error);
            target = *f;
        }
        Input in(*t);
        if (!applyCommon(a, in, error))
            return o.fail(error);
        in.summarizer = summarizer.get();
        const Result r = run(*s, in, params, {}, &error);
        if (!error.empty())
            return o.fail(error);
        resultValid = r.violations.empty();
        tokensBefore = r.stats.tokensBefore;
        origin["strategies"] = nlohmann::json::array({{{"strategy", r.strategy}, {"params", r.params.values}}});
        // clang-format off
        j = ojson{{"path", path}, {"strategy", r.strategy}, {"params", ojson::parse(r.params.values.dump())},
            {"changed", r.changed}, {"note", r.note}, {"log", r.log}, {"stats", statsJson(r.stats)},
            {"valid", r.violations.empty()}, {"violations", violationsJson(r)}};
        // clang-format on
        const Stats &st = r.stats;
        text += r.strategy + ": " + r.note + "\n";
        text += "  live context " + std::to_string(st.liveBefore) + " -> " + std::to_string(st.liveAfter) + " ("
                + percent(st.liveReduction) + " less, fixed part included, in the agent's count)\n";
        text += "  messages " + std::to_string(st.messagesBefore) + " -> " + std::to_string(st.messagesAfter)
                + ", conversation " + std::to_string(st.tokensBefore) + " -> " + std::to_string(st.tokensAfter) + " ("
                + percent(st.reduction) + " less, plain estimate)\n";
        char line[256];
        std::snprintf(line, sizeof line,
                      "  efficiency %.4f, facts kept %zu/%zu (%s), cache prefix %lld tokens (%s), %.2f ms\n",
                      st.efficiency, st.factsKept, st.factsTotal, percent(st.factRetention).c_str(),
                      static_cast<long long>(st.cachePrefixTokens), percent(st.cachePrefixShare).c_str(), st.millis);
        text += line;
        for (const auto &l : r.log)
            text += "  - " + l + "\n";
        if (summarizer) {
            const nlohmann::json report = summarizer->reportJson();
            j["summaries"] = ojson::parse(json::dump(report));
            text += summaryReportText(report);
            for (const auto &rep : report)
                if (const auto e = rep.find("error"); e != rep.end() && e->is_string() && summaryFailure.empty())
                    summaryFailure = e->get<std::string>();
        }
        text += r.violations.empty() ? "  valid\n" : "  INVALID: " + std::to_string(r.violations.size()) + " violation(s)\n";
        for (const auto &v : r.violations)
            text += "    message " + std::to_string(v.message) + ": " + v.reason + "\n";
        if ((outPath || (inPlace && r.changed)) && summaryFailure.empty())
            m = std::make_unique<Transcript>(r.materialize(*t));
    }

    // The model was asked for a summary and did not give a usable one: the result is not what the
    // user asked for, so nothing is written (not an unchanged copy either) and the command fails.
    if (!summaryFailure.empty()) {
        text += "  nothing written: the model summary failed\n";
        j["error"] = "the model summary failed: " + summaryFailure;
        j["written"] = false;
        (outPath && *outPath == "-" ? err : out) += o.json ? j.dump(2, ' ', false, ojson::error_handler_t::replace) + "\n" : text;
        if (!o.json)
            err += "compact: the model summary failed: " + summaryFailure + "; nothing written\n";
        return Exit::Failure;
    }

    if (inPlace) {
        if (!m) {
            text += "  nothing saved: the strategy changed nothing\n";
            j["saved"] = ojson{{"path", path}, {"written", false}};
        } else {
            SaveInPlaceOptions so;
            so.preTokens = tokensBefore;
            so.then = "run this again";
            so.origin = origin;
            if (auto root = a.value("--backup-root"))
                so.backupRoot = *root;
            const SaveInPlaceResult saved = saveInPlace(*m, path, *loadedStamp, so);
            if (!saved.ok)
                return o.fail("compact: " + saved.error);
            text += "  saved in place: " + path + " (backup " + saved.backup.path + ")\n";
            for (const auto &n : saved.notes)
                text += "  note: " + n + "\n";
            j["saved"] = ojson{{"path", path}, {"written", true}, {"backup", saved.backup.path}, {"notes", saved.notes}};
        }
    }

    std::vector<Violation> writtenViolations;
    const bool toStdout = outPath && *outPath == "-";
    if (outPath) {
        ExportOptions eo;
        eo.compactionStyle = !a.has("--no-compaction-style");
        eo.preTokens = tokensBefore; // spares the export a reload of the original
        eo.origin = origin;
        const Written w = writeChecked(
            *outPath, target, redactingWrite([&](ByteSink &sink) { return exportTranscript(*m, target, eo, sink); }, redactor.get()),
            [&] { m.reset(); }, out);
        if (!w.ok)
            return o.fail((toStdout ? std::string("standard output") : *outPath) + ": " + w.error);
        writtenViolations = w.violations;
        // What the command reports as valid is the file it wrote, as `validate` sees it.
        j["resultValid"] = j["valid"];
        j["resultViolations"] = j["violations"];
        j["valid"] = writtenViolations.empty();
        j["violations"] = violationsJson(writtenViolations);
        j["output"] = ojson{{"path", *outPath}, {"format", std::string(formatName(target))}, {"bytes", w.write.size}, {"notes", w.write.notes}, {"valid", writtenViolations.empty()}};
        const std::string shown = toStdout ? std::string("standard output") : *outPath;
        text += "  written to " + shown + " as " + std::string(formatName(target)) + ": "
                + (writtenViolations.empty() ? std::string("valid")
                                             : "INVALID, " + std::to_string(writtenViolations.size()) + " violation(s)")
                + "\n";
        for (const auto &v : writtenViolations)
            text += "    message " + std::to_string(v.message) + ": " + v.reason + "\n";
        for (const auto &n : w.write.notes)
            text += "  note: " + n + "\n";
        if (redactor) {
            j["redaction"] = redactionJson(*redactor);
            text += "  " + redactionText(*redactor);
        }
    }
    // With the transcript on standard output, the report goes to standard error.
    (toStdout ? err : out) += o.json ? j.dump(2, ' ', false, ojson::error_handler_t::replace) + "\n" : text;
    return resultValid && writtenViolations.empty() ? Exit::Success : Exit::Issues;
}

int compare(const std::vector<std::string> &args, std::string &out, std::string &err)
{
    std::vector<OptionSpec> specs = kCommon;
    specs.push_back({"--only", "", true});
    specs.push_back({"--sort", "", true});
    specs.insert(specs.end(), summarizerOptions().begin(), summarizerOptions().end());
    specs.insert(specs.end(), compareCostOptions().begin(), compareCostOptions().end());
    Args a = parseArgs(args, specs);
    Output o{out, err, a.has("--json")};
    if (a.has("--help")) {
        out += commandHelp("compare");
        return Exit::Success;
    }
    if (!a.error.empty())
        return o.fail(a.error);
    if (a.positional.size() != 1)
        return o.fail("compare needs exactly one FILE");
    std::string error;
    std::optional<Format> as;
    if (auto f = a.value("--as")) {
        as = parseFormat(*f, error);
        if (!as)
            return o.fail(error);
    }
    CompareCost costColumns; // --cost-turns: the next turns' dollars per strategy (cli/cost.h)
    if (!readCompareCost(a, costColumns, error))
        return o.fail(error);
    const std::unique_ptr<llm::ReportingSummarizer> summarizer = summarizerFromArgs(a, error);
    if (!error.empty())
        return o.fail(error);
    if (summarizer && !a.value("--only"))
        return o.fail("compare with a model summarizer needs --only (every summary is a model call)");
    auto t = loadForCommand(a.positional.front(), as, error);
    if (!t)
        return o.fail(error);
    Input in(*t);
    if (!applyCommon(a, in, error))
        return o.fail(error);
    CompareOptions co;
    if (auto only = a.value("--only"))
        co.names = splitList(*only);
    std::vector<CompareRow> rows = strategy::compare(in, co);
    for (const auto &row : rows)
        if (!row.error.empty())
            return o.fail(row.error);
    // With a model: each strategy again with the model writing its summaries, beside its rule-based row.
    if (summarizer)
        rows = strategy::withModelRows(in, std::move(rows), co, *summarizer);
    const std::string sortKey = a.value("--sort").value_or("");
    if (!sortKey.empty()) {
        auto key = [&](const CompareRow &r) -> double {
            const Stats &s = r.result.stats;
            if (sortKey == "tokens") return double(s.liveAfter);
            if (sortKey == "reduction") return -s.liveReduction;
            if (sortKey == "efficiency") return -s.efficiency;
            if (sortKey == "facts") return -s.factRetention;
            if (sortKey == "cache") return -double(s.cachePrefixTokens);
            if (sortKey == "time") return s.millis;
            return 0;
        };
        if (sortKey != "tokens" && sortKey != "reduction" && sortKey != "efficiency" && sortKey != "facts"
            && sortKey != "cache" && sortKey != "time")
            return o.fail("--sort: one of tokens, reduction, efficiency, facts, cache, time");
        std::stable_sort(rows.begin(), rows.end(), [&](const CompareRow &x, const CompareRow &y) { return key(x) < key(y); });
    }
    computeCompareCost(in, rows, costColumns);
    bool anyInvalid = false;
    ojson list = ojson::array();
    for (const auto &row : rows) {
        anyInvalid = anyInvalid || !row.result.violations.empty();
        // clang-format off
        list.push_back(ojson{{"strategy", row.strategy}, {"title", row.title}, {"source", row.source},
            {"changed", row.result.changed}, {"note", row.result.note}, {"stats", statsJson(row.result.stats)},
            {"valid", row.result.violations.empty()}, {"violations", row.result.violations.size()}});
        if (const auto *cost = row.result.extra.is_object() ? json::child(row.result.extra, "modelCost") : nullptr)
            list.back()["modelCost"] = ojson::parse(json::dump(*cost));
        // clang-format on
        if (costColumns.enabled())
            list.back()["cost"] = compareRowCostJson(costColumns, list.size() - 1);
    }
    if (o.json) {
        ojson doc{{"path", a.positional.front()}, {"format", std::string(formatName(t->format))}, {"rows", list}};
        if (summarizer)
            doc["summaries"] = ojson::parse(json::dump(summarizer->reportJson()));
        if (costColumns.enabled())
            doc["cost"] = compareCostJson(costColumns);
        o.print(doc);
    } else {
        char line[512];
        // Live context before and after (the agent's count, fixed part included), its reduction, then
        // the conversation's reduction by the seed 001 estimator beside it.
        std::snprintf(line, sizeof line, "%-30s %9s %9s %8s %8s %8s %8s %10s %6s %9s%s  %s\n", "strategy", "live", "after",
                      "reduct.", "conv.", "effic.", "facts", "cache", "valid", "ms", compareCostHeader(costColumns).c_str(), "note");
        out += line;
        out += compareBaselineLine(costColumns, rows.empty() ? tokens::contextFigure(*t, commandEstimator()).total
                                                             : rows.front().result.stats.liveBefore);
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const CompareRow &row = rows[i];
            const Stats &s = row.result.stats;
            std::snprintf(line, sizeof line, "%-30s %9lld %9lld %7.1f%% %7.1f%% %8.4f %7.1f%% %10lld %6s %9.2f%s  %s\n",
                          row.strategy.c_str(), static_cast<long long>(s.liveBefore), static_cast<long long>(s.liveAfter),
                          s.liveReduction * 100, s.reduction * 100, s.efficiency, s.factRetention * 100,
                          static_cast<long long>(s.cachePrefixTokens), row.result.violations.empty() ? "yes" : "NO",
                          s.millis, compareCostCells(costColumns, i).c_str(), (row.result.note + modelCostText(row.result)).c_str());
            out += line;
        }
        out += compareCostFooter(costColumns);
        if (summarizer)
            out += summaryReportText(summarizer->reportJson());
    }
    return anyInvalid ? Exit::Issues : Exit::Success;
}

} // namespace cl::cli
