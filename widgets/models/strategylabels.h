// SPDX-License-Identifier: MIT
#pragma once

// How the interface names what a strategy does ("Shrink tool results", "Remove messages",
// "Summarize") and whose policy it follows. The design references (source()) stay in docs/design.

#include <QString>

namespace cl::strategy {
class Strategy;
enum class Group;
} // namespace cl::strategy

namespace cl::gui {

// "Shrink tool results", "Remove messages", "Summarize".
QString strategyGroupText(strategy::Group g);
// "Summarize · Claude Code's policy", "Shrink tool results".
QString strategyKind(const strategy::Strategy &s);

} // namespace cl::gui
