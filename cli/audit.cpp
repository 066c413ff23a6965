// SPDX-License-Identifier: MIT
// `audit`: every compaction the agent made in a session (core/workflow/audit.h): the history it
// replaced, its summary, tokens before and after, the facts it kept and dropped, and what each
// strategy would have kept from the same history.
#include "cli/cli.h"

#include "cli/common.h"
#include "core/io/backups.h"
#include "core/io/recordedrequest.h"
#include "core/strategies/registry.h"
#include "core/util/numbertext.h"
#include "core/workflow/audit.h"

#include <cstdio>

namespace cl::cli {

namespace {

using util::grouped;

std::string percent(double share)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %%", 100.0 * share);
    return buf;
}

// One line of a text, at most `max` bytes (not cutting a UTF-8 sequence).
std::string excerpt(const std::string &text, std::size_t max)
{
    std::string s = text.substr(0, text.find('\n'));
    if (s.size() <= max)
        return s;
    std::size_t n = max;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80)
        --n;
    return s.substr(0, n) + "...";
}

ojson factJson(const strategy::Fact &f)
{
    ojson sources = ojson::array();
    for (const std::size_t s : f.sources)
        sources.push_back(s + 1);
    return ojson{{"kind", std::string(strategy::factKindName(f.kind))}, {"text", f.text}, {"messages", sources}};
}

ojson wireJson(const audit::Compaction &c, const std::string &recordingFile)
{
    if (recordingFile.empty())
        return nullptr;
    if (!c.wire)
        return ojson{{"linked", false}};
    const recording::CompactionCall &w = c.wire->call;
    ojson notSent = ojson::array();
    for (const auto &f : c.wire->notSent)
        notSent.push_back(factJson(f));
    return ojson{{"linked", true},
                 {"request", w.request},
                 {"open", requestPath(recordingFile, w.request)},
                 {"firstRequest", c.wire->firstRequest},
                 {"calls", c.wire->calls},
                 {"agent", w.agent},
                 {"trigger", w.trigger.empty() ? ojson(nullptr) : ojson(w.trigger)},
                 {"session", w.sessionId.empty() ? ojson(nullptr) : ojson(w.sessionId)},
                 {"time", w.time},
                 {"instruction", w.instruction},
                 {"messagesSent", w.messagesSent},
                 {"measuredContext", w.usage ? ojson(w.usage->contextTokens()) : ojson(nullptr)},
                 {"outputTokens", w.usage ? ojson(w.usage->outputTokens) : ojson(nullptr)},
                 {"summary", w.summary},
                 {"droppedNotSent", notSent}};
}

// The snapshot the compaction hook took before it (`contextlens-cli hook`), and what it shows.
ojson snapshotJson(const audit::Compaction &c)
{
    if (!c.snapshot)
        return nullptr;
    const audit::HookSnapshot &h = *c.snapshot;
    ojson dropped = ojson::array(), only = ojson::array();
    for (const auto &f : h.dropped)
        dropped.push_back(factJson(f));
    for (const auto &f : h.onlyInSnapshot)
        only.push_back(factJson(f));
    ojson j{{"event", h.before.event},
            {"stamp", h.before.stamp},
            {"trigger", h.before.trigger.empty() ? ojson(nullptr) : ojson(h.before.trigger)},
            {"instructions", h.before.instructions},
            {"copy", h.before.snapshot},
            {"bytes", h.before.bytes},
            {"liveTokens", h.before.liveTokens},
            {"liveMessages", h.before.liveMessages},
            {"readable", h.readable},
            {"factsKept", h.factsKept},
            {"dropped", dropped},
            {"onlyInSnapshot", only},
            {"postCompact", h.after ? ojson(h.after->stamp) : ojson(nullptr)}};
    return j;
}

