// SPDX-License-Identifier: MIT
// The timeline's painting (widgets/analysis/timelineview.h): axis, lanes with their spans, the
// context strip and the markers over them.
#include "widgets/analysis/timelineview.h"

#include "widgets/models/compositiongeometry.h"
#include "widgets/style/theme.h"

#include <QDateTime>
#include <QLocale>
#include <QPainter>

#include <algorithm>
#include <limits>

namespace cl::gui {

using analysis::SpanKind;
using analysis::TimelineSpan;

namespace {

QString timeLabel(qint64 ms, qint64 step)
{
    const QDateTime t = QDateTime::fromMSecsSinceEpoch(ms);
    if (step >= 86'400'000)
        return t.toString(QStringLiteral("MMM d"));
    if (step >= 60'000)
        return t.toString(QStringLiteral("HH:mm"));
    if (step >= 1000)
        return t.toString(QStringLiteral("HH:mm:ss"));
    return t.toString(QStringLiteral("HH:mm:ss.zzz"));
}

QString tokensText(qint64 tokens)
{
    return tokens >= 10'000 ? QStringLiteral("%1k").arg(double(tokens) / 1000.0, 0, 'f', 0) : QLocale().toString(tokens);
}

} // namespace

// ---- Painting ---------------------------------------------------------------------------------

QColor TimelineView::spanColor(const TimelineSpan &s) const
{
    const bool dark = theme::isDark(palette());
    QColor c;
    switch (s.kind) {
    case SpanKind::Response:
        c = compositionColor(s.thinking ? "thinking" : "assistant", dark);
        break;
    case SpanKind::Tool:
        c = compositionColor("result:" + m_timeline.lanes[s.lane].name, dark);
        break;
    case SpanKind::Subagent:
        c = compositionColor("tool_calls", dark);
        break;
    }
    if (s.history)
        c.setAlpha(110);
    return c;
}

void TimelineView::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (m_timeline.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap,
                   !m_transcript ? tr("Open a transcript to see its timeline.")
                                 : tr("This transcript records no times: nothing to place on a timeline."));
        return;
    }
    paintAxis(p);
    paintLanes(p);
    paintContext(p);
    paintMarkers(p);
}

void TimelineView::paintAxis(QPainter &p) const
{
    const QRect lanes = lanesRect();
    const qint64 step = tickStep(m_range, lanes.width());
    p.setPen(palette().color(QPalette::Text));
    const QDateTime first = QDateTime::fromMSecsSinceEpoch(m_range.from);
    p.drawText(QRect(6, 0, kGutter - 8, lanes.top()), Qt::AlignVCenter | Qt::AlignLeft,
               first.toString(QStringLiteral("yyyy-MM-dd")));
    QColor grid = palette().color(QPalette::Mid);
    grid.setAlpha(90);
    for (const qint64 t : ticks(m_range, step)) {
        const int x = int(xOf(t));
        p.setPen(grid);
        p.drawLine(x, lanes.top(), x, height());
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRect(x - 60, 0, 120, lanes.top()), Qt::AlignCenter, timeLabel(t, step));
    }
}

void TimelineView::paintLanes(QPainter &p) const
{
    const QRect lanes = lanesRect();
    const double mpp = msPerPixel();
    const bool dark = theme::isDark(palette());
    p.save();
    p.setClipRect(QRect(0, lanes.top(), width(), lanes.height()));
    for (std::size_t l = std::size_t(firstLane()); l < m_timeline.lanes.size(); ++l) {
        const QRect row = laneRect(l);
        if (row.top() > lanes.bottom())
            break;
        const analysis::TimelineLane &lane = m_timeline.lanes[l];
        if (l % 2)
            p.fillRect(QRect(0, row.top(), width(), row.height()), palette().alternateBase());
        // The lane's name, with its colour and its share of the time.
        const QColor swatch = lane.kind == SpanKind::Response   ? compositionColor("assistant", dark)
                              : lane.kind == SpanKind::Subagent ? compositionColor("tool_calls", dark)
                                                                : compositionColor("result:" + lane.name, dark);
        p.fillRect(QRect(6, row.center().y() - 4, 8, 8), swatch);
        p.setPen(palette().color(QPalette::Text));
        const QString name = lane.kind == SpanKind::Response ? tr("Model") : lane.kind == SpanKind::Subagent ? tr("Subagents")
                                                                                                             : QString::fromStdString(lane.name);
        p.drawText(QRect(18, row.top(), kGutter - 22, row.height()), Qt::AlignVCenter | Qt::AlignLeft,
                   fontMetrics().elidedText(QStringLiteral("%1 (%2)").arg(name).arg(lane.spans.size()), Qt::ElideMiddle, kGutter - 22));
        p.save();
        p.setClipRect(row.intersected(lanes));
        for (const std::uint32_t i : analysis::visibleSpans(m_timeline, l, m_range.from, m_range.to, mpp)) {
            const TimelineSpan &s = m_timeline.spans[i];
            const double x0 = std::max(xOf(s.startMs), double(lanes.left() - 2));
            const double x1 = std::min(std::max(xOf(s.endMs), x0 + 2), double(lanes.right() + 2));
            QRectF bar = barRect(s, row);
            bar.setLeft(x0);
            bar.setRight(x1);
            p.fillRect(bar, spanColor(s));
            if (s.failed || s.open || (m_selected >= 0 && s.message == m_selected)) {
                QPen pen(s.failed ? QColor(220, 50, 50) : palette().color(QPalette::Text), s.message == m_selected ? 2 : 1,
                         s.open ? Qt::DashLine : Qt::SolidLine);
                p.setPen(pen);
                p.setBrush(Qt::NoBrush);
                p.drawRect(bar.adjusted(0.5, 0.5, -0.5, -0.5));
            }
        }
        p.restore();
    }
    p.restore();
}

