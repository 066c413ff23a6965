// SPDX-License-Identifier: MIT
#include "widgets/models/strategylabels.h"
#include "widgets/models/qtext.h"

#include "core/strategy/strategy.h"

#include <QCoreApplication>

namespace cl::gui {

namespace {

} // namespace

QString strategyGroupText(strategy::Group g)
{
    switch (g) {
    case strategy::Group::ToolResults: return QCoreApplication::translate("StrategyLabels", "Shrink tool results");
    case strategy::Group::Removal: return QCoreApplication::translate("StrategyLabels", "Remove messages");
    case strategy::Group::Summary: return QCoreApplication::translate("StrategyLabels", "Summarize");
    }
    return qs(strategy::groupTitle(g));
}

QString strategyKind(const strategy::Strategy &s)
{
    const QString group = strategyGroupText(s.group());
    if (s.follows().empty())
        return group;
    return QCoreApplication::translate("StrategyLabels", "%1 \u00b7 %2's policy").arg(group, qs(s.follows()));
}

} // namespace cl::gui
