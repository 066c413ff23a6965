// SPDX-License-Identifier: MIT
// `context`: where the live context goes at a message (core/workflow/composition.h), like Claude
// Code's /context but for any turn of any session; --over-time prints the per-message series.
#include "cli/cli.h"

#include "cli/common.h"
#include "core/util/numbertext.h"
#include "core/workflow/composition.h"

#include <cstdio>

namespace cl::cli {

namespace {

namespace cp = composition;

using util::grouped;

std::string percent(std::int64_t part, std::int64_t whole)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %%", whole > 0 ? 100.0 * double(part) / double(whole) : 0.0);
    return buf;
}

ojson report(const Transcript &t, const cp::Composition &c, const std::vector<cp::Suggestion> &suggestions)
{
    ojson j;
    j["path"] = t.path;
    j["format"] = std::string(formatName(t.format));
    j["atMessage"] = c.at + 1;
    j["liveFromMessage"] = c.from + 1;
    j["total"] = c.total;
    j["window"] = c.window;
    j["windowSource"] = c.windowSource;
    j["reserved"] = c.reserved;
    j["reservedHow"] = c.reservedHow;
    j["free"] = c.free;
    j["fixedSource"] = c.fixedSource;
    j["basis"] = c.basis;
    j["how"] = c.how;
    ojson cats = ojson::array();
    for (const auto &cat : c.categories)
        cats.push_back(ojson{{"key", cat.key},
                             {"label", cat.label},
                             {"group", cp::groupName(cat.group)},
                             {"tokens", cat.tokens},
                             {"share", cat.group == cp::Group::Space ? ojson(nullptr)
                                                                     : ojson(c.total ? double(cat.tokens) / double(c.total) : 0.0)},
                             {"items", cat.items},
                             {"messages", cat.messages.size()}});
    j["categories"] = cats;
    ojson big = ojson::array();
    for (const auto &it : c.biggest)
        big.push_back(ojson{{"category", it.category},
                            {"label", it.label},
                            {"tokens", it.tokens},
                            {"message", it.message >= 0 ? ojson(it.message + 1) : ojson(nullptr)}});
    j["biggest"] = big;
    ojson reads = ojson::array();
    for (const auto &r : c.repeatedReads)
        reads.push_back(ojson{{"path", r.path}, {"reads", r.reads}, {"tokens", r.tokens}, {"onceTokens", r.onceTokens}});
    j["repeatedReads"] = reads;
    j["earlierThinking"] = c.earlierThinking;
    ojson sug = ojson::array();
    for (const auto &s : suggestions)
        sug.push_back(ojson{{"text", s.text},
                            {"strategy", s.strategy.empty() ? ojson(nullptr) : ojson(s.strategy)},
                            {"frees", s.frees},
                            {"note", s.note}});
    j["suggestions"] = sug;
    return j;
}

std::string text(const ojson &j)
{
    std::string s = "context at message " + j["atMessage"].dump() + " (live from message " + j["liveFromMessage"].dump()
                    + "): " + grouped(j["total"].get<std::int64_t>()) + " of " + grouped(j["window"].get<std::int64_t>())
                    + " tokens (" + percent(j["total"].get<std::int64_t>(), j["window"].get<std::int64_t>())
                    + "), fixed part " + j["fixedSource"].get<std::string>() + "\n  counted: " + j["basis"].get<std::string>() + ", "
                    + j["how"].get<std::string>() + "\n";
    char line[256];
    std::snprintf(line, sizeof line, "  %-9s %-34s %10s %8s %6s\n", "group", "category", "tokens", "share", "items");
    s += line;
    for (const auto &c : j["categories"]) {
        const std::string share = c["share"].is_null() ? std::string("-") : percent(std::llround(c["share"].get<double>() * 1e6), 1000000);
        std::snprintf(line, sizeof line, "  %-9s %-34.34s %10s %8s %6s\n", c["group"].get<std::string>().c_str(),
                      c["label"].get<std::string>().c_str(), grouped(c["tokens"].get<std::int64_t>()).c_str(), share.c_str(),
                      c["group"] == "space" ? "" : c["items"].dump().c_str());
        s += line;
    }
    s += "  (reserved: " + j["reservedHow"].get<std::string>() + ")\n";
    if (!j["biggest"].empty()) {
        s += "biggest items:\n";
        for (const auto &it : j["biggest"])
            s += "  " + grouped(it["tokens"].get<std::int64_t>()) + "  " + it["label"].get<std::string>()
                 + (it["message"].is_null() ? std::string() : " (message " + it["message"].dump() + ")") + "\n";
    }
    if (!j["repeatedReads"].empty()) {
        s += "files read more than once:\n";
        for (const auto &r : j["repeatedReads"])
            s += "  " + r["path"].get<std::string>() + ": " + r["reads"].dump() + " reads, " + grouped(r["tokens"].get<std::int64_t>())
                 + " tokens (once: " + grouped(r["onceTokens"].get<std::int64_t>()) + ")\n";
    }
    if (!j["suggestions"].empty()) {
        s += "suggestions (tokens freed on the live context, by running the strategy):\n";
        for (const auto &g : j["suggestions"])
            s += "  " + g["text"].get<std::string>()
                 + (g["strategy"].is_null() ? "; " + g["note"].get<std::string>()
                                            : "; " + g["strategy"].get<std::string>() + " frees " + grouped(g["frees"].get<std::int64_t>()))
                 + "\n";
    }
    return s;
}

std::string csv(const cp::Series &s)
{
    std::string out = "message,total";
    for (const auto &k : s.keys)
        out += "," + k;
    out += "\n";
    for (std::size_t r = 0; r < s.messages.size(); ++r) {
        out += std::to_string(s.messages[r] + 1) + "," + std::to_string(s.totals[r]);
        for (const auto v : s.values[r])
            out += "," + std::to_string(v);
        out += "\n";
    }
    return out;
}

ojson seriesJson(const cp::Series &s)
{
    ojson rows = ojson::array();
    for (std::size_t r = 0; r < s.messages.size(); ++r)
        rows.push_back(ojson{{"message", s.messages[r] + 1}, {"total", s.totals[r]}, {"values", s.values[r]}});
    return ojson{{"keys", s.keys}, {"labels", s.labels}, {"rows", rows}};
}

} // namespace

