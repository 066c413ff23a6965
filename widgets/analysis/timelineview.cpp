// SPDX-License-Identifier: MIT
#include "widgets/analysis/timelineview.h"

#include "core/util/numbertext.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace cl::gui {

using analysis::SpanKind;
using analysis::TimelineSpan;

namespace {

constexpr double kWheelZoom = 0.8; // per wheel notch

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
