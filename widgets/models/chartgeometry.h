// SPDX-License-Identifier: MIT
#pragma once

// Data and geometry behind the usage chart and the context gauge: plain structs and functions,
// tested without painting. The widgets only draw what these compute.

#include "core/model/transcript.h"
#include "core/tokens/contextfigure.h"

#include <QLineF>
#include <QList>
#include <QPointF>
#include <QRect>
#include <QRectF>
#include <QString>

namespace cl::gui {

// ---- Data -------------------------------------------------------------------------------------

struct UsagePoint {
    int message = 0; // index into Transcript::messages
    qint64 tokens = 0;
    bool restart = false; // first point after a compaction: the line does not join the previous one
};

struct CompactMarker {
    int message = 0;
    qint64 preTokens = -1; // from Message::meta "preTokens"; -1 when not recorded (or 0)
};

// Everything the chart and gauge show, derived once per transcript.
struct UsageData {
    QList<UsagePoint> measured;  // one per assistant response with usage (tokens::measuredContext)
    QList<UsagePoint> estimated; // one per conversation message: the live context figure with it the last sent
    QList<CompactMarker> compactions;
    int messageCount = 0;
    // The live context now (tokens::contextFigure): what the next request sends, in the agent's count.
    qint64 estimateNow = 0;
    QString basis;            // "measured", "calibrated", "exact", "seed"
    QString how;              // how it was obtained
    qint64 lastMeasured = -1; // the measurement it starts from, -1 when none is current
    int measuredAt = -1;      // its message index
    // The file's last measurement when it is history (taken before a compaction or an edit): shown as
    // such, never as the context now. -1 otherwise.
    qint64 historyMeasured = -1;
    int historyMeasuredAt = -1;
    qint64 fixed = 0;             // fixed part of every request, in the same count
    QString fixedHow;             // where that figure comes from
    tokens::ContextFigure figure; // the live context figure all of the above come from

    qint64 maxTokens() const; // largest value of either series (0 when empty)
};

// Counted with `e` (the window's choice: tokencount.h).
UsageData usageData(const Transcript &t, tokens::Estimator e = tokens::Estimator::Calibrated);

// ---- Axes -------------------------------------------------------------------------------------

// A "nice" step (1, 2, 2.5 or 5 times a power of ten) giving about targetCount intervals over [0, max].
qint64 niceStep(qint64 max, int targetCount = 5);
// Ticks 0, step, 2*step, ... up to the first tick >= max (at least two ticks: 0 and one step).
QList<qint64> niceTicks(qint64 max, int targetCount = 5);
// Short tick label: 0, 500, 50k, 1.5M.
QString shortTokens(qint64 v);

// Data -> pixel mapping of a chart: x = message index in [xMin, xMax], y = tokens in [0, yMax].
struct ChartGeometry {
    QRectF plot; // plot area in widget pixels
    double xMin = 0;
    double xMax = 1;
    double yMax = 1;

    double xToPixel(double x) const;
    double yToPixel(double y) const;
    QPointF map(double x, double y) const { return {xToPixel(x), yToPixel(y)}; }
    double pixelToX(double px) const;
};

// Top of the chart's value range: the data and the context window, or only the data when fitToData
// (small sessions in a large window would otherwise hug the x axis). At least 1.
qint64 chartValueMax(const UsageData &data, qint64 window, bool fitToData);

// A polyline (x ascending, in pixels) as it is drawn one pixel column at a time: of consecutive
// points in the same column (floor(x)) only the first, the lowest, the highest and the last are
// kept, in their order. Every extreme the line reaches in a column stays, so it looks the same, but a
// series of ten thousand points is stroked as a few per column.
QList<QPointF> thinToColumns(const QList<QPointF> &points);

// The pieces to draw a polyline with: its segments, or with a dashed pen, the dashes (`dash` pixels
// drawn, `gap` pixels not, the pattern running on across the points as a pen's dash pattern runs
// along a path). The raster engine strokes a long polyline as one outline of thousands of crossing
// edges; drawn piece by piece, the chart's lines paint about ten times faster and look the same.
QList<QLineF> segmentsOf(const QList<QPointF> &line);
QList<QLineF> dashesOf(const QList<QPointF> &line, double dash, double gap);

// A line too dense to be seen as one (thousands of points, or sawtooth pieces narrower than a dash)
// painted as what it covers: for each pixel column floor(x) that a piece passes through, one rectangle
// of whole pixels from the lowest to the highest y it reaches there, widened by `penWidth` as its
// stroke would be (round(penWidth) columns wide, starting at that column). Pieces are polylines in
// pixels, x ascending; a piece of one point covers its column at that y. The raster engine strokes
// 20 000 dashes of such a series in 20 ms; it fills a rectangle of whole pixels per column in well
// under one, and the band looks the same.
QList<QRect> columnBands(const QList<QList<QPointF>> &pieces, double penWidth);
// Whether a series is drawn as columnBands: more than `perColumn` points per pixel column of `width`,
// or more pieces than would each leave room for a dash (6 px).
bool isDense(qsizetype points, qsizetype pieces, double width, double perColumn = 8);

// Index into `messages` (ascending) of the entry whose x is nearest to `x`; -1 when empty.
// Ties go to the earlier entry.
int nearestIndex(const QList<int> &messages, double x);

// ---- Gauge bands (seed 003) ----------------------------------------------------------------------

enum class Band {
    None,
    Snip,
    Microcompact,
    AutoCompact,
    HardTruncate
};
constexpr int kBandCount = 5;

Band bandForRatio(double ratio); // used / window
double bandStart(Band b);        // 0, 0.40, 0.60, 0.80, 0.95
double bandEnd(Band b);          // the next band's start, 1.0 for HardTruncate
QString bandName(Band b);        // "none", "snip", "microcompact", "auto-compact", "hard truncate"

// Horizontal bar from 0 to 100 % of the window; values beyond the window clamp to the right edge.
struct GaugeGeometry {
    QRectF bar;

    double xForRatio(double ratio) const;
    QRectF bandRect(Band b) const;
};

// Numbers use the default QLocale's group separator.
// "102,593 / 200,000 (51 %) · measured at message 2,189 + 425": the live context figure, how it was
// obtained, and a measurement that is history as such.
QString gaugeLabel(const UsageData &d, qint64 window);

} // namespace cl::gui
