// SPDX-License-Identifier: MIT
#include "widgets/transcript/contextgauge.h"
#include "widgets/style/elidedlabel.h"

#include "core/analysis/analysis.h"
#include "widgets/models/chartgeometry.h"
#include "widgets/models/tokencount.h"
#include "widgets/style/theme.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPainter>
#include <QSpinBox>

namespace cl::gui {

namespace {

QColor bandColour(Band b, bool dark)
{
    switch (b) {
    case Band::None: return dark ? QColor(60, 110, 70) : QColor(200, 235, 205);
    case Band::Snip: return dark ? QColor(125, 120, 50) : QColor(245, 235, 160);
    case Band::Microcompact: return dark ? QColor(140, 95, 40) : QColor(250, 205, 140);
    case Band::AutoCompact: return dark ? QColor(150, 65, 40) : QColor(245, 165, 120);
    case Band::HardTruncate: return dark ? QColor(160, 40, 50) : QColor(235, 110, 115);
    }
    return {};
}
} // namespace

// The painted bar: bands as zones, the two markers on top. No Q_OBJECT: it has no signals.
class GaugeBar : public QWidget
{
public:
    explicit GaugeBar(QWidget *parent)
        : QWidget(parent)
    {
        setMinimumSize(160, 18);
        setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    }
    qint64 measured = -1;
    qint64 estimated = 0;
    qint64 window = ContextGauge::kDefaultWindow;

    GaugeGeometry gaugeGeometry() const { return GaugeGeometry{QRectF(rect()).adjusted(1, 2, -1, -2)}; }

protected:
    void paintEvent(QPaintEvent *) override
    {
        QPainter p(this);
        p.setRenderHint(QPainter::Antialiasing);
        const bool dark = theme::isDark(palette());
        const GaugeGeometry g = gaugeGeometry();
        for (int b = 0; b < kBandCount; ++b)
            p.fillRect(g.bandRect(Band(b)), bandColour(Band(b), dark));
        p.setPen(palette().color(QPalette::Mid));
        p.setBrush(Qt::NoBrush);
        p.drawRect(g.bar);
        if (window <= 0)
            return;
        const auto marker = [&](qint64 tokens, const QColor &colour, bool solid) {
            const double x = g.xForRatio(double(tokens) / double(window));
            // The filled part up to the measured value reads as "used"; the estimate is a thin tick.
            if (solid) {
                QColor fill = colour;
                fill.setAlpha(dark ? 110 : 80);
                p.fillRect(QRectF(g.bar.left(), g.bar.top() + g.bar.height() / 3, x - g.bar.left(), g.bar.height() / 3), fill);
            }
            p.setPen(QPen(colour, solid ? 3 : 2, solid ? Qt::SolidLine : Qt::DashLine));
            p.drawLine(QPointF(x, g.bar.top()), QPointF(x, g.bar.bottom()));
        };
        // The live context figure fills the bar; the measurement it starts from, when there is one and
        // it differs, is a thin tick.
        marker(estimated, palette().color(QPalette::Highlight).darker(dark ? 80 : 130), true);
        if (measured >= 0 && measured != estimated)
            marker(measured, palette().color(QPalette::WindowText), false);
    }
};

ContextGauge::ContextGauge(QWidget *parent)
    : QWidget(parent)
    , m_bar(new GaugeBar(this))
    , m_label(new ElidedLabel(this))
    , m_spin(new QSpinBox(this))
{
    setObjectName(QStringLiteral("contextGauge"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 3, 6, 3);
    auto *title = new QLabel(tr("Context:"), this);
    layout->addWidget(title);
    layout->addWidget(m_bar, 1);
    layout->addWidget(m_label);
    m_spin->setRange(1000, 10'000'000);
    m_spin->setSingleStep(1000);
    m_spin->setGroupSeparatorShown(true);
    m_spin->setPrefix(tr("window "));
    m_spin->setToolTip(tr("Context window in tokens (bands: 40 % snip, 60 % microcompact, 80 % auto-compact, 95 % hard truncate)"));
    m_spin->setValue(int(kDefaultWindow));
    m_bar->window = m_spin->value();
    layout->addWidget(m_spin);
    connect(m_spin, &QSpinBox::valueChanged, this, &ContextGauge::onSpinChanged);
    refresh();
}

void ContextGauge::setTranscript(const Transcript *transcript)
{
    setTranscript(transcript, transcript ? usageData(*transcript, tokencount::chosen()) : UsageData{});
}

void ContextGauge::setTranscript(const Transcript *transcript, UsageData usage)
{
    m_data = std::move(usage);
    const qint64 window = transcript ? analysis::contextWindowOf(*transcript, {}).window : kDefaultWindow;
    m_spin->setValue(int(std::clamp<qint64>(window, m_spin->minimum(), m_spin->maximum())));
    onSpinChanged(m_spin->value());
}

void ContextGauge::recount(const Transcript *transcript)
{
    recount(transcript ? usageData(*transcript, tokencount::chosen()) : UsageData{});
}

void ContextGauge::recount(UsageData usage)
{
    m_data = std::move(usage);
    refresh();
}

qint64 ContextGauge::contextWindow() const
{
    return m_spin->value();
}

void ContextGauge::setContextWindow(qint64 window)
{
    m_spin->setValue(int(std::clamp<qint64>(window, m_spin->minimum(), m_spin->maximum())));
}

void ContextGauge::onSpinChanged(int value)
{
    refresh();
    Q_EMIT contextWindowChanged(value);
}

void ContextGauge::refresh()
{
    m_bar->measured = m_data.lastMeasured;
    m_bar->estimated = m_data.estimateNow;
    m_bar->window = m_spin->value();
    m_label->setText(labelText());
    m_label->setToolTip(labelText()); // whole, when the label is elided
    const double ratio = double(m_data.estimateNow) / double(m_spin->value());
    m_bar->setToolTip(tr("%1 of the window: band \u201C%2\u201D").arg(QLocale().toString(qRound(ratio * 100)) + QStringLiteral(" %"), bandName(bandForRatio(ratio)))
                      + QStringLiteral("\n")
                      + tr("Live context: what the next request sends, the conversation after the last compaction + the fixed part of each request, in the agent's count.")
                      + QStringLiteral("\n") + tr("Counted: %1").arg(m_data.how) + QStringLiteral("\n")
                      + tr("Fixed part: %1 tokens (%2)").arg(QLocale().toString(m_data.fixed), m_data.fixedHow));
    m_bar->update();
}

QString ContextGauge::labelText() const
{
    return gaugeLabel(m_data, m_spin->value());
}

QRect ContextGauge::barGeometry() const
{
    return m_bar->geometry();
}

} // namespace cl::gui
