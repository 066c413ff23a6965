// SPDX-License-Identifier: MIT
// `requests FILE [--json]`: the requests of a recording (`record -o FILE`), one line each: what was
// sent (messages, tool definitions, ContextLens's estimate of each part and of the whole request)
// beside what the provider measured for it and what came back; under a request whose prefix
// changed, where the prompt cache broke, why, and what it cost (core/cost/promptcache.h). Any request opens with every other
// command as FILE#N (core/io/recordedrequest.h).
#include "cli/cli.h"
#include "cli/common.h"
#include "core/cost/promptcache.h"
#include "core/io/loader.h"
#include "core/io/recordedrequest.h"
#include "core/io/requestsession.h"
#include "core/llm/pricing.h"
#include "core/util/numbertext.h"

#include <cstdio>
#include <cstdlib>
#include <map>

namespace cl::cli {

namespace {

ojson usageJson(const std::optional<Usage> &u)
{
    if (!u)
        return nullptr;
    return ojson{{"input", u->inputTokens},
                 {"cacheRead", u->cacheReadTokens},
                 {"cacheWrite", u->cacheCreationTokens},
                 {"output", u->outputTokens},
                 {"context", u->contextTokens()}};
}

ojson requestJson(const std::string &file, const RequestSummary &s)
{
    ojson j{{"number", s.number}, {"open", requestPath(file, s.number)}, {"run", s.run}, {"id", s.id}, {"time", s.time}, {"method", s.method}, {"path", s.path}};
    j["api"] = s.api == Format::Unknown ? ojson(nullptr) : ojson(std::string(formatName(s.api)));
    j["status"] = s.status;
    if (s.api != Format::Unknown) {
        j["model"] = s.model;
        j["messages"] = s.messages;
        j["tools"] = s.tools;
        j["tokens"] = ojson{{"system", s.systemTokens}, {"tools", s.toolTokens}, {"messages", s.messageTokens}, {"estimate", s.estimate}};
        j["usage"] = usageJson(s.usage);
        j["stopReason"] = s.stopReason;
        j["answer"] = ojson{{"blocks", s.answerBlocks}, {"toolCalls", s.answerToolCalls}};
    }
    j["firstByteMs"] = s.firstByteMs ? ojson(*s.firstByteMs) : ojson(nullptr);
    j["totalMs"] = s.totalMs ? ojson(*s.totalMs) : ojson(nullptr);
    j["error"] = s.error.empty() ? ojson(nullptr) : ojson(s.error);
    j["session"] = s.session.empty() ? ojson(nullptr) : ojson(s.session);
    j["compaction"] = s.compaction.empty() ? ojson(nullptr) : ojson(s.compaction);
    if (s.rewrite) {
        const recording::Rewrite &w = *s.rewrite;
        j["rewrite"] = ojson{{"strategy", w.strategy}, {"mode", w.mode}, {"changed", w.changed}, {"valid", w.valid}, {"forwarded", w.forwarded ? "compacted" : "original"}, {"tokensBefore", w.tokensBefore}, {"tokensAfter", w.tokensAfter}, {"predictedBefore", w.predictedBefore}, {"predictedAfter", w.predictedAfter}, {"calibrated", w.calibrated}, {"note", w.note}, {"violations", w.violations}, {"error", w.error.empty() ? ojson(nullptr) : ojson(w.error)}};
    } else {
        j["rewrite"] = nullptr;
    }
    return j;
}

std::string pad(std::string s, std::size_t width, bool right = true)
{
    if (s.size() >= width)
        return s;
    return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

// "2026-11-30T14:21:24.891Z" → "14:21:24"
std::string clock(const std::string &time)
{
    const std::size_t t = time.find('T');
    return t == std::string::npos ? time : time.substr(t + 1, 8);
}

struct CacheTotals {
    std::size_t breaks = 0;
    std::int64_t missed = 0;
    double dollars = 0;
    bool priced = false;
};

CacheTotals cacheTotals(const std::map<std::size_t, cost::CacheStep> &steps)
{
    CacheTotals t;
    for (const auto &[number, c] : steps) {
        t.breaks += c.kind == cost::CacheStep::Kind::Break || c.kind == cost::CacheStep::Kind::Replaced || c.missedTokens > 0;
        t.missed += c.missedTokens;
        t.dollars += c.dollars;
        t.priced |= c.priced;
    }
    return t;
}

std::string dollars(double d)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, d < 1 ? "%.4f" : "%.2f", d);
    return buf;
}

ojson cacheJson(const cost::CacheStep &c)
{
    return ojson{{"kind", std::string(cost::cacheStepKindName(c.kind))},
                 {"previous", c.previous ? ojson(c.previous) : ojson(nullptr)},
                 {"commonParts", c.commonParts},
                 {"commonTokens", c.commonTokens},
                 {"appendedTokens", c.appendedTokens},
                 {"where", c.where},
                 {"cause", c.cause},
                 {"missedTokens", c.missedTokens},
                 {"dollars", c.priced ? ojson(c.dollars) : ojson(nullptr)}};
}

// "cache break at the system prompt (after request 3): the system prompt changed (…); 12,000 tokens
// not read from the cache ($0.0414)"
std::string cacheText(const cost::CacheStep &c)
{
    std::string head;
    if (c.kind == cost::CacheStep::Kind::Break)
        head = "cache break at the " + c.where + " (after request " + std::to_string(c.previous) + "): ";
    else if (c.kind == cost::CacheStep::Kind::Replaced)
        head = "cache break: ";
    else
        head = "cache: ";
    return head + c.cause
           + (c.missedTokens > 0 ? "; " + util::grouped(c.missedTokens) + " tokens not read from the cache"
                                       + (c.priced ? " ($" + dollars(c.dollars) + ")" : std::string())
                                 : std::string());
}

// "trim-tools (live): 22,090 -> 22,012 tokens predicted, the compacted request forwarded"
std::string rewriteText(const recording::Rewrite &w)
{
    std::string s = w.strategy + " (" + (w.mode == "dry-run" ? std::string("dry run") : w.mode) + "): ";
    if (!w.error.empty())
        return s + w.error + "; the original forwarded";
    if (!w.changed)
        return s + "unchanged (" + w.note + ")";
    s += util::grouped(w.predictedBefore) + " -> " + util::grouped(w.predictedAfter) + " tokens predicted"
         + (w.calibrated ? "" : " (not calibrated yet)") + ", ";
    if (!w.valid)
        return s + "not valid for the provider (" + (w.violations.empty() ? std::string() : w.violations.front())
               + "): the original forwarded";
    return s + (w.forwarded ? "the compacted request forwarded" : "the original forwarded");
}

} // namespace

