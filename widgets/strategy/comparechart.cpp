// SPDX-License-Identifier: MIT
#include "widgets/strategy/comparechart.h"

#include "widgets/models/fatecolors.h"
#include "widgets/style/theme.h"

#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace cl::gui {

namespace {

QColor metricColour(CompareMetric m, bool dark)
{
    using F = strategy::Fate;
    switch (m) {
    case CompareMetric::TokensAfter: return fateAccent(F::Summarized, dark);
    case CompareMetric::Reduction: return fateAccent(F::Inserted, dark);
    case CompareMetric::FactRetention: return fateAccent(F::Microcompacted, dark);
    case CompareMetric::CachePrefix: return fateAccent(F::Snipped, dark);
    case CompareMetric::Time: return fateAccent(F::Kept, dark);
    }
    return {};
}

} // namespace

CompareChart::CompareChart(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("compareChart"));
    setMouseTracking(true);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
}

void CompareChart::setRows(const std::vector<strategy::CompareRow> &rows)
{
    setBars(compareBars(rows));
}

void CompareChart::setBars(QList<CompareBar> bars)
{
    m_bars = std::move(bars);
    m_hover = -1;
    // Rows never shrink below a readable height; the view scrolls instead.
    const QFontMetrics fm(font());
    setMinimumHeight(int(fm.height() + 10 + m_bars.size() * (fm.height() + 2) + 16));
    updateGeometry();
    update();
}

void CompareChart::setSelectedStrategy(const QString &name)
{
    if (name == m_selected)
        return;
    m_selected = name;
    update();
}

int CompareChart::rowOf(const QString &name) const
{
    for (int i = 0; i < m_bars.size(); ++i)
        if (m_bars[i].name == name)
            return i;
    return -1;
}

CompareChartGeometry CompareChart::chartGeometry() const
{
    const QFontMetrics fm(font());
    double label = 0;
    for (const CompareBar &b : m_bars)
        label = std::max(label, double(fm.horizontalAdvance(b.title)));
    // Titles get at most a quarter of the width; longer ones are elided.
    label = std::clamp(label + 16, 80.0, std::max(80.0, width() * 0.25));
    const double value = fm.horizontalAdvance(QStringLiteral("000.0k")) + 8;
    return CompareChartGeometry::layout(QRectF(rect()).adjusted(8, 6, -8, -6), m_bars, label, fm.height() + 10, value,
                                        fm.height() + 2, fm.height() * 1.8);
}

QSize CompareChart::sizeHint() const
{
    const QFontMetrics fm(font());
    const int rows = std::max<int>(4, int(m_bars.size()));
    return {760, int(fm.height() + 10 + rows * fm.height() * 1.5 + 16)};
}

QString CompareChart::strategyAt(const QPointF &pos) const
{
    const auto hit = chartGeometry().hitTest(pos);
    return hit.row >= 0 && hit.row < m_bars.size() ? m_bars[hit.row].name : QString();
}

QString CompareChart::tooltipFor(int row) const
{
    if (row < 0 || row >= m_bars.size())
        return {};
    const CompareBar &b = m_bars[row];
    const QLocale loc;
    QString text = QStringLiteral("<b>%1</b> (%2)").arg(b.title.toHtmlEscaped(), b.name.toHtmlEscaped());
    if (b.failed)
        return text + QStringLiteral("<br>") + tr("parameter error");
    text += QStringLiteral("<br>")
            + tr("tokens: %1 \u2192 %2").arg(loc.toString(b.tokensBefore), loc.toString(b.tokensAfter))
            + QStringLiteral("<br>") + tr("reduction: %1 %").arg(loc.toString(100 * b.reduction, 'f', 1))
            + QStringLiteral("<br>") + tr("facts kept: %1 %").arg(loc.toString(100 * b.factRetention, 'f', 1))
            + QStringLiteral("<br>")
            + tr("cache prefix: %1 tokens (%2 %)")
                  .arg(loc.toString(b.cachePrefixTokens), loc.toString(100 * b.cacheShare, 'f', 1))
            + QStringLiteral("<br>") + tr("time: %1 ms").arg(loc.toString(b.millis, 'f', 2));
    if (!b.changed)
        text += QStringLiteral("<br>") + tr("unchanged (below its trigger or refused)");
    if (b.violations > 0)
        text += QStringLiteral("<br>") + (b.violations == 1 ? tr("1 validity violation") : tr("%1 validity violations").arg(b.violations));
    return text;
}

