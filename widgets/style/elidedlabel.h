// SPDX-License-Identifier: MIT
#pragma once

#include <QLabel>

namespace cl::gui {

// A one-line plain-text label that asks for the room of its whole text but, given less, shows the
// start and "…" instead of setting its row's minimum width (text() and the tooltip keep it whole).
class ElidedLabel : public QLabel
{
    Q_OBJECT
public:
    using QLabel::QLabel;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;
};

} // namespace cl::gui
