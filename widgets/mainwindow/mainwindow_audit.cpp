// SPDX-License-Identifier: MIT
// The compaction audit dock: what each compaction of the session replaced, what the agent wrote,
// which facts it dropped, and what the strategies would have kept. Tabbed with the analysis; it
// computes only while shown.
#include "widgets/mainwindow/mainwindow.h"

#include "widgets/analysis/auditpanel.h"

#include <QDockWidget>

namespace cl::gui {

void MainWindow::createAuditDock()
{
    m_auditPanel = new AuditPanel(this);
    m_auditDock = new QDockWidget(tr("Compaction Audit"), this);
    m_auditDock->setObjectName(QStringLiteral("auditDock"));
    m_auditDock->setWidget(m_auditPanel);
    addDockWidget(Qt::BottomDockWidgetArea, m_auditDock);
    tabifyDockWidget(m_usageDock, m_auditDock);
    m_usageDock->raise();
    connect(m_auditDock, &QDockWidget::visibilityChanged, m_auditPanel, &AuditPanel::setActive);
    connect(m_auditPanel, &AuditPanel::messageActivated, this, &MainWindow::jumpToMessage);
    connect(m_auditPanel, &AuditPanel::requestActivated, this, [this](const QString &path) { openFile(path); });
}

} // namespace cl::gui