void CompareChart::mouseMoveEvent(QMouseEvent *event)
{
    const auto hit = chartGeometry().hitTest(event->position());
    if (hit.row != m_hover) {
        m_hover = hit.row;
        update();
    }
    if (hit.row >= 0)
        QToolTip::showText(event->globalPosition().toPoint(), tooltipFor(hit.row), this);
    else
        QToolTip::hideText();
}

void CompareChart::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return;
    const QString name = strategyAt(event->position());
    if (name.isEmpty())
        return;
    setSelectedStrategy(name);
    Q_EMIT strategyClicked(name);
}

void CompareChart::leaveEvent(QEvent *)
{
    m_hover = -1;
    update();
}

void CompareChart::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const QPalette pal = palette();
    const bool dark = theme::isDark(pal);
    if (m_bars.isEmpty()) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("Run the strategies to compare them here"));
        return;
    }
    const CompareChartGeometry g = chartGeometry();
    const QFontMetrics fm(font());
    QColor grid = pal.color(QPalette::Text);
    grid.setAlpha(dark ? 45 : 35);
    const int selected = rowOf(m_selected);

    // Row bands: alternate, hover, selection.
    for (int r = 0; r < g.rows; ++r) {
        QColor band;
        if (r == selected)
            band = pal.color(QPalette::Highlight), band.setAlpha(70);
        else if (r == m_hover)
            band = pal.color(QPalette::Text), band.setAlpha(22);
        else if (r % 2)
            band = pal.color(QPalette::AlternateBase);
        if (band.isValid())
            p.fillRect(g.rowRect(r), band);
    }

    // Headers and the zero line of every column.
    QFont bold = font();
    bold.setBold(true);
    for (int m = 0; m < kCompareMetricCount; ++m) {
        const QRectF h = g.headerRect(m);
        p.setFont(bold);
        p.setPen(metricColour(CompareMetric(m), dark));
        p.drawText(h.adjusted(0, 0, 0, -4), Qt::AlignLeft | Qt::AlignBottom,
                   QFontMetrics(bold).elidedText(compareMetricTitle(CompareMetric(m)), Qt::ElideRight, int(h.width())));
        p.setFont(font());
        const QRectF c = g.columnRect(m);
        p.setPen(grid);
        p.drawLine(QPointF(c.left() + 0.5, c.top()), QPointF(c.left() + 0.5, c.bottom()));
        // The axis end: where a bar of the axis maximum stops.
        const double x = c.left() + g.barMaxLength(m) + 0.5;
        p.setPen(QPen(grid, 1, Qt::DotLine));
        p.drawLine(QPointF(x, c.top()), QPointF(x, c.bottom()));
    }

    p.setRenderHint(QPainter::Antialiasing);
    for (int r = 0; r < g.rows; ++r) {
        const CompareBar &b = m_bars[r];
        const QRectF label = g.labelRect(r);
        QColor text = pal.color(QPalette::Text);
        if (b.failed || b.violations > 0)
            text = fateAccent(strategy::Fate::Removed, dark);
        else if (!b.changed)
            text = pal.color(QPalette::PlaceholderText);
        p.setPen(text);
        p.drawText(label, Qt::AlignLeft | Qt::AlignVCenter,
                   fm.elidedText(b.title + (b.violations > 0 ? QStringLiteral(" \u26a0") : QString()), Qt::ElideRight,
                                 int(label.width())));
        if (b.failed)
            continue;
        for (int m = 0; m < kCompareMetricCount; ++m) {
            const auto metric = CompareMetric(m);
            QColor fill = metricColour(metric, dark);
            if (!b.changed)
                fill.setAlpha(110);
            if (metric == CompareMetric::TokensAfter) {
                QColor ghost = pal.color(QPalette::Text);
                ghost.setAlpha(dark ? 50 : 40);
                p.setPen(Qt::NoPen);
                p.setBrush(ghost);
                p.drawRoundedRect(g.ghostRect(r, b), 2, 2);
            }
            const QRectF bar = g.barRect(r, metric, b);
            p.setPen(Qt::NoPen);
            p.setBrush(fill);
            if (bar.width() > 0)
                p.drawRoundedRect(bar, 2, 2);
            // The value right after the bar (after the ghost for tokens, so it never overlaps it).
            const double end = metric == CompareMetric::TokensAfter ? std::max(bar.right(), g.ghostRect(r, b).right())
                                                                    : bar.right();
            p.setPen(pal.color(QPalette::Text));
            p.drawText(QRectF(end + 4, g.rowRect(r).top(), g.valueWidth, g.rowHeight), Qt::AlignLeft | Qt::AlignVCenter,
                       compareValueLabel(b, metric));
        }
    }
}

} // namespace cl::gui
