// SPDX-License-Identifier: MIT
#pragma once

// Paints a simulation (seed 003 §11): context per turn without the strategy (dashed) and with it
// (solid sawtooth, a drop at every compaction), the context window, the 40/60/80/95 % usage bands,
// markers where the strategy changed something and where each line first passes the window.
// Hover shows the turn's numbers; a click emits the turn. Geometry: models/simulationgeometry.h.

#include "core/strategy/simulation.h"
#include "widgets/models/simulationgeometry.h"

#include <QWidget>

#include <memory>

namespace cl::gui {

class SimulationChart : public QWidget
{
    Q_OBJECT
public:
    explicit SimulationChart(QWidget *parent = nullptr);

    void setSimulation(std::shared_ptr<const sim::Simulation> simulation);
    const sim::Simulation *simulation() const { return m_sim.get(); }
    void setSelectedTurn(int turn); // 0: none
    int selectedTurn() const { return m_selected; }
    int hoveredTurn() const { return m_hover; }

    QRectF plotRect() const;                  // for the current size
    SimulationChartGeometry geometry() const; // for the current size
    int turnAt(const QPointF &pos) const;     // 0 when outside the plot
    QString tooltipFor(int turn) const;

    QSize sizeHint() const override { return {700, 320}; }
    QSize minimumSizeHint() const override { return {240, 140}; }

Q_SIGNALS:
    void turnClicked(int turn);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void leaveEvent(QEvent *event) override;

private:
    void paintLegend(QPainter &p) const;

    std::shared_ptr<const sim::Simulation> m_sim;
    int m_hover = 0;
    int m_selected = 0;
};

} // namespace cl::gui
