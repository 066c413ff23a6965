// SPDX-License-Identifier: MIT
#pragma once

#include <QLayout>
#include <QList>

namespace cl::gui {

// A row of widgets that continues on the next line when the width runs out, so that a bar of
// filters never sets the window's minimum width (only its widest item does). An item added with
// stretch > 0 takes the width left on its line, never less than its size hint.
class FlowLayout : public QLayout
{
public:
    explicit FlowLayout(QWidget *parent = nullptr, int spacing = 6);
    ~FlowLayout() override;

    void addItem(QLayoutItem *item) override;
    void addWidget(QWidget *w, int stretch);
    using QLayout::addWidget;
    int count() const override { return int(m_items.size()); }
    QLayoutItem *itemAt(int index) const override { return m_items.value(index); }
    QLayoutItem *takeAt(int index) override;

    Qt::Orientations expandingDirections() const override { return {}; }
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize minimumSize() const override;
    QSize sizeHint() const override;
    void setGeometry(const QRect &rect) override;

private:
    int place(const QRect &rect, bool apply) const; // height used
    int spacing() const { return m_spacing; }

    QList<QLayoutItem *> m_items;
    QList<int> m_stretch;
    int m_spacing;
};

} // namespace cl::gui
