// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/transcript.h"
#include "widgets/models/chartgeometry.h"

#include <QRectF>
#include <QWidget>

#include <vector>

namespace cl::gui {

// Context over the conversation: measured context per response (solid), the estimator's running
// context (dashed, restarting at each compaction), the context window and the compactions.
// Hover shows the nearest message's numbers; a click asks to select that message.
class UsageChart : public QWidget
{
    Q_OBJECT
public:
    explicit UsageChart(QWidget *parent = nullptr);

    void setTranscript(const Transcript *transcript);
    // What setTranscript computes (usageData with the window's count), computed once by the caller
    // for the chart and the gauge alike.
    void setUsage(UsageData data);
    void setContextWindow(qint64 window);
    qint64 contextWindow() const { return m_window; }
    // Scale the y axis to the data alone (the window line then may lie above the plot).
    void setFitToData(bool fit);
    bool fitToData() const { return m_fitToData; }

    const UsageData &data() const { return m_data; }
    ChartGeometry chartGeometry() const; // for the current size
    QList<qint64> yTicks() const;
    // Message nearest to a widget position (by x), -1 when outside the plot or too far from any point.
    int messageAt(const QPointF &pos) const;
    int hoveredMessage() const { return m_hover; }
    // Where the last paint put the window and compaction labels (none covers another).
    const std::vector<QRectF> &labelRects() const { return m_labelRects; }

    QSize sizeHint() const override { return {600, 220}; }
    QSize minimumSizeHint() const override { return {200, 120}; }

Q_SIGNALS:
    void messageActivated(int message);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void leaveEvent(QEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;

private:
    qint64 valueMax() const;
    QString tooltipFor(int message) const;
    void paintLegend(QPainter &p) const;
    void paintAxes(QPainter &p, const ChartGeometry &g) const;
    void paintSeries(QPainter &p, const ChartGeometry &g) const;

    UsageData m_data;
    QList<int> m_xs; // messages that have a point in either series, ascending
    qint64 m_window = 200000;
    int m_hover = -1;
    bool m_fitToData = false;
    mutable std::vector<QRectF> m_labelRects;
};

} // namespace cl::gui
