// SPDX-License-Identifier: MIT
// markdownReport(): the sections of the HTML report in Markdown; the charts become a small table.
#include "core/report/report.h"
#include "core/report/reportdata.h"
#include "core/report/textformat.h"

#include <algorithm>

namespace cl::report {

namespace {

constexpr std::size_t kUsageRows = 12;
constexpr std::size_t kMaxFacts = 100;

std::string md(const std::string &s)
{
    return markdownInline(s);
}

std::string range(std::size_t first, std::size_t last)
{
    return first == last ? std::to_string(first + 1) : std::to_string(first + 1) + "\u2013" + std::to_string(last + 1);
}

std::string factsCell(std::size_t kept, std::size_t total, double share)
{
    return std::to_string(kept) + "/" + std::to_string(total) + " (" + percent(share) + ")";
}

std::string figures(const ReportData &d)
{
    const Figures &f = d.figures;
    const composition::Composition &c = d.composition;
    std::int64_t fixed = 0;
    for (const auto &cat : c.categories)
        fixed += cat.group == composition::Group::Fixed ? cat.tokens : 0;
    std::string s = "## Figures\n\n| Figure | Value |\n|---|---:|\n";
    s += "| Messages | " + grouped(std::int64_t(f.messages)) + " (" + grouped(std::int64_t(f.conversation)) + " turns, "
         + grouped(std::int64_t(f.history)) + " before the last compaction) |\n";
    s += "| Tool calls | " + grouped(std::int64_t(f.toolCalls)) + " (" + grouped(std::int64_t(f.failedToolCalls)) + " failed) |\n";
    s += "| Compactions | " + grouped(std::int64_t(f.compactions)) + " |\n";
    s += "| Live context | " + grouped(c.total) + " tokens" + (c.window > 0 ? " (" + percent(double(c.total) / double(c.window)) + " of the window)" : std::string()) + " |\n";
    s += "| Context window | " + grouped(c.window) + " (" + md(c.windowSource) + ") |\n";
    s += "| Fixed part | " + grouped(fixed) + " (" + md(c.fixedSource) + ") |\n";
    if (f.measured)
        s += "| Measured at the last response | " + grouped(*f.measured) + " |\n";
    s += "| Free | " + grouped(c.free) + " (" + grouped(c.reserved) + " reserved) |\n\n";
    return s;
}

std::string usage(const UsageSeries &u)
{
    std::string s = "## Context over the session\n\n";
    if (u.estimated.empty())
        return s + "No conversation message.\n\n";
    s += "| Message | Measured | Estimated |\n|---:|---:|---:|\n";
    const std::size_t n = u.estimated.size();
    const std::size_t rows = std::min(n, kUsageRows);
    std::size_t measured = 0;
    for (std::size_t r = 0; r < rows; ++r) {
        const UsagePoint &p = u.estimated[rows == 1 ? n - 1 : r * (n - 1) / (rows - 1)];
        while (measured < u.measured.size() && u.measured[measured].message <= p.message)
            ++measured;
        const bool here = measured > 0 && u.measured[measured - 1].message == p.message;
        s += "| " + std::to_string(p.message + 1) + " | " + (here ? grouped(u.measured[measured - 1].tokens) : std::string()) + " | "
             + grouped(p.tokens) + " |\n";
    }
    s += "\n";
    for (const CompactionMark &m : u.compactions)
        s += "- Compaction at message " + std::to_string(m.message + 1)
             + (m.preTokens > 0 ? ": " + grouped(m.preTokens) + " tokens before (recorded)" : std::string()) + "\n";
    return s + (u.compactions.empty() ? "" : "\n");
}

std::string compositionPart(const ReportData &d)
{
    const composition::Composition &c = d.composition;
    std::string s = "## Where the context goes\n\nAt message " + std::to_string(c.at + 1) + " (live from message " + std::to_string(c.from + 1)
                    + "): " + grouped(c.total) + " of " + grouped(c.window) + " tokens.\n\n| Category | Group | Tokens | Share |\n|---|---|---:|---:|\n";
    for (const auto &cat : c.categories) {
        const bool space = cat.group == composition::Group::Space;
        s += "| " + md(cat.label) + " | " + composition::groupName(cat.group) + " | " + grouped(cat.tokens) + " | "
             + (space || c.total <= 0 ? std::string("\u2014") : percent(double(cat.tokens) / double(c.total))) + " |\n";
    }
    s += "\n";
    if (!c.biggest.empty()) {
        s += "Biggest items:\n\n";
        for (const auto &it : c.biggest)
            s += "- " + grouped(it.tokens) + " \u2014 " + md(excerpt(it.label, 140))
                 + (it.message >= 0 ? " (message " + std::to_string(it.message + 1) + ")" : std::string()) + "\n";
        s += "\n";
    }
    return s;
}

std::string factList(const char *title, const std::vector<strategy::Fact> &facts)
{
    std::string s = std::string(title) + " (" + std::to_string(facts.size()) + "):\n\n";
    for (std::size_t k = 0; k < facts.size() && k < kMaxFacts; ++k)
        s += "- *" + std::string(strategy::factKindName(facts[k].kind)) + "* " + md(excerpt(facts[k].text, 160)) + "\n";
    if (facts.size() > kMaxFacts)
        s += "- and " + grouped(std::int64_t(facts.size() - kMaxFacts)) + " more\n";
    return s + (facts.empty() ? "- none\n\n" : "\n");
}

std::string compactions(const ReportData &d)
{
    std::string s = "## Compactions\n\n";
    if (d.compactions.empty())
        return s + "No compaction in this session.\n\n";
    for (std::size_t k = 0; k < d.compactions.size(); ++k) {
        const audit::Compaction &c = d.compactions[k];
        s += "### Compaction " + std::to_string(k + 1) + " at message " + std::to_string(c.boundary + 1)
             + (c.trigger.empty() ? std::string() : " (" + md(c.trigger) + ")") + "\n\n";
        s += "- Tokens before: " + grouped(c.tokensBefore) + (c.beforeRecorded ? " (recorded)" : " (estimated)") + "\n";
        s += "- Tokens after: " + grouped(c.tokensAfter) + " (summary and kept messages, estimated)\n";
        s += "- Messages replaced: " + grouped(std::int64_t(c.replacedMessages)) + "\n";
        s += "- Facts kept: " + factsCell(c.kept.size(), c.factsTotal(), c.factRetention()) + "\n";
        if (c.pending)
            s += "- Pending request: " + md(excerpt(c.pending->text, 160)) + " \u2014 " + (c.pendingKept ? "kept" : "dropped") + "\n";
        s += "\n" + factList("Kept", c.kept) + factList("Dropped", c.dropped);
        if (!c.strategies.empty()) {
            s += "| Strategy | Tokens before | Tokens after | Facts kept |\n|---|---:|---:|---:|\n";
            for (const audit::StrategyRow &r : c.strategies)
                s += "| " + md(r.strategy) + " | " + (r.error.empty() ? grouped(r.tokensBefore) + " | " + grouped(r.tokensAfter) + " | " + factsCell(r.factsKept, r.factsTotal, r.factRetention) : md(r.error) + " | | ") + " |\n";
            s += "\n";
        }
    }
    return s;
}

std::string compare(const ReportData &d)
{
    if (d.compare.empty())
        return {};
    std::string s = "## Strategies compared\n\n| Strategy | Tokens before | Tokens after | Reduction | Facts kept | Cache prefix | Valid | Note |\n"
                    "|---|---:|---:|---:|---:|---:|---|---|\n";
    for (const strategy::CompareRow &row : d.compare) {
        if (!row.error.empty()) {
            s += "| " + md(row.strategy) + " | | | | | | | " + md(row.error) + " |\n";
            continue;
        }
        const strategy::Stats &st = row.result.stats;
        s += "| " + md(row.strategy) + " | " + grouped(st.tokensBefore) + " | " + grouped(st.tokensAfter) + " | " + percent(st.reduction) + " | "
             + factsCell(st.factsKept, st.factsTotal, st.factRetention) + " | " + grouped(st.cachePrefixTokens) + " | "
             + (row.result.violations.empty() ? std::string("valid") : std::to_string(row.result.violations.size()) + " violations") + " | "
             + md(excerpt(row.result.note, 160)) + " |\n";
    }
    return s + "\n";
}

std::string preview(const Transcript &t, const ReportData &d, std::size_t maxRows)
{
    if (d.previewName.empty())
        return {};
    std::string s = "## Preview: " + md(d.previewName) + "\n\n";
    if (!d.preview)
        return s + md(d.previewError) + "\n\n";
    const strategy::Result &r = *d.preview;
    const strategy::Stats &st = r.stats;
    s += md(r.note) + "\n\n";
    s += "- Tokens: " + grouped(st.tokensBefore) + " \u2192 " + grouped(st.tokensAfter) + " (" + percent(st.reduction) + " less)\n";
    s += "- Messages: " + grouped(std::int64_t(st.messagesBefore)) + " \u2192 " + grouped(std::int64_t(st.messagesAfter)) + "\n";
    s += "- Facts kept: " + factsCell(st.factsKept, st.factsTotal, st.factRetention) + "\n";
    s += "- Cache prefix: " + grouped(st.cachePrefixTokens) + " tokens\n";
    s += "- Valid: " + std::string(r.violations.empty() ? "yes" : std::to_string(r.violations.size()) + " violations") + "\n\n";
    const std::vector<FateRow> rows = fateRows(t, r);
    s += "| Messages | Role | Fate | Tokens | Why |\n|---:|---|---|---:|---|\n";
    for (std::size_t k = 0; k < rows.size() && k < maxRows; ++k)
        s += "| " + range(rows[k].first, rows[k].last) + (rows[k].messages > 1 ? " (" + grouped(std::int64_t(rows[k].messages)) + ")" : std::string())
             + " | " + md(rows[k].roles) + " | " + std::string(strategy::fateName(rows[k].fate)) + " | "
             + grouped(rows[k].tokens) + " | " + md(excerpt(rows[k].reason, 160)) + " |\n";
    if (rows.size() > maxRows)
        s += "\n" + grouped(std::int64_t(rows.size() - maxRows)) + " more rows not shown.\n";
    return s + "\n";
}

} // namespace

std::string markdownReport(const Transcript &t, const ReportOptions &o)
{
    const ReportData d = collect(t, o);
    std::string s = "# ContextLens report: " + md(d.figures.title) + "\n\n" + d.figures.format;
    if (!d.figures.firstTime.empty())
        s += " \u00b7 " + md(d.figures.firstTime) + " \u2013 " + md(d.figures.lastTime);
    s += "\n\n";
    s += figures(d) + usage(d.usage) + compositionPart(d) + compactions(d) + compare(d) + preview(t, d, o.maxPreviewRows);
    return s;
}

} // namespace cl::report
