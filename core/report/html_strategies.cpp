// SPDX-License-Identifier: MIT
// The HTML report's sections about compressing: the compactions the agent made with their audit,
// the compare table and a strategy's preview.
#include "core/report/internal.h"
#include "core/report/textformat.h"

namespace cl::report::html {

namespace {

constexpr std::size_t kMaxFacts = 200;          // per list; the rest is counted
constexpr std::size_t kMaxSummaryChars = 20000; // of a summary shown in full

std::string range(std::size_t first, std::size_t last) // transcript indices, shown 1-based
{
    return first == last ? std::to_string(first + 1) : std::to_string(first + 1) + "\u2013" + std::to_string(last + 1);
}

std::string factItems(const std::vector<strategy::Fact> &facts)
{
    if (facts.empty())
        return "<p class=\"muted\">None.</p>\n";
    std::string s = "<ul>\n";
    for (std::size_t k = 0; k < facts.size() && k < kMaxFacts; ++k) {
        const strategy::Fact &f = facts[k];
        std::string where;
        for (std::size_t i = 0; i < f.sources.size() && i < 5; ++i)
            where += (i ? ", " : "") + std::to_string(f.sources[i] + 1);
        s += "<li><span class=\"kind\">" + std::string(strategy::factKindName(f.kind)) + "</span>" + htmlEscape(excerpt(f.text, 160))
             + (where.empty() ? std::string() : " <span class=\"muted\">(message " + where + ")</span>") + "</li>\n";
    }
    if (facts.size() > kMaxFacts)
        s += "<li class=\"muted\">and " + grouped(std::int64_t(facts.size() - kMaxFacts)) + " more</li>\n";
    return s + "</ul>\n";
}

std::string factsCell(std::size_t kept, std::size_t total, double share)
{
    return std::to_string(kept) + "/" + std::to_string(total) + " (" + percent(share) + ")";
}

std::string compaction(std::size_t k, const audit::Compaction &c)
{
    std::string when = c.trigger;
    if (!c.timestamp.empty())
        when += (when.empty() ? "" : ", ") + c.timestamp;
    std::string s = "<div class=\"compaction\" data-message=\"" + std::to_string(c.boundary + 1) + "\">\n<h3>Compaction "
                    + std::to_string(k + 1) + " at message " + std::to_string(c.boundary + 1)
                    + (when.empty() ? std::string() : " (" + htmlEscape(when) + ")") + "</h3>\n<table class=\"kv\">\n";
    s += keyRow("tokens-before", std::string("Tokens before (") + (c.beforeRecorded ? "recorded" : "estimated") + ")", grouped(c.tokensBefore));
    if (c.beforeRecorded)
        s += keyRow("estimated-before", "Estimated before", grouped(c.estimatedBefore));
    s += keyRow("fixed", "Fixed part in the estimate", grouped(c.fixedTokens));
    s += keyRow("tokens-after", "Tokens after (summary and kept messages, estimated)", grouped(c.tokensAfter));
    if (c.recordedAfter > 0)
        s += keyRow("recorded-after", "Tokens after (recorded)", grouped(c.recordedAfter));
    s += keyRow("replaced", "Messages replaced (" + range(c.from, c.boundary > c.from ? c.boundary - 1 : c.from) + ", sent to the model)",
                grouped(std::int64_t(c.replacedMessages)));
    s += keyRow("facts-kept", "Facts of the replaced history the summary kept", factsCell(c.kept.size(), c.factsTotal(), c.factRetention()));
    s += "</table>\n";
    if (c.pending)
        s += "<p>Pending request: <q>" + htmlEscape(excerpt(c.pending->text, 200)) + "</q> \u2014 "
             + (c.pendingKept ? "<span class=\"ok\">kept</span>" : "<span class=\"bad\">dropped</span>") + "</p>\n";
    if (!c.summary.empty()) {
        const std::string_view shown = utf8Prefix(c.summary, kMaxSummaryChars);
        s += "<details><summary>The summary the agent wrote"
             + (c.summaryMessage >= 0 ? " (message " + std::to_string(c.summaryMessage + 1) + ")" : std::string()) + ", "
             + grouped(std::int64_t(utf8Length(c.summary))) + " characters</summary>\n<pre>" + htmlEscape(shown) + "</pre>\n"
             + (shown.size() < c.summary.size() ? "<p class=\"muted\">Truncated.</p>\n" : "") + "</details>\n";
    } else {
        s += "<p class=\"muted\">The agent wrote no summary.</p>\n";
    }
    s += "<div class=\"facts\">\n<div><h4>Kept (" + std::to_string(c.kept.size()) + ")</h4>\n" + factItems(c.kept) + "</div>\n<div><h4>Dropped ("
         + std::to_string(c.dropped.size()) + ")</h4>\n" + factItems(c.dropped) + "</div>\n</div>\n";
    if (!c.strategies.empty()) {
        s += "<table class=\"audit-strategies\">\n<tr><th>What a strategy would have kept</th><th class=\"n\">Tokens before</th>"
             "<th class=\"n\">Tokens after</th><th class=\"n\">Facts kept</th><th>Note</th></tr>\n";
        for (const audit::StrategyRow &r : c.strategies) {
            if (!r.error.empty()) {
                s += "<tr data-strategy=\"" + htmlEscape(r.strategy) + "\"><td>" + htmlEscape(r.strategy) + "</td><td colspan=\"4\" class=\"bad\">"
                     + htmlEscape(r.error) + "</td></tr>\n";
                continue;
            }
            s += "<tr data-strategy=\"" + htmlEscape(r.strategy) + "\"" + (r.changed ? "" : " class=\"unchanged\"") + "><td>"
                 + htmlEscape(r.strategy) + "</td><td class=\"n\">" + grouped(r.tokensBefore) + "</td><td class=\"n\">"
                 + grouped(r.tokensAfter) + "</td><td class=\"n\">" + factsCell(r.factsKept, r.factsTotal, r.factRetention)
                 + "</td><td>" + htmlEscape(excerpt(r.note, 160)) + "</td></tr>\n";
        }
        s += "</table>\n";
    }
    return s + "</div>\n";
}

} // namespace

std::string compactionsSection(const ReportData &d)
{
    std::string s = "<section id=\"compactions\">\n<h2>Compactions</h2>\n";
    if (d.compactions.empty())
        return s + "<p class=\"muted\">No compaction in this session.</p>\n</section>\n";
    s += "<p class=\"sub\">Every compaction the agent made: what it replaced, what it sent instead, and which facts of the "
         "replaced history (requests, paths, commands, errors) its summary kept.</p>\n";
    for (std::size_t k = 0; k < d.compactions.size(); ++k)
        s += compaction(k, d.compactions[k]);
    return s + "</section>\n";
}

std::string compareSection(const ReportData &d)
{
    if (d.compare.empty())
        return {};
    std::string s = "<section id=\"compare\">\n<h2>Strategies compared</h2>\n<p class=\"sub\">Each strategy run with its defaults "
                    "on the live conversation (estimated tokens, fixed part not included).</p>\n"
                    "<table class=\"compare\">\n<tr><th>Strategy</th><th class=\"n\">Tokens before</th><th class=\"n\">Tokens after</th>"
                    "<th class=\"n\">Reduction</th><th class=\"n\">Facts kept</th><th class=\"n\">Cache prefix</th><th>Valid</th>"
                    "<th>Note</th></tr>\n";
    for (const strategy::CompareRow &row : d.compare) {
        const std::string name = htmlEscape(row.strategy);
        if (!row.error.empty()) {
            s += "<tr data-strategy=\"" + name + "\"><td>" + name + "</td><td colspan=\"7\" class=\"bad\">" + htmlEscape(row.error)
                 + "</td></tr>\n";
            continue;
        }
        const strategy::Stats &st = row.result.stats;
        const std::size_t violations = row.result.violations.size();
        s += "<tr data-strategy=\"" + name + "\"" + (row.result.changed ? "" : " class=\"unchanged\"") + "><td>" + name
             + "<br><span class=\"muted\">" + htmlEscape(row.title) + "</span></td><td class=\"n\" data-key=\"tokens-before\">"
             + grouped(st.tokensBefore) + "</td><td class=\"n\" data-key=\"tokens-after\">" + grouped(st.tokensAfter)
             + "</td><td class=\"n\" data-key=\"reduction\">" + percent(st.reduction) + "</td><td class=\"n\" data-key=\"facts\">"
             + factsCell(st.factsKept, st.factsTotal, st.factRetention) + "</td><td class=\"n\" data-key=\"cache\">"
             + grouped(st.cachePrefixTokens) + " (" + percent(st.cachePrefixShare) + ")</td><td data-key=\"valid\">"
             + (violations == 0 ? std::string("<span class=\"ok\">valid</span>")
                                : "<span class=\"bad\">" + std::to_string(violations) + (violations == 1 ? " violation" : " violations") + "</span>")
             + "</td><td>" + htmlEscape(excerpt(row.result.note, 200)) + "</td></tr>\n";
    }
    return s + "</table>\n</section>\n";
}

std::string previewSection(const Transcript &t, const ReportData &d, std::size_t maxRows)
{
    if (d.previewName.empty())
        return {};
    std::string s = "<section id=\"preview\">\n<h2>Preview: " + htmlEscape(d.previewName) + "</h2>\n";
    if (!d.preview)
        return s + "<p class=\"bad\">" + htmlEscape(d.previewError) + "</p>\n</section>\n";
    const strategy::Result &r = *d.preview;
    const strategy::Stats &st = r.stats;
    s += "<p class=\"sub\">" + htmlEscape(r.note.empty() ? std::string(r.changed ? "Changed." : "Nothing to do.") : r.note) + "</p>\n";
    s += "<div class=\"cards\">\n";
    s += card("tokens-before", grouped(st.tokensBefore), "tokens before");
    s += card("tokens-after", grouped(st.tokensAfter), "tokens after (" + percent(st.reduction) + " less)");
    s += card("messages", grouped(std::int64_t(st.messagesBefore)) + " \u2192 " + grouped(std::int64_t(st.messagesAfter)), "messages");
    s += card("facts", std::to_string(st.factsKept) + "/" + std::to_string(st.factsTotal), "facts kept (" + percent(st.factRetention) + ")");
    s += card("cache", grouped(st.cachePrefixTokens), "tokens of reusable cache prefix");
    s += card("valid", r.violations.empty() ? "valid" : std::to_string(r.violations.size()) + " violations", "in its format");
    s += "</div>\n<div class=\"legend\">";
    for (std::size_t f = 0; f < strategy::kFateCount; ++f)
        if (st.fateCounts[f])
            s += "<span>" + std::string(strategy::fateName(strategy::Fate(f))) + ": " + grouped(std::int64_t(st.fateCounts[f])) + "</span>";
    s += "</div>\n";
    const std::vector<FateRow> rows = fateRows(t, r);
    s += "<table class=\"fates\">\n<tr><th class=\"n\">Messages</th><th>Role</th><th>Fate</th><th class=\"n\">Tokens</th><th>Why</th></tr>\n";
    for (std::size_t k = 0; k < rows.size() && k < maxRows; ++k) {
        const FateRow &row = rows[k];
        s += "<tr data-fate=\"" + std::string(strategy::fateName(row.fate)) + "\"" + (row.fate == strategy::Fate::Kept ? " class=\"unchanged\"" : "")
             + "><td class=\"n\">" + range(row.first, row.last) + (row.messages > 1 ? " (" + grouped(std::int64_t(row.messages)) + ")" : std::string())
             + "</td><td>" + htmlEscape(row.roles) + "</td><td>" + std::string(strategy::fateName(row.fate)) + "</td><td class=\"n\">" + grouped(row.tokens) + "</td><td>"
             + htmlEscape(excerpt(row.reason, 200)) + "</td></tr>\n";
    }
    s += "</table>\n";
    if (rows.size() > maxRows)
        s += "<p class=\"muted\">" + grouped(std::int64_t(rows.size() - maxRows)) + " more rows not shown.</p>\n";
    return s + "</section>\n";
}

} // namespace cl::report::html
