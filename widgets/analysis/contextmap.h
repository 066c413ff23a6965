// SPDX-License-Identifier: MIT
#pragma once

#include "core/analysis/analysis.h"
#include "core/model/transcript.h"
#include "widgets/models/contextmapgeometry.h"

#include <QWidget>

#include <memory>
#include <vector>

namespace cl::gui {

// The whole session as one strip across the top of the window: a segment per conversation message
// (width ∝ tokens, colour = priority class), the boundary-score curve over it, the chosen boundary
// as a vertical line, and the seed 002 zones (system / compressible / recent) as bands beneath.
// Hover explains a message; a click asks to select it.
class ContextMap : public QWidget
{
    Q_OBJECT
public:
    explicit ContextMap(QWidget *parent = nullptr);

    // Both null clears the map; `busy` shows that an analysis is on its way.
    void setAnalysis(std::shared_ptr<const Transcript> transcript, std::shared_ptr<const cl::analysis::Analysis> analysis);
    void setBusy(bool busy);
    // Marks the selected message (transcript index, -1 for none).
    void setSelectedMessage(int message);

    const ContextMapGeometry &mapGeometry() const { return m_geometry; }
    QRectF stripRect() const;
    QRectF zoneRect() const;
    int hoveredPosition() const { return m_hover; }
    QString tooltipForPosition(int position) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void messageActivated(int transcriptIndex);

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void leaveEvent(QEvent *event) override;

private:
    void relayout();
    void paintStrip(QPainter &p) const;
    void paintCurve(QPainter &p) const;
    void paintMarkers(QPainter &p) const;
    void paintZones(QPainter &p) const;
    void paintLegend(QPainter &p, const QRectF &row, const std::vector<QRectF> &taken) const;

    std::shared_ptr<const Transcript> m_transcript;
    std::shared_ptr<const cl::analysis::Analysis> m_analysis;
    ContextMapGeometry m_geometry;
    int m_hover = -1;
    int m_selected = -1;
    bool m_busy = false;
};

} // namespace cl::gui
