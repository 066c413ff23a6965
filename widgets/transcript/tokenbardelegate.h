// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/models/tokenbargeometry.h"

#include <QStyledItemDelegate>

namespace cl::gui {

// Draws a cell's token count as a proportional bar with the number on top. Reads the count and the
// scale from the roles given, so any model that provides them can use it.
class TokenBarDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    explicit TokenBarDelegate(int tokensRole, int maxTokensRole, QObject *parent = nullptr);

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

private:
    int m_tokensRole;
    int m_maxTokensRole;
    TokenBarGeometry m_geometry;
};

} // namespace cl::gui
