// SPDX-License-Identifier: MIT
#include "widgets/models/comparechartgeometry.h"

#include <QCoreApplication>
#include <QLocale>

#include <algorithm>
#include <cmath>

namespace cl::gui {

QString compareMetricTitle(CompareMetric m)
{
    switch (m) {
    case CompareMetric::TokensAfter: return QCoreApplication::translate("CompareChart", "Tokens after (of before)");
    case CompareMetric::Reduction: return QCoreApplication::translate("CompareChart", "Reduction");
    case CompareMetric::FactRetention: return QCoreApplication::translate("CompareChart", "Facts kept");
    case CompareMetric::CachePrefix: return QCoreApplication::translate("CompareChart", "Cache prefix");
    case CompareMetric::Time: return QCoreApplication::translate("CompareChart", "Time");
    }
    return {};
}

double CompareBar::value(CompareMetric m) const
{
    switch (m) {
    case CompareMetric::TokensAfter: return double(tokensAfter);
    case CompareMetric::Reduction: return reduction;
    case CompareMetric::FactRetention: return factRetention;
    case CompareMetric::CachePrefix: return cacheShare;
    case CompareMetric::Time: return millis;
    }
    return 0;
}

CompareBar compareBar(const strategy::CompareRow &r)
{
    CompareBar b;
    b.name = QString::fromStdString(r.strategy);
    b.title = r.title.empty() ? b.name : QString::fromStdString(r.title);
    b.failed = !r.error.empty();
    if (!b.failed) {
        const strategy::Stats &s = r.result.stats;
        b.tokensBefore = s.liveBefore; // the live context, as the gauge counts it
        b.tokensAfter = s.liveAfter;
        b.reduction = std::max(0.0, s.liveReduction);
        b.factRetention = s.factRetention;
        b.cacheShare = s.cachePrefixShare;
        b.cachePrefixTokens = s.cachePrefixTokens;
        b.millis = s.millis;
        b.changed = r.result.changed;
        b.violations = int(r.result.violations.size());
    }
    return b;
}

QList<CompareBar> compareBars(const std::vector<strategy::CompareRow> &rows)
{
    QList<CompareBar> out;
    out.reserve(qsizetype(rows.size()));
    for (const strategy::CompareRow &r : rows)
        out.push_back(compareBar(r));
    return out;
}

namespace {

QString shortCount(qint64 v)
{
    const QLocale loc;
    if (v >= 1000000)
        return loc.toString(double(v) / 1e6, 'f', 1) + u'M';
    if (v >= 10000)
        return loc.toString(double(v) / 1e3, 'f', 0) + u'k';
    if (v >= 1000)
        return loc.toString(double(v) / 1e3, 'f', 1) + u'k';
    return loc.toString(v);
}

} // namespace

QString compareValueLabel(const CompareBar &b, CompareMetric m)
{
    const QLocale loc;
    if (b.failed)
        return QString();
    switch (m) {
    case CompareMetric::TokensAfter: return shortCount(b.tokensAfter);
    case CompareMetric::Reduction: return loc.toString(100.0 * b.reduction, 'f', 0) + QStringLiteral(" %");
    case CompareMetric::FactRetention: return loc.toString(100.0 * b.factRetention, 'f', 0) + QStringLiteral(" %");
    case CompareMetric::CachePrefix: return loc.toString(100.0 * b.cacheShare, 'f', 0) + QStringLiteral(" %");
    case CompareMetric::Time:
        return loc.toString(b.millis, 'f', b.millis < 10 ? 1 : 0) + QStringLiteral(" ms");
    }
    return {};
}

CompareChartGeometry CompareChartGeometry::layout(const QRectF &area, const QList<CompareBar> &bars,
                                                  double labelWidth, double headerHeight, double valueWidth,
                                                  double minRow, double maxRow)
{
    CompareChartGeometry g;
    g.area = area;
    g.labelWidth = labelWidth;
    g.headerHeight = headerHeight;
    g.valueWidth = valueWidth;
    g.rows = int(bars.size());
    const double available = std::max(0.0, area.height() - headerHeight - 4);
    g.rowHeight = g.rows > 0 ? std::clamp(available / g.rows, minRow, maxRow) : maxRow;
    // Axes: the data's own maxima, so small differences stay visible; shares that are naturally
    // bounded (facts, cache) use the full 100 % so "all kept" always reads as a full bar.
    double maxBefore = 0, maxReduction = 0, maxMillis = 0;
    for (const CompareBar &b : bars) {
        maxBefore = std::max({maxBefore, double(b.tokensBefore), double(b.tokensAfter)});
        maxReduction = std::max(maxReduction, b.reduction);
        maxMillis = std::max(maxMillis, b.millis);
    }
    g.axisMax[int(CompareMetric::TokensAfter)] = maxBefore > 0 ? maxBefore : 1;
    g.axisMax[int(CompareMetric::Reduction)] = maxReduction > 0 ? maxReduction : 1;
    g.axisMax[int(CompareMetric::FactRetention)] = 1;
    g.axisMax[int(CompareMetric::CachePrefix)] = 1;
    g.axisMax[int(CompareMetric::Time)] = maxMillis > 0 ? maxMillis : 1;
    return g;
}

QRectF CompareChartGeometry::columnRect(int metric) const
{
    const double plotLeft = area.left() + labelWidth;
    const double width = std::max(0.0, area.right() - plotLeft - columnGap * (kCompareMetricCount - 1));
    const double column = width / kCompareMetricCount;
    const double left = plotLeft + metric * (column + columnGap);
    return QRectF(left, area.top() + headerHeight, column, rows * rowHeight);
}

QRectF CompareChartGeometry::headerRect(int metric) const
{
    const QRectF c = columnRect(metric);
    return QRectF(c.left(), area.top(), c.width(), headerHeight);
}

QRectF CompareChartGeometry::labelRect(int row) const
{
    return QRectF(area.left(), area.top() + headerHeight + row * rowHeight, labelWidth - 8, rowHeight);
}

QRectF CompareChartGeometry::rowRect(int row) const
{
    return QRectF(area.left(), area.top() + headerHeight + row * rowHeight, area.width(), rowHeight);
}

double CompareChartGeometry::barMaxLength(int metric) const
{
    return std::max(0.0, columnRect(metric).width() - valueWidth);
}

QRectF CompareChartGeometry::barRect(int row, int metric, double value) const
{
    const QRectF c = columnRect(metric);
    const double max = axisMax[metric] > 0 ? axisMax[metric] : 1;
    const double length = barMaxLength(metric) * std::clamp(value / max, 0.0, 1.0);
    // Bars fill the middle 70 % of the row so neighbouring rows stay apart.
    const double thickness = rowHeight * 0.7;
    const double top = c.top() + row * rowHeight + (rowHeight - thickness) / 2;
    return QRectF(c.left(), top, length, thickness);
}

QRectF CompareChartGeometry::ghostRect(int row, const CompareBar &b) const
{
    return barRect(row, int(CompareMetric::TokensAfter), double(b.tokensBefore));
}

CompareChartGeometry::Hit CompareChartGeometry::hitTest(const QPointF &pos) const
{
    Hit h;
    const double top = area.top() + headerHeight;
    if (rows <= 0 || rowHeight <= 0 || pos.y() < top || pos.y() >= top + rows * rowHeight || pos.x() < area.left()
        || pos.x() > area.right())
        return h;
    h.row = std::clamp(int((pos.y() - top) / rowHeight), 0, rows - 1);
    for (int m = 0; m < kCompareMetricCount; ++m) {
        const QRectF c = columnRect(m);
        if (pos.x() >= c.left() && pos.x() <= c.right())
            h.metric = m;
    }
    return h;
}

} // namespace cl::gui
