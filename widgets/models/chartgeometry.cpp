// SPDX-License-Identifier: MIT
#include "widgets/models/chartgeometry.h"

#include "core/tokens/estimator.h"
#include "core/tokens/contextfigure.h"

#include <QLocale>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace cl::gui {

qint64 UsageData::maxTokens() const
{
    qint64 m = 0;
    for (const UsagePoint &p : measured)
        m = std::max(m, p.tokens);
    for (const UsagePoint &p : estimated)
        m = std::max(m, p.tokens);
    return std::max(m, estimateNow);
}

UsageData usageData(const Transcript &t, tokens::Estimator e)
{
    UsageData d;
    d.messageCount = int(t.messages.size());
    const tokens::ContextFigure now = tokens::contextFigure(t, e);
    d.figure = now;
    d.estimateNow = now.total;
    d.basis = QString::fromUtf8(tokens::basisName(now.basis).data(), qsizetype(tokens::basisName(now.basis).size()));
    d.how = QString::fromStdString(now.how);
    d.fixed = now.fixed;
    d.fixedHow = QString::fromStdString(now.fixedHow);
    if (now.measuredAt >= 0) {
        d.lastMeasured = now.measured;
        d.measuredAt = now.measuredAt;
    } else if (now.lastMeasurementIsHistory) {
        d.historyMeasured = now.lastMeasured;
        d.historyMeasuredAt = now.lastMeasuredAt;
    }
    for (const tokens::MeasuredPoint &p : tokens::measuredContext(t))
        d.measured.push_back({int(p.message), p.measured, false});
    // One point per conversation message: the figure with it the last sent, restarting at every
    // compaction like the model's context (history before a compaction was the context at its time).
    std::vector<std::uint32_t> at;
    std::vector<char> restarts;
    bool restart = false;
    for (std::size_t i = 0; i < t.messages.size(); ++i) {
        const Message &m = t.messages[i];
        if (m.sidechain)
            continue;
        if (m.kind == MessageKind::CompactBoundary) {
            CompactMarker marker{int(i), -1};
            if (m.meta.is_object())
                if (auto it = m.meta.find("preTokens"); it != m.meta.end() && it->is_number() && it->get<double>() > 0)
                    marker.preTokens = qint64(it->get<double>());
            d.compactions.push_back(marker);
            restart = true;
            continue;
        }
        if (!m.isTurn())
            continue;
        at.push_back(std::uint32_t(i));
        restarts.push_back(char(restart));
        restart = false;
    }
    const std::vector<tokens::FigureParts> series = tokens::contextSeries(t, at, e);
    for (std::size_t k = 0; k < at.size(); ++k)
        d.estimated.push_back({int(at[k]), series[k].total, restarts[k] != 0});
    return d;
}

qint64 niceStep(qint64 max, int targetCount)
{
    if (max <= 0 || targetCount <= 0)
        return 1;
    const double rough = double(max) / targetCount;
    const double magnitude = std::pow(10.0, std::floor(std::log10(rough)));
    const double residual = rough / magnitude;
    double factor = 10;
    for (double f : {1.0, 2.0, 2.5, 5.0}) {
        if (f == 2.5 && magnitude < 10)
            continue; // 2.5 × 1 is not an integer step
        if (residual <= f) {
            factor = f;
            break;
        }
    }
    return std::max<qint64>(1, std::llround(factor * magnitude));
}

QList<qint64> niceTicks(qint64 max, int targetCount)
{
    const qint64 step = niceStep(max, targetCount);
    QList<qint64> ticks{0};
    do
        ticks.push_back(ticks.back() + step);
    while (ticks.back() < max);
    return ticks;
}

QString shortTokens(qint64 v)
{
    const auto scaled = [v](double unit, QChar suffix) -> QString {
        // One decimal at most, and none when it is zero: 1.5k, 50k.
        QString s = QString::number(double(v) / unit, 'f', 1);
        if (s.endsWith(QLatin1String(".0")))
            s.chop(2);
        return s + suffix;
    };
    const qint64 a = v < 0 ? -v : v;
    if (a >= 1000000)
        return scaled(1e6, u'M');
    if (a >= 1000)
        return scaled(1e3, u'k');
    return QString::number(v);
}

