// SPDX-License-Identifier: MIT
#include "widgets/analysis/compositionchart.h"

#include "widgets/models/compositiongeometry.h"
#include "widgets/models/compositionmodel.h"
#include "widgets/style/theme.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace cl::gui {

CompositionChart::CompositionChart(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("compositionChart"));
    setMouseTracking(true);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
}

void CompositionChart::setSeries(std::shared_ptr<const cl::composition::Series> series, QList<int> compactions, qint64 window)
{
    m_series = std::move(series);
    m_compactions = std::move(compactions);
    m_window = window;
    m_peak = 0;
    if (m_series)
        for (const auto t : m_series->totals)
            m_peak = std::max<qint64>(m_peak, t);
    update();
}

void CompositionChart::setSelectedMessage(int message)
{
    if (message == m_selected)
        return;
    m_selected = message;
    update();
}

ChartGeometry CompositionChart::chartGeometry() const
{
    const QFontMetrics fm(font());
    ChartGeometry g;
    const double left = fm.horizontalAdvance(QStringLiteral("000.0k")) + 10;
    g.plot = QRectF(left, 8, std::max(1.0, width() - left - 10), std::max(1.0, double(height() - 8 - fm.height() - 8)));
    g.xMin = m_series && !m_series->messages.empty() ? m_series->messages.front() : 0;
    g.xMax = m_series && !m_series->messages.empty() ? std::max(g.xMin + 1, double(m_series->messages.back())) : 1;
    // The peak, or the window when the session comes near it (then the line is worth showing).
    const qint64 top = m_window > 0 && m_peak * 2 > m_window ? std::max(m_peak, m_window) : m_peak;
    g.yMax = double(niceTicks(std::max<qint64>(1, top), 4).back());
    return g;
}

int CompositionChart::messageAt(const QPointF &pos) const
{
    if (!m_series || m_series->messages.empty())
        return -1;
    const ChartGeometry g = chartGeometry();
    if (!g.plot.adjusted(-6, -6, 6, 6).contains(pos))
        return -1;
    const int row = nearestRow(*m_series, g.pixelToX(pos.x()));
    return row < 0 ? -1 : int(m_series->messages[std::size_t(row)]);
}

QString CompositionChart::tooltipFor(int row) const
{
    if (!m_series || row < 0 || row >= int(m_series->messages.size()))
        return {};
    const auto &s = *m_series;
    const auto &values = s.values[std::size_t(row)];
    std::vector<std::size_t> order(values.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t z) { return values[a] > values[z]; });
    QString text = tr("<b>Message %1</b>: %2 tokens live").arg(s.messages[std::size_t(row)] + 1).arg(CompositionModel::shortTokens(s.totals[std::size_t(row)]));
    for (std::size_t k = 0; k < std::min<std::size_t>(6, order.size()); ++k) {
        if (values[order[k]] <= 0)
            break;
        text += QStringLiteral("<br>%1 &nbsp;%2").arg(CompositionModel::shortTokens(values[order[k]]), QString::fromStdString(s.labels[order[k]]).toHtmlEscaped());
    }
    return text;
}

void CompositionChart::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const QPalette &pal = palette();
    const bool dark = theme::isDark(pal);
    QColor grid = pal.color(QPalette::Text);
    grid.setAlpha(dark ? 45 : 35);
    if (!m_series || m_series->messages.empty()) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No conversation to chart"));
        return;
    }
    const ChartGeometry g = chartGeometry();
    const QFontMetrics fm(font());
    for (const qint64 t : niceTicks(qint64(g.yMax), 4)) {
        const double y = std::round(g.yToPixel(double(t))) + 0.5;
        p.setPen(grid);
        p.drawLine(QPointF(g.plot.left(), y), QPointF(g.plot.right(), y));
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QRectF(0, y - fm.height() / 2.0, g.plot.left() - 5, fm.height()), Qt::AlignRight | Qt::AlignVCenter, shortTokens(t));
    }
    p.setRenderHint(QPainter::Antialiasing);
    const QList<int> rows = sampledRows(*m_series, int(g.plot.width()));
    const QList<QPolygonF> bands = stackedBands(*m_series, rows, g);
    p.setPen(Qt::NoPen);
    for (int k = 0; k < bands.size(); ++k) {
        p.setBrush(compositionColor(m_series->keys[std::size_t(k)], dark));
        p.drawPolygon(bands[k]);
    }
    p.setBrush(Qt::NoBrush);
    p.setRenderHint(QPainter::Antialiasing, false);
    const QColor compact = dark ? QColor(255, 180, 60) : QColor(200, 115, 0);
    for (const int m : m_compactions) {
        if (m < g.xMin || m > g.xMax)
            continue; // before the first message charted (its history is not sent)
        const double x = g.xToPixel(m);
        p.setPen(QPen(compact, 1.5, Qt::DashLine));
        p.drawLine(QPointF(x, g.plot.top()), QPointF(x, g.plot.bottom()));
    }
    if (m_window > 0 && double(m_window) <= g.yMax) {
        const QColor win = dark ? QColor(255, 110, 110) : QColor(200, 40, 40);
        const double y = g.yToPixel(double(m_window));
        p.setPen(QPen(win, 1.2, Qt::DashDotLine));
        p.drawLine(QPointF(g.plot.left(), y), QPointF(g.plot.right(), y));
        p.drawText(QRectF(g.plot.left(), y + 1, g.plot.width() - 4, fm.height()), Qt::AlignRight | Qt::AlignTop,
                   tr("window %1").arg(shortTokens(m_window)));
    }
    if (m_selected >= 0 && m_selected >= g.xMin && m_selected <= g.xMax) {
        const double x = std::round(g.xToPixel(m_selected)) + 0.5;
        p.setPen(QPen(pal.color(QPalette::Highlight), 2));
        p.drawLine(QPointF(x, g.plot.top()), QPointF(x, g.plot.bottom()));
    }
    p.setPen(grid);
    p.drawRect(g.plot);
    p.setPen(pal.color(QPalette::Text));
    p.drawText(QRectF(g.plot.left(), g.plot.bottom() + 3, g.plot.width(), fm.height()), Qt::AlignHCenter,
               tr("message %1 … %2").arg(qint64(g.xMin) + 1).arg(qint64(g.xMax) + 1));
}

void CompositionChart::mouseMoveEvent(QMouseEvent *event)
{
    const int message = messageAt(event->position());
    if (message < 0 || !m_series) {
        QToolTip::hideText();
        return;
    }
    const int row = nearestRow(*m_series, message);
    QToolTip::showText(event->globalPosition().toPoint(), tooltipFor(row), this);
}

void CompositionChart::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return;
    if (const int message = messageAt(event->position()); message >= 0)
        Q_EMIT messageActivated(message);
}

} // namespace cl::gui
