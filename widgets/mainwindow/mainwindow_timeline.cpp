// SPDX-License-Identifier: MIT
// The timeline dock: the session's responses, tool calls and subagent runs over wall-clock time,
// with the measured context beneath. Tabbed with the usage chart and the audit; built only while
// shown; a click selects the message in the transcript.
#include "widgets/mainwindow/mainwindow.h"

#include "widgets/analysis/timelineview.h"

#include <QDockWidget>

namespace cl::gui {

void MainWindow::createTimelineDock()
{
    m_timelineView = new TimelineView(this);
    m_timelineDock = new QDockWidget(tr("Timeline"), this);
    m_timelineDock->setObjectName(QStringLiteral("timelineDock"));
    m_timelineDock->setWidget(m_timelineView);
    addDockWidget(Qt::BottomDockWidgetArea, m_timelineDock);
    tabifyDockWidget(m_auditDock, m_timelineDock);
    m_usageDock->raise();
    connect(m_timelineDock, &QDockWidget::visibilityChanged, m_timelineView, &TimelineView::setActive);
    connect(m_timelineView, &TimelineView::messageActivated, this, &MainWindow::jumpToMessage);
}

} // namespace cl::gui
