// SPDX-License-Identifier: MIT
// The window's layout across sessions, and closing without losing applied work.
#include "widgets/mainwindow/mainwindow.h"

#include "widgets/transcript/transcriptdocument.h"

#include <QCloseEvent>
#include <QDockWidget>
#include <QShowEvent>
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>

#include <algorithm>

namespace cl::gui {

namespace {
const QString kGeometryKey = QStringLiteral("window/geometry");
const QString kStateKey = QStringLiteral("window/state");
// Bumped when the default dock layout changes: a layout saved by an older version is not restored
// (the docks it placed no longer fit), the window opens with the new defaults instead.
constexpr int kLayoutVersion = 2;
} // namespace

void MainWindow::restoreLayout()
{
    const QSettings settings;
    restoreGeometry(settings.value(kGeometryKey).toByteArray());
    const bool parked = m_docksParked;
    if (parked)
        unparkDocks(); // restored onto the docks as they are, then put away again
    m_layoutSized = restoreState(settings.value(kStateKey).toByteArray(), kLayoutVersion);
    if (parked)
        parkDocks();
}

void MainWindow::parkDocks()
{
    if (m_docksParked)
        return;
    m_dockState = saveState(kLayoutVersion);
    m_docksParked = true;
    for (QDockWidget *dock : findChildren<QDockWidget *>(QString(), Qt::FindDirectChildrenOnly))
        dock->hide();
}

void MainWindow::unparkDocks()
{
    if (!m_docksParked)
        return;
    m_docksParked = false;
    restoreState(m_dockState, kLayoutVersion);
    if (!m_layoutSized && isVisible()) {
        m_layoutSized = true;
        sizeDocksToWindow();
    }
}

void MainWindow::showEvent(QShowEvent *event)
{
    QMainWindow::showEvent(event);
    if (m_layoutSized || m_docksParked) // parked: sized when they come back (unparkDocks)
        return;
    m_layoutSized = true;
    sizeDocksToWindow();
}

void MainWindow::sizeDocksToWindow()
{
    // Sized in the constructor, the docks only had the default window to share: now the right
    // column gets about a third of the real width (its tabs and tables readable), the bottom row a
    // quarter of the height. Queued: the dock areas take the window's size once it is shown.
    QMetaObject::invokeMethod(
        this,
        [this] {
            // resizeDocks() leaves a tabbed group as it is (Qt 6.4): a minimum size held for one
            // layout pass moves the area's edge, and the user can drag it anywhere afterwards.
            const int right = std::clamp(width() * 3 / 10, 300, 460);
            const int bottom = std::clamp(height() / 4, 160, 300);
            const QSize analysisMin = m_analysisDock->minimumSize(), usageMin = m_usageDock->minimumSize();
            m_analysisDock->setMinimumWidth(right);
            m_analysisDock->setMaximumWidth(right);
            m_usageDock->setMinimumHeight(bottom);
            m_usageDock->setMaximumHeight(bottom);
            layout()->activate();
            m_analysisDock->setMinimumSize(analysisMin);
            m_analysisDock->setMaximumSize(QWIDGETSIZE_MAX, QWIDGETSIZE_MAX);
            m_usageDock->setMinimumSize(usageMin);
            m_usageDock->setMaximumSize(QWIDGETSIZE_MAX, QWIDGETSIZE_MAX);
        },
        Qt::QueuedConnection);
}

void MainWindow::saveLayout() const
{
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    // On the start page: the docks as they will come back, not put away.
    settings.setValue(kStateKey, m_docksParked ? m_dockState : saveState(kLayoutVersion));
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (m_doc->isModified()) {
        QMessageBox box(QMessageBox::Warning, tr("Close ContextLens"),
                        tr("Compactions applied to %1 have not been exported. Close anyway?")
                            .arg(QFileInfo(m_path).fileName()),
                        QMessageBox::NoButton, this);
        QPushButton *exportButton = box.addButton(tr("Export…"), QMessageBox::AcceptRole);
        box.addButton(QMessageBox::Discard);
        box.addButton(QMessageBox::Cancel);
        box.setDefaultButton(exportButton);
        box.exec();
        if (box.clickedButton() == exportButton)
            exportDialog(); // a successful export marks the document clean
        if (box.clickedButton() != box.button(QMessageBox::Discard) && m_doc->isModified()) {
            event->ignore();
            return;
        }
    }
    saveLayout();
    event->accept();
}

} // namespace cl::gui
