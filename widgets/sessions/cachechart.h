// SPDX-License-Identifier: MIT
#pragma once

// The prompt cache over a recording (the Requests dock): a bar per model call, read from the cache
// (green), written to it (orange), sent uncached (grey), a red mark over a request whose cache broke.
// Hover says the figures and the cause; a click selects the request in the list.

#include "widgets/models/cachechartgeometry.h"

#include <QString>
#include <QWidget>

#include <vector>

namespace cl::gui {

class CacheChart : public QWidget
{
    Q_OBJECT
public:
    explicit CacheChart(QWidget *parent = nullptr);

    // The points and, by point, the text a hover shows.
    void setPoints(std::vector<CachePoint> points, std::vector<QString> tips);
    const std::vector<CachePoint> &points() const { return m_points; }
    // The bars as last laid out (tests).
    std::vector<CacheBar> bars() const;
    QSize sizeHint() const override { return {400, 90}; }
    QSize minimumSizeHint() const override { return {120, 60}; }

Q_SIGNALS:
    void requestClicked(std::size_t number);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    bool event(QEvent *event) override;

private:
    QRectF plotRect() const;

    std::vector<CachePoint> m_points;
    std::vector<QString> m_tips;
};

} // namespace cl::gui
