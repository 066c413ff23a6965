// SPDX-License-Identifier: MIT
#include "widgets/models/contextmapgeometry.h"

#include "core/tokens/estimator.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace cl::gui {

using cl::analysis::Priority;

namespace {

constexpr int kPriorityCount = int(Priority::Excluded) + 1;

// Widths that sum to `width`: proportional, with every segment at least minW. Entries whose
// proportional share falls below the minimum are pinned to it and the rest re-scaled, until stable
// (each pass only pins more, so at most n passes; in practice two or three).
std::vector<double> widthsWithMinimum(const std::vector<std::int64_t> &tokens, double width, double minW)
{
    const std::size_t n = tokens.size();
    std::vector<double> w(n, 0);
    std::vector<char> pinned(n, 0);
    std::size_t pinnedCount = 0;
    for (;;) {
        double freeTokens = 0;
        for (std::size_t i = 0; i < n; ++i)
            if (!pinned[i])
                freeTokens += double(std::max<std::int64_t>(0, tokens[i]));
        const double freeWidth = width - minW * double(pinnedCount);
        if (freeTokens <= 0) { // nothing left to scale: the unpinned share the rest equally
            const std::size_t freeCount = n - pinnedCount;
            for (std::size_t i = 0; i < n; ++i)
                w[i] = pinned[i] ? minW : (freeCount ? freeWidth / double(freeCount) : 0);
            return w;
        }
        const double scale = freeWidth / freeTokens;
        bool changed = false;
        for (std::size_t i = 0; i < n; ++i)
            if (!pinned[i] && double(std::max<std::int64_t>(0, tokens[i])) * scale < minW) {
                pinned[i] = 1;
                ++pinnedCount;
                changed = true;
            }
        if (!changed) {
            for (std::size_t i = 0; i < n; ++i)
                w[i] = pinned[i] ? minW : double(std::max<std::int64_t>(0, tokens[i])) * scale;
            return w;
        }
    }
}

std::vector<double> proportionalWidths(const std::vector<std::int64_t> &tokens, double width, std::int64_t total)
{
    std::vector<double> w(tokens.size(), 0);
    for (std::size_t i = 0; i < tokens.size(); ++i)
        w[i] = total > 0 ? double(std::max<std::int64_t>(0, tokens[i])) * width / double(total)
                         : width / double(tokens.size());
    return w;
}

void buildColumns(ContextMapGeometry &g)
{
    const int count = int(std::floor(g.width));
    const int n = int(g.segments.size());
    if (count <= 0 || n == 0)
        return;
    // Column span of every segment: [startCol, endCol], nondecreasing in both, so a two-pointer sweep works.
    std::vector<int> startCol(std::size_t(n), 0), endCol(std::size_t(n), 0);
    for (int i = 0; i < n; ++i) {
        const MapSegment &s = g.segments[std::size_t(i)];
        const double r = s.x - g.left, e = r + s.width;
        const int sc = std::clamp(int(std::floor(r)), 0, count - 1);
        startCol[std::size_t(i)] = sc;
        endCol[std::size_t(i)] = std::clamp(int(std::ceil(e)) - 1, sc, count - 1);
    }
    g.columns.resize(std::size_t(count));
    int first = 0, last = -1;
    for (int c = 0; c < count; ++c) {
        while (first < n - 1 && endCol[std::size_t(first)] < c)
            ++first;
        while (last + 1 < n && startCol[std::size_t(last + 1)] <= c)
            ++last;
        MapColumn &col = g.columns[std::size_t(c)];
        col.pixel = int(g.left) + c;
        col.firstPosition = std::min(first, std::max(last, 0));
        col.lastPosition = std::max(last, col.firstPosition);
        // The priority covering most of the column's pixel; ties go to the more protective class.
        std::array<double, kPriorityCount> weight{};
        for (int p = col.firstPosition; p <= col.lastPosition; ++p) {
            const MapSegment &s = g.segments[std::size_t(p)];
            const double r = s.x - g.left, e = r + s.width;
            const double hi = c == count - 1 ? std::max(e, double(c + 1)) : std::min(e, double(c + 1));
            weight[std::size_t(s.priority)] += std::max(0.0, hi - std::max(r, double(c))) + 1e-9;
            if (s.score && (!col.maxScore || *s.score > *col.maxScore))
                col.maxScore = s.score;
        }
        int best = 0;
        for (int k = 1; k < kPriorityCount; ++k)
            if (weight[std::size_t(k)] > weight[std::size_t(best)])
                best = k;
        col.dominant = Priority(best);
    }
}

void buildZones(ContextMapGeometry &g, const cl::analysis::Analysis &a)
{
    const std::size_t messages = a.view.position.size();
    std::vector<signed char> zoneOf(messages, -1);
    const auto mark = [&](const std::vector<std::size_t> &indices, MapZone z) {
        for (std::size_t i : indices)
            if (i < messages)
                zoneOf[i] = static_cast<signed char>(z);
    };
    mark(a.zones.system, MapZone::System);
    mark(a.zones.compressible, MapZone::Compressible);
    mark(a.zones.recent, MapZone::Recent);
    const std::pair<MapZone, std::int64_t> order[] = {{MapZone::System, a.zones.systemTokens},
                                                      {MapZone::Compressible, a.zones.compressibleTokens},
                                                      {MapZone::Recent, a.zones.recentTokens}};
    for (const auto &[zone, tokens] : order) {
        ZoneExtent z;
        z.zone = zone;
        z.tokens = tokens;
        for (const MapSegment &s : g.segments) {
            const std::size_t m = std::size_t(s.message);
            if (m >= messages || zoneOf[m] != static_cast<signed char>(zone))
                continue;
            if (!z.spans.empty() && std::abs(z.spans.back().second - s.x) < 1e-9)
                z.spans.back().second = s.x + s.width; // extends the run
            else
                z.spans.emplace_back(s.x, s.x + s.width);
        }
        if (!z.spans.empty())
            g.zones.push_back(std::move(z));
    }
}

} // namespace

