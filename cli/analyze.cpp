// SPDX-License-Identifier: MIT
// `analyze`: the seed rules on one transcript (cl::analysis::analyze), as text or JSON. The JSON
// report is built first and the text printed from it, so both always say the same.
#include "core/analysis/analysis.h"
#include "cli/cli.h"
#include "cli/common.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

namespace cl::cli {

namespace {

using namespace cl::analysis;

ojson reasonsJson(const Reasons &rs)
{
    ojson a = ojson::array();
    for (const auto &r : rs)
        a.push_back(ojson{{"rule", std::string(r.rule)}, {"points", r.points}, {"text", r.describe()}});
    return a;
}

double round3(double v) { return std::round(v * 1000) / 1000; }

ojson candidateJson(const BoundaryScore &b, const AnalysisOptions &o)
{
    return ojson{{"position", b.position}, {"index", b.index}, {"score", b.score}, {"reasons", reasonsJson(reasonsFor(b, o))}};
}

ojson report(const Transcript &t, const Analysis &a)
{
    ojson j;
    j["path"] = t.path;
    j["format"] = std::string(formatName(t.format));
    j["conversationMessages"] = a.view.size();
    std::size_t chains = 0, calls = 0, failed = 0;
    for (const auto &r : a.rounds) {
        chains = std::max(chains, r.chain + 1);
        calls += r.calls.size();
        failed += r.failed;
    }
    std::map<std::string, std::size_t> categories;
    for (const auto &c : a.critical)
        ++categories[c.category];
    j["toolRounds"] = ojson{{"rounds", a.rounds.size()}, {"chains", chains}, {"calls", calls}, {"failedRounds", failed}, {"critical", categories}};
    // Top 5 candidates by score (first on ties), plus the chosen one.
    std::vector<const BoundaryScore *> order;
    for (const auto &b : a.boundaries)
        order.push_back(&b);
    std::stable_sort(order.begin(), order.end(), [](auto *x, auto *y) { return x->score > y->score; });
    ojson top = ojson::array();
    for (std::size_t k = 0; k < std::min<std::size_t>(5, order.size()); ++k)
        top.push_back(candidateJson(*order[k], a.options));
    j["boundary"] = ojson{{"candidates", a.boundaries.size()}, {"top", top}, {"chosen", a.boundary ? candidateJson(a.boundaries[*a.boundary - 1], a.options) : ojson(nullptr)}};
    std::map<std::string, std::size_t> prio;
    for (const auto &p : a.priority)
        if (p.priority != Priority::Excluded)
            ++prio[std::string(priorityName(p.priority))];
    ojson prioJson = ojson::object();
    for (Priority p : {Priority::Sacred, Priority::Critical, Priority::High, Priority::Medium, Priority::Low, Priority::Lowest})
        prioJson[std::string(priorityName(p))] = prio[std::string(priorityName(p))];
    j["priorities"] = prioJson;
    std::size_t important = 0;
    double sum = 0;
    int maxPoints = 0;
    std::size_t maxIndex = 0;
    for (const auto &i : a.importance) {
        important += i.important;
        sum += i.score;
        if (i.points > maxPoints) {
            maxPoints = i.points;
            maxIndex = i.index;
        }
    }
    // clang-format off
    j["importance"] = ojson{{"important", important}, {"total", a.importance.size()},
        {"meanScore", a.importance.empty() ? 0.0 : round3(sum / double(a.importance.size()))},
        {"maxPoints", maxPoints}, {"maxPointsIndex", maxIndex}};
    // clang-format on
    const Features &f = a.features;
    // clang-format off
    j["features"] = ojson{{"totalMessages", f.totalMessages}, {"totalTokens", f.totalTokens}, {"targetTokens", f.targetTokens},
        {"avgMessageLength", round3(f.avgMessageLength)}, {"compressionRatio", round3(f.compressionRatio)},
        {"recentTokens", f.recentTokens}, {"recentRatio", round3(f.recentRatio)}, {"hasLongMessages", f.hasLongMessages},
        {"hasSystem", f.hasSystem}, {"hasTool", f.hasTool}, {"severity", f.severity}};
    // clang-format on
    const Recommendation &r = a.recommendation;
    // clang-format off
    j["recommendation"] = ojson{{"model", r.model}, {"provider", r.provider}, {"providerStrategy", r.providerStrategy},
        {"strategy", r.strategy}, {"confidence", r.confidence}, {"rule", r.rule},
        {"adaptiveReason", r.adaptiveReason.empty() ? ojson(nullptr) : ojson(r.adaptiveReason)}, {"reasons", reasonsJson(r.reasons)}};
    // clang-format on
    const Zones &z = a.zones;
    // clang-format off
    j["zones"] = ojson{{"threshold", z.threshold}, {"systemMessages", z.system.size()}, {"systemTokens", z.systemTokens},
        {"compressibleMessages", z.compressible.size()}, {"compressibleTokens", z.compressibleTokens},
        {"recentMessages", z.recent.size()}, {"recentTokens", z.recentTokens}, {"totalTokens", z.totalTokens},
        {"oldTrigger", z.oldTrigger}, {"newTrigger", z.newTrigger}};
    // clang-format on
    j["needsCompaction"] = ojson{{"needed", a.needs.needed}, {"reasons", reasonsJson(a.needs.reasons)}};
    j["usage"] = ojson{{"tokens", a.usage.tokens}, {"fixedTokens", a.usage.fixedTokens}, {"basis", a.usage.basis}, {"how", a.usage.how}, {"window", a.usage.window}, {"windowSource", a.usage.windowSource}, {"ratio", round3(a.usage.ratio)}, {"band", a.usage.band}};
    const Facts &fa = a.facts;
    ojson req = ojson::array(), cmds = ojson::array(), errs = ojson::array();
    for (const auto &[i, s] : fa.userRequests)
        req.push_back(ojson{{"index", i}, {"text", s}});
    for (const auto &[i, s] : fa.commands)
        cmds.push_back(ojson{{"index", i}, {"command", s}});
    for (const auto &[i, s] : fa.errors)
        errs.push_back(ojson{{"index", i}, {"error", s}});
    // clang-format off
    j["facts"] = ojson{{"userRequests", req}, {"filesRead", fa.filesRead}, {"filesModified", fa.filesModified},
        {"commands", cmds}, {"errors", errs},
        {"pendingTask", fa.pendingTaskIndex < 0 ? ojson(nullptr) : ojson{{"index", fa.pendingTaskIndex}, {"text", fa.pendingTask}}},
        {"currentWork", fa.currentWorkIndex < 0 ? ojson(nullptr) : ojson{{"index", fa.currentWorkIndex}, {"text", fa.currentWork}}}};
    // clang-format on
    return j;
}

std::string oneLine(std::string s, std::size_t max = 100)
{
    std::replace(s.begin(), s.end(), '\n', ' ');
    if (s.size() > max)
        s = s.substr(0, max) + "...";
    return s;
}

std::string text(const ojson &j)
{
    std::string s;
    auto row = [&s](const std::string &k, const std::string &v) { s += k + std::string(k.size() < 22 ? 22 - k.size() : 1, ' ') + v + "\n"; };
    auto reasons = [&s](const ojson &rs, const char *indent) {
        for (const auto &r : rs)
            s += std::string(indent) + r["rule"].get<std::string>() + " (" + r["points"].dump() + "): " + r["text"].get<std::string>() + "\n";
    };
    row("file", j["path"].get<std::string>());
    row("format", j["format"].get<std::string>());
    row("conversation", j["conversationMessages"].dump() + " messages");
    const ojson &tr = j["toolRounds"];
    row("tool rounds", tr["rounds"].dump() + " (" + tr["chains"].dump() + " chains, " + tr["calls"].dump() + " calls, "
                           + tr["failedRounds"].dump() + " with failures)");
    row("critical tools", tr["critical"].dump());
    const ojson &b = j["boundary"];
    row("boundary", b["chosen"].is_null() ? "none (too few messages)"
                                          : "position " + b["chosen"]["position"].dump() + " (message " + b["chosen"]["index"].dump() + "), score " + b["chosen"]["score"].dump());
    if (!b["chosen"].is_null())
        reasons(b["chosen"]["reasons"], "    ");
    s += "top candidates\n";
    for (const auto &c : b["top"]) {
        s += "  position " + c["position"].dump() + " (message " + c["index"].dump() + "), score " + c["score"].dump() + "\n";
        reasons(c["reasons"], "    ");
    }
    row("priorities", j["priorities"].dump());
    const ojson &im = j["importance"];
    row("importance", im["important"].dump() + " of " + im["total"].dump() + " important (mean " + im["meanScore"].dump()
                          + "), max points " + im["maxPoints"].dump() + " at message " + im["maxPointsIndex"].dump());
    row("features", j["features"].dump());
    const ojson &r = j["recommendation"];
    row("recommendation", r["strategy"].get<std::string>() + " (rule " + r["rule"].get<std::string>() + ", confidence "
                              + r["confidence"].dump() + ", model \"" + r["model"].get<std::string>() + "\")");
    reasons(r["reasons"], "    ");
    const ojson &z = j["zones"];
    row("zones", "system " + z["systemTokens"].dump() + " / compressible " + z["compressibleTokens"].dump() + " / recent "
                     + z["recentTokens"].dump() + " tokens");
    row("  old trigger", std::string(z["oldTrigger"].get<bool>() ? "yes" : "no") + " (total " + z["totalTokens"].dump()
                             + " vs " + z["threshold"].dump() + ")");
    row("  new trigger", std::string(z["newTrigger"].get<bool>() ? "yes" : "no") + " (compressible " + z["compressibleTokens"].dump()
                             + " vs " + z["threshold"].dump() + ")");
    row("needs compaction", j["needsCompaction"]["needed"].get<bool>() ? "yes" : "no");
    const ojson &u = j["usage"];
    row("usage", u["tokens"].dump() + " of " + u["window"].dump() + " (" + u["windowSource"].get<std::string>() + ") = "
                     + u["ratio"].dump() + " -> " + u["band"].get<std::string>() + " (" + u["basis"].get<std::string>()
                     + ", fixed part " + u["fixedTokens"].dump() + " included)");
    const ojson &f = j["facts"];
    row("user requests", f["userRequests"].size() ? std::to_string(f["userRequests"].size()) : "0");
    row("files read", std::to_string(f["filesRead"].size()));
    for (const auto &p : f["filesRead"])
        s += "  " + p.get<std::string>() + "\n";
    row("files modified", std::to_string(f["filesModified"].size()));
    for (const auto &p : f["filesModified"])
        s += "  " + p.get<std::string>() + "\n";
    row("commands", std::to_string(f["commands"].size()));
    row("errors", std::to_string(f["errors"].size()));
    if (!f["pendingTask"].is_null())
        row("pending task", oneLine(f["pendingTask"]["text"].get<std::string>()));
    if (!f["currentWork"].is_null())
        row("current work", oneLine(f["currentWork"]["text"].get<std::string>()));
    return s;
}

bool parseInt(const std::string &s, std::int64_t &v)
{
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && p == s.data() + s.size() && v > 0;
}

} // namespace

int analyze(const std::vector<std::string> &args, std::string &out, std::string &err)
{
    const Args a = parseArgs(args, {{"--as", "", true}, {"--window", "", true}, {"--threshold", "", true}});
    Output o{out, err, a.has("--json")};
    if (a.has("--help")) {
        out += "Usage: contextlens-cli analyze FILE [--as FORMAT] [--window N] [--threshold N] [--json]\n"
               "Applies the seed rules: tool rounds, compaction boundary candidates with their reasons,\n"
               "priority classes, importance, conversation features and the recommended strategy, the\n"
               "seed 002 zones with both trigger decisions, the usage band, and the transcript's facts.\n"
               "--window: context window in tokens (default: by model, else 200000);\n"
               "--threshold: compaction threshold in tokens (default 150000).\n"
               "Exit: 0 analysed, 1 analysed but the file has diagnostics, 2 failure.\n";
        return Exit::Success;
    }
    if (!a.error.empty())
        return o.fail("analyze: " + a.error);
    if (a.positional.size() != 1)
        return o.fail("analyze: expected one FILE (usage: contextlens-cli analyze FILE [--as FORMAT] [--window N] [--threshold N] [--json])");
    AnalysisOptions opts;
    opts.estimator = commandEstimator();
    if (const auto w = a.value("--window"); w && !parseInt(*w, opts.contextWindow))
        return o.fail("analyze: --window needs a positive integer, got \"" + *w + "\"");
    if (const auto th = a.value("--threshold"); th && !parseInt(*th, opts.threshold))
        return o.fail("analyze: --threshold needs a positive integer, got \"" + *th + "\"");
    std::optional<Format> as;
    std::string error;
    if (const auto name = a.value("--as"); name && !(as = parseFormat(*name, error)))
        return o.fail(error);
    const auto t = loadForCommand(a.positional[0], as, error);
    if (!t)
        return o.fail(error);
    const Analysis an = cl::analysis::analyze(*t, opts);
    const ojson j = report(*t, an);
    if (o.json)
        o.print(j);
    else
        out += text(j);
    return countIssues(*t) ? Exit::Issues : Exit::Success;
}

} // namespace cl::cli