double ChartGeometry::xToPixel(double x) const
{
    const double span = xMax - xMin;
    if (span <= 0)
        return plot.center().x();
    return plot.left() + (x - xMin) / span * plot.width();
}

double ChartGeometry::yToPixel(double y) const
{
    if (yMax <= 0)
        return plot.bottom();
    return plot.bottom() - y / yMax * plot.height();
}

double ChartGeometry::pixelToX(double px) const
{
    if (plot.width() <= 0)
        return xMin;
    return xMin + (px - plot.left()) / plot.width() * (xMax - xMin);
}

qint64 chartValueMax(const UsageData &data, qint64 window, bool fitToData)
{
    const qint64 top = fitToData ? data.maxTokens() : std::max(data.maxTokens(), window);
    return std::max<qint64>(1, top);
}

QList<QPointF> thinToColumns(const QList<QPointF> &points)
{
    QList<QPointF> out;
    out.reserve(std::min<qsizetype>(points.size(), 4096));
    for (qsizetype first = 0; first < points.size();) {
        const double column = std::floor(points[first].x());
        qsizetype last = first, low = first, high = first;
        while (last + 1 < points.size() && std::floor(points[last + 1].x()) == column) {
            ++last;
            if (points[last].y() < points[low].y())
                low = last;
            if (points[last].y() > points[high].y())
                high = last;
        }
        qsizetype kept[] = {first, std::min(low, high), std::max(low, high), last};
        for (qsizetype k = 0; k < 4; ++k)
            if (k == 0 || kept[k] != kept[k - 1])
                out.append(points[kept[k]]);
        first = last + 1;
    }
    return out;
}

QList<QRect> columnBands(const QList<QList<QPointF>> &pieces, double penWidth)
{
    // Lowest and highest y per column, over every piece (columns relative to the leftmost).
    double left = std::numeric_limits<double>::max(), right = std::numeric_limits<double>::lowest();
    for (const QList<QPointF> &piece : pieces)
        if (!piece.isEmpty()) {
            left = std::min(left, std::floor(piece.front().x()));
            right = std::max(right, std::floor(piece.back().x()));
        }
    if (left > right)
        return {};
    const auto columns = std::size_t(right - left) + 1;
    std::vector<double> low(columns, std::numeric_limits<double>::max()), high(columns, std::numeric_limits<double>::lowest());
    const auto cover = [&](double x, double y) {
        const auto c = std::size_t(std::clamp(std::floor(x) - left, 0.0, double(columns - 1)));
        low[c] = std::min(low[c], y);
        high[c] = std::max(high[c], y);
    };
    for (const QList<QPointF> &piece : pieces) {
        for (qsizetype k = 0; k < piece.size(); ++k) {
            cover(piece[k].x(), piece[k].y());
            if (k == 0)
                continue;
            // A segment crossing columns: where it enters and leaves each one.
            const QPointF a = piece[k - 1], b = piece[k];
            for (double edge = std::floor(a.x()) + 1; edge <= b.x(); edge += 1) {
                const double y = b.x() > a.x() ? a.y() + (b.y() - a.y()) * (edge - a.x()) / (b.x() - a.x()) : b.y();
                cover(edge - 0.5, y); // the column left of the edge
                cover(edge, y);       // the one right of it
            }
        }
    }
    QList<QRect> out;
    const double half = penWidth / 2;
    const int width = std::max(1, int(std::lround(penWidth)));
    for (std::size_t c = 0; c < columns; ++c)
        if (low[c] <= high[c]) {
            const int top = int(std::floor(low[c] - half)), bottom = int(std::ceil(high[c] + half));
            out.append(QRect(int(left) + int(c), top, width, bottom - top));
        }
    return out;
}

bool isDense(qsizetype points, qsizetype pieces, double width, double perColumn)
{
    return width > 0 && (double(points) > perColumn * width || double(pieces) * 6 > width);
}

