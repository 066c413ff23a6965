// SPDX-License-Identifier: MIT
#include "widgets/transcript/usagechart.h"

#include "widgets/models/tokencount.h"
#include "widgets/style/theme.h"

#include <QContextMenuEvent>
#include <QLocale>
#include <QMenu>
#include <QSettings>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <vector>

namespace cl::gui {

namespace {

const QString kFitKey = QStringLiteral("view/chartFitToData");
constexpr double kPickTolerance = 24; // pixels: a click farther than this from every point selects nothing

struct Colours {
    QColor measured, estimated, window, compact, grid, text;
};

Colours coloursFor(const QPalette &pal)
{
    const bool dark = theme::isDark(pal);
    QColor grid = pal.color(QPalette::Text);
    grid.setAlpha(dark ? 45 : 35);
    return {dark ? QColor(90, 170, 235) : QColor(30, 110, 180), dark ? QColor(200, 160, 255) : QColor(130, 70, 180),
            dark ? QColor(255, 110, 110) : QColor(200, 40, 40), dark ? QColor(255, 180, 60) : QColor(200, 115, 0), grid,
            pal.color(QPalette::Text)};
}

// The point of `series` at `message`, nullptr if none; series are sorted by message.
const UsagePoint *pointAt(const QList<UsagePoint> &series, int message)
{
    const auto it = std::lower_bound(series.begin(), series.end(), message,
                                     [](const UsagePoint &p, int m) { return p.message < m; });
    return it != series.end() && it->message == message ? &*it : nullptr;
}

} // namespace

UsageChart::UsageChart(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("usageChart"));
    setMouseTracking(true);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
    m_fitToData = QSettings().value(kFitKey, false).toBool();
}

void UsageChart::setFitToData(bool fit)
{
    if (fit == m_fitToData)
        return;
    m_fitToData = fit;
    QSettings().setValue(kFitKey, fit);
    update();
}

void UsageChart::contextMenuEvent(QContextMenuEvent *event)
{
    QMenu menu(this);
    QAction *fit = menu.addAction(tr("Fit y-axis to data"));
    fit->setCheckable(true);
    fit->setChecked(m_fitToData);
    connect(fit, &QAction::toggled, this, &UsageChart::setFitToData);
    menu.exec(event->globalPos());
}

void UsageChart::setTranscript(const Transcript *transcript)
{
    setUsage(transcript ? usageData(*transcript, tokencount::chosen()) : UsageData{});
}

void UsageChart::setUsage(UsageData data)
{
    m_data = std::move(data);
    // Both series are in message order: merged, not sorted (a live update of a long session).
    m_xs.clear();
    m_xs.reserve(m_data.estimated.size() + m_data.measured.size());
    for (qsizetype e = 0, m = 0; e < m_data.estimated.size() || m < m_data.measured.size();) {
        const bool fromEstimated = m == m_data.measured.size()
                                   || (e < m_data.estimated.size() && m_data.estimated[e].message <= m_data.measured[m].message);
        const int message = fromEstimated ? m_data.estimated[e++].message : m_data.measured[m++].message;
        if (m_xs.isEmpty() || m_xs.back() != message)
            m_xs.push_back(message);
    }
    m_hover = -1;
    update();
}

void UsageChart::setContextWindow(qint64 window)
{
    m_window = window;
    update();
}

qint64 UsageChart::valueMax() const
{
    return chartValueMax(m_data, m_window, m_fitToData);
}

QList<qint64> UsageChart::yTicks() const
{
    return niceTicks(valueMax());
}

ChartGeometry UsageChart::chartGeometry() const
{
    const QFontMetrics fm(font());
    const double left = fm.horizontalAdvance(QStringLiteral("000.0k")) + 12;
    const double top = fm.height() + 10; // legend row
    const double bottom = fm.height() + 8;
    ChartGeometry g;
    g.plot = QRectF(left, top, std::max(1.0, width() - left - 14), std::max(1.0, height() - top - bottom));
    g.xMin = 0;
    g.xMax = std::max(1, m_data.messageCount - 1);
    g.yMax = double(yTicks().back());
    return g;
}

