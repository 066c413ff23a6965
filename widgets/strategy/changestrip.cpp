// SPDX-License-Identifier: MIT
#include "widgets/strategy/changestrip.h"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace cl::gui {

ChangeStrip::ChangeStrip(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("changeStrip"));
    setToolTip(tr("Where the changes are: click a mark to go to it (F8 / Shift+F8: next / previous change)"));
    setCursor(Qt::PointingHandCursor);
}

void ChangeStrip::setMarks(int rowCount, std::vector<Mark> marks)
{
    m_rows = rowCount;
    m_marks = std::move(marks);
    update();
}

int ChangeStrip::rowAt(int y) const
{
    if (m_marks.empty() || m_rows <= 0 || height() <= 0)
        return -1;
    const double row = double(y) / double(height()) * double(m_rows);
    const auto it = std::lower_bound(m_marks.begin(), m_marks.end(), row, [](const Mark &m, double r) { return double(m.at()) < r; });
    if (it == m_marks.end())
        return m_marks.back().row;
    if (it == m_marks.begin())
        return it->row;
    const auto before = std::prev(it);
    return row - double(before->at()) <= double(it->at()) - row ? before->row : it->row;
}

void ChangeStrip::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    if (m_rows <= 0)
        return;
    // One pixel row per mark at least; on a long list many rows share a pixel row (drawn once).
    int last = -1;
    for (const Mark &m : m_marks) {
        const int y = int(std::floor(double(m.at()) / double(m_rows) * double(height())));
        if (y == last)
            continue;
        last = y;
        p.fillRect(QRect(1, y, width() - 2, 2), m.colour);
    }
}

void ChangeStrip::mousePressEvent(QMouseEvent *event)
{
    const int row = rowAt(int(event->position().y()));
    if (row >= 0)
        Q_EMIT rowClicked(row);
}

} // namespace cl::gui
