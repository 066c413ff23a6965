// SPDX-License-Identifier: MIT
#pragma once

#include "core/workflow/composition.h"
#include "widgets/models/chartgeometry.h"

#include <QWidget>

#include <memory>

namespace cl::gui {

// The categories of the live context over the session as stacked areas (composition::overTime): the
// fixed part at the bottom, the messages' categories above; a compaction shows as the drop it is
// (with a marker). The selected message has a cursor; hover lists the largest categories at the
// nearest message; a click asks to select it.
class CompositionChart : public QWidget
{
    Q_OBJECT
public:
    explicit CompositionChart(QWidget *parent = nullptr);

    // compactions: transcript indices of the compaction boundaries (markers).
    void setSeries(std::shared_ptr<const cl::composition::Series> series, QList<int> compactions, qint64 window);
    const std::shared_ptr<const cl::composition::Series> &series() const { return m_series; }
    void setSelectedMessage(int message);
    ChartGeometry chartGeometry() const;
    // Transcript index of the series row nearest to a widget position (by x); -1 outside the plot.
    int messageAt(const QPointF &pos) const;
    QString tooltipFor(int row) const;

    QSize sizeHint() const override { return {360, 200}; }
    QSize minimumSizeHint() const override { return {160, 100}; }

Q_SIGNALS:
    void messageActivated(int message);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;

private:
    std::shared_ptr<const cl::composition::Series> m_series;
    QList<int> m_compactions;
    qint64 m_window = 0;
    qint64 m_peak = 0;
    int m_selected = -1;
};

} // namespace cl::gui
