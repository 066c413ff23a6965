// SPDX-License-Identifier: MIT
#pragma once

// Colours and geometry behind the composition panel (core/workflow/composition.h): the /context-like
// grid of the window, and the stacked areas of the categories over the session. Plain functions,
// tested without painting; the widgets only draw what these compute.

#include "core/workflow/composition.h"
#include "widgets/models/chartgeometry.h"

#include <QColor>
#include <QList>
#include <QPolygonF>
#include <QRectF>
#include <QString>

namespace cl::gui {

// One colour per category key, stable across messages and sessions: fixed part in slate/blue tones,
// messages by kind, tool results per tool from a hue wheel, free space and reserved buffer neutral.
QColor compositionColor(const std::string &key, bool dark);

// ---- Grid -------------------------------------------------------------------------------------

// The window as columns × rows cells, each 1/(columns·rows) of it, filled in category order
// (fixed part, messages, free space, reserved buffer). A category gets the cells its cumulative
// share rounds to, so the cells always add up to the grid and tiny categories may get none.
// When the live context plus the buffer exceed the window, the cells cover their sum instead.
struct GridCell {
    QRectF rect;
    int category = -1; // index into Composition::categories
};
QList<GridCell> compositionGrid(const cl::composition::Composition &c, const QRectF &area, int columns, int rows,
                                double gap = 2.0);

// ---- Stacked areas over the session ------------------------------------------------------------

// Rows of the series kept for a plot `pixels` wide: all of them when they fit, else per pixel column
// the row with the largest total (peaks survive, and a compaction's drop shows in the next column).
QList<int> sampledRows(const cl::composition::Series &s, int pixels);

// One closed polygon per series column (in key order): the band between the sum of the columns
// below it and that sum plus its own value, at the sampled rows (x = transcript index).
QList<QPolygonF> stackedBands(const cl::composition::Series &s, const QList<int> &rows, const ChartGeometry &g);

// Row of the series whose message is nearest to transcript index x (-1 when empty).
int nearestRow(const cl::composition::Series &s, double x);

} // namespace cl::gui