int UsageChart::messageAt(const QPointF &pos) const
{
    const ChartGeometry g = chartGeometry();
    if (!g.plot.adjusted(-kPickTolerance, -kPickTolerance, kPickTolerance, kPickTolerance).contains(pos))
        return -1;
    const int i = nearestIndex(m_xs, g.pixelToX(pos.x()));
    if (i < 0 || std::abs(g.xToPixel(m_xs[i]) - pos.x()) > kPickTolerance)
        return -1;
    return m_xs[i];
}

QString UsageChart::tooltipFor(int message) const
{
    const QLocale loc;
    QString text = tr("Message %1").arg(message + 1);
    if (const UsagePoint *m = pointAt(m_data.measured, message))
        text += u'\n' + tr("measured context: %1 tokens").arg(loc.toString(m->tokens));
    if (const UsagePoint *e = pointAt(m_data.estimated, message))
        text += u'\n' + tr("live context with it sent: %1 tokens").arg(loc.toString(e->tokens));
    if (m_window > 0)
        if (const UsagePoint *m = pointAt(m_data.measured, message))
            text += u'\n' + tr("%1 % of the window").arg(std::lround(100.0 * double(m->tokens) / double(m_window)));
    return text;
}

void UsageChart::mouseMoveEvent(QMouseEvent *event)
{
    const int message = messageAt(event->position());
    if (message != m_hover) {
        m_hover = message;
        update();
    }
    if (message >= 0)
        QToolTip::showText(event->globalPosition().toPoint(), tooltipFor(message), this);
    else
        QToolTip::hideText();
}

void UsageChart::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return;
    const int message = messageAt(event->position());
    if (message >= 0)
        Q_EMIT messageActivated(message);
}

void UsageChart::leaveEvent(QEvent *)
{
    m_hover = -1;
    update();
}

void UsageChart::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const ChartGeometry g = chartGeometry();
    if (m_data.messageCount == 0) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("Open a transcript to see its context over time"));
        return;
    }
    paintAxes(p, g);
    paintSeries(p, g);
    paintLegend(p);
}

