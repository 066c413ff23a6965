// SPDX-License-Identifier: MIT
#pragma once

class QComboBox;

namespace cl::gui {

// Fills `combo` with every registered strategy under its group's header (not selectable), in the
// order "Remove messages", "Shrink tool results", "Summarize"; item data = the strategy's name,
// tooltip = what it does and whose policy it follows (strategylabels.h).
void fillStrategyCombo(QComboBox *combo);

} // namespace cl::gui
