// SPDX-License-Identifier: MIT
#include "widgets/strategy/strategycombo.h"
#include "widgets/models/qtext.h"

#include "core/strategies/registry.h"
#include "core/strategy/strategy.h"
#include "widgets/models/strategylabels.h"

#include <QComboBox>
#include <QStandardItemModel>

namespace cl::gui {

namespace {

} // namespace

void fillStrategyCombo(QComboBox *combo)
{
    combo->clear();
    auto *model = qobject_cast<QStandardItemModel *>(combo->model());
    for (const strategy::Group g : {strategy::Group::Removal, strategy::Group::ToolResults, strategy::Group::Summary}) {
        bool header = false;
        for (const strategy::Strategy *s : strategy::all()) {
            if (s->group() != g)
                continue;
            if (!header && model) {
                auto *item = new QStandardItem(strategyGroupText(g));
                item->setFlags(Qt::NoItemFlags);
                QFont f = item->font();
                f.setBold(true);
                item->setFont(f);
                model->appendRow(item);
                header = true;
            }
            combo->addItem(QStringLiteral("  ") + qs(s->title()), qs(s->name()));
            combo->setItemData(combo->count() - 1, strategyKind(*s), Qt::ToolTipRole);
        }
    }
}

} // namespace cl::gui
