// SPDX-License-Identifier: MIT
#include "widgets/sessions/cachechart.h"

#include "widgets/style/theme.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

namespace cl::gui {

namespace {
const QColor kRead(0x4c, 0xaf, 0x50), kWritten(0xe0, 0x90, 0x2d), kBreak(0xe0, 0x53, 0x3d);
}

CacheChart::CacheChart(QWidget *parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setAccessibleName(tr("Prompt cache over the requests"));
}

void CacheChart::setPoints(std::vector<CachePoint> points, std::vector<QString> tips)
{
    m_points = std::move(points);
    m_tips = std::move(tips);
    update();
}

QRectF CacheChart::plotRect() const
{
    const int legend = fontMetrics().height() + 4;
    return QRectF(4, legend + 8, width() - 8, height() - legend - 12);
}

std::vector<CacheBar> CacheChart::bars() const
{
    return cacheBars(m_points, plotRect());
}

void CacheChart::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const QPalette &pal = palette();
    p.fillRect(rect(), pal.base());
    const QColor uncached = theme::isDark(pal) ? QColor(0x8a, 0x8a, 0x8a) : QColor(0xb0, 0xb0, 0xb0);
    // The legend: what each colour is.
    int x = 6;
    const int y = 2, box = fontMetrics().height() - 4;
    auto key = [&](const QColor &c, const QString &text) {
        p.fillRect(QRect(x, y + 2, box, box), c);
        x += box + 4;
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QRect(x, y, 1000, fontMetrics().height()), Qt::AlignLeft | Qt::AlignVCenter, text);
        x += fontMetrics().horizontalAdvance(text) + 12;
    };
    key(kRead, tr("read from the cache"));
    key(kWritten, tr("written to it"));
    key(uncached, tr("uncached"));
    key(kBreak, tr("cache broke"));
    if (m_points.empty()) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(plotRect(), Qt::AlignCenter, tr("No measured usage to show"));
        return;
    }
    for (const CacheBar &b : bars()) {
        p.fillRect(b.read, kRead);
        p.fillRect(b.written, kWritten);
        p.fillRect(b.uncached, uncached);
        if (b.broke) {
            const qreal top = std::min({b.read.isEmpty() ? b.slot.bottom() : b.read.top(), b.written.isEmpty() ? b.slot.bottom() : b.written.top(),
                                        b.uncached.isEmpty() ? b.slot.bottom() : b.uncached.top()});
            p.fillRect(QRectF(b.slot.left(), top - 5, std::max<qreal>(1, b.slot.width()), 3), kBreak);
        }
    }
}

void CacheChart::mousePressEvent(QMouseEvent *event)
{
    const std::vector<CacheBar> laid = bars();
    const int i = cacheBarAt(laid, event->position().x());
    if (i >= 0 && event->button() == Qt::LeftButton)
        Q_EMIT requestClicked(laid[std::size_t(i)].number);
    QWidget::mousePressEvent(event);
}

bool CacheChart::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const int i = cacheBarAt(bars(), help->pos().x());
        if (i >= 0 && std::size_t(i) < m_tips.size())
            QToolTip::showText(help->globalPos(), m_tips[std::size_t(i)], this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

} // namespace cl::gui
