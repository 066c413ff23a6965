// SPDX-License-Identifier: MIT
// The window's layout across sessions, and closing without losing applied work.
#include "widgets/mainwindow/mainwindow.h"

#include "widgets/transcript/transcriptdocument.h"

#include <QCloseEvent>
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>

namespace cl::gui {

namespace {
const QString kGeometryKey = QStringLiteral("window/geometry");
const QString kStateKey = QStringLiteral("window/state");
} // namespace

void MainWindow::restoreLayout()
{
    const QSettings settings;
    restoreGeometry(settings.value(kGeometryKey).toByteArray());
    restoreState(settings.value(kStateKey).toByteArray());
}

void MainWindow::saveLayout() const
{
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState());
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
