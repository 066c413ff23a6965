// SPDX-License-Identifier: MIT
#include "widgets/style/flowlayout.h"

#include <QWidget>

#include <algorithm>

namespace cl::gui {

FlowLayout::FlowLayout(QWidget *parent, int spacing)
    : QLayout(parent)
    , m_spacing(spacing)
{
    setContentsMargins(0, 0, 0, 0);
}

FlowLayout::~FlowLayout()
{
    while (QLayoutItem *item = takeAt(0))
        delete item;
}

void FlowLayout::addItem(QLayoutItem *item)
{
    m_items.append(item);
    m_stretch.append(0);
}

void FlowLayout::addWidget(QWidget *w, int stretch)
{
    QLayout::addWidget(w);
    m_stretch.last() = stretch;
}

QLayoutItem *FlowLayout::takeAt(int index)
{
    if (index < 0 || index >= m_items.size())
        return nullptr;
    m_stretch.removeAt(index);
    return m_items.takeAt(index);
}

int FlowLayout::heightForWidth(int width) const
{
    return place(QRect(0, 0, width, 0), false);
}

QSize FlowLayout::minimumSize() const
{
    QSize s;
    for (const QLayoutItem *item : m_items)
        if (!item->isEmpty())
            s = s.expandedTo(item->minimumSize());
    const QMargins m = contentsMargins();
    return s + QSize(m.left() + m.right(), m.top() + m.bottom());
}

QSize FlowLayout::sizeHint() const
{
    // One line when there is room for it.
    int w = 0, h = 0;
    for (const QLayoutItem *item : m_items) {
        if (item->isEmpty())
            continue;
        w += (w > 0 ? m_spacing : 0) + item->sizeHint().width();
        h = std::max(h, item->sizeHint().height());
    }
    const QMargins m = contentsMargins();
    return {w + m.left() + m.right(), h + m.top() + m.bottom()};
}

void FlowLayout::setGeometry(const QRect &rect)
{
    QLayout::setGeometry(rect);
    place(rect, true);
}

int FlowLayout::place(const QRect &rect, bool apply) const
{
    const QRect area = rect.marginsRemoved(contentsMargins());
    int y = area.y(), used = 0;
    int i = 0;
    const int n = int(m_items.size());
    while (i < n) {
        // Fill one line: as many items as fit at their size hints (at least one).
        int end = i, width = 0, height = 0;
        for (; end < n; ++end) {
            const QLayoutItem *item = m_items[end];
            if (item->isEmpty())
                continue;
            const int w = std::min(item->sizeHint().width(), area.width());
            const int next = width + (width > 0 ? m_spacing : 0) + w;
            if (width > 0 && next > area.width())
                break;
            width = next;
            height = std::max(height, item->sizeHint().height());
        }
        if (apply) {
            int stretchSum = 0;
            for (int k = i; k < end; ++k)
                if (!m_items[k]->isEmpty())
                    stretchSum += m_stretch[k];
            const int spare = std::max(0, area.width() - width);
            int x = area.x();
            for (int k = i; k < end; ++k) {
                QLayoutItem *item = m_items[k];
                if (item->isEmpty())
                    continue;
                int w = std::min(item->sizeHint().width(), area.width());
                if (stretchSum > 0 && m_stretch[k] > 0)
                    w += spare * m_stretch[k] / stretchSum;
                const int h = item->sizeHint().height();
                item->setGeometry(QRect(x, y + (height - h) / 2, w, h));
                x += w + m_spacing;
            }
        }
        y += height + m_spacing;
        used += (used > 0 ? m_spacing : 0) + height;
        i = end;
    }
    const QMargins m = contentsMargins();
    return used + m.top() + m.bottom();
}

} // namespace cl::gui