ojson report(const Transcript &t, const std::vector<audit::Compaction> &list, const std::string &recordingFile)
{
    ojson comps = ojson::array();
    for (const auto &c : list) {
        ojson kept = ojson::array(), dropped = ojson::array(), rows = ojson::array();
        for (const auto &f : c.kept)
            kept.push_back(factJson(f));
        for (const auto &f : c.dropped)
            dropped.push_back(factJson(f));
        for (const auto &r : c.strategies)
            rows.push_back(ojson{{"strategy", r.strategy},
                                 {"changed", r.changed},
                                 {"tokensBefore", r.tokensBefore},
                                 {"tokensAfter", r.tokensAfter},
                                 {"factsKept", r.factsKept},
                                 {"factsTotal", r.factsTotal},
                                 {"factRetention", r.factRetention},
                                 {"note", r.note},
                                 {"error", r.error.empty() ? ojson(nullptr) : ojson(r.error)}});
        ojson keptMessages = ojson::array();
        for (const std::size_t i : c.keptMessages)
            keptMessages.push_back(i + 1);
        comps.push_back(ojson{
            {"message", c.boundary + 1},
            {"trigger", c.trigger.empty() ? ojson(nullptr) : ojson(c.trigger)},
            {"timestamp", c.timestamp.empty() ? ojson(nullptr) : ojson(c.timestamp)},
            {"replaced", {{"fromMessage", c.from + 1}, {"toMessage", c.boundary}, {"messages", c.replacedMessages}}},
            {"summaryMessage", c.summaryMessage >= 0 ? ojson(c.summaryMessage + 1) : ojson(nullptr)},
            {"summary", c.summary},
            {"keptMessages", keptMessages},
            {"tokensBefore", c.tokensBefore},
            {"tokensBeforeSource", c.beforeRecorded ? "recorded" : "estimated"},
            {"estimatedBefore", c.estimatedBefore},
            {"fixedTokens", c.fixedTokens},
            {"tokensAfter", c.tokensAfter},
            {"recordedAfter", c.recordedAfter > 0 ? ojson(c.recordedAfter) : ojson(nullptr)},
            {"factsKept", c.kept.size()},
            {"factsTotal", c.factsTotal()},
            {"factRetention", c.factRetention()},
            {"kept", kept},
            {"dropped", dropped},
            {"pending", c.pending ? factJson(*c.pending) : ojson(nullptr)},
            {"pendingKept", c.pending ? ojson(c.pendingKept) : ojson(nullptr)},
            {"strategies", rows},
            {"wire", wireJson(c, recordingFile)},
            {"snapshot", snapshotJson(c)}});
    }
    ojson out{{"path", t.path}, {"format", std::string(formatName(t.format))}, {"compactions", comps}};
    if (!recordingFile.empty())
        out["recording"] = recordingFile;
    return out;
}

std::string factList(const std::vector<strategy::Fact> &facts)
{
    std::string s;
    for (const auto &f : facts) {
        if (!s.empty())
            s.append(", ");
        s.append("[").append(strategy::factKindName(f.kind)).append("] ").append(excerpt(f.text, 80));
    }
    return s;
}

// What the recording shows of the compaction: the request, what it sent, what it measured, and
// which dropped facts the agent never sent to be summarised.
std::string wireText(const audit::Compaction &c, const std::string &recordingFile)
{
    if (recordingFile.empty())
        return {};
    if (!c.wire)
        return "  on the wire: no request of the recording wrote this summary\n";
    const recording::CompactionCall &w = c.wire->call;
    std::string s = "  on the wire: " + requestPath(recordingFile, w.request) + " (" + w.agent;
    if (c.wire->calls > 1)
        s += ", its check of request " + std::to_string(c.wire->firstRequest);
    s += "): sent " + std::to_string(w.messagesSent) + (w.messagesSent == 1 ? " message" : " messages");
    if (w.usage)
        s += ", " + grouped(w.usage->contextTokens()) + " tokens measured, answered " + grouped(w.usage->outputTokens);
    s += "\n  instruction: \"" + excerpt(w.instruction, 100) + "\"\n";
    if (!c.dropped.empty()) {
        const std::size_t notSent = c.wire->notSent.size();
        s += "  of the " + std::to_string(c.dropped.size()) + " dropped facts: " + std::to_string(c.dropped.size() - notSent)
             + " sent and left out of the summary, " + std::to_string(notSent) + " never sent"
             + (notSent ? ": " + factList(c.wire->notSent) : std::string()) + "\n";
    }
    return s;
}

std::string snapshotText(const audit::Compaction &c)
{
    if (!c.snapshot)
        return {};
    const audit::HookSnapshot &h = *c.snapshot;
    std::string s = "  snapshot before it (" + h.before.event + " hook, " + h.before.stamp
                    + (h.before.trigger.empty() ? std::string() : ", " + h.before.trigger) + "): "
                    + grouped(h.before.liveTokens) + " tokens live in " + std::to_string(h.before.liveMessages)
                    + " messages; " + h.before.snapshot + "\n";
    if (!h.readable)
        return s + "    the copy is no longer kept (see backups)\n";
    s += "    facts of that state kept " + std::to_string(h.factsKept) + "/" + std::to_string(h.factsKept + h.dropped.size());
    if (!h.onlyInSnapshot.empty())
        s += "; dropped and no longer in the session file: " + factList(h.onlyInSnapshot);
    return s + "\n";
}

