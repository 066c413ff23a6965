// SPDX-License-Identifier: MIT
#include "widgets/strategy/simulationchart.h"

#include "widgets/models/chartgeometry.h"
#include "widgets/style/theme.h"

#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace cl::gui {

namespace {

struct Colours {
    QColor without, with, window, changed, band, grid, text, muted;
};

// Series colours come in a light and a dark variant (the usage chart's); text, grid and background
// follow the palette so both themes read.
Colours coloursFor(const QPalette &pal)
{
    const bool dark = theme::isDark(pal);
    QColor grid = pal.color(QPalette::Text);
    grid.setAlpha(dark ? 45 : 35);
    QColor band = pal.color(QPalette::Text);
    band.setAlpha(dark ? 90 : 70);
    return {dark ? QColor(200, 160, 255) : QColor(130, 70, 180), dark ? QColor(90, 170, 235) : QColor(30, 110, 180),
            dark ? QColor(255, 110, 110) : QColor(200, 40, 40), dark ? QColor(255, 180, 60) : QColor(200, 115, 0),
            band, grid, pal.color(QPalette::Text), pal.color(QPalette::PlaceholderText)};
}

} // namespace

SimulationChart::SimulationChart(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("simulationChart"));
    setMouseTracking(true);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
}

void SimulationChart::setSimulation(std::shared_ptr<const sim::Simulation> simulation)
{
    m_sim = std::move(simulation);
    m_hover = 0;
    m_selected = 0;
    update();
}

void SimulationChart::setSelectedTurn(int turn)
{
    if (turn == m_selected)
        return;
    m_selected = turn;
    update();
}

QRectF SimulationChart::plotRect() const
{
    const QFontMetrics fm(font());
    // Left: the widest token label; top: the legend line; right: the band labels; bottom: turn labels.
    const double left = fm.horizontalAdvance(QStringLiteral("000.0k")) + 12;
    const double right = fm.horizontalAdvance(QStringLiteral("95 % hard truncate")) + 14;
    const double top = fm.height() * 2 + 8;
    const double bottom = fm.height() * 2 + 10;
    return QRectF(left, top, std::max(10.0, width() - left - right), std::max(10.0, height() - top - bottom));
}

SimulationChartGeometry SimulationChart::geometry() const
{
    if (!m_sim)
        return {};
    return simulationChartGeometry(*m_sim, plotRect());
}

int SimulationChart::turnAt(const QPointF &pos) const
{
    if (!m_sim)
        return 0;
    const QRectF plot = plotRect();
    if (pos.y() < plot.top() - 4 || pos.y() > plot.bottom() + 4)
        return 0;
    return geometry().axes.turnAt(pos.x());
}

QString SimulationChart::tooltipFor(int turn) const
{
    if (!m_sim || turn < 1 || std::size_t(turn) > m_sim->turns.size())
        return {};
    const sim::TurnPoint &p = m_sim->turns[std::size_t(turn) - 1];
    const QLocale loc;
    const auto pct = [&](qint64 v) {
        return m_sim->window > 0 ? loc.toString(100.0 * double(v) / double(m_sim->window), 'f', 1) + QStringLiteral(" %") : QString();
    };
    QString text = (m_sim->step == sim::Step::Turn ? tr("Turn %1 · messages %2–%3 (%4)") : tr("Request %1 · messages %2–%3 (%4)")).arg(p.turn).arg(p.firstIndex).arg(p.lastIndex).arg(p.messages);
    text += QLatin1Char('\n') + tr("without: %1 (%2)").arg(loc.toString(qint64(p.liveWithout)), pct(p.liveWithout));
    text += QLatin1Char('\n') + tr("before the strategy: %1").arg(loc.toString(qint64(p.liveBefore)));
    text += QLatin1Char('\n') + tr("with: %1 (%2) · %3 managed messages").arg(loc.toString(qint64(p.liveWith)), pct(p.liveWith)).arg(p.managedMessages);
    if (!p.note.empty())
        text += QLatin1Char('\n') + (p.changed ? tr("changed: ") : QString()) + QString::fromStdString(p.note);
    return text;
}

