// SPDX-License-Identifier: MIT
#include "core/report/svg.h"

#include "core/report/textformat.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace cl::report {

namespace {

std::string num(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

std::string title(const std::string &text)
{
    return "<title>" + htmlEscape(text) + "</title>";
}

struct Plot {
    double left = 64, right = 988, top = 12, bottom = 272;
    double xMax = 1, yMax = 1;
    double x(double message) const { return left + (xMax > 0 ? message / xMax : 0.5) * (right - left); }
    double y(double tokens) const { return bottom - std::min(tokens / yMax, 1.05) * (bottom - top); }
};

void polyline(std::string &svg, const Plot &p, const std::vector<UsagePoint> &points, std::size_t from, std::size_t to,
              const char *series)
{
    if (from >= to)
        return;
    svg += "<polyline class=\"series-" + std::string(series) + "\" data-series=\"" + series + "\" points=\"";
    for (std::size_t k = from; k < to; ++k) {
        if (k > from)
            svg += ' ';
        svg += num(p.x(double(points[k].message))) + "," + num(p.y(double(points[k].tokens)));
    }
    svg += "\"/>\n";
    if (to - from == 1) // a lone point draws no line: a dot instead
        svg += "<circle class=\"dot-" + std::string(series) + "\" cx=\"" + num(p.x(double(points[from].message))) + "\" cy=\""
               + num(p.y(double(points[from].tokens))) + "\" r=\"3\"/>\n";
}

} // namespace

std::int64_t niceStep(std::int64_t max, int count)
{
    if (max <= 0 || count <= 0)
        return 1;
    const double rough = double(max) / count;
    const double magnitude = std::pow(10.0, std::floor(std::log10(rough)));
    const double residual = rough / magnitude;
    double factor = 10;
    for (const double f : {1.0, 2.0, 2.5, 5.0}) {
        if (f == 2.5 && magnitude < 10)
            continue;
        if (residual <= f) {
            factor = f;
            break;
        }
    }
    return std::max<std::int64_t>(1, std::llround(factor * magnitude));
}

std::string usageChartSvg(const UsageSeries &u)
{
    Plot p;
    std::int64_t maxValue = 0;
    for (const auto *series : {&u.measured, &u.estimated})
        for (const UsagePoint &pt : *series)
            maxValue = std::max(maxValue, pt.tokens);
    for (const CompactionMark &m : u.compactions)
        maxValue = std::max(maxValue, m.preTokens);
    // The window as a line when the session comes near it; otherwise the data fills the chart.
    const bool showWindow = u.window > 0 && double(u.window) <= 1.25 * double(maxValue);
    if (showWindow)
        maxValue = std::max(maxValue, u.window);
    const std::int64_t step = niceStep(std::max<std::int64_t>(maxValue, 1), 5);
    p.yMax = double(((std::max<std::int64_t>(maxValue, 1) + step - 1) / step) * step);
    p.xMax = u.messages > 1 ? double(u.messages - 1) : 1;

    std::string svg = "<svg class=\"chart usage\" viewBox=\"0 0 1000 300\" width=\"100%\" role=\"img\" "
                      "aria-label=\"Context over the session\" xmlns=\"http://www.w3.org/2000/svg\">\n";
    svg += "<rect class=\"plot\" x=\"" + num(p.left) + "\" y=\"" + num(p.top) + "\" width=\"" + num(p.right - p.left)
           + "\" height=\"" + num(p.bottom - p.top) + "\"/>\n";
    for (std::int64_t v = 0; double(v) <= p.yMax; v += step) {
        const std::string y = num(p.y(double(v)));
        svg += "<line class=\"grid\" x1=\"" + num(p.left) + "\" x2=\"" + num(p.right) + "\" y1=\"" + y + "\" y2=\"" + y + "\"/>";
        svg += "<text class=\"axis\" x=\"" + num(p.left - 6) + "\" y=\"" + y + "\" text-anchor=\"end\" dominant-baseline=\"middle\">"
               + shortTokens(v) + "</text>\n";
    }
    const std::int64_t xStep = niceStep(std::max<std::int64_t>(std::int64_t(p.xMax), 1), 8);
    for (std::int64_t m = 0; double(m) <= p.xMax; m += xStep)
        svg += "<text class=\"axis\" x=\"" + num(p.x(double(m))) + "\" y=\"" + num(p.bottom + 16) + "\" text-anchor=\"middle\">"
               + std::to_string(m + 1) + "</text>";
    svg += "\n";
    if (showWindow) {
        const std::string y = num(p.y(double(u.window)));
        svg += "<line class=\"window-line\" x1=\"" + num(p.left) + "\" x2=\"" + num(p.right) + "\" y1=\"" + y + "\" y2=\"" + y
               + "\">" + title("Context window: " + grouped(u.window) + " tokens") + "</line>\n";
    }
    for (const CompactionMark &m : u.compactions) {
        const std::string x = num(p.x(double(m.message)));
        std::string what = "Compaction at message " + std::to_string(m.message + 1);
        if (m.preTokens > 0)
            what += ": " + grouped(m.preTokens) + " tokens before (recorded)";
        svg += "<line class=\"compaction\" data-message=\"" + std::to_string(m.message + 1) + "\" x1=\"" + x + "\" x2=\"" + x
               + "\" y1=\"" + num(p.top) + "\" y2=\"" + num(p.bottom) + "\">" + title(what) + "</line>\n";
    }
    std::size_t from = 0;
    for (std::size_t k = 1; k <= u.estimated.size(); ++k)
        if (k == u.estimated.size() || u.estimated[k].restart) {
            polyline(svg, p, u.estimated, from, k, "estimated");
            from = k;
        }
    polyline(svg, p, u.measured, 0, u.measured.size(), "measured");
    svg += "</svg>\n";
    return svg;
}

std::string priorityClass(analysis::Priority p)
{
    return "p-" + std::string(analysis::priorityName(p));
}

std::string contextMapSvg(const std::vector<MapSegment> &map, std::optional<std::size_t> boundary)
{
    constexpr double W = 1000, H = 36;
    std::string svg = "<svg class=\"chart map\" viewBox=\"0 0 1000 36\" width=\"100%\" preserveAspectRatio=\"none\" role=\"img\" "
                      "aria-label=\"Context map\" xmlns=\"http://www.w3.org/2000/svg\">\n";
    double total = 0;
    for (const MapSegment &s : map)
        total += double(std::max<std::int64_t>(s.tokens, 1));
    std::vector<double> x0(map.size() + 1, 0);
    for (std::size_t k = 0; k < map.size(); ++k)
        x0[k + 1] = x0[k] + double(std::max<std::int64_t>(map[k].tokens, 1)) / total * W;
    auto rect = [&](double a, double b, analysis::Priority pr, const std::string &what) {
        svg += "<rect class=\"" + priorityClass(pr) + "\" x=\"" + num(a) + "\" y=\"0\" width=\"" + num(std::max(b - a, 0.1))
               + "\" height=\"" + num(H) + "\">" + title(what) + "</rect>\n";
    };
    if (map.size() <= 400) {
        for (std::size_t k = 0; k < map.size(); ++k)
            rect(x0[k], x0[k + 1], map[k].priority,
                 "Message " + std::to_string(map[k].message + 1) + ": " + grouped(map[k].tokens) + " tokens, priority "
                     + std::string(analysis::priorityName(map[k].priority)));
    } else {
        // One column per unit of width, coloured by the priority holding most of it; equal
        // neighbours merged, so that the size stays bounded for any number of messages.
        constexpr std::size_t kColumns = 1000, kPriorities = 7;
        std::vector<std::array<double, kPriorities>> weight(kColumns, std::array<double, kPriorities>{});
        std::vector<std::size_t> first(kColumns, SIZE_MAX), last(kColumns, 0);
        for (std::size_t k = 0; k < map.size(); ++k) {
            const std::size_t c0 = std::min(kColumns - 1, std::size_t(x0[k]));
            const std::size_t c1 = std::min(kColumns - 1, std::size_t(std::max(x0[k], x0[k + 1] - 1e-9)));
            for (std::size_t c = c0; c <= c1; ++c) {
                const double overlap = std::min(x0[k + 1], double(c + 1)) - std::max(x0[k], double(c));
                weight[c][std::size_t(map[k].priority)] += std::max(overlap, 1e-9);
                first[c] = std::min(first[c], k);
                last[c] = std::max(last[c], k);
            }
        }
        auto dominant = [&](std::size_t c) {
            return analysis::Priority(std::max_element(weight[c].begin(), weight[c].end()) - weight[c].begin());
        };
        std::size_t start = 0;
        for (std::size_t c = 1; c <= kColumns; ++c) {
            if (c < kColumns && dominant(c) == dominant(start))
                continue;
            const std::size_t a = first[start] == SIZE_MAX ? 0 : first[start];
            rect(double(start), double(c), dominant(start),
                 "Messages " + std::to_string(map[a].message + 1) + "\u2013" + std::to_string(map[last[c - 1]].message + 1)
                     + ": mostly priority " + std::string(analysis::priorityName(dominant(start))));
            start = c;
        }
    }
    if (boundary)
        for (std::size_t k = 0; k < map.size(); ++k)
            if (map[k].message == *boundary) {
                svg += "<line class=\"cut\" x1=\"" + num(x0[k]) + "\" x2=\"" + num(x0[k]) + "\" y1=\"0\" y2=\"" + num(H) + "\">"
                       + title("The analysis' boundary: a compaction would cut before message " + std::to_string(*boundary + 1))
                       + "</line>\n";
                break;
            }
    svg += "</svg>\n";
    return svg;
}

std::string categoryClass(const composition::Composition &c, std::size_t k)
{
    if (k < c.categories.size() && c.categories[k].group == composition::Group::Space)
        return "sp-" + c.categories[k].key;
    return "k" + std::to_string(k % kCategoryColours);
}

std::string compositionBarSvg(const composition::Composition &c)
{
    double total = 0;
    for (const auto &cat : c.categories)
        total += double(std::max<std::int64_t>(cat.tokens, 0));
    std::string svg = "<svg class=\"chart bar\" viewBox=\"0 0 1000 32\" width=\"100%\" preserveAspectRatio=\"none\" role=\"img\" "
                      "aria-label=\"Where the context goes\" xmlns=\"http://www.w3.org/2000/svg\">\n";
    double x = 0;
    for (std::size_t k = 0; k < c.categories.size() && total > 0; ++k) {
        const auto &cat = c.categories[k];
        if (cat.tokens <= 0)
            continue;
        const double w = double(cat.tokens) / total * 1000;
        std::string what = cat.label + ": " + grouped(cat.tokens) + " tokens";
        if (cat.group != composition::Group::Space && c.total > 0)
            what += " (" + percent(double(cat.tokens) / double(c.total)) + " of the context)";
        svg += "<rect class=\"" + categoryClass(c, k) + "\" data-category=\"" + htmlEscape(cat.key) + "\" x=\"" + num(x)
               + "\" y=\"0\" width=\"" + num(w) + "\" height=\"32\">" + title(what) + "</rect>\n";
        x += w;
    }
    svg += "</svg>\n";
    return svg;
}

} // namespace cl::report