int context(const std::vector<std::string> &args, std::string &out, std::string &err)
{
    const Args a = parseArgs(args, {{"--as", "", true}, {"--at", "", true}, {"--window", "", true}, {"--over-time", "", false}, {"--csv", "", false}});
    Output o{out, err, a.has("--json")};
    if (a.has("--help")) {
        out += commandHelp("context");
        return Exit::Success;
    }
    if (!a.error.empty())
        return o.fail("context: " + a.error);
    if (a.positional.size() != 1)
        return o.fail("context: expected one FILE (usage: contextlens-cli context FILE [--at N] [--over-time [--csv]] [--json])");
    std::optional<Format> as;
    std::string error;
    if (const auto name = a.value("--as"); name && !(as = parseFormat(*name, error)))
        return o.fail(error);
    cp::Options opts;
    opts.estimator = commandEstimator();
    if (const auto w = a.value("--window")) {
        opts.contextWindow = std::atoll(w->c_str());
        if (opts.contextWindow <= 0)
            return o.fail("context: --window wants a positive token count, not " + *w);
    }
    std::size_t at = SIZE_MAX;
    if (const auto v = a.value("--at")) {
        const long long n = std::atoll(v->c_str());
        if (n <= 0)
            return o.fail("context: --at wants a message number (1 = the first), not " + *v);
        at = std::size_t(n - 1);
    }
    const auto t = loadForCommand(a.positional[0], as, error);
    if (!t)
        return o.fail(error);
    if (at != SIZE_MAX && at >= t->messages.size())
        return o.fail("context: --at " + std::to_string(at + 1) + ": the transcript has " + std::to_string(t->messages.size())
                      + " messages");
    if (a.has("--over-time")) {
        const cp::Series s = cp::overTime(*t, opts);
        if (a.has("--csv") || !o.json)
            out += csv(s);
        else
            o.print(seriesJson(s));
        return Exit::Success;
    }
    const cp::Composition c = cp::compose(*t, at, opts);
    const ojson j = report(*t, c, cp::suggest(*t, c));
    if (o.json)
        o.print(j);
    else
        out += text(j);
    return Exit::Success;
}

} // namespace cl::cli
