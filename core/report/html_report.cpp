// SPDX-License-Identifier: MIT
// htmlReport(): the page, the figures, the context map, the usage chart and the composition; the
// compactions, compare table and preview are in html_strategies.cpp.
#include "core/report/htmlstyle.h"
#include "core/report/internal.h"
#include "core/report/report.h"
#include "core/report/svg.h"
#include "core/report/textformat.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace cl::report {

namespace html {

std::string card(const std::string &key, const std::string &value, const std::string &label)
{
    return "<div class=\"card\" data-key=\"" + key + "\"><div class=\"v\">" + htmlEscape(value) + "</div><div class=\"k\">"
           + htmlEscape(label) + "</div></div>\n";
}

std::string keyRow(const std::string &key, const std::string &label, const std::string &value)
{
    return "<tr data-key=\"" + key + "\"><th>" + htmlEscape(label) + "</th><td class=\"n\">" + htmlEscape(value) + "</td></tr>\n";
}

} // namespace html

namespace {

std::string plural(std::size_t n, const char *one, const char *many)
{
    return grouped(std::int64_t(n)) + " " + (n == 1 ? one : many);
}

std::string figuresSection(const ReportData &d)
{
    const Figures &f = d.figures;
    const composition::Composition &c = d.composition;
    std::string s = "<section id=\"figures\">\n<h2>Figures</h2>\n<div class=\"cards\">\n";
    s += html::card("messages", grouped(std::int64_t(f.messages)),
                    "messages (" + grouped(std::int64_t(f.conversation)) + " turns, " + grouped(std::int64_t(f.history))
                        + " before the last compaction)");
    s += html::card("tool-calls", grouped(std::int64_t(f.toolCalls)), "tool calls (" + grouped(std::int64_t(f.failedToolCalls)) + " failed)");
    s += html::card("compactions", grouped(std::int64_t(f.compactions)), f.compactions == 1 ? "compaction" : "compactions");
    s += html::card("live-context", grouped(c.total),
                    "tokens of live context" + (c.window > 0 ? " (" + percent(double(c.total) / double(c.window)) + " of the window)" : std::string()));
    s += html::card("window", grouped(c.window), "token window (" + c.windowSource + ")");
    std::int64_t fixedTokens = 0;
    for (const auto &cat : c.categories)
        if (cat.group == composition::Group::Fixed)
            fixedTokens += cat.tokens;
    s += html::card("fixed-part", grouped(fixedTokens), "tokens of fixed part (" + c.fixedSource + ")");
    if (f.measured)
        s += html::card("measured", grouped(*f.measured), "tokens measured at the last response");
    s += html::card("free", grouped(c.free), "tokens free (" + grouped(c.reserved) + " reserved)");
    s += "</div>\n</section>\n";
    return s;
}

std::string mapSection(const ReportData &d)
{
    std::string s = "<section id=\"map\">\n<h2>Context map</h2>\n<p class=\"sub\">The live conversation, one segment per message "
                    "(width by its tokens, colour by its priority class)"
                    + std::string(d.mapBoundary ? "; the vertical line is where the analysis would cut" : "") + ".</p>\n";
    if (d.map.empty())
        return s + "<p class=\"muted\">No conversation message.</p>\n</section>\n";
    s += contextMapSvg(d.map, d.mapBoundary);
    std::set<analysis::Priority> present;
    for (const MapSegment &m : d.map)
        present.insert(m.priority);
    s += "<div class=\"legend\">";
    for (const analysis::Priority p : present)
        s += "<span><span class=\"sw " + priorityClass(p) + "\"></span>" + std::string(analysis::priorityName(p)) + "</span>";
    s += "</div>\n</section>\n";
    return s;
}

std::string usageSection(const ReportData &d)
{
    const UsageSeries &u = d.usage;
    std::string s = "<section id=\"usage\">\n<h2>Context over the session</h2>\n<p class=\"sub\">Per message: the context the model "
                    "saw where the file records it (measured) and the estimate of what was sent (fixed part and conversation since "
                    "the last compaction).</p>\n";
    s += usageChartSvg(u);
    s += "<div class=\"legend\"><span><span class=\"ln measured\"></span>measured (" + grouped(std::int64_t(u.measured.size()))
         + " responses)</span><span><span class=\"ln estimated\"></span>estimated (" + grouped(std::int64_t(u.estimated.size()))
         + " messages)</span><span><span class=\"ln compaction\"></span>compaction</span>";
    if (u.window > 0)
        s += "<span><span class=\"ln window\"></span>window " + grouped(u.window) + "</span>";
    s += "</div>\n</section>\n";
    return s;
}

std::string compositionSection(const ReportData &d)
{
    const composition::Composition &c = d.composition;
    std::string s = "<section id=\"composition\">\n<h2>Where the context goes</h2>\n<p class=\"sub\">At message "
                    + std::to_string(c.at + 1) + " (live from message " + std::to_string(c.from + 1) + "): " + grouped(c.total)
                    + " of " + grouped(c.window) + " tokens; reserved: " + htmlEscape(c.reservedHow) + ".</p>\n";
    s += compositionBarSvg(c);
    s += "<table class=\"categories\">\n<tr><th></th><th>Category</th><th>Group</th><th class=\"n\">Tokens</th><th class=\"n\">Share</th>"
         "<th class=\"n\">Items</th></tr>\n";
    for (std::size_t k = 0; k < c.categories.size(); ++k) {
        const auto &cat = c.categories[k];
        const bool space = cat.group == composition::Group::Space;
        s += "<tr data-category=\"" + htmlEscape(cat.key) + "\"><td><span class=\"sw " + categoryClass(c, k) + "\"></span></td><td>"
             + htmlEscape(cat.label) + (cat.estimated || space ? "" : " <span class=\"kind\">recorded</span>") + "</td><td>"
             + composition::groupName(cat.group) + "</td><td class=\"n\">" + grouped(cat.tokens) + "</td><td class=\"n\">"
             + (space || c.total <= 0 ? std::string("\u2014") : percent(double(cat.tokens) / double(c.total))) + "</td><td class=\"n\">"
             + (space ? std::string() : grouped(std::int64_t(cat.items))) + "</td></tr>\n";
    }
    s += "</table>\n";
    if (!c.biggest.empty()) {
        s += "<h3>Biggest items</h3>\n<table>\n<tr><th class=\"n\">Tokens</th><th>Item</th><th class=\"n\">Message</th></tr>\n";
        for (const auto &it : c.biggest)
            s += "<tr><td class=\"n\">" + grouped(it.tokens) + "</td><td>" + htmlEscape(excerpt(it.label, 140)) + "</td><td class=\"n\">"
                 + (it.message >= 0 ? std::to_string(it.message + 1) : std::string()) + "</td></tr>\n";
        s += "</table>\n";
    }
    if (!c.repeatedReads.empty()) {
        s += "<h3>Files read more than once</h3>\n<table>\n<tr><th>Path</th><th class=\"n\">Reads</th><th class=\"n\">Tokens</th>"
             "<th class=\"n\">Latest read</th></tr>\n";
        for (const auto &r : c.repeatedReads)
            s += "<tr><td>" + htmlEscape(r.path) + "</td><td class=\"n\">" + std::to_string(r.reads) + "</td><td class=\"n\">"
                 + grouped(r.tokens) + "</td><td class=\"n\">" + grouped(r.onceTokens) + "</td></tr>\n";
        s += "</table>\n";
    }
    if (!d.suggestions.empty()) {
        s += "<h3>Suggestions</h3>\n<table>\n<tr><th>What</th><th>Strategy</th><th class=\"n\">Frees</th></tr>\n";
        for (const auto &g : d.suggestions)
            s += "<tr><td>" + htmlEscape(g.text) + "</td><td>" + htmlEscape(g.strategy.empty() ? g.note : g.strategy)
                 + "</td><td class=\"n\">" + (g.strategy.empty() ? std::string() : grouped(g.frees)) + "</td></tr>\n";
        s += "</table>\n";
    }
    s += "</section>\n";
    return s;
}

} // namespace