void UsageChart::paintAxes(QPainter &p, const ChartGeometry &g) const
{
    const Colours c = coloursFor(palette());
    const QFontMetrics fm(font());
    for (qint64 t : yTicks()) {
        const double y = std::round(g.yToPixel(double(t))) + 0.5;
        p.setPen(c.grid);
        p.drawLine(QPointF(g.plot.left(), y), QPointF(g.plot.right(), y));
        p.setPen(c.text);
        p.drawText(QRectF(0, y - fm.height() / 2.0, g.plot.left() - 6, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
                   shortTokens(t));
    }
    // x: message indices; ticks from the same nice steps, only those inside the range.
    for (qint64 t : niceTicks(qint64(g.xMax), 8)) {
        if (t > g.xMax)
            break;
        const double x = std::round(g.xToPixel(double(t))) + 0.5;
        p.setPen(c.grid);
        p.drawLine(QPointF(x, g.plot.bottom()), QPointF(x, g.plot.bottom() + 4));
        p.setPen(c.text);
        p.drawText(QRectF(x - 40, g.plot.bottom() + 4, 80, fm.height()), Qt::AlignHCenter | Qt::AlignTop,
                   QString::number(t));
    }
    p.setPen(c.grid);
    p.drawRect(g.plot);

    m_labelRects.clear();
    if (m_window > 0) {
        // Fitted to the data: say where the window is; else a dashed line, labelled below it (above
        // it would collide with the legend when the window is the top tick).
        const bool above = double(m_window) > g.yMax;
        const double y = above ? g.plot.top() : g.yToPixel(double(m_window));
        if (!above) {
            p.setPen(QPen(c.window, 1.5, Qt::DashDotLine));
            p.drawLine(QPointF(g.plot.left(), y), QPointF(g.plot.right(), y));
        }
        const QString label = above ? tr("window %1 (above)").arg(shortTokens(m_window)) : tr("window %1").arg(shortTokens(m_window));
        const double w = fm.horizontalAdvance(label) + 2;
        const QRectF r(g.plot.right() - 4 - w, y + 1, w, fm.height());
        p.setPen(c.window);
        p.drawText(r, Qt::AlignRight | Qt::AlignTop, label);
        m_labelRects.push_back(r);
    }
    // Compactions: one dashed line per pixel column, and a label where one fits in the top three rows
    // (more would cover the lines they label). A session with hundreds of them (722 in a generated
    // 800 MB one) drew a line and placed a label for each on every paint, 25-30 ms of each live
    // update, and its labels filled the plot. The lines first, then the labels over them on a backing:
    // drawn in turn, each later line crossed the labels before it and made them hard to read.
    // Closer than a dash's length apart, dashed lines make a mesh over the data (and 8 000 dashes):
    // then each is a faint solid hairline.
    std::vector<std::pair<double, const CompactMarker *>> marks;
    for (const CompactMarker &m : m_data.compactions) {
        const double x = g.xToPixel(m.message);
        if (!marks.empty() && x - marks.back().first < 2)
            continue; // the same place on screen as the one drawn
        marks.emplace_back(x, &m);
    }
    const bool dense = isDense(0, qsizetype(marks.size()), g.plot.width());
    QList<QLineF> lines;
    for (const auto &mark : marks) {
        const QLineF line(mark.first, g.plot.top(), mark.first, g.plot.bottom());
        if (dense)
            lines.append(line);
        else
            lines += dashesOf({line.p1(), line.p2()}, 4 * 1.5, 2 * 1.5); // Qt::DashLine's
    }
    // Faint but opaque: the raster engine draws translucent lines ten times slower.
    const QColor base = palette().color(QPalette::Base);
    const auto mix = [](int a, int b) { return (a * 45 + b * 55) / 100; };
    const QColor faint(mix(c.compact.red(), base.red()), mix(c.compact.green(), base.green()), mix(c.compact.blue(), base.blue()));
    p.setPen(dense ? QPen(faint, 1) : QPen(c.compact, 1.5));
    p.drawLines(lines);
    const int rows = std::clamp(int((g.plot.height() - 2) / fm.height()), 1, 3);
    std::vector<double> rowEnd(std::size_t(rows), -1e9); // right edge of the rightmost label in each row
    for (const auto &[x, marker] : marks) {
        const CompactMarker &m = *marker;
        // Labels go left to right: a row whose last label reaches past this line has no room right of it.
        const auto free = std::find_if(rowEnd.begin(), rowEnd.end(), [x](double end) { return end + 3 < x; });
        if (free == rowEnd.end() && x < g.plot.right() - 40)
            continue;
        const QString label = m.preTokens > 0 ? tr("compact (%1 before)").arg(shortTokens(m.preTokens)) : tr("compact");
        // Right of the line, or left of it when it would leave the plot; lower while it would cover
        // another label (the window's, an earlier compaction's); none when no row is free.
        const double w = fm.horizontalAdvance(label) + 2;
        const int firstRow = free == rowEnd.end() ? 0 : int(free - rowEnd.begin());
        QRectF r(x + 3 + w > g.plot.right() ? std::max(g.plot.left() + 1, x - 3 - w) : x + 3, g.plot.top() + 2 + firstRow * fm.height(),
                 w, fm.height());
        const auto covers = [&](const QRectF &q) {
            return std::any_of(m_labelRects.begin(), m_labelRects.end(), [&](const QRectF &o) { return o.intersects(q); });
        };
        int row = firstRow;
        while (covers(r) && row + 1 < rows) {
            r.translate(0, fm.height());
            ++row;
        }
        if (covers(r))
            continue;
        QColor under = palette().color(QPalette::Base); // the lines under it stay faintly visible
        under.setAlpha(215);
        p.fillRect(r, under);
        p.setPen(c.compact);
        p.drawText(r, Qt::AlignLeft, label);
        m_labelRects.push_back(r);
        rowEnd[std::size_t(row)] = std::max(rowEnd[std::size_t(row)], r.right());
    }
}

void UsageChart::paintSeries(QPainter &p, const ChartGeometry &g) const
{
    const Colours c = coloursFor(palette());
    // The lines in pixels, each thinned to what its pixel columns show (the estimate restarts at
    // every compaction), drawn piece by piece (chartgeometry.h says why).
    const auto lines = [&g](const QList<UsagePoint> &series, bool restarts) {
        QList<QList<QPointF>> out(1);
        for (const UsagePoint &pt : series) {
            if (restarts && pt.restart && !out.back().isEmpty())
                out.append(QList<QPointF>());
            out.back().append(g.map(pt.message, double(pt.tokens)));
        }
        for (QList<QPointF> &line : out)
            line = thinToColumns(line);
        return out;
    };
    // A series denser than the pixels show (an 800 MB session: 69 000 points, 722 compactions) is
    // painted as the band it covers; its dashes could not be seen anyway.
    const auto bands = [&p](const QList<QList<QPointF>> &pieces, const QColor &colour, double width) {
        for (const QRect &r : columnBands(pieces, width))
            p.fillRect(r, colour);
    };
    p.setBrush(Qt::NoBrush);
    constexpr double kEstimatedWidth = 1.5, kMeasuredWidth = 2;
    const QList<QList<QPointF>> estimated = lines(m_data.estimated, true);
    if (isDense(m_data.estimated.size(), estimated.size(), g.plot.width(), 32)) {
        bands(estimated, c.estimated, kEstimatedWidth);
    } else {
        p.setPen(QPen(c.estimated, kEstimatedWidth)); // dashed as Qt::DashLine: 4 on, 2 off, in pen widths
        for (const QList<QPointF> &line : estimated)
            p.drawLines(dashesOf(line, 4 * kEstimatedWidth, 2 * kEstimatedWidth));
    }
    const QList<QList<QPointF>> measured = lines(m_data.measured, false);
    if (isDense(m_data.measured.size(), 1, g.plot.width())) {
        bands(measured, c.measured, kMeasuredWidth);
    } else {
        p.setPen(QPen(c.measured, kMeasuredWidth));
        for (const QList<QPointF> &line : measured)
            p.drawLines(segmentsOf(line));
    }
    if (m_data.measured.size() <= 300) { // dots help with few points and only clutter with many
        p.setBrush(c.measured);
        for (const UsagePoint &pt : m_data.measured)
            p.drawEllipse(g.map(pt.message, double(pt.tokens)), 2.5, 2.5);
    }

    if (m_hover >= 0) {
        const double x = g.xToPixel(m_hover);
        p.setPen(QPen(c.text, 1, Qt::DotLine));
        p.drawLine(QPointF(x, g.plot.top()), QPointF(x, g.plot.bottom()));
        p.setBrush(palette().color(QPalette::Base));
        if (const UsagePoint *m = pointAt(m_data.measured, m_hover)) {
            p.setPen(QPen(c.measured, 2));
            p.drawEllipse(g.map(m_hover, double(m->tokens)), 4.5, 4.5);
        }
        if (const UsagePoint *e = pointAt(m_data.estimated, m_hover)) {
            p.setPen(QPen(c.estimated, 2));
            p.drawEllipse(g.map(m_hover, double(e->tokens)), 4.5, 4.5);
        }
    }
}

void UsageChart::paintLegend(QPainter &p) const
{
    const Colours c = coloursFor(palette());
    const QFontMetrics fm(font());
    double x = chartGeometry().plot.left();
    const double y = 4 + fm.height() / 2.0;
    const auto entry = [&](const QColor &colour, Qt::PenStyle style, const QString &label) {
        p.setPen(QPen(colour, 2, style));
        p.drawLine(QPointF(x, y), QPointF(x + 22, y));
        x += 27;
        p.setPen(c.text);
        p.drawText(QPointF(x, 4 + fm.ascent()), label);
        x += fm.horizontalAdvance(label) + 16;
    };
    entry(c.measured, Qt::SolidLine, m_data.measured.isEmpty() ? tr("measured context (none recorded)") : tr("measured context"));
    entry(c.estimated, Qt::DashLine, tr("live context (last measurement + estimate)"));
    entry(c.window, Qt::DashDotLine, tr("context window"));
    if (!m_data.compactions.isEmpty())
        entry(c.compact, Qt::DashLine, tr("compaction"));
    const QString hint = tr("x: message index · y: tokens");
    if (x + fm.horizontalAdvance(hint) < width() - 14) { // a narrow chart keeps the legend, drops the hint
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(QRectF(0, 4, width() - 14, fm.height()), Qt::AlignRight, hint);
    }
}

} // namespace cl::gui