void SimulationChart::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const Colours c = coloursFor(palette());
    if (!m_sim || m_sim->turns.empty()) {
        p.setPen(c.muted);
        p.drawText(rect(), Qt::AlignCenter,
                   m_sim ? tr("No turns: the transcript has no conversation") : tr("Run a simulation to see the live context per request"));
        return;
    }
    const SimulationChartGeometry g = geometry();
    const QRectF plot = g.axes.plot;
    const QFontMetrics fm(font());

    for (const SimulationTick &t : g.yTicks) {
        const double y = std::round(t.pos) + 0.5;
        p.setPen(c.grid);
        p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
        p.setPen(c.text);
        p.drawText(QRectF(0, y - fm.height() / 2.0, plot.left() - 6, fm.height()), Qt::AlignRight | Qt::AlignVCenter, t.label);
    }
    for (const SimulationTick &t : g.xTicks) {
        const double x = std::round(t.pos) + 0.5;
        p.setPen(c.grid);
        p.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 4));
        p.setPen(c.text);
        p.drawText(QRectF(x - 40, plot.bottom() + 4, 80, fm.height()), Qt::AlignHCenter | Qt::AlignTop, t.label);
    }
    p.setPen(c.muted);
    p.drawText(QRectF(plot.left(), plot.bottom() + 4 + fm.height(), plot.width(), fm.height()), Qt::AlignHCenter,
               m_sim && m_sim->step == sim::Step::Turn ? tr("turn (a turn starts at each user request)")
                                                       : tr("request (a step ends at each response)"));
    p.setPen(c.grid);
    p.drawRect(plot);

    for (const SimulationBandLine &b : g.bands) {
        p.setPen(QPen(c.band, 1, Qt::DotLine));
        p.drawLine(QPointF(plot.left(), b.y), QPointF(plot.right(), b.y));
        p.setPen(c.muted);
        p.drawText(QRectF(plot.right() + 4, b.y - fm.height() / 2.0, width() - plot.right() - 4, fm.height()),
                   Qt::AlignLeft | Qt::AlignVCenter, b.label);
    }
    if (g.windowY >= 0) {
        p.setPen(QPen(c.window, 1.5, Qt::DashDotLine));
        p.drawLine(QPointF(plot.left(), g.windowY), QPointF(plot.right(), g.windowY));
        p.setPen(c.window);
        p.drawText(QRectF(plot.right() + 4, g.windowY - fm.height() / 2.0, width() - plot.right() - 4, fm.height()),
                   Qt::AlignLeft | Qt::AlignVCenter, tr("window %1").arg(shortTokens(m_sim->window)));
    }

    if (m_selected > 0 || m_hover > 0) {
        for (const int turn : {m_selected, m_hover}) {
            if (turn <= 0)
                continue;
            const double x = g.axes.xForTurn(turn);
            p.setPen(QPen(c.text, 1, turn == m_selected ? Qt::SolidLine : Qt::DotLine));
            p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        }
    }

    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(c.without, 2, Qt::DashLine));
    p.drawPolyline(g.without);
    p.setPen(QPen(c.with, 2.2));
    p.drawPolyline(g.with);

    p.setPen(QPen(c.changed.darker(130), 1));
    p.setBrush(c.changed);
    const double r = g.changed.size() > 150 ? 2.0 : 3.5; // dense markers only need to show where
    for (const SimulationMarker &m : g.changed)
        p.drawEllipse(m.at, r, r);

    const auto over = [&](const SimulationMarker &m, const QColor &line, const QString &label, bool above) {
        if (m.turn <= 0)
            return;
        p.setPen(QPen(c.window, 2));
        p.setBrush(palette().color(QPalette::Base));
        p.drawEllipse(m.at, 6, 6);
        p.setBrush(line);
        p.setPen(Qt::NoPen);
        p.drawEllipse(m.at, 3, 3);
        const double w = fm.horizontalAdvance(label) + 6;
        double x = m.at.x() + 8;
        if (x + w > plot.right())
            x = m.at.x() - 8 - w;
        const double y = above ? m.at.y() - 8 - fm.height() : m.at.y() + 8;
        p.setPen(c.window);
        p.drawText(QRectF(x, std::clamp(y, plot.top() + 1, plot.bottom() - fm.height() - 1), w, fm.height()), Qt::AlignLeft,
                   label);
    };
    over(g.overWithout, c.without, tr("over the window at turn %1").arg(g.overWithout.turn), true);
    over(g.overWith, c.with, tr("still over at turn %1 with it").arg(g.overWith.turn), false);

    if (m_hover > 0 && std::size_t(m_hover) <= m_sim->turns.size()) {
        const sim::TurnPoint &tp = m_sim->turns[std::size_t(m_hover) - 1];
        const double x = g.axes.xForTurn(m_hover);
        p.setBrush(palette().color(QPalette::Base));
        p.setPen(QPen(c.without, 2));
        p.drawEllipse(QPointF(x, g.axes.yForTokens(double(tp.without))), 4.5, 4.5);
        p.setPen(QPen(c.with, 2));
        p.drawEllipse(QPointF(x, g.axes.yForTokens(double(tp.with))), 4.5, 4.5);
    }
    paintLegend(p);
}