std::optional<ReportFormat> reportFormatForPath(const std::string &path)
{
    const std::size_t dot = path.find_last_of('.');
    if (dot == std::string::npos || path.find('/', dot) != std::string::npos)
        return std::nullopt;
    std::string ext = path.substr(dot + 1);
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (ext == "html" || ext == "htm")
        return ReportFormat::Html;
    if (ext == "md" || ext == "markdown")
        return ReportFormat::Markdown;
    return std::nullopt;
}

std::string htmlReport(const Transcript &t, const ReportOptions &o)
{
    const ReportData d = collect(t, o);
    const Figures &f = d.figures;
    std::string s = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                    "<meta name=\"color-scheme\" content=\"light dark\">\n<title>ContextLens report: "
                    + htmlEscape(f.title) + "</title>\n<style>" + std::string(reportCss()) + "</style>\n</head>\n<body>\n<main>\n";
    s += "<header>\n<h1>ContextLens report: " + htmlEscape(f.title) + "</h1>\n<p class=\"sub\">" + htmlEscape(f.format);
    if (!f.firstTime.empty())
        s += " \u00b7 " + htmlEscape(f.firstTime) + " \u2013 " + htmlEscape(f.lastTime);
    s += " \u00b7 " + plural(f.messages, "message", "messages") + "</p>\n</header>\n";
    s += figuresSection(d);
    s += mapSection(d);
    s += usageSection(d);
    s += compositionSection(d);
    s += html::compactionsSection(d);
    s += html::compareSection(d);
    s += html::previewSection(t, d, o.maxPreviewRows);
    s += "<footer>Made by ContextLens. Token figures are the plain estimate unless marked measured or recorded; "
         "strategies ran with their defaults.</footer>\n</main>\n</body>\n</html>\n";
    return s;
}

std::string renderReport(const Transcript &t, const ReportOptions &o, ReportFormat format)
{
    return format == ReportFormat::Html ? htmlReport(t, o) : markdownReport(t, o);
}

} // namespace cl::report
