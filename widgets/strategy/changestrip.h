// SPDX-License-Identifier: MIT
#pragma once

#include <QColor>
#include <QWidget>

#include <vector>

namespace cl::gui {

// A thin strip beside a list's scroll bar with a mark at each changed row, at its height in the
// whole list, in the colour of what happened to it: where the changes are in a long preview at a
// glance. A click selects the changed row nearest to it.
class ChangeStrip : public QWidget
{
    Q_OBJECT
public:
    struct Mark {
        int row; // what a click on it selects
        QColor colour;
        int position = -1; // where it sits among the rowCount rows; -1: at `row`
        int at() const { return position >= 0 ? position : row; }
    };

    explicit ChangeStrip(QWidget *parent = nullptr);

    void setMarks(int rowCount, std::vector<Mark> marks);
    const std::vector<Mark> &marks() const { return m_marks; }
    // The row of the mark nearest to widget height y, -1 without marks.
    int rowAt(int y) const;

    QSize sizeHint() const override { return {10, 100}; }
    QSize minimumSizeHint() const override { return {10, 20}; }

Q_SIGNALS:
    void rowClicked(int row);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;

private:
    int m_rows = 0;
    std::vector<Mark> m_marks; // by row
};

} // namespace cl::gui
