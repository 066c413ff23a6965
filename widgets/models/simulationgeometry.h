// SPDX-License-Identifier: MIT
#pragma once

// Geometry of the simulation chart (seed 003 §11): turns on x, tokens on y. Plain data computed
// from a cl::sim::Simulation and a plot rectangle, tested without painting; SimulationChart only
// draws what this holds.
//
// "Without" is one point per turn (the plain running total). "With" is a sawtooth: at each turn the
// managed context first grows to beforeStrategy, and where the strategy changed something it drops
// at the same x to `with`, so every compaction reads as a vertical drop.

#include "core/strategy/simulation.h"

#include <QList>
#include <QPointF>
#include <QPolygonF>
#include <QRectF>
#include <QString>

namespace cl::gui {

// Data -> pixel mapping: turn 1 at the plot's left edge, the last turn at its right edge (a single
// turn sits in the middle); tokens 0 at the bottom, yMax at the top.
struct SimulationAxes {
    QRectF plot;
    int turns = 0;
    qint64 yMax = 1;

    double xForTurn(double turn) const;
    double yForTokens(double tokens) const;
    // Nearest turn (1-based) to a pixel x; 0 when there are no turns or x is more than half a turn
    // step (at least `tolerance` pixels) outside the plot.
    int turnAt(double x, double tolerance = 12) const;
};

struct SimulationTick {
    double pos = 0; // pixel x (turn ticks) or y (token ticks)
    qint64 value = 0;
    QString label;
};

struct SimulationBandLine {
    double ratio = 0; // 0.40, 0.60, 0.80, 0.95 of the window
    double y = 0;
    QString label; // "40 % snip", ...
};

struct SimulationMarker {
    int turn = 0; // 0: no marker
    QPointF at;
};

struct SimulationChartGeometry {
    SimulationAxes axes;
    QPolygonF without;                      // one point per turn
    QPolygonF with;                         // sawtooth: (turn, beforeStrategy) then, if changed, (turn, with)
    double windowY = -1;                    // -1: no window line (window <= 0 or above yMax)
    QList<SimulationBandLine> bands;        // the seed 003 usage bands inside the plot
    QList<SimulationMarker> changed;        // at (turn, with) where the strategy changed something
    SimulationMarker overWithout, overWith; // first turn over the window, on its line
    QList<SimulationTick> xTicks, yTicks;

    bool isEmpty() const { return axes.turns == 0; }
};

// The top of the y axis: the largest value of either line and the window, rounded up to a nice tick.
qint64 simulationValueMax(const sim::Simulation &s);
// Turn ticks: nice steps (1, 2, 5, 10, ... turns) from niceTicks, turn 1 always, at most ~targetCount.
QList<qint64> turnTicks(int turns, int targetCount = 10);

SimulationChartGeometry simulationChartGeometry(const sim::Simulation &s, const QRectF &plot);

} // namespace cl::gui
