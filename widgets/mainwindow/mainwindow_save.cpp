// SPDX-License-Identifier: MIT
// File › Save (over the loaded session file, core/io/saveinplace.h) and File › Backups….
#include "widgets/mainwindow/backupsdialog.h"
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/transcript/transcriptdocument.h"

#include <QDir>
#include <QMessageBox>
#include <QPushButton>
#include <QStatusBar>

namespace cl::gui {

bool MainWindow::saveInPlace()
{
    if (!m_doc->current() || m_path.isEmpty()) {
        tell(tr("Nothing to save: open a transcript first"));
        return false;
    }
    if (!m_doc->isModified()) {
        tell(tr("Nothing to save: no strategy was applied"));
        return false;
    }
    const QString shown = QDir::toNativeSeparators(m_path);
    if (m_showErrorDialogs
        && QMessageBox::question(this, tr("Save over the session file?"),
                                 tr("Write the compacted transcript over %1?\n\nThe agent resumes from it as from its own "
                                    "compaction. A backup of the file as it is now is kept (File › Backups…).")
                                     .arg(shown))
               != QMessageBox::Yes)
        return false;
    QString error, backup;
    bool changedOnDisk = false;
    if (!m_doc->saveInPlace(&error, &backup, &changedOnDisk)) {
        m_lastError = error;
        if (m_showErrorDialogs) {
            QMessageBox box(QMessageBox::Warning, tr("Not saved"), error, QMessageBox::Ok, this);
            QPushButton *reloadButton = changedOnDisk ? box.addButton(tr("Reload"), QMessageBox::ActionRole) : nullptr;
            box.exec();
            if (reloadButton && box.clickedButton() == reloadButton)
                reload();
        } else {
            tellFailure(tr("Not saved: %1").arg(error));
        }
        return false;
    }
    m_lastError.clear();
    tell(tr("Saved %1; the earlier version is a backup (File › Backups…)").arg(shown));
    reload(); // what the agent will see: the file as written
    return true;
}

void MainWindow::showBackups()
{
    if (m_path.isEmpty()) {
        tell(tr("Open a transcript first"));
        return;
    }
    auto *dialog = new BackupsDialog(m_path, m_doc->backupRoot(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &BackupsDialog::restored, this, [this](const QString &file) {
        if (file == m_path)
            reload();
    });
    dialog->open();
}

} // namespace cl::gui