void TimelineView::paintContext(QPainter &p) const
{
    const QRect r = contextRect();
    if (r.isEmpty() || m_timeline.peakContext <= 0)
        return;
    p.fillRect(QRect(0, r.top(), width(), 1), palette().mid());
    const QRect plot = r.adjusted(0, 16, 0, -4);
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRect(6, r.top(), kGutter - 8, r.height()), Qt::AlignVCenter | Qt::AlignLeft | Qt::TextWordWrap,
               tr("Context\npeak %1").arg(tokensText(m_timeline.peakContext)));
    const auto yOf = [&](qint64 tokens) { return plot.bottom() - double(tokens) / double(m_timeline.peakContext) * plot.height(); };
    // A step line: each measurement holds until the next; one vertex pair per pixel column at most.
    const auto &points = m_timeline.context;
    auto it = std::lower_bound(points.begin(), points.end(), m_range.from,
                               [](const analysis::ContextPoint &c, qint64 t) { return c.timeMs < t; });
    if (it != points.begin())
        --it;
    QPolygonF live, history;
    int lastColumn = std::numeric_limits<int>::min();
    double lastY = 0;
    for (; it != points.end(); ++it) {
        const double x = std::clamp(xOf(it->timeMs), double(plot.left() - 1), double(plot.right() + 1));
        const double y = yOf(it->tokens);
        QPolygonF &line = it->history ? history : live;
        if (int(x) == lastColumn && !line.isEmpty()) {
            line.back().setY(std::min(line.back().y(), y)); // the column's highest
        } else {
            if (!line.isEmpty())
                line << QPointF(x, lastY);
            line << QPointF(x, y);
            lastColumn = int(x);
        }
        lastY = line.back().y();
        if (it->timeMs > m_range.to)
            break;
    }
    p.save();
    p.setClipRect(plot.adjusted(0, -2, 0, 2));
    p.setRenderHint(QPainter::Antialiasing);
    QColor historyColor = palette().color(QPalette::Mid);
    p.setPen(QPen(historyColor, 1.5));
    p.drawPolyline(history);
    p.setPen(QPen(palette().color(QPalette::Highlight), 1.5));
    p.drawPolyline(live);
    p.restore();
}

void TimelineView::paintMarkers(QPainter &p) const
{
    const QRect lanes = lanesRect();
    p.save();
    p.setClipRect(QRect(lanes.left(), 0, lanes.width(), height()));
    p.setPen(QPen(QColor(210, 150, 30), 1, Qt::DashLine));
    for (const qint64 t : m_timeline.compactions) {
        const int x = int(xOf(t));
        p.drawLine(x, lanes.top(), x, height());
        // Named in the context strip, where the measurement drops, not over the lanes' bars.
        const QRect strip = contextRect();
        if (!strip.isEmpty())
            p.drawText(QRect(x + 3, strip.top() + 2, 120, fontMetrics().height()), Qt::AlignLeft, tr("compaction"));
    }
    if (m_transcript && m_selected >= 0 && std::size_t(m_selected) < m_transcript->messages.size()) {
        const qint64 t = m_transcript->messages[std::size_t(m_selected)].timeMs;
        if (t != kNoTime) {
            p.setPen(QPen(palette().color(QPalette::Highlight), 1));
            p.drawLine(int(xOf(t)), lanes.top(), int(xOf(t)), height());
        }
    }
    p.restore();
}

} // namespace cl::gui
