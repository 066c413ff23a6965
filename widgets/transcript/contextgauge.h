// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/transcript.h"
#include "widgets/models/chartgeometry.h"

#include <QWidget>

class QLabel;
class QSpinBox;

namespace cl::gui {

class GaugeBar;

// Strip above the transcript: how full the context window is, as a bar over the seed 003 bands
// (none / snip / microcompact / auto-compact / hard truncate) with a measured and an estimated marker.
class ContextGauge : public QWidget
{
    Q_OBJECT
public:
    explicit ContextGauge(QWidget *parent = nullptr);

    // Takes the transcript's context window as the CLI does (analysis::contextWindowOf: recorded in
    // the file, else the model table, else 200 000); the default window without a transcript.
    void setTranscript(const Transcript *transcript);
    // The same with its usage data (usageData with the window's count) computed by the caller.
    void setTranscript(const Transcript *transcript, UsageData usage);
    // The same transcript counted again (the token count changed): the window stays.
    void recount(const Transcript *transcript);
    void recount(UsageData usage);
    qint64 contextWindow() const;
    // Sets the window as if the user typed it, for this transcript (the next one brings its own).
    void setContextWindow(qint64 window);

    qint64 measured() const { return m_data.lastMeasured; } // the current measurement the figure starts from, -1 if none
    qint64 estimated() const { return m_data.estimateNow; } // the live context figure (tokens::contextFigure)
    qint64 fixedPart() const { return m_data.fixed; }
    const UsageData &usage() const { return m_data; }
    QString labelText() const;
    QSpinBox *windowSpin() const { return m_spin; }
    QRect barGeometry() const; // the bar's rectangle in this widget's coordinates

    static constexpr qint64 kDefaultWindow = 200000;

Q_SIGNALS:
    void contextWindowChanged(qint64 window);

private:
    void onSpinChanged(int value);
    void refresh();

    GaugeBar *m_bar;
    QLabel *m_label;
    QSpinBox *m_spin;
    UsageData m_data;
};

} // namespace cl::gui
