// SPDX-License-Identifier: MIT
#pragma once

#include <QPalette>
#include <QString>

namespace cl::gui::theme {

enum class Choice {
    System,
    Light,
    Dark
};

QString name(Choice c);                          // "system", "light", "dark"
bool fromName(const QString &name, Choice *out); // false for an unknown name
QPalette lightPalette();
QPalette darkPalette();
// Sets the Fusion style's palette for the whole application (widgets get PaletteChange).
void apply(Choice c);
Choice saved(); // QSettings "view/theme", System by default
void save(Choice c);
// Dark means the base colour's lightness is below 128 (the highlighter theme follows it).
bool isDark(const QPalette &p);

} // namespace cl::gui::theme
