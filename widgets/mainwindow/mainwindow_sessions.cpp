// SPDX-License-Identifier: MIT
// The session browser dock (View › Sessions): the agents' sessions on this machine; a double-click
// opens one. It scans only while shown. The start page, shown while no transcript is open, holds
// another one (a click opens a session) beside the recent files.
#include "widgets/mainwindow/mainwindow.h"

#include "widgets/mainwindow/recentfiles.h"
#include "widgets/mainwindow/startpage.h"
#include "widgets/analysis/contextmap.h"
#include "widgets/sessions/sessionbrowser.h"
#include "widgets/transcript/contextgauge.h"

#include <QDockWidget>
#include <QStackedWidget>
#include <QTabWidget>

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

void MainWindow::createStartPage()
{
    m_start = new StartPage(m_pages);
    m_pages->insertWidget(0, m_start);
    m_start->setDemoPath(bundledDemoPath());
    m_start->setRecentFiles(m_recent->files());
    connect(m_recent, &RecentFiles::changed, this, [this] { m_start->setRecentFiles(m_recent->files()); });
    connect(m_start, &StartPage::openRequested, this, [this](const QString &path) { openFile(path); });
    connect(m_start, &StartPage::openFileRequested, this, &MainWindow::showOpenDialog);
    showStartPage(true);
}

void MainWindow::showStartPage(bool show)
{
    if (show)
        parkDocks();
    else
        unparkDocks();
    m_pages->setCurrentWidget(show ? static_cast<QWidget *>(m_start) : m_tabs);
    // A stack is as wide as its widest page: the page not shown asks for no room.
    const QSizePolicy shown(QSizePolicy::Expanding, QSizePolicy::Expanding, QSizePolicy::TabWidget);
    const QSizePolicy away(QSizePolicy::Ignored, QSizePolicy::Ignored);
    m_start->setSizePolicy(show ? shown : away);
    m_tabs->setSizePolicy(show ? away : shown);
    // The gauge and the map describe an open transcript: none on the start page.
    m_gauge->setVisible(!show);
    m_map->setVisible(!show);
}

} // namespace cl::gui
