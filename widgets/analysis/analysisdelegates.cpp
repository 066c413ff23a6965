// SPDX-License-Identifier: MIT
#include "widgets/analysis/analysisdelegates.h"

#include "widgets/models/analysisrows.h"
#include "widgets/models/roles.h"
#include "widgets/models/prioritycolors.h"

#include <QApplication>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>

namespace cl::gui {

namespace {

bool isDark(const QPalette &p)
{
    return p.color(QPalette::Base).lightness() < 128;
}

QColor mix(const QColor &a, const QColor &b, double t)
{
    return QColor::fromRgbF(float(a.redF() * (1 - t) + b.redF() * t), float(a.greenF() * (1 - t) + b.greenF() * t),
                            float(a.blueF() * (1 - t) + b.blueF() * t));
}

// The style draws background, selection and focus; the delegates draw their content on top.
void drawBackground(QPainter *painter, QStyleOptionViewItem opt)
{
    opt.text.clear();
    opt.icon = QIcon();
    const QWidget *widget = opt.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);
}

QColor textColor(const QStyleOptionViewItem &option)
{
    return option.palette.color(option.state & QStyle::State_Selected ? QPalette::HighlightedText : QPalette::Text);
}

} // namespace

// ---- Priority ----

QRect PriorityBadgeDelegate::badgeRect(const QRect &cell, int labelWidth)
{
    const QRect inner = cell.adjusted(3, 2, -3, -2);
    return QRect(inner.left(), inner.top(), std::min(inner.width(), labelWidth + 12), inner.height());
}

void PriorityBadgeDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    drawBackground(painter, opt);
    const QVariant v = index.data(PriorityRole);
    if (!v.isValid())
        return;
    const auto p = cl::analysis::Priority(v.toInt());
    const bool dark = isDark(option.palette);
    const QString label = index.data(Qt::DisplayRole).toString();
    const QRect badge = badgeRect(option.rect, option.fontMetrics.horizontalAdvance(label));
    if (badge.width() <= 0 || badge.height() <= 0)
        return;
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing, true);
    painter->setPen(Qt::NoPen);
    painter->setBrush(priorityColor(p, dark));
    painter->drawRoundedRect(QRectF(badge), 4, 4);
    painter->setPen(priorityTextColor(p, dark));
    painter->setFont(option.font);
    painter->drawText(badge, Qt::AlignCenter, option.fontMetrics.elidedText(label, Qt::ElideRight, badge.width() - 4));
    painter->restore();
}

QSize PriorityBadgeDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QSize s = QStyledItemDelegate::sizeHint(option, index);
    s.setWidth(std::max(s.width() + 18, 80));
    return s;
}

// ---- Boundary ----

QColor BoundaryBarDelegate::barColor(const QPalette &palette, bool chosen)
{
    const bool dark = isDark(palette);
    // The chosen cut in green, the others in the palette's highlight, both half-way to the base so
    // the number on top keeps the palette's text contrast.
    const QColor accent = chosen ? (dark ? QColor(83, 194, 107) : QColor(46, 158, 68)) : palette.color(QPalette::Highlight);
    return mix(palette.color(QPalette::Base), accent, chosen ? 0.55 : 0.4);
}

QColor BoundaryBarDelegate::chosenOutline(const QPalette &palette)
{
    return isDark(palette) ? QColor(83, 194, 107) : QColor(46, 158, 68);
}

QRect BoundaryBarDelegate::barRect(const QRect &cell, double score, double maxScore)
{
    const QRect inner = cell.adjusted(2, 2, -2, -2);
    if (inner.width() <= 0 || inner.height() <= 0 || score <= 0 || maxScore <= 0)
        return {};
    const int w = std::clamp(int(score / maxScore * inner.width() + 0.5), 1, inner.width());
    return QRect(inner.left(), inner.top(), w, inner.height());
}

void BoundaryBarDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    drawBackground(painter, opt);
    const QVariant v = index.data(BoundaryScoreRole);
    if (!v.isValid())
        return;
    const bool chosen = index.data(ChosenBoundaryRole).toBool();
    painter->save();
    const QRect bar = barRect(option.rect, v.toDouble(), index.data(BoundaryMaxRole).toDouble());
    if (!bar.isEmpty())
        painter->fillRect(bar, barColor(option.palette, chosen));
    if (chosen) {
        // Outline the whole cell: the chosen cut must stand out even with a short bar.
        painter->setPen(QPen(chosenOutline(option.palette), 2));
        painter->setBrush(Qt::NoBrush);
        painter->drawRect(option.rect.adjusted(1, 1, -1, -1));
    }
    QFont f = option.font;
    f.setBold(chosen);
    painter->setFont(f);
    painter->setPen(textColor(option));
    painter->drawText(option.rect.adjusted(4, 0, -4, 0), Qt::AlignRight | Qt::AlignVCenter, index.data(Qt::DisplayRole).toString());
    painter->restore();
}

