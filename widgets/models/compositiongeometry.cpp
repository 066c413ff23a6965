// SPDX-License-Identifier: MIT
#include "widgets/models/compositiongeometry.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace cl::gui {

namespace cp = cl::composition;

QColor compositionColor(const std::string &key, bool dark)
{
    // {light, dark}
    static const std::map<std::string, std::pair<QColor, QColor>> known = {
        {"system", {QColor(96, 112, 140), QColor(120, 140, 175)}},
        {"tools", {QColor(70, 120, 190), QColor(95, 150, 225)}},
        {"fixed", {QColor(96, 112, 140), QColor(120, 140, 175)}},
        {"fixed_rest", {QColor(70, 120, 190), QColor(95, 150, 225)}},
        {"attach:skills", {QColor(120, 150, 170), QColor(140, 175, 195)}},
        {"attach:agents", {QColor(105, 135, 160), QColor(125, 160, 185)}},
        {"attach:memory", {QColor(90, 140, 150), QColor(110, 165, 175)}},
        {"attach:mcp", {QColor(130, 130, 175), QColor(150, 150, 200)}},
        {"attach:files", {QColor(110, 155, 140), QColor(130, 180, 165)}},
        {"attach:environment", {QColor(140, 150, 160), QColor(160, 170, 180)}},
        {"user", {QColor(60, 160, 90), QColor(95, 195, 120)}},
        {"assistant", {QColor(150, 95, 200), QColor(185, 140, 235)}},
        {"thinking", {QColor(200, 120, 170), QColor(230, 150, 200)}},
        {"tool_calls", {QColor(225, 150, 50), QColor(240, 175, 80)}},
        {"media", {QColor(40, 160, 170), QColor(70, 195, 205)}},
        {"summary", {QColor(210, 180, 40), QColor(225, 200, 80)}},
        {"system_messages", {QColor(130, 130, 150), QColor(150, 150, 170)}},
        {"framing", {QColor(175, 175, 180), QColor(105, 105, 112)}},
        {"other", {QColor(150, 140, 120), QColor(130, 120, 105)}},
        {"free", {QColor(232, 234, 238), QColor(52, 55, 60)}},
        {"reserved", {QColor(205, 190, 190), QColor(90, 70, 72)}},
    };
    if (const auto it = known.find(key); it != known.end())
        return dark ? it->second.second : it->second.first;
    // Tool results and MCP tool definitions: a hue from the name, red to orange-brown kept apart
    // from the fixed colours by saturation; the same tool has the same colour everywhere.
    const bool mcpDefs = key.rfind("mcp:", 0) == 0;
    std::uint32_t h = 2166136261u; // FNV-1a: the same hue in every run and on every machine
    for (const unsigned char ch : key)
        h = (h ^ ch) * 16777619u;
    return QColor::fromHsv(int(h % 360u), mcpDefs ? 90 : 170, dark ? 225 : 200);
}

QList<GridCell> compositionGrid(const cp::Composition &c, const QRectF &area, int columns, int rows, double gap)
{
    QList<GridCell> cells;
    const int n = columns * rows;
    if (n <= 0 || area.isEmpty())
        return cells;
    std::int64_t span = 0;
    for (const auto &cat : c.categories)
        span += std::max<std::int64_t>(0, cat.tokens);
    span = std::max<std::int64_t>(span, c.window);
    if (span <= 0)
        return cells;
    const double w = (area.width() - gap * (columns - 1)) / columns;
    const double h = (area.height() - gap * (rows - 1)) / rows;
    cells.reserve(n);
    std::int64_t cumulative = 0;
    int filled = 0;
    for (int k = 0; k < int(c.categories.size()); ++k) {
        cumulative += std::max<std::int64_t>(0, c.categories[std::size_t(k)].tokens);
        const int upTo = int(std::llround(double(cumulative) * n / double(span)));
        for (; filled < std::min(upTo, n); ++filled) {
            const int row = filled / columns;
            const int col = filled % columns;
            cells.push_back({QRectF(area.left() + col * (w + gap), area.top() + row * (h + gap), w, h), k});
        }
    }
    for (; filled < n; ++filled) { // the window beyond every category (no space categories given)
        const int row = filled / columns;
        const int col = filled % columns;
        cells.push_back({QRectF(area.left() + col * (w + gap), area.top() + row * (h + gap), w, h), -1});
    }
    return cells;
}

QList<int> sampledRows(const cp::Series &s, int pixels)
{
    QList<int> out;
    const int n = int(s.messages.size());
    if (n == 0)
        return out;
    if (pixels <= 0 || n <= pixels) {
        out.reserve(n);
        for (int r = 0; r < n; ++r)
            out.push_back(r);
        return out;
    }
    const double first = s.messages.front();
    const double last = std::max(first + 1, double(s.messages.back()));
    int bucket = -1;
    for (int r = 0; r < n; ++r) {
        const int b = std::min(pixels - 1, int((double(s.messages[std::size_t(r)]) - first) / (last - first) * pixels));
        if (b != bucket) {
            out.push_back(r);
            bucket = b;
        } else if (s.totals[std::size_t(r)] > s.totals[std::size_t(out.back())]) {
            out.back() = r;
        }
    }
    return out;
}

QList<QPolygonF> stackedBands(const cp::Series &s, const QList<int> &rows, const ChartGeometry &g)
{
    QList<QPolygonF> bands;
    const std::size_t columns = s.keys.size();
    std::vector<std::int64_t> below(std::size_t(rows.size()), 0);
    for (std::size_t k = 0; k < columns; ++k) {
        QPolygonF upper, lower;
        upper.reserve(rows.size());
        lower.reserve(rows.size());
        for (int i = 0; i < rows.size(); ++i) {
            const std::size_t r = std::size_t(rows[i]);
            const double x = s.messages[r];
            const std::int64_t base = below[std::size_t(i)];
            const std::int64_t top = base + s.values[r][k];
            upper.push_back(g.map(x, double(top)));
            lower.push_back(g.map(x, double(base)));
            below[std::size_t(i)] = top;
        }
        std::reverse(lower.begin(), lower.end());
        upper += lower;
        bands.push_back(upper);
    }
    return bands;
}

int nearestRow(const cp::Series &s, double x)
{
    const auto &m = s.messages;
    if (m.empty())
        return -1;
    const auto it = std::lower_bound(m.begin(), m.end(), x, [](std::uint32_t v, double xx) { return double(v) < xx; });
    if (it == m.begin())
        return 0;
    if (it == m.end())
        return int(m.size()) - 1;
    const int after = int(it - m.begin());
    return (double(*it) - x) < (x - double(*(it - 1))) ? after : after - 1;
}

} // namespace cl::gui
