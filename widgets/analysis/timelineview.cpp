// SPDX-License-Identifier: MIT
#include "widgets/analysis/timelineview.h"

#include "core/util/numbertext.h"
#include "widgets/models/compositiongeometry.h"
#include "widgets/style/theme.h"

#include <QDateTime>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace cl::gui {

using analysis::SpanKind;
using analysis::TimelineSpan;

namespace {

constexpr int kGutter = 124;       // lane names
constexpr int kContextHeight = 70; // the context strip beneath the lanes
constexpr double kWheelZoom = 0.8; // per wheel notch

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

TimelineView::TimelineView(QWidget *parent)
    : QWidget(parent)
    , m_lanesBar(new QScrollBar(Qt::Vertical, this))
{
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    m_lanesBar->hide();
    connect(m_lanesBar, &QScrollBar::valueChanged, this, qOverload<>(&QWidget::update));
    setWhatsThis(tr("The session over time: the model's responses, each tool call and each subagent run as a bar "
                    "from its start to its result, with the context the model measured beneath. Wheel: zoom; "
                    "drag: pan; double-click: the whole session; click: select the message."));
}

void TimelineView::setTranscript(std::shared_ptr<const Transcript> transcript)
{
    m_transcript = std::move(transcript);
    if (m_active)
        refreshNow();
}

void TimelineView::setActive(bool active)
{
    m_active = active;
    if (active)
        refreshNow();
}

void TimelineView::refreshNow()
{
    if (m_builtFor != m_transcript || (!m_transcript && !m_timeline.spans.empty()))
        rebuild();
}

void TimelineView::rebuild()
{
    const bool wholeShown = m_range == paddedRange(m_whole) || m_range.span() <= 0;
    const bool sameFile = m_builtFor && m_transcript && m_builtFor->path == m_transcript->path;
    m_builtFor = m_transcript;
    m_timeline = m_transcript ? analysis::buildTimeline(*m_transcript) : analysis::Timeline{};
    m_whole = m_timeline.empty() ? TimeRange{} : TimeRange{m_timeline.startMs, m_timeline.endMs};
    // A session that grew keeps the range its user chose; another file, or the whole, shows the whole.
    if (wholeShown || !sameFile)
        m_range = paddedRange(m_whole);
    else
        m_range = panRange(m_range, 0, m_whole);
    relayout();
    update();
}

void TimelineView::setSelectedMessage(int message)
{
    if (m_selected == message)
        return;
    m_selected = message;
    update();
}

void TimelineView::setRange(TimeRange r)
{
    m_range = r.span() > 0 ? zoomRange(r, 0.5, 1.0, m_whole) : paddedRange(m_whole);
    update();
}

void TimelineView::showAll()
{
    setRange(paddedRange(m_whole));
}

void TimelineView::zoomAt(int x, double factor)
{
    if (m_timeline.empty())
        return;
    const QRect lanes = lanesRect();
    const double anchor = lanes.width() > 0 ? double(x - lanes.left()) / lanes.width() : 0.5;
    m_range = zoomRange(m_range, anchor, factor, m_whole);
    update();
}

// ---- Geometry ---------------------------------------------------------------------------------

QRect TimelineView::lanesRect() const
{
    const int axis = fontMetrics().height() + 8;
    const int context = m_timeline.context.empty() ? 0 : kContextHeight;
    const int bar = !m_lanesBar->isHidden() ? m_lanesBar->width() : 0;
    return QRect(kGutter, axis, std::max(1, width() - kGutter - bar - 4), std::max(1, height() - axis - context));
}

QRect TimelineView::contextRect() const
{
    if (m_timeline.context.empty())
        return {};
    const QRect lanes = lanesRect();
    return QRect(lanes.left(), lanes.bottom() + 1, lanes.width(), height() - lanes.bottom() - 1);
}

int TimelineView::laneHeightNow() const
{
    return laneHeight(lanesRect().height(), int(m_timeline.lanes.size()));
}

int TimelineView::firstLane() const
{
    return !m_lanesBar->isHidden() ? m_lanesBar->value() : 0;
}

QRect TimelineView::laneRect(std::size_t lane) const
{
    const QRect lanes = lanesRect();
    const int h = laneHeightNow();
    return QRect(lanes.left(), lanes.top() + (int(lane) - firstLane()) * h, lanes.width(), h);
}

double TimelineView::msPerPixel() const
{
    return std::max(1e-6, double(m_range.span()) / std::max(1, lanesRect().width()));
}

double TimelineView::xOf(qint64 ms) const
{
    return lanesRect().left() + double(ms - m_range.from) / msPerPixel();
}

qint64 TimelineView::timeAt(double x) const
{
    return m_range.from + qint64(std::llround((x - lanesRect().left()) * msPerPixel()));
}

void TimelineView::relayout()
{
    const int axis = fontMetrics().height() + 8;
    const int context = m_timeline.context.empty() ? 0 : kContextHeight;
    const int available = std::max(1, height() - axis - context);
    const int fit = std::max(1, available / laneHeight(available, int(m_timeline.lanes.size())));
    const int hidden = int(m_timeline.lanes.size()) - fit;
    m_lanesBar->setVisible(hidden > 0);
    m_lanesBar->setRange(0, std::max(0, hidden));
    m_lanesBar->setPageStep(fit);
    m_lanesBar->setGeometry(width() - m_lanesBar->sizeHint().width(), axis, m_lanesBar->sizeHint().width(), available);
}

int TimelineView::spanAt(QPoint p) const
{
    const QRect lanes = lanesRect();
    if (!lanes.contains(p) || m_timeline.empty())
        return -1;
    const std::size_t lane = std::size_t(firstLane() + (p.y() - lanes.top()) / laneHeightNow());
    if (lane >= m_timeline.lanes.size())
        return -1;
    // The span drawn nearest the point in the row under it, within 3 pixels.
    const QRect row = laneRect(lane);
    const int rows = m_timeline.lanes[lane].rows;
    const int rowAt = std::clamp((p.y() - row.top()) * rows / std::max(1, row.height()), 0, rows - 1);
    const double mpp = msPerPixel();
    int best = -1;
    double bestDistance = 3.5;
    for (const std::uint32_t s : analysis::visibleSpans(m_timeline, lane, timeAt(p.x() - 4), timeAt(p.x() + 4), mpp)) {
        const TimelineSpan &span = m_timeline.spans[s];
        if (span.row != rowAt)
            continue;
        const double x0 = xOf(span.startMs), x1 = std::max(xOf(span.endMs), x0 + 2);
        const double distance = p.x() < x0 ? x0 - p.x() : p.x() > x1 ? p.x() - x1
                                                                     : 0;
        if (distance < bestDistance) {
            bestDistance = distance;
            best = int(s);
        }
    }
    return best;
}

std::optional<QPoint> TimelineView::pointOfSpan(int span) const
{
    if (span < 0 || std::size_t(span) >= m_timeline.spans.size())
        return std::nullopt;
    const TimelineSpan &s = m_timeline.spans[std::size_t(span)];
    const QRect lane = laneRect(s.lane);
    const QRect lanes = lanesRect();
    const double x0 = std::max(xOf(s.startMs), double(lanes.left())), x1 = std::min(xOf(s.endMs), double(lanes.right()));
    if (x1 < lanes.left() || x0 > lanes.right() || !lanes.intersects(lane))
        return std::nullopt;
    return QPoint(int((x0 + std::max(x1, x0 + 1)) / 2), int(barRect(s, lane).center().y()));
}

QRectF TimelineView::barRect(const TimelineSpan &s, const QRect &lane) const
{
    // The lane's rows share its height less a margin; one row is a bar of the lane's height less 8.
    const int rows = m_timeline.lanes[s.lane].rows;
    const double area = std::max(6, lane.height() - 8);
    const double rowHeight = area / rows;
    const double top = lane.top() + (lane.height() - area) / 2 + s.row * rowHeight;
    return QRectF(0, top, 0, std::max(2.0, rowHeight - (rows > 1 ? 1 : 0)));
}

int TimelineView::contextPointAt(QPoint p) const
{
    const QRect r = contextRect();
    if (!r.contains(p))
        return -1;
    const qint64 at = timeAt(p.x());
    const auto &points = m_timeline.context;
    auto it = std::lower_bound(points.begin(), points.end(), at,
                               [](const analysis::ContextPoint &c, qint64 t) { return c.timeMs < t; });
    // The measurement in force at the pointer: the last one at or before it.
    if (it == points.end() || (it->timeMs > at && it != points.begin()))
        --it;
    return int(it - points.begin());
}

QString TimelineView::describeSpan(int span) const
{
    if (span < 0 || std::size_t(span) >= m_timeline.spans.size())
        return {};
    const TimelineSpan &s = m_timeline.spans[std::size_t(span)];
    const QString duration = QString::fromStdString(util::durationText(s.durationMs()));
    QString text;
    switch (s.kind) {
    case SpanKind::Response:
        text = (s.thinking ? tr("Model response with thinking") : tr("Model response")) + QStringLiteral(" · ") + duration;
        break;
    case SpanKind::Tool:
        text = QString::fromStdString(m_timeline.lanes[s.lane].name) + QStringLiteral(" · ") + duration;
        if (s.failed)
            text += tr(" · failed");
        break;
    case SpanKind::Subagent: {
        const std::size_t a = std::size_t(s.subagent);
        const QString name = a < m_timeline.subagentNames.size() ? QString::fromStdString(m_timeline.subagentNames[a]) : QString();
        text = tr("Subagent: %1 · %2").arg(name, duration);
        break;
    }
    }
    if (s.open)
        text += tr(" · no result (until the next message)");
    if (s.message >= 0)
        text += tr(" · message %1").arg(s.message + 1);
    if (s.history)
        text += tr(" · history (before the last compaction)");
    return text;
}

QSize TimelineView::sizeHint() const
{
    return {800, 300};
}

QSize TimelineView::minimumSizeHint() const
{
    return {kGutter + 160, 150};
}

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

// ---- Interaction ------------------------------------------------------------------------------

void TimelineView::resizeEvent(QResizeEvent *)
{
    relayout();
}

void TimelineView::wheelEvent(QWheelEvent *event)
{
    const int delta = event->angleDelta().y();
    if (delta == 0 || m_timeline.empty())
        return event->ignore();
    const QPoint at = event->position().toPoint();
    if ((event->modifiers() & Qt::ShiftModifier) || at.x() < kGutter) {
        m_lanesBar->setValue(m_lanesBar->value() - delta / 120); // the lanes scroll; time stays
    } else {
        zoomAt(at.x(), std::pow(kWheelZoom, delta / 120.0));
    }
    event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(event);
    m_pressAt = event->position().toPoint();
    m_pressRange = m_range;
    m_dragging = false;
}

void TimelineView::mouseMoveEvent(QMouseEvent *event)
{
    if (!m_pressAt || !(event->buttons() & Qt::LeftButton))
        return;
    const QPoint moved = event->position().toPoint() - *m_pressAt;
    if (!m_dragging && moved.manhattanLength() < 4)
        return;
    m_dragging = true;
    setCursor(Qt::ClosedHandCursor);
    const double mpp = double(m_pressRange.span()) / std::max(1, lanesRect().width());
    m_range = panRange(m_pressRange, -qint64(std::llround(moved.x() * mpp)), m_whole);
    update();
}

void TimelineView::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton || !m_pressAt)
        return QWidget::mouseReleaseEvent(event);
    const bool clicked = !m_dragging;
    m_pressAt.reset();
    m_dragging = false;
    unsetCursor();
    if (!clicked)
        return;
    const QPoint at = event->position().toPoint();
    if (const int span = spanAt(at); span >= 0 && m_timeline.spans[std::size_t(span)].message >= 0)
        Q_EMIT messageActivated(m_timeline.spans[std::size_t(span)].message);
    else if (const int point = contextPointAt(at); point >= 0)
        Q_EMIT messageActivated(m_timeline.context[std::size_t(point)].message);
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent *)
{
    showAll();
}

