// SPDX-License-Identifier: MIT
#include "widgets/analysis/contextmap.h"

#include "widgets/models/prioritycolors.h"
#include "widgets/style/theme.h"
#include "widgets/models/chartgeometry.h"

#include <QImage>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <cmath>

namespace cl::gui {

using cl::analysis::Priority;

namespace {
constexpr double kMargin = 6;
constexpr double kTop = 4;
constexpr double kStripHeight = 28;
constexpr double kZoneGap = 3;
constexpr double kZoneHeight = 5;
constexpr int kMaxReasonsInTooltip = 8;

QColor zoneColour(MapZone z, bool dark)
{
    switch (z) {
    case MapZone::System: return dark ? QColor(170, 130, 230) : QColor(120, 70, 190);
    case MapZone::Compressible: return dark ? QColor(110, 170, 120) : QColor(60, 140, 80);
    case MapZone::Recent: return dark ? QColor(90, 170, 235) : QColor(30, 110, 180);
    }
    return {};
}

QColor boundaryColour(bool dark)
{
    return dark ? QColor(255, 90, 200) : QColor(200, 0, 130);
}
} // namespace

ContextMap::ContextMap(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("contextMap"));
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

QSize ContextMap::sizeHint() const
{
    return {800, int(std::ceil(zoneRect().bottom() + 2 + fontMetrics().height() + 3))};
}

QSize ContextMap::minimumSizeHint() const
{
    return {200, sizeHint().height()};
}

QRectF ContextMap::stripRect() const
{
    return {kMargin, kTop, std::max(1.0, width() - 2 * kMargin), kStripHeight};
}

QRectF ContextMap::zoneRect() const
{
    const QRectF s = stripRect();
    return {s.left(), s.bottom() + kZoneGap, s.width(), kZoneHeight};
}

void ContextMap::setAnalysis(std::shared_ptr<const Transcript> transcript, std::shared_ptr<const cl::analysis::Analysis> analysis)
{
    m_transcript = std::move(transcript);
    m_analysis = m_transcript ? std::move(analysis) : nullptr;
    m_busy = false;
    m_hover = -1;
    relayout();
}

void ContextMap::setBusy(bool busy)
{
    m_busy = busy;
    update();
}

void ContextMap::setSelectedMessage(int message)
{
    if (message == m_selected)
        return;
    m_selected = message;
    update();
}

void ContextMap::relayout()
{
    const QRectF s = stripRect();
    m_geometry = m_transcript && m_analysis ? contextMapGeometry(*m_transcript, *m_analysis, s.left(), s.width())
                                            : ContextMapGeometry{};
    update();
}

void ContextMap::resizeEvent(QResizeEvent *)
{
    relayout();
}

QString ContextMap::tooltipForPosition(int position) const
{
    if (!m_transcript || !m_analysis || position < 0 || std::size_t(position) >= m_geometry.segments.size())
        return {};
    const QLocale loc;
    const MapSegment &s = m_geometry.segments[std::size_t(position)];
    const Message &m = m_transcript->messages[std::size_t(s.message)];
    QStringList lines;
    lines << tr("Message %1 (position %2) · %3 · %4 tokens")
                 .arg(s.message + 1)
                 .arg(s.position)
                 .arg(toQString(roleName(m.role)), loc.toString(s.tokens));
    if (std::size_t(s.message) < m_analysis->priority.size()) {
        const cl::analysis::PriorityInfo &pi = m_analysis->priority[std::size_t(s.message)];
        lines << tr("Priority: %1 — %2 (%3)")
                     .arg(toQString(cl::analysis::priorityName(pi.priority)), priorityRuleText(pi.rule), toQString(pi.rule));
    }
    if (s.position >= 1 && std::size_t(s.position) - 1 < m_analysis->boundaries.size()) {
        const cl::analysis::BoundaryScore &b = m_analysis->boundaries[std::size_t(s.position) - 1];
        lines << tr("Cutting before it: score %1").arg(b.score);
        const cl::analysis::Reasons reasons = cl::analysis::reasonsFor(b, m_analysis->options);
        int shown = 0;
        for (const cl::analysis::Reason &r : reasons) {
            if (shown++ == kMaxReasonsInTooltip) {
                lines << tr("  … %1 more (see the analysis panel)").arg(int(reasons.size()) - kMaxReasonsInTooltip);
                break;
            }
            lines << QStringLiteral("  %1%2  %3")
                         .arg(r.points > 0 ? QStringLiteral("+") : QString())
                         .arg(r.points)
                         .arg(QString::fromStdString(r.describe()));
        }
    } else {
        lines << tr("First message: no cut before it");
    }
    for (const ZoneExtent &z : m_geometry.zones)
        for (const auto &[x0, x1] : z.spans)
            if (s.x >= x0 - 1e-9 && s.x < x1)
                lines << tr("Zone: %1").arg(zoneName(z.zone));
    if (m_geometry.boundaryPosition && *m_geometry.boundaryPosition == s.position)
        lines << tr("The chosen compaction boundary cuts before this message");
    if (m_geometry.merged) {
        const int col = std::clamp(int(std::floor(s.x - m_geometry.left)), 0, int(m_geometry.columns.size()) - 1);
        if (col >= 0 && !m_geometry.columns.empty()) {
            const MapColumn &c = m_geometry.columns[std::size_t(col)];
            lines << tr("This pixel holds positions %1–%2").arg(c.firstPosition).arg(c.lastPosition);
        }
    }
    return lines.join(u'\n');
}

void ContextMap::mouseMoveEvent(QMouseEvent *event)
{
    const QPointF pos = event->position();
    const bool inside = pos.y() >= stripRect().top() - 2 && pos.y() <= zoneRect().bottom() + 2;
    const int position = inside ? m_geometry.positionAt(pos.x()) : -1;
    if (position != m_hover) {
        m_hover = position;
        update();
    }
    if (position >= 0)
        QToolTip::showText(event->globalPosition().toPoint(), tooltipForPosition(position), this);
    else
        QToolTip::hideText();
}

void ContextMap::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return;
    const int message = m_geometry.messageAt(event->position().x());
    if (message >= 0)
        Q_EMIT messageActivated(message);
}

