// SPDX-License-Identifier: MIT
#include "widgets/transcript/tokenbardelegate.h"

#include <QApplication>
#include <QLocale>
#include <QPainter>

namespace cl::gui {

TokenBarDelegate::TokenBarDelegate(int tokensRole, int maxTokensRole, QObject *parent)
    : QStyledItemDelegate(parent)
    , m_tokensRole(tokensRole)
    , m_maxTokensRole(maxTokensRole)
{
}

void TokenBarDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QString label = QLocale().toString(index.data(m_tokensRole).toLongLong());
    opt.text.clear(); // the style draws selection and background; the bar and number are ours
    const QWidget *widget = option.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);

    const QRect bar = m_geometry.barRect(option.rect, index.data(m_tokensRole).toLongLong(),
                                         index.data(m_maxTokensRole).toLongLong());
    painter->save();
    if (!bar.isEmpty()) {
        QColor c = option.palette.color(QPalette::Highlight);
        c.setAlpha(option.state & QStyle::State_Selected ? 140 : 90);
        painter->fillRect(bar, c);
    }
    const QPalette::ColorRole textRole = option.state & QStyle::State_Selected ? QPalette::HighlightedText : QPalette::Text;
    painter->setPen(option.palette.color(textRole));
    painter->drawText(option.rect.adjusted(4, 0, -4, 0), Qt::AlignRight | Qt::AlignVCenter, label);
    painter->restore();
}

QSize TokenBarDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QSize s = QStyledItemDelegate::sizeHint(option, index);
    s.setWidth(std::max(s.width(), 90));
    return s;
}

} // namespace cl::gui