double ZoneExtent::width() const
{
    double w = 0;
    for (const auto &[x0, x1] : spans)
        w += x1 - x0;
    return w;
}

ContextMapGeometry contextMapGeometry(const std::vector<std::int64_t> &tokens, const cl::analysis::Analysis &a,
                                      double left, double width, double minSegmentWidth)
{
    ContextMapGeometry g;
    g.left = left;
    g.width = std::max(0.0, width);
    g.minSegmentWidth = minSegmentWidth;
    const std::size_t n = std::min(tokens.size(), a.view.size());
    if (n == 0 || g.width <= 0)
        return g;
    for (std::size_t p = 0; p < n; ++p)
        g.totalTokens += std::max<std::int64_t>(0, tokens[p]);
    const std::vector<std::int64_t> used(tokens.begin(), tokens.begin() + std::ptrdiff_t(n));
    g.merged = double(n) * minSegmentWidth > g.width;
    const std::vector<double> w = g.merged ? proportionalWidths(used, g.width, g.totalTokens)
                                           : widthsWithMinimum(used, g.width, minSegmentWidth);
    g.segments.resize(n);
    double x = left;
    for (std::size_t p = 0; p < n; ++p) {
        MapSegment &s = g.segments[p];
        s.position = int(p);
        s.message = int(a.view.index[p]);
        s.tokens = used[p];
        s.x = x;
        s.width = w[p];
        x += w[p];
        if (std::size_t(s.message) < a.priority.size())
            s.priority = a.priority[std::size_t(s.message)].priority;
        if (p >= 1 && p - 1 < a.boundaries.size())
            s.score = a.boundaries[p - 1].score;
    }
    bool firstScore = true;
    for (const cl::analysis::BoundaryScore &b : a.boundaries) {
        g.scoreMin = firstScore ? b.score : std::min(g.scoreMin, b.score);
        g.scoreMax = firstScore ? b.score : std::max(g.scoreMax, b.score);
        firstScore = false;
    }
    if (a.boundary && *a.boundary < n) {
        g.boundaryPosition = int(*a.boundary);
        g.boundaryX = g.segments[*a.boundary].x;
    }
    if (g.merged)
        buildColumns(g);
    buildZones(g, a);
    return g;
}

ContextMapGeometry contextMapGeometry(const Transcript &t, const cl::analysis::Analysis &a, double left, double width,
                                      double minSegmentWidth)
{
    std::vector<std::int64_t> tokens;
    tokens.reserve(a.view.size());
    for (std::size_t i : a.view.index)
        tokens.push_back(i < t.messages.size() ? tokens::estimateMessage(t.messages[i]) : 0);
    return contextMapGeometry(tokens, a, left, width, minSegmentWidth);
}

int ContextMapGeometry::positionAt(double x) const
{
    if (segments.empty() || x < left || x > left + width)
        return -1;
    // Last segment starting at or before x (zero-width segments cannot be hit: the next one wins).
    auto it = std::upper_bound(segments.begin(), segments.end(), x, [](double v, const MapSegment &s) { return v < s.x; });
    if (it == segments.begin())
        return 0;
    --it;
    while (it != segments.begin() && it->width <= 0)
        --it;
    return it->position;
}

int ContextMapGeometry::messageAt(double x) const
{
    const int p = positionAt(x);
    return p < 0 ? -1 : segments[std::size_t(p)].message;
}

double ContextMapGeometry::xOfPosition(int position) const
{
    if (position < 0 || segments.empty())
        return left;
    if (std::size_t(position) >= segments.size())
        return left + width;
    return segments[std::size_t(position)].x;
}

double ContextMapGeometry::scoreFraction(double score) const
{
    if (scoreMax <= scoreMin)
        return 0.5;
    return std::clamp((score - scoreMin) / (scoreMax - scoreMin), 0.0, 1.0);
}

QString zoneName(MapZone z)
{
    switch (z) {
    case MapZone::System: return QStringLiteral("system");
    case MapZone::Compressible: return QStringLiteral("compressible");
    case MapZone::Recent: return QStringLiteral("recent");
    }
    return {};
}

QString toQString(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

QString priorityRuleText(std::string_view rule)
{
    static const std::pair<std::string_view, const char *> kRules[] = {
        {"system_prompt", "system message: never removed"},
        {"last_user_messages", "one of the last user requests"},
        {"last_assistant_message", "the last assistant message"},
        {"error_result", "a failed tool result: the error context matters"},
        {"recent_tool_result", "one of the most recent tool results"},
        {"large_read", "an older, large Read result: re-readable from disk"},
        {"old_tool_result", "an older tool result"},
        {"error_message", "a message holding a failed result"},
        {"old_assistant_message", "an older assistant message"},
        {"old_user_request", "an older user request: it carries the task"},
        {"not_conversation", "not part of the conversation"},
    };
    for (const auto &[id, text] : kRules)
        if (id == rule)
            return QString::fromLatin1(text);
    return toQString(rule);
}

} // namespace cl::gui