void ContextMap::leaveEvent(QEvent *)
{
    m_hover = -1;
    update();
}

void ContextMap::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const QRectF strip = stripRect();
    if (m_geometry.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawRect(strip.adjusted(0.5, 0.5, -0.5, -0.5));
        const QString text = m_busy         ? tr("Analysing the session…")
                             : m_transcript ? tr("No conversation messages to map")
                                            : tr("Context map: open a transcript to see where its context goes");
        p.drawText(strip, Qt::AlignCenter, text);
        return;
    }
    paintStrip(p);
    p.setRenderHint(QPainter::Antialiasing);
    paintCurve(p);
    paintZones(p);
    paintMarkers(p);
}

void ContextMap::paintStrip(QPainter &p) const
{
    const QRectF strip = stripRect();
    const bool dark = theme::isDark(palette());
    if (m_geometry.merged) {
        for (const MapColumn &c : m_geometry.columns)
            p.fillRect(QRectF(c.pixel, strip.top(), 1, strip.height()), priorityColor(c.dominant, dark));
        return;
    }
    const QColor gap = palette().color(QPalette::Window);
    for (const MapSegment &s : m_geometry.segments) {
        p.fillRect(QRectF(s.x, strip.top(), s.width, strip.height()), priorityColor(s.priority, dark));
        if (s.width >= 4 && s.position > 0) // a hairline between messages while they are wide enough to tell apart
            p.fillRect(QRectF(s.x, strip.top(), 1, strip.height()), gap);
    }
}

void ContextMap::paintCurve(QPainter &p) const
{
    const QRectF strip = stripRect().adjusted(0, 3, 0, -3);
    QList<QPointF> line;
    const auto add = [&](double x, double score) {
        line.append(QPointF(x, strip.bottom() - m_geometry.scoreFraction(score) * strip.height()));
    };
    if (m_geometry.merged) {
        for (const MapColumn &c : m_geometry.columns)
            if (c.maxScore)
                add(c.pixel + 0.5, *c.maxScore);
    } else {
        for (const MapSegment &s : m_geometry.segments)
            if (s.score)
                add(s.x, *s.score);
    }
    // Drawn segment by segment (chartgeometry.h says why: one point per pixel column of a long
    // session made this the slowest paint of the window).
    const QList<QLineF> segments = segmentsOf(line);
    // A halo in the base colour keeps the line readable over every priority colour. It is
    // translucent, so its segments go opaque onto a layer laid on with its alpha: where they overlap
    // (at every point) it does not get darker.
    const bool dark = theme::isDark(palette());
    const QColor halo = dark ? QColor(0, 0, 0, 150) : QColor(255, 255, 255, 170);
    QImage layer(size() * devicePixelRatio(), QImage::Format_ARGB32_Premultiplied);
    layer.setDevicePixelRatio(devicePixelRatio());
    layer.fill(Qt::transparent);
    {
        QPainter lp(&layer);
        lp.setRenderHint(QPainter::Antialiasing);
        lp.setPen(QPen(QColor(halo.rgb()), 3.2));
        lp.drawLines(segments);
    }
    p.save();
    p.setOpacity(halo.alphaF());
    p.drawImage(QPointF(0, 0), layer);
    p.restore();
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(dark ? QColor(245, 245, 245) : QColor(25, 25, 25), 1.3));
    p.drawLines(segments);
}