// ---- Round ----

QColor RoundBracketDelegate::bracketColor(const QPalette &palette, bool failed)
{
    if (failed)
        return isDark(palette) ? QColor(240, 100, 100) : QColor(200, 40, 40);
    return mix(palette.color(QPalette::Base), palette.color(QPalette::Text), 0.65);
}

QColor RoundBracketDelegate::chainColor(const QPalette &palette)
{
    return isDark(palette) ? QColor(100, 170, 250) : QColor(30, 110, 210);
}

int RoundBracketDelegate::neighbourMessage(const QModelIndex &index, int delta)
{
    const QAbstractItemModel *model = index.model();
    const int row = index.row() + delta;
    if (!model || row < 0 || row >= model->rowCount(index.parent()))
        return -1;
    const QVariant v = model->index(row, index.column(), index.parent()).data(MessageIndexRole);
    return v.isValid() ? v.toInt() : -1;
}

bool RoundBracketDelegate::joins(const QModelIndex &index, int first, int last, int delta)
{
    const QVariant self = index.data(MessageIndexRole);
    if (first < 0 || last < 0 || !self.isValid())
        return true; // no span to check against: trust the model's order
    const int me = self.toInt();
    const int other = neighbourMessage(index, delta);
    // Only a neighbour inside the span, on the file-order side, continues the line: in a sorted or
    // filtered view an unrelated row (or the span's rows in another order) breaks it here.
    return delta < 0 ? other >= first && other < me : other > me && other <= last;
}

void RoundBracketDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    drawBackground(painter, opt);
    const QVariant v = index.data(RoundRole);
    if (!v.isValid())
        return;
    const RoundCell c = v.value<RoundCell>();
    const QRect r = option.rect;
    const int top = r.top(), bottom = r.bottom(), mid = r.center().y();
    const int chainX = r.left() + kChainX, bracketX = r.left() + kBracketX;
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing, false); // crisp lines that join across rows
    auto vline = [&](int x, int y0, int y1, const QColor &col) { painter->fillRect(QRect(x - 1, y0, 2, y1 - y0 + 1), col); };
    auto hline = [&](int x0, int x1, int y, const QColor &col) { painter->fillRect(QRect(x0, y - 1, x1 - x0 + 1, 2), col); };

    // Which halves of the row continue into the neighbouring rows of the view (see joins()).
    const bool chainUp = (c.chainPart == ChainPart::Middle || c.chainPart == ChainPart::End) && joins(index, c.chainFirst, c.chainLast, -1);
    const bool chainDown = (c.chainPart == ChainPart::Start || c.chainPart == ChainPart::Middle) && joins(index, c.chainFirst, c.chainLast, 1);
    const QColor chain = chainColor(option.palette);
    if (chainUp)
        vline(chainX, top, mid, chain);
    if (chainDown)
        vline(chainX, mid, bottom, chain);
    if ((chainUp && c.chainPart == ChainPart::End) || (chainDown && c.chainPart == ChainPart::Start))
        hline(chainX, bracketX, mid, chain);

    const QColor bracket = bracketColor(option.palette, c.failed);
    const int tickEnd = bracketX + 5;
    const bool needUp = c.part == RoundPart::Result || c.part == RoundPart::End || c.part == RoundPart::Through;
    const bool needDown = c.part == RoundPart::Start || c.part == RoundPart::Result || c.part == RoundPart::Through;
    const bool up = needUp && joins(index, c.first, c.last, -1);
    const bool down = needDown && joins(index, c.first, c.last, 1);
    if (c.part == RoundPart::Through) {
        // A row the bracket merely passes: a line only when both sides continue it.
        if (up && down)
            vline(bracketX, top, bottom, mix(bracket, option.palette.color(QPalette::Base), 0.5));
    } else if (c.part != RoundPart::None) {
        // A member: the tick, and each needed half either joined to the neighbour or, when the
        // neighbour is not the round's, a short stub that stays inside the row (a self-contained
        // marker with the shape of its role: call ┌, middle result ├, last result └).
        hline(bracketX, tickEnd, mid, bracket);
        if (needUp)
            vline(bracketX, up ? top : mid - kStub, mid, bracket);
        if (needDown)
            vline(bracketX, mid, down ? bottom : mid + kStub, bracket);
    }
    const QString label = index.data(Qt::DisplayRole).toString();
    if (!label.isEmpty()) {
        painter->setPen(textColor(option));
        painter->setFont(option.font);
        // Block rows have no bracket: the number goes where the bracket's text would.
        painter->drawText(r.adjusted(kTextX, 0, -2, 0), Qt::AlignLeft | Qt::AlignVCenter, label);
    }
    painter->restore();
}

} // namespace cl::gui
