// SPDX-License-Identifier: MIT
#include "widgets/mainwindow/recentfiles.h"

#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace cl::gui {

namespace {
const QString kKey = QStringLiteral("recentFiles");
}

RecentFiles::RecentFiles(QMenu *menu, QObject *parent)
    : QObject(parent)
    , m_menu(menu)
    , m_files(QSettings().value(kKey).toStringList())
{
    while (m_files.size() > kMax)
        m_files.removeLast();
    rebuildMenu();
}

void RecentFiles::add(const QString &path)
{
    const QString abs = QFileInfo(path).absoluteFilePath();
    m_files.removeAll(abs);
    m_files.prepend(abs);
    while (m_files.size() > kMax)
        m_files.removeLast();
    QSettings().setValue(kKey, m_files);
    rebuildMenu();
}

void RecentFiles::rebuildMenu()
{
    m_menu->clear();
    for (int i = 0; i < m_files.size(); ++i) {
        const QString &file = m_files.at(i);
        // &1..&9 and &0 give keyboard access to the first ten entries.
        QAction *a = m_menu->addAction(QStringLiteral("&%1  %2").arg((i + 1) % 10).arg(QDir::toNativeSeparators(file)));
        connect(a, &QAction::triggered, this, [this, file] { Q_EMIT fileChosen(file); });
    }
    m_menu->setEnabled(!m_files.isEmpty());
}

} // namespace cl::gui
