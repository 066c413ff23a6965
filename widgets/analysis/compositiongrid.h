// SPDX-License-Identifier: MIT
#pragma once

#include "core/workflow/composition.h"

#include <QWidget>

#include <memory>

namespace cl::gui {

// The context window as a grid of cells (like Claude Code's /context): each cell is 1/kCells of the
// window, coloured by the category that fills it (fixed part, messages, free space, reserved buffer).
// Hover names the cell's category; a click asks for it (categoryClicked with its row in the table).
class CompositionGrid : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kColumns = 20;
    static constexpr int kRows = 5;

    explicit CompositionGrid(QWidget *parent = nullptr);

    void setComposition(std::shared_ptr<const cl::composition::Composition> composition);
    // Category (index into Composition::categories) of the cell under a widget position, -1 if none.
    int categoryAt(const QPointF &pos) const;
    QRectF gridArea() const;

    QSize sizeHint() const override { return {300, 96}; }
    QSize minimumSizeHint() const override { return {160, 60}; }

Q_SIGNALS:
    void categoryClicked(int category);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;

private:
    std::shared_ptr<const cl::composition::Composition> m_c;
};

} // namespace cl::gui
