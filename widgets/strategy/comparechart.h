// SPDX-License-Identifier: MIT
#pragma once

#include "core/workflow/compare.h"
#include "widgets/models/comparechartgeometry.h"

#include <QWidget>

namespace cl::gui {

// Small multiples of the compare rows: one column per metric (tokens after vs before, reduction,
// fact retention, cache prefix, time), one row per strategy. Hover shows the row's numbers; a click
// selects the strategy (strategyClicked).
class CompareChart : public QWidget
{
    Q_OBJECT
public:
    explicit CompareChart(QWidget *parent = nullptr);

    void setRows(const std::vector<strategy::CompareRow> &rows);
    void setBars(QList<CompareBar> bars);
    const QList<CompareBar> &bars() const { return m_bars; }
    CompareChartGeometry chartGeometry() const;   // for the current size
    QString strategyAt(const QPointF &pos) const; // "" outside the rows
    QString selectedStrategy() const { return m_selected; }
    QString tooltipFor(int row) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return {420, 140}; }

public Q_SLOTS:
    void setSelectedStrategy(const QString &name);

Q_SIGNALS:
    void strategyClicked(const QString &name);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void leaveEvent(QEvent *event) override;

private:
    int rowOf(const QString &name) const;

    QList<CompareBar> m_bars;
    QString m_selected;
    int m_hover = -1;
};

} // namespace cl::gui