void TimelineView::keyPressEvent(QKeyEvent *event)
{
    const int middle = lanesRect().center().x();
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomAt(middle, 0.5);
        break;
    case Qt::Key_Minus:
        zoomAt(middle, 2.0);
        break;
    case Qt::Key_0:
    case Qt::Key_Home:
        showAll();
        break;
    case Qt::Key_Left:
    case Qt::Key_Right:
        m_range = panRange(m_range, (event->key() == Qt::Key_Left ? -1 : 1) * m_range.span() / 10, m_whole);
        update();
        break;
    default:
        QWidget::keyPressEvent(event);
    }
}

bool TimelineView::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        const QPoint at = static_cast<QHelpEvent *>(event)->pos();
        QString text = describeSpan(spanAt(at));
        if (text.isEmpty())
            if (const int point = contextPointAt(at); point >= 0) {
                const analysis::ContextPoint &c = m_timeline.context[std::size_t(point)];
                text = tr("Context %1 tokens, measured at message %2").arg(QLocale().toString(c.tokens)).arg(c.message + 1);
            }
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(static_cast<QHelpEvent *>(event)->globalPos(), text, this);
        return true;
    }
    if (event->type() == QEvent::FontChange || event->type() == QEvent::PaletteChange)
        relayout();
    return QWidget::event(event);
}

} // namespace cl::gui
