// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <QStringList>

class QMenu;

namespace cl::gui {

// Most recently opened files, newest first, kept in QSettings ("recentFiles"), at most kMax.
class RecentFiles : public QObject
{
    Q_OBJECT
public:
    static constexpr int kMax = 10;

    explicit RecentFiles(QMenu *menu, QObject *parent = nullptr);

    void add(const QString &path);
    QStringList files() const { return m_files; }

Q_SIGNALS:
    void fileChosen(const QString &path);
    void changed();

private:
    void rebuildMenu();

    QMenu *m_menu;
    QStringList m_files;
};

} // namespace cl::gui
