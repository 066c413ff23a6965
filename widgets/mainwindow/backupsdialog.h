// SPDX-License-Identifier: MIT
#pragma once

// File › Backups…: the backups ContextLens keeps of a session file it saved over (core/io/backups.h),
// newest first, with Restore (asks first; what the file holds now becomes a backup itself).

#include <QDialog>

class QLabel;
class QPushButton;
class QTreeWidget;

namespace cl::gui {

class BackupsDialog : public QDialog
{
    Q_OBJECT
public:
    BackupsDialog(const QString &file, const QString &root, QWidget *parent = nullptr);

    QTreeWidget *list() const { return m_list; }
    // Restores the selected backup without asking (the Restore button asks first).
    bool restoreSelected(QString *error = nullptr);
    void setConfirm(bool confirm) { m_confirm = confirm; }

Q_SIGNALS:
    void restored(const QString &file);

private:
    void refresh();

    QString m_file, m_root;
    bool m_confirm = true;
    QTreeWidget *m_list;
    QLabel *m_note;
    QPushButton *m_restore;
};

} // namespace cl::gui
