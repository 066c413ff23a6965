// SPDX-License-Identifier: MIT
#pragma once

// Data and geometry of the compare chart (plain structs, tested without painting): small multiples,
// one column per metric, one row per strategy, a horizontal bar in each cell. Each metric has its
// own axis: tokens on [0, largest "before"] with the "before" drawn as a ghost bar behind "after";
// reduction on [0, largest reduction]; fact retention and cache prefix on [0, 100 %]; time on
// [0, slowest]. So each column compares strategies on one question at a glance.

#include "core/workflow/compare.h"

#include <QList>
#include <QPointF>
#include <QRectF>
#include <QString>

#include <vector>

namespace cl::gui {

enum class CompareMetric {
    TokensAfter,
    Reduction,
    FactRetention,
    CachePrefix,
    Time
};
constexpr int kCompareMetricCount = 5;
QString compareMetricTitle(CompareMetric m);

struct CompareBar {
    QString name, title;
    qint64 tokensBefore = 0, tokensAfter = 0;
    double reduction = 0, factRetention = 1, cacheShare = 0, millis = 0;
    qint64 cachePrefixTokens = 0;
    bool changed = false, failed = false; // failed: parameter error (drawn without bars)
    int violations = 0;

    double value(CompareMetric m) const; // tokensAfter, reduction, factRetention, cacheShare, millis
};
CompareBar compareBar(const strategy::CompareRow &row);
// Rows with a result, in the given order (errors included as failed bars).
QList<CompareBar> compareBars(const std::vector<strategy::CompareRow> &rows);
// Short value label drawn after a bar: "12.3k", "64 %", "3.2 ms".
QString compareValueLabel(const CompareBar &b, CompareMetric m);

struct CompareChartGeometry {
    QRectF area;              // the whole chart in widget pixels
    double labelWidth = 160;  // strategy titles on the left
    double headerHeight = 20; // metric titles on top
    double valueWidth = 44;   // room for the value label right of the longest bar
    double columnGap = 14;
    double rowHeight = 18;
    int rows = 0;
    double axisMax[kCompareMetricCount] = {1, 1, 1, 1, 1};

    // Fits `bars` into `area`: row height between minRow and maxRow, axes from the data.
    static CompareChartGeometry layout(const QRectF &area, const QList<CompareBar> &bars, double labelWidth,
                                       double headerHeight, double valueWidth, double minRow = 14,
                                       double maxRow = 26);
    double preferredHeight() const { return headerHeight + rows * rowHeight + 4; }

    QRectF columnRect(int metric) const; // the cells' area of one metric column (below the header)
    QRectF headerRect(int metric) const;
    QRectF labelRect(int row) const;
    QRectF rowRect(int row) const; // full width band of a row
    double barMaxLength(int metric) const;
    // The bar of `value` in a cell: starts at the column's left, length value / axisMax x barMaxLength.
    QRectF barRect(int row, int metric, double value) const;
    QRectF barRect(int row, CompareMetric m, const CompareBar &b) const { return barRect(row, int(m), b.value(m)); }
    QRectF ghostRect(int row, const CompareBar &b) const; // tokens before, behind the tokens-after bar

    struct Hit {
        int row = -1;
        int metric = -1; // -1 on the label column
    };
    // Row under pos (anywhere on its band, labels included); row -1 outside.
    Hit hitTest(const QPointF &pos) const;
};

} // namespace cl::gui
