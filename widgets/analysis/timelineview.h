// SPDX-License-Identifier: MIT
#pragma once

// The session over wall-clock time (core/analysis/timeline.h), drawn like a browser's network panel:
// a lane for the model's responses, one for the subagents, one per tool, each span coloured by its
// tool, and the context the model measured along the same axis beneath. The wheel zooms around the
// pointer, a drag pans, a double-click shows the whole session, a click selects the span's message.
// Built when first shown after the transcript changed; only the spans that land on distinct pixels
// are drawn, so a 100 MB session draws as fast as a small one.

#include "core/analysis/timeline.h"
#include "core/model/transcript.h"
#include "widgets/models/timelinegeometry.h"

#include <QWidget>

#include <memory>
#include <optional>

class QScrollBar;

namespace cl::gui {

class TimelineView : public QWidget
{
    Q_OBJECT
public:
    explicit TimelineView(QWidget *parent = nullptr);

    void setTranscript(std::shared_ptr<const Transcript> transcript);
    void setActive(bool active); // off: not built until shown
    void setSelectedMessage(int message);
    void refreshNow(); // builds now if the transcript changed (tests, screenshots)

    const cl::analysis::Timeline &timeline() const { return m_timeline; }
    TimeRange range() const { return m_range; }
    void setRange(TimeRange r);
    void showAll();
    // Zooms by `factor` (< 1: in) around the pixel column `x` of the view.
    void zoomAt(int x, double factor);

    // Geometry for tests: the span under a point (-1 for none), and a point inside span `span`.
    int spanAt(QPoint p) const;
    std::optional<QPoint> pointOfSpan(int span) const;
    QRect lanesRect() const;
    QRect contextRect() const;
    QString describeSpan(int span) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void messageActivated(int message);

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    bool event(QEvent *event) override;

private:
    static constexpr int kGutter = 124;       // lane names
    static constexpr int kContextHeight = 70; // the context strip beneath the lanes

    void rebuild();
    void relayout();
    int laneHeightNow() const;
    int firstLane() const;
    double msPerPixel() const;
    double xOf(qint64 ms) const;
    qint64 timeAt(double x) const;
    QRect laneRect(std::size_t lane) const;
    QColor spanColor(const cl::analysis::TimelineSpan &s) const;
    QRectF barRect(const cl::analysis::TimelineSpan &s, const QRect &lane) const; // its rows' top and height
    // Painting (timelinepaint.cpp).
    void paintAxis(QPainter &p) const;
    void paintLanes(QPainter &p) const;
    void paintContext(QPainter &p) const;
    void paintMarkers(QPainter &p) const;
    int contextPointAt(QPoint p) const;

    std::shared_ptr<const Transcript> m_transcript;
    std::shared_ptr<const Transcript> m_builtFor;
    cl::analysis::Timeline m_timeline;
    TimeRange m_whole, m_range;
    QScrollBar *m_lanesBar;
    bool m_active = false;
    int m_selected = -1;
    std::optional<QPoint> m_pressAt;
    TimeRange m_pressRange;
    bool m_dragging = false;
};

} // namespace cl::gui
