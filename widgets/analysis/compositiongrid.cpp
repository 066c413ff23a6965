// SPDX-License-Identifier: MIT
#include "widgets/analysis/compositiongrid.h"

#include "widgets/models/compositiongeometry.h"
#include "widgets/models/compositionmodel.h"
#include "widgets/style/theme.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

namespace cl::gui {

CompositionGrid::CompositionGrid(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("compositionGrid"));
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setFixedHeight(sizeHint().height());
}

void CompositionGrid::setComposition(std::shared_ptr<const cl::composition::Composition> composition)
{
    m_c = std::move(composition);
    update();
}

QRectF CompositionGrid::gridArea() const
{
    // Square-ish cells: as wide as the height allows, never wider than the widget.
    const QRectF r = QRectF(rect()).adjusted(4, 4, -4, -4);
    const double cell = std::min(r.height() / kRows, r.width() / kColumns);
    return {r.left(), r.top(), cell * kColumns, cell * kRows};
}

int CompositionGrid::categoryAt(const QPointF &pos) const
{
    if (!m_c)
        return -1;
    for (const GridCell &cell : compositionGrid(*m_c, gridArea(), kColumns, kRows))
        if (cell.rect.adjusted(-1, -1, 1, 1).contains(pos))
            return cell.category;
    return -1;
}

void CompositionGrid::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const bool dark = theme::isDark(palette());
    if (!m_c) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No composition yet"));
        return;
    }
    const QRectF area = gridArea();
    for (const GridCell &cell : compositionGrid(*m_c, area, kColumns, kRows)) {
        const QColor fill = cell.category >= 0 ? compositionColor(m_c->categories[std::size_t(cell.category)].key, dark)
                                               : palette().color(QPalette::Base);
        p.setPen(Qt::NoPen);
        p.setBrush(fill);
        p.drawRoundedRect(cell.rect, 2, 2);
    }
    // Beside the grid: the figures /context leads with.
    const QRectF text(area.right() + 12, area.top(), width() - area.right() - 16, area.height());
    if (text.width() < 60)
        return;
    const qint64 window = std::max<qint64>(1, m_c->window);
    QFont big = font();
    big.setPointSizeF(big.pointSizeF() * 1.25);
    big.setBold(true);
    p.setFont(big);
    p.setPen(palette().color(QPalette::Text));
    const QString head = QStringLiteral("%1 / %2").arg(CompositionModel::shortTokens(m_c->total),
                                                       CompositionModel::shortTokens(m_c->window));
    p.drawText(text, Qt::AlignLeft | Qt::AlignTop, head);
    p.setFont(font());
    const QString sub = tr("%1 % of the window\n%2 free, %3 reserved")
                            .arg(QString::number(100.0 * double(m_c->total) / double(window), 'f', 1),
                                 CompositionModel::shortTokens(m_c->free), CompositionModel::shortTokens(m_c->reserved));
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(text.adjusted(0, QFontMetrics(big).height() + 2, 0, 0), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, sub);
}

void CompositionGrid::mouseMoveEvent(QMouseEvent *event)
{
    const int k = categoryAt(event->position());
    if (k < 0 || !m_c) {
        QToolTip::hideText();
        return;
    }
    const auto &c = m_c->categories[std::size_t(k)];
    QToolTip::showText(event->globalPosition().toPoint(),
                       QStringLiteral("%1: %2").arg(QString::fromStdString(c.label), CompositionModel::shortTokens(c.tokens)), this);
}

void CompositionGrid::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return;
    if (const int k = categoryAt(event->position()); k >= 0)
        Q_EMIT categoryClicked(k);
}

} // namespace cl::gui
