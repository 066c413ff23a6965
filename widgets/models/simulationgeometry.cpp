// SPDX-License-Identifier: MIT
#include "widgets/models/simulationgeometry.h"

#include "widgets/models/chartgeometry.h"

#include <algorithm>
#include <cmath>

namespace cl::gui {

double SimulationAxes::xForTurn(double turn) const
{
    if (turns <= 1)
        return plot.center().x();
    return plot.left() + (turn - 1) / double(turns - 1) * plot.width();
}

double SimulationAxes::yForTokens(double tokens) const
{
    if (yMax <= 0)
        return plot.bottom();
    return plot.bottom() - tokens / double(yMax) * plot.height();
}

int SimulationAxes::turnAt(double x, double tolerance) const
{
    if (turns <= 0)
        return 0;
    const double step = turns > 1 ? plot.width() / double(turns - 1) : plot.width();
    const double slack = std::max(tolerance, step / 2);
    if (x < plot.left() - slack || x > plot.right() + slack)
        return 0;
    if (turns == 1)
        return 1;
    const double turn = 1 + (x - plot.left()) / plot.width() * double(turns - 1);
    return int(std::clamp<double>(std::lround(turn), 1, turns));
}

qint64 simulationValueMax(const sim::Simulation &s)
{
    qint64 top = std::max<qint64>(1, s.window);
    for (const auto &p : s.turns)
        top = std::max({top, qint64(p.liveWithout), qint64(p.liveBefore), qint64(p.liveWith)});
    return niceTicks(top, 5).back();
}

QList<qint64> turnTicks(int turns, int targetCount)
{
    QList<qint64> out;
    if (turns <= 0)
        return out;
    out.push_back(1);
    if (turns == 1)
        return out;
    const qint64 step = niceStep(turns, targetCount);
    for (qint64 t = step; t <= turns; t += step)
        if (t > 1)
            out.push_back(t);
    return out;
}

SimulationChartGeometry simulationChartGeometry(const sim::Simulation &s, const QRectF &plot)
{
    SimulationChartGeometry g;
    g.axes.plot = plot;
    g.axes.turns = int(s.turns.size());
    g.axes.yMax = simulationValueMax(s);
    const SimulationAxes &a = g.axes;

    for (const qint64 t : niceTicks(a.yMax, 5))
        if (t <= a.yMax)
            g.yTicks.push_back({a.yForTokens(double(t)), t, shortTokens(t)});
    for (const qint64 t : turnTicks(a.turns))
        g.xTicks.push_back({a.xForTurn(double(t)), t, QString::number(t)});
    if (s.window > 0 && s.window <= a.yMax) {
        g.windowY = a.yForTokens(double(s.window));
        static const struct {
            double ratio;
            const char *name;
        } bands[] = {
            {0.40, "snip"},
            {0.60, "microcompact"},
            {0.80, "auto-compact"},
            {0.95, "hard truncate"}};
        for (const auto &b : bands)
            g.bands.push_back({b.ratio, a.yForTokens(b.ratio * double(s.window)),
                               QStringLiteral("%1 % %2").arg(int(std::lround(b.ratio * 100))).arg(QLatin1String(b.name))});
    }
    for (const auto &p : s.turns) {
        const double x = a.xForTurn(double(p.turn));
        g.without.push_back({x, a.yForTokens(double(p.liveWithout))});
        g.with.push_back({x, a.yForTokens(double(p.liveBefore))});
        if (p.liveWith != p.liveBefore)
            g.with.push_back({x, a.yForTokens(double(p.liveWith))});
        if (p.changed)
            g.changed.push_back({int(p.turn), QPointF(x, a.yForTokens(double(p.liveWith)))});
    }
    const auto marker = [&](std::int32_t turn, bool with) {
        if (turn <= 0 || std::size_t(turn) > s.turns.size())
            return SimulationMarker{};
        const auto &p = s.turns[std::size_t(turn) - 1];
        return SimulationMarker{turn, QPointF(a.xForTurn(turn), a.yForTokens(double(with ? p.liveWith : p.liveWithout)))};
    };
    g.overWithout = marker(s.exceedsWithout, false);
    g.overWith = marker(s.exceedsWith, true);
    return g;
}

} // namespace cl::gui