std::string text(const Transcript &t, const std::vector<audit::Compaction> &list, const std::string &recordingFile)
{
    if (list.empty())
        return t.path + ": no compaction in this session (" + std::string(formatName(t.format)) + ")\n";
    std::string s;
    char line[256];
    for (std::size_t k = 0; k < list.size(); ++k) {
        const audit::Compaction &c = list[k];
        std::string when = c.trigger;
        if (!c.timestamp.empty())
            when += (when.empty() ? "" : ", ") + c.timestamp;
        s += "Compaction " + std::to_string(k + 1) + " at message " + std::to_string(c.boundary + 1)
             + (when.empty() ? std::string() : " (" + when + ")") + ": " + grouped(c.tokensBefore) + " \u2192 "
             + grouped(c.tokensAfter) + " tokens (" + (c.beforeRecorded ? "recorded" : "estimated")
             + "); facts kept " + std::to_string(c.kept.size()) + "/" + std::to_string(c.factsTotal())
             + (c.dropped.empty() ? std::string() : "; dropped: " + factList(c.dropped)) + "\n";
        s += "  replaced messages " + std::to_string(c.from + 1) + "-" + std::to_string(c.boundary) + " ("
             + std::to_string(c.replacedMessages) + " sent to the model); estimated before "
             + grouped(c.estimatedBefore) + " (fixed part " + grouped(c.fixedTokens) + ")\n";
        s += "  summary";
        if (c.summaryMessage >= 0)
            s += " (message " + std::to_string(c.summaryMessage + 1) + ")";
        s += ": ";
        if (c.summary.empty())
            s += "none";
        else
            s.append("\"").append(excerpt(c.summary, 100)).append("\"");
        if (!c.keptMessages.empty())
            s += "; " + std::to_string(c.keptMessages.size()) + (c.keptMessages.size() == 1 ? " message" : " messages") + " kept";
        s += "\n";
        s += wireText(c, recordingFile);
        s += snapshotText(c);
        if (c.pending)
            s += "  pending work: [request] " + excerpt(c.pending->text, 80) + " (" + (c.pendingKept ? "kept" : "dropped")
                 + ")\n";
        if (c.strategies.empty())
            continue;
        std::snprintf(line, sizeof line, "  %-28s %12s %12s %14s\n", "strategy", "before", "after", "facts kept");
        s += line;
        for (const auto &r : c.strategies) {
            if (!r.error.empty()) {
                s += "  " + r.strategy + ": " + r.error + "\n";
                continue;
            }
            const std::string facts = std::to_string(r.factsKept) + "/" + std::to_string(r.factsTotal) + " "
                                      + percent(r.factRetention);
            std::snprintf(line, sizeof line, "  %-28.28s %12s %12s %14s%s\n", r.strategy.c_str(),
                          grouped(r.tokensBefore).c_str(), grouped(r.tokensAfter).c_str(), facts.c_str(),
                          r.changed ? "" : "  (unchanged)");
            s += line;
        }
    }
    return s;
}

} // namespace

int audit(const std::vector<std::string> &args, std::string &out, std::string &err)
{
    const Args a = parseArgs(args, {{"--as", "", true}, {"--strategies", "", true}, {"--recording", "", true}, {"--hooks-root", "", true}});
    Output o{out, err, a.has("--json")};
    if (a.has("--help")) {
        out += commandHelp("audit");
        return Exit::Success;
    }
    if (!a.error.empty())
        return o.fail("audit: " + a.error);
    if (a.positional.size() != 1)
        return o.fail("audit: expected one FILE (usage: contextlens-cli audit FILE [--strategies a,b|none] [--recording REC] [--hooks-root DIR] [--json])");
    std::optional<Format> as;
    std::string error;
    if (const auto name = a.value("--as"); name && !(as = parseFormat(*name, error)))
        return o.fail(error);
    audit::Options opts;
    if (const auto list = a.value("--strategies")) {
        std::vector<std::string> names;
        if (*list != "none") {
            std::size_t from = 0;
            while (from <= list->size()) {
                const std::size_t comma = std::min(list->find(',', from), list->size());
                const std::string n = list->substr(from, comma - from);
                if (!strategy::find(n))
                    return o.fail("audit: unknown strategy '" + n + "' (see contextlens-cli strategies)");
                names.push_back(n);
                from = comma + 1;
            }
        }
        opts.strategies = std::move(names);
    }
    const std::string recordingFile = a.value("--recording").value_or("");
    if (!recordingFile.empty() && !readCompactionCalls(recordingFile, opts.wire, error))
        return o.fail("audit: " + error);
    const auto t = loadForCommand(a.positional[0], as, error);
    if (!t)
        return o.fail(error);
    opts.hooks = compactionhook::records(a.value("--hooks-root").value_or(backups::defaultRoot()), a.positional[0]);
    const auto list = audit::auditCompactions(*t, opts);
    if (o.json)
        o.print(report(*t, list, recordingFile));
    else
        out += text(*t, list, recordingFile);
    return Exit::Success;
}

} // namespace cl::cli
