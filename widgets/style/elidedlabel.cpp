// SPDX-License-Identifier: MIT
#include "widgets/style/elidedlabel.h"

#include <QPainter>
#include <QStyle>

namespace cl::gui {

QSize ElidedLabel::minimumSizeHint() const
{
    // Room for a dozen characters: enough to read the figure the text starts with.
    const QMargins m = contentsMargins();
    return {fontMetrics().averageCharWidth() * 12 + m.left() + m.right(), QLabel::minimumSizeHint().height()};
}

void ElidedLabel::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const QRect r = contentsRect();
    const QString shown = fontMetrics().elidedText(text(), Qt::ElideRight, r.width());
    style()->drawItemText(&p, r, int(alignment()), palette(), isEnabled(), shown, foregroundRole());
}

} // namespace cl::gui
