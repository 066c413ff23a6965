// SPDX-License-Identifier: MIT
#pragma once

// One colour table for the seed 003 priority classes, shared by the transcript's Priority badges and
// the context map. Header-only (QtGui only) so models and widgets can use it without linking more.
//   priorityColor(p, dark):     badge / strip fill: sacred purple, critical red, high orange,
//                               medium gold, low blue, lowest grey; brighter on a dark base.
//                               Excluded: a neutral grey.
//   priorityColor(p, palette):  the same, dark chosen from the palette (Base lightness < 128, as
//                               theme::isDark).
//   priorityTextColor(p, dark): black or white, whichever reads on priorityColor(p, dark).

#include "core/analysis/analysis.h"

#include <QColor>
#include <QPalette>

namespace cl::gui {

inline QColor priorityColor(cl::analysis::Priority p, bool dark)
{
    using P = cl::analysis::Priority;
    switch (p) {
    case P::Sacred: return dark ? QColor(175, 130, 235) : QColor(125, 75, 190);
    case P::Critical: return dark ? QColor(235, 95, 95) : QColor(215, 50, 50);
    case P::High: return dark ? QColor(240, 155, 70) : QColor(240, 140, 40);
    case P::Medium: return dark ? QColor(215, 195, 85) : QColor(235, 205, 70);
    case P::Low: return dark ? QColor(85, 140, 200) : QColor(140, 185, 230);
    case P::Lowest: return dark ? QColor(95, 100, 110) : QColor(200, 203, 208);
    case P::Excluded: break;
    }
    return dark ? QColor(60, 60, 60) : QColor(230, 230, 230);
}

inline QColor priorityColor(cl::analysis::Priority p, const QPalette &palette)
{
    return priorityColor(p, palette.color(QPalette::Base).lightness() < 128);
}

inline QColor priorityTextColor(cl::analysis::Priority p, bool dark)
{
    const QColor c = priorityColor(p, dark);
    // Relative luminance (sRGB weights, no gamma: enough to pick black or white).
    const double y = 0.2126 * c.redF() + 0.7152 * c.greenF() + 0.0722 * c.blueF();
    return y > 0.55 ? QColor(20, 20, 20) : QColor(255, 255, 255);
}

} // namespace cl::gui
