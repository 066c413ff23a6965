// SPDX-License-Identifier: MIT
#include "widgets/mainwindow/undonebanner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace cl::gui {

UndoneBanner::UndoneBanner(QWidget *parent)
    : QFrame(parent)
    , m_label(new QLabel(this))
    , m_reapply(new QPushButton(tr("Re-apply"), this))
{
    setObjectName(QStringLiteral("undoneBanner"));
    setFrameShape(QFrame::StyledPanel);
    setStyleSheet(QStringLiteral("#undoneBanner { background: #fff3cd; border: 1px solid #e0a800; }"
                                 " #undoneBanner QLabel { color: #533f03; }"));
    m_label->setObjectName(QStringLiteral("undoneText"));
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_reapply->setObjectName(QStringLiteral("undoneReapply"));
    auto *row = new QHBoxLayout(this);
    row->setContentsMargins(8, 4, 8, 4);
    row->addWidget(m_label, 1);
    row->addWidget(m_reapply);
    connect(m_reapply, &QPushButton::clicked, this, &UndoneBanner::reapplyRequested);
    hide();
}

void UndoneBanner::setUndone(const QStringList &lines, const QString &reapplyWhy)
{
    if (lines.isEmpty()) {
        hide();
        return;
    }
    m_label->setText(lines.join(QLatin1Char('\n')));
    m_reapply->setEnabled(reapplyWhy.isEmpty());
    m_reapply->setToolTip(reapplyWhy.isEmpty() ? tr("Run the strategies of that compaction again on the transcript as it is now "
                                                    "(Edit › Undo takes it back; File › Save writes it)")
                                               : reapplyWhy);
    show();
}

} // namespace cl::gui
