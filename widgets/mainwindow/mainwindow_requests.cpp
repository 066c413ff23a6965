// SPDX-License-Identifier: MIT
// The Requests dock (View › Requests): shown when the window opens a request of a recording
// (FILE#N, or the recording itself: its agent's last request), listing every request of it; a
// double-click opens another. Hidden again when a session file is opened.
#include "widgets/mainwindow/mainwindow.h"

#include "widgets/models/filenames.h"
#include "widgets/sessions/requestlist.h"

#include <QDockWidget>

namespace cl::gui {

void MainWindow::createRequestsDock()
{
    m_requestList = new RequestList(this);
    m_requestsDock = new QDockWidget(tr("Requests"), this);
    m_requestsDock->setObjectName(QStringLiteral("requestsDock"));
    m_requestsDock->setWidget(m_requestList);
    addDockWidget(Qt::BottomDockWidgetArea, m_requestsDock);
    tabifyDockWidget(m_usageDock, m_requestsDock);
    m_requestsDock->hide(); // shown with a recording
    m_usageDock->raise();   // the chart stays the tab in front
    connect(m_requestList, &RequestList::openRequested, this, [this](const QString &path) { openFile(path); });
}

void MainWindow::updateRequestsDock()
{
    const nlohmann::json &recording = m_transcript ? m_transcript->recording : nlohmann::json();
    if (!recording.is_object()) {
        if (!m_requestList->file().isEmpty()) {
            m_requestList->setRecording({}, 0);
            m_requestsDock->hide();
            m_usageDock->raise();
        }
        return;
    }
    const bool first = m_requestList->file().isEmpty();
    m_requestList->setRecording(filenames::fromBytes(recording.value("file", std::string())),
                                recording.value("request", std::size_t(0)));
    if (first) {
        m_requestsDock->show();
        m_requestsDock->raise();
        resizeDocks({m_requestsDock}, {height() * 2 / 5}, Qt::Vertical); // room for the chart and a page of requests
    }
}

} // namespace cl::gui
