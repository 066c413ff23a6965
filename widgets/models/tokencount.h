// SPDX-License-Identifier: MIT
#pragma once
// How the window counts tokens (View › Token Count): the estimator every figure of the GUI uses, the
// same choice as the command line's --estimator. Saved in the settings; the agent's count
// (calibrated) by default.
#include "core/tokens/contextfigure.h"

#include <QString>

namespace cl::gui::tokencount {

tokens::Estimator chosen();
void choose(tokens::Estimator e);
QString label(tokens::Estimator e);   // the menu's words
QString tooltip(tokens::Estimator e); // what the choice counts

} // namespace cl::gui::tokencount
