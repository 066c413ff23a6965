// SPDX-License-Identifier: MIT
#pragma once

// Delegates of the transcript's analysis columns. Each reads only roles (roles.h), so any model that
// provides them can use it; colours come from the option's palette (light and dark themes).

#include <QStyledItemDelegate>

namespace cl::gui {

// Priority column: a rounded badge in priorityColor() with the class name (PriorityRole).
class PriorityBadgeDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    // The badge inside a cell for a label of labelWidth pixels.
    static QRect badgeRect(const QRect &cell, int labelWidth);
};

// Boundary column: a bar of BoundaryScoreRole / BoundaryMaxRole with the score on top; the chosen
// boundary (ChosenBoundaryRole) gets its own colour and an outline.
class BoundaryBarDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    // Opaque, so the bar reads the same on alternating rows; text in the palette's Text stays legible.
    static QColor barColor(const QPalette &palette, bool chosen);
    static QColor chosenOutline(const QPalette &palette);
    static QRect barRect(const QRect &cell, double score, double maxScore);
};

// Round column: a bracket from the call message down to its last result (RoundRole), the round
// number beside it, and a line on the left joining chained rounds. Lines join a row to the row
// above / below in the view only when that row lies inside the bracket's (chain's) file-order span
// on the right side (RoundCell::first/last, MessageIndexRole): sorted by another column or filtered,
// a member without such a neighbour draws a short stub instead, so each row stays a self-contained
// marker (round number + the shape of its role) and runs still adjacent keep their joined lines.
class RoundBracketDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    static constexpr int kChainX = 4; // x offsets in the cell of the chain line and the bracket
    static constexpr int kBracketX = 11;
    static constexpr int kTextX = 20;
    static constexpr int kStub = 4; // length of a half-line that does not join a neighbour
    static QColor bracketColor(const QPalette &palette, bool failed);
    static QColor chainColor(const QPalette &palette);
    // Message (MessageIndexRole) of the sibling `delta` rows away in the index's model, -1 for none.
    static int neighbourMessage(const QModelIndex &index, int delta);
    // Whether the line of a span [first, last] continues from `index` into the row delta (-1 above,
    // +1 below) away: that row's message is inside the span, before (above) or after (below) this one.
    static bool joins(const QModelIndex &index, int first, int last, int delta);
};

} // namespace cl::gui