int requests(const std::vector<std::string> &args, std::string &out, std::string &err)
{
    const std::vector<OptionSpec> specs{{"--json", "", false}, {"--help", "-h", false}, {"--session", "", true}, {"--home", "", true}};
    Args a = parseArgs(args, specs);
    Output o{out, err, a.has("--json")};
    if (a.has("--help")) {
        out += commandHelp("requests");
        return Exit::Success;
    }
    if (!a.error.empty())
        return o.fail(a.error);
    if (a.positional.size() != 1)
        return o.fail("requests needs exactly one FILE (a recording of contextlens-cli record)");
    const std::string file = a.positional.front();
    std::string bytes, error;
    if (!readRecordingFile(file, bytes, error))
        return o.fail(error);
    RecordingSummary summary = summarizeRecording(bytes, file);
    const recording::Recording rec = recording::readRecording(bytes, file);
    // The session file the agent wrote meanwhile: named, or found by the session id its requests name.
    std::string sessionPath = a.value("--session").value_or("");
    if (sessionPath.empty()) {
        const char *envHome = std::getenv("HOME");
        sessionPath = findAgentSession(sessionIdOf(summary), a.value("--home").value_or(envHome ? envHome : ""));
    }
    std::size_t linked = 0;
    if (!sessionPath.empty()) {
        const LoadResult session = loadFile(sessionPath);
        if (!session.ok() && a.value("--session"))
            return o.fail("requests: " + session.error);
        if (session.ok())
            linked = linkToSession(summary, rec, *session.transcript);
        else
            sessionPath.clear();
    }
    llm::PriceTable prices;
    if (!llm::PriceTable::load(prices, "", &error))
        err += "warning: " + error + "\n";
    std::map<std::size_t, cost::CacheStep> steps; // by request number
    for (cost::CacheStep &c : cost::cacheSteps(rec, prices))
        steps.emplace(c.number, std::move(c));
    const CacheTotals totals = cacheTotals(steps);
    if (o.json) {
        ojson list = ojson::array();
        for (const RequestSummary &s : summary.requests) {
            list.push_back(requestJson(file, s));
            const auto step = steps.find(s.number);
            list.back()["cache"] = step == steps.end() ? ojson(nullptr) : cacheJson(step->second);
            list.back()["sessionMessage"] = s.sessionMessage >= 0 ? ojson(s.sessionMessage + 1) : ojson(nullptr);
        }
        ojson diags = ojson::array();
        for (const Diagnostic &d : summary.diagnostics)
            diags.push_back(d.toString());
        o.print(ojson{{"file", file},
                      {"requests", summary.requests.size()},
                      {"modelCalls", summary.modelCalls},
                      {"list", list},
                      {"session", sessionPath.empty() ? ojson(nullptr) : ojson{{"path", sessionPath}, {"linked", linked}}},
                      {"cache", {{"breaks", totals.breaks}, {"missedTokens", totals.missed}, {"dollars", totals.dollars}, {"priced", totals.priced}}},
                      {"diagnostics", diags}});
        return summary.diagnostics.empty() ? Exit::Success : Exit::Issues;
    }
    out += file + ": " + std::to_string(summary.requests.size()) + " requests, " + std::to_string(summary.modelCalls)
           + " model calls (any command opens one as " + file + "#N)\n";
    if (!sessionPath.empty())
        out += "session: " + sessionPath + " (the answers of " + std::to_string(linked) + " of " + std::to_string(summary.modelCalls)
               + " model calls are in it; \"session\": the message)\n";
    out += "     #  time      API               model                     msgs tools  system   tools  messages"
           "  estimate  measured  cache read  written   out  status    first   total  session\n";
    for (const RequestSummary &s : summary.requests) {
        std::string line = pad(std::to_string(s.number), 6) + "  " + pad(clock(s.time), 8, false) + "  ";
        if (s.api == Format::Unknown) {
            line += pad(s.method + " " + s.path, 99, false);
        } else {
            std::string model = s.model.size() > 24 ? s.model.substr(0, 23) + "~" : s.model;
            line += pad(std::string(formatName(s.api)), 16, false) + "  " + pad(model, 24, false) + pad(std::to_string(s.messages), 6)
                    + pad(std::to_string(s.tools), 6) + pad(util::grouped(s.systemTokens), 8) + pad(util::grouped(s.toolTokens), 8)
                    + pad(util::grouped(s.messageTokens), 10) + pad(util::grouped(s.estimate), 10);
            if (s.usage)
                line += pad(util::grouped(s.usage->contextTokens()), 10) + pad(util::grouped(s.usage->cacheReadTokens), 12)
                        + pad(util::grouped(s.usage->cacheCreationTokens), 9) + pad(util::grouped(s.usage->outputTokens), 6);
            else
                line += pad("-", 10) + pad("-", 12) + pad("-", 9) + pad("-", 6);
        }
        line += pad(s.status ? std::to_string(s.status) : std::string("-"), 8)
                + pad(s.firstByteMs ? std::to_string(*s.firstByteMs) + " ms" : std::string("-"), 9)
                + pad(s.totalMs ? std::to_string(*s.totalMs) + " ms" : std::string("-"), 9)
                + (s.sessionMessage >= 0 ? pad("#" + std::to_string(s.sessionMessage + 1), 9) : std::string());
        out += line + "\n";
        if (!s.compaction.empty())
            out += "        " + s.compaction + ": the agent asked for a summary of the conversation\n";
        if (s.rewrite)
            out += "        " + rewriteText(*s.rewrite) + "\n";
        if (!s.error.empty())
            out += "        " + s.error + "\n";
        if (const auto step = steps.find(s.number); step != steps.end() && !step->second.cause.empty())
            out += "        " + cacheText(step->second) + "\n";
    }
    out += "prompt cache: " + std::to_string(totals.breaks) + (totals.breaks == 1 ? " break, " : " breaks, ")
           + util::grouped(totals.missed) + " tokens not read from the cache"
           + (totals.priced ? " ($" + dollars(totals.dollars) + ")" : std::string()) + "\n";
    for (const Diagnostic &d : summary.diagnostics)
        err += "warning: " + d.toString() + "\n";
    return summary.diagnostics.empty() ? Exit::Success : Exit::Issues;
}

} // namespace cl::cli