QList<QLineF> segmentsOf(const QList<QPointF> &line)
{
    QList<QLineF> out;
    out.reserve(std::max<qsizetype>(0, line.size() - 1));
    for (qsizetype k = 1; k < line.size(); ++k)
        out.append(QLineF(line[k - 1], line[k]));
    return out;
}

QList<QLineF> dashesOf(const QList<QPointF> &line, double dash, double gap)
{
    QList<QLineF> out;
    if (dash <= 0 || gap < 0)
        return segmentsOf(line);
    bool on = true;
    double left = dash; // of the current dash or gap
    for (qsizetype k = 1; k < line.size(); ++k) {
        QPointF from = line[k - 1];
        const QPointF to = line[k];
        double length = QLineF(from, to).length();
        while (length > 0) {
            const double step = std::min(left, length);
            const QPointF at = from + (to - from) * (step / length);
            if (on)
                out.append(QLineF(from, at));
            from = at;
            length -= step;
            left -= step;
            if (left <= 0) {
                on = !on;
                left = on ? dash : gap;
            }
        }
    }
    return out;
}

int nearestIndex(const QList<int> &messages, double x)
{
    if (messages.isEmpty())
        return -1;
    const auto it = std::lower_bound(messages.begin(), messages.end(), x,
                                     [](int m, double v) { return double(m) < v; });
    if (it == messages.begin())
        return 0;
    if (it == messages.end())
        return int(messages.size()) - 1;
    const int after = int(it - messages.begin());
    return (double(*it) - x) < (x - double(*(it - 1))) ? after : after - 1;
}

namespace {
constexpr double kStarts[kBandCount] = {0.0, 0.40, 0.60, 0.80, 0.95};
}

Band bandForRatio(double ratio)
{
    for (int b = kBandCount - 1; b > 0; --b)
        if (ratio >= kStarts[b])
            return Band(b);
    return Band::None;
}

double bandStart(Band b)
{
    return kStarts[int(b)];
}

double bandEnd(Band b)
{
    return int(b) + 1 < kBandCount ? kStarts[int(b) + 1] : 1.0;
}

QString bandName(Band b)
{
    switch (b) {
    case Band::None: return QStringLiteral("none");
    case Band::Snip: return QStringLiteral("snip");
    case Band::Microcompact: return QStringLiteral("microcompact");
    case Band::AutoCompact: return QStringLiteral("auto-compact");
    case Band::HardTruncate: return QStringLiteral("hard truncate");
    }
    return {};
}

double GaugeGeometry::xForRatio(double ratio) const
{
    return bar.left() + std::clamp(ratio, 0.0, 1.0) * bar.width();
}

QRectF GaugeGeometry::bandRect(Band b) const
{
    const double l = xForRatio(bandStart(b));
    return QRectF(l, bar.top(), xForRatio(bandEnd(b)) - l, bar.height());
}

QString gaugeLabel(const UsageData &d, qint64 window)
{
    const QLocale loc;
    const int percent = window > 0 ? int(std::lround(100.0 * double(d.estimateNow) / double(window))) : 0;
    QString label = QStringLiteral("%1 / %2 (%3 %)").arg(loc.toString(d.estimateNow), loc.toString(window)).arg(percent);
    if (d.measuredAt >= 0) {
        label += QStringLiteral(" \u00B7 measured at message %1").arg(loc.toString(d.measuredAt + 1));
        if (d.estimateNow != d.lastMeasured)
            label += QStringLiteral(" %1 %2").arg(d.estimateNow >= d.lastMeasured ? QStringLiteral("+") : QStringLiteral("\u2212"),
                                                  loc.toString(std::abs(d.estimateNow - d.lastMeasured)));
    } else {
        label += QStringLiteral(" \u00B7 ") + (d.basis.isEmpty() ? QStringLiteral("estimated") : d.basis);
    }
    if (d.historyMeasuredAt >= 0)
        label += QStringLiteral(" \u00B7 last measured %1 at message %2, before a compaction or edit")
                     .arg(loc.toString(d.historyMeasured), loc.toString(d.historyMeasuredAt + 1));
    return label;
}

} // namespace cl::gui
