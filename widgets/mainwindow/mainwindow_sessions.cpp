// SPDX-License-Identifier: MIT
// The session browser dock (View › Sessions): the agents' sessions on this machine; a double-click
// opens one. It scans only while shown.
#include "widgets/mainwindow/mainwindow.h"

#include "widgets/sessions/sessionbrowser.h"

#include <QDockWidget>

namespace cl::gui {

void MainWindow::createSessionsDock()
{
    m_sessionBrowser = new SessionBrowser(this);
    m_sessionsDock = new QDockWidget(tr("Sessions"), this);
    m_sessionsDock->setObjectName(QStringLiteral("sessionsDock"));
    m_sessionsDock->setWidget(m_sessionBrowser);
    addDockWidget(Qt::LeftDockWidgetArea, m_sessionsDock);
    m_sessionsDock->hide(); // opened from View › Sessions; the layout remembers it afterwards
    connect(m_sessionsDock, &QDockWidget::visibilityChanged, m_sessionBrowser, &SessionBrowser::setActive);
    connect(m_sessionBrowser, &SessionBrowser::openRequested, this, [this](const QString &path) { openFile(path); });
}

} // namespace cl::gui
