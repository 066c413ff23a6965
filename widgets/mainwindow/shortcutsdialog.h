// SPDX-License-Identifier: MIT
#pragma once

#include <QDialog>
#include <QList>
#include <QString>

class QMenuBar;
class QTableWidget;

namespace cl::gui {

// Help › Keyboard Shortcuts: every menu command that has a key, where it is in the menus, and the
// keys that act inside one view (F8 in the preview, ...), with a filter box.
class ShortcutsDialog : public QDialog
{
    Q_OBJECT
public:
    struct Row {
        QString where; // "File", "View › Theme", "Preview"
        QString command;
        QString keys; // native text, "Ctrl+O"
    };

    explicit ShortcutsDialog(const QMenuBar *menus, QWidget *parent = nullptr);

    // The menus' commands with a shortcut (every one of an action's keys), then the view keys.
    static QList<Row> rows(const QMenuBar *menus);
    QTableWidget *table() const { return m_table; }

private:
    void filter(const QString &text);

    QTableWidget *m_table;
};

} // namespace cl::gui