void ContextMap::paintZones(QPainter &p) const
{
    const QRectF zr = zoneRect();
    const bool dark = theme::isDark(palette());
    const QFontMetrics fm(font());
    const double labelTop = zr.bottom() + 2;
    std::vector<QRectF> taken;
    double freeFrom = zr.left(); // labels never overlap: each starts after the previous one
    for (std::size_t k = 0; k < m_geometry.zones.size(); ++k) {
        const ZoneExtent &z = m_geometry.zones[k];
        const QColor c = zoneColour(z.zone, dark);
        for (const auto &[x0, x1] : z.spans)
            p.fillRect(QRectF(x0, zr.top(), std::max(1.0, x1 - x0), zr.height()), c);
        // Label at the zone's widest run; the last zone is anchored at its right end so it stays on screen.
        auto widest = std::max_element(z.spans.begin(), z.spans.end(), [](const auto &a, const auto &b) {
            return a.second - a.first < b.second - b.first;
        });
        const QString label = tr("%1 %2").arg(zoneName(z.zone), shortTokens(z.tokens));
        const double w = fm.horizontalAdvance(label) + 4;
        double x = widest->first;
        if (k + 1 == m_geometry.zones.size())
            x = std::max(widest->first, std::min(widest->second, zr.right()) - w);
        x = std::clamp(std::max(x, freeFrom), zr.left(), std::max(zr.left(), zr.right() - w));
        p.setPen(c);
        const QRectF r(x, labelTop, w, fm.height());
        p.drawText(r, Qt::AlignLeft | Qt::AlignVCenter, label);
        taken.push_back(r);
        freeFrom = x + w + 8;
    }
    paintLegend(p, QRectF(zr.left(), labelTop, zr.width(), fm.height()), taken);
}

void ContextMap::paintLegend(QPainter &p, const QRectF &row, const std::vector<QRectF> &taken) const
{
    // Priority swatches, the curve and the boundary, in the widest gap between the zone labels.
    const bool dark = theme::isDark(palette());
    const QFontMetrics fm(font());
    const Priority classes[] = {Priority::Sacred, Priority::Critical, Priority::High, Priority::Medium, Priority::Low, Priority::Lowest};
    const QString curve = tr("boundary score"), boundary = tr("chosen boundary");
    double width = 0;
    for (Priority pr : classes)
        width += 12 + fm.horizontalAdvance(toQString(cl::analysis::priorityName(pr))) + 10;
    width += 18 + fm.horizontalAdvance(curve) + 10 + 8 + fm.horizontalAdvance(boundary);
    double gapStart = row.left(), bestStart = 0, bestWidth = -1;
    for (std::size_t k = 0; k <= taken.size(); ++k) {
        const double gapEnd = k < taken.size() ? taken[k].left() : row.right();
        if (gapEnd - gapStart > bestWidth) {
            bestWidth = gapEnd - gapStart;
            bestStart = gapStart;
        }
        if (k < taken.size())
            gapStart = taken[k].right();
    }
    if (bestWidth < width + 32)
        return; // a narrow window keeps the zone labels and drops the legend
    double x = bestStart + (bestWidth - width) / 2;
    const double mid = row.center().y();
    const QColor text = palette().color(QPalette::PlaceholderText);
    const auto label = [&](const QString &s) {
        p.setPen(text);
        p.drawText(QPointF(x, row.top() + fm.ascent()), s);
        x += fm.horizontalAdvance(s) + 10;
    };
    for (Priority pr : classes) {
        p.fillRect(QRectF(x, mid - 4, 8, 8), priorityColor(pr, dark));
        x += 12;
        label(toQString(cl::analysis::priorityName(pr)));
    }
    p.setPen(QPen(palette().color(QPalette::Text), 1.3));
    p.drawLine(QPointF(x, mid + 2), QPointF(x + 6, mid - 3));
    p.drawLine(QPointF(x + 6, mid - 3), QPointF(x + 12, mid + 1));
    x += 18;
    label(curve);
    p.fillRect(QRectF(x + 2, row.top() + 1, 3, row.height() - 2), boundaryColour(dark));
    x += 8;
    label(boundary);
}

void ContextMap::paintMarkers(QPainter &p) const
{
    const QRectF strip = stripRect();
    const bool dark = theme::isDark(palette());
    if (m_geometry.boundaryPosition) {
        const double x = std::round(m_geometry.boundaryX) + 0.5;
        const QColor c = boundaryColour(dark);
        p.setPen(QPen(c, 2.5));
        p.drawLine(QPointF(x, strip.top() - 3), QPointF(x, zoneRect().bottom() + 1));
        QPainterPath tri; // a notch above the strip so the line stands out at any zoom
        tri.moveTo(x - 5, 0);
        tri.lineTo(x + 5, 0);
        tri.lineTo(x, 6);
        tri.closeSubpath();
        p.fillPath(tri, c);
    }
    const auto outline = [&](int position, const QColor &colour) {
        if (position < 0 || std::size_t(position) >= m_geometry.segments.size())
            return;
        const MapSegment &s = m_geometry.segments[std::size_t(position)];
        p.setPen(QPen(colour, 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(QRectF(s.x, strip.top() + 1, std::max(2.0, s.width), strip.height() - 2));
    };
    if (m_selected >= 0 && m_analysis && std::size_t(m_selected) < m_analysis->view.position.size())
        outline(m_analysis->view.position[std::size_t(m_selected)], palette().color(QPalette::Highlight));
    outline(m_hover, palette().color(QPalette::Text));
}

} // namespace cl::gui