void SimulationChart::paintLegend(QPainter &p) const
{
    const Colours c = coloursFor(palette());
    const QFontMetrics fm(font());
    double x = plotRect().left();
    const double y = 4 + fm.height() / 2.0;
    const auto line = [&](const QColor &colour, Qt::PenStyle style, const QString &label) {
        p.setPen(QPen(colour, 2, style));
        p.drawLine(QPointF(x, y), QPointF(x + 22, y));
        x += 27;
        p.setPen(c.text);
        p.drawText(QPointF(x, 4 + fm.ascent()), label);
        x += fm.horizontalAdvance(label) + 16;
    };
    line(c.without, Qt::DashLine, tr("without a strategy"));
    line(c.with, Qt::SolidLine, tr("with %1").arg(QString::fromStdString(m_sim->strategy)));
    line(c.window, Qt::DashDotLine, tr("context window"));
    line(c.band, Qt::DotLine, tr("usage bands"));
    p.setPen(QPen(c.changed.darker(130), 1));
    p.setBrush(c.changed);
    p.drawEllipse(QPointF(x + 6, y), 3.5, 3.5);
    x += 16;
    p.setPen(c.text);
    const QString changed = tr("strategy changed the context (%1×)").arg(m_sim->compactions);
    p.drawText(QPointF(x, 4 + fm.ascent()), changed);

    // Second line: the summary a reader looks for first.
    const QLocale loc;
    const sim::TurnPoint &last = m_sim->turns.back();
    const bool byTurn = m_sim->step == sim::Step::Turn;
    const QString steps = byTurn ? tr("turns") : tr("requests");
    const auto over = [this, byTurn](std::int32_t k) {
        return k <= 0 ? tr("fits") : byTurn ? tr("over at turn %1").arg(k)
                                            : tr("over at request %1").arg(k);
    };
    QString summary = tr("%1 %2 · window %3 · without: %4 · with: %5 · final %6 vs %7 without (live context)")
                          .arg(m_sim->turns.size())
                          .arg(steps, loc.toString(qint64(m_sim->window)), over(m_sim->exceedsWithout), over(m_sim->exceedsWith),
                               loc.toString(qint64(last.liveWith)), loc.toString(qint64(last.liveWithout)));
    if (m_sim->stride > 1)
        summary += tr(" · strategy every %1 %2").arg(m_sim->stride).arg(steps);
    if (m_sim->cancelled)
        summary += tr(" · cancelled after %1 of %2 %3").arg(m_sim->turns.size()).arg(m_sim->totalTurns).arg(steps);
    p.setPen(c.muted);
    p.drawText(QRectF(plotRect().left(), 6 + fm.height(), width() - plotRect().left() - 8, fm.height()), Qt::AlignLeft,
               fm.elidedText(summary, Qt::ElideRight, int(width() - plotRect().left() - 8)));
}

void SimulationChart::mouseMoveEvent(QMouseEvent *event)
{
    const int turn = turnAt(event->position());
    if (turn != m_hover) {
        m_hover = turn;
        update();
    }
    if (turn > 0)
        QToolTip::showText(event->globalPosition().toPoint(), tooltipFor(turn), this);
    else
        QToolTip::hideText();
}

void SimulationChart::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return;
    const int turn = turnAt(event->position());
    if (turn <= 0)
        return;
    setSelectedTurn(turn);
    Q_EMIT turnClicked(turn);
}

void SimulationChart::leaveEvent(QEvent *)
{
    m_hover = 0;
    update();
}

} // namespace cl::gui
