// SPDX-License-Identifier: MIT
#include "widgets/mainwindow/recentfiles.h"
#include "widgets/models/filenames.h"

#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace cl::gui {

namespace {
const QString kKey = QStringLiteral("recentFiles");

// A name that is not UTF-8 is kept as its bytes: settings files store text as UTF-8.
QStringList load()
{
    QStringList files;
    const QVariant value = QSettings().value(kKey);
    // A list of one is stored as its one entry.
    const bool list = value.typeId() == QMetaType::QVariantList || value.typeId() == QMetaType::QStringList;
    const QVariantList stored = list ? value.toList() : value.isValid() ? QVariantList{value}
                                                                        : QVariantList{};
    for (const QVariant &v : stored)
        if (v.typeId() == QMetaType::QByteArray) {
            const QByteArray bytes = v.toByteArray();
            files << filenames::fromBytes(std::string_view(bytes.constData(), std::size_t(bytes.size())));
        } else if (!v.toString().isEmpty())
            files << v.toString();
    return files;
}

void store(const QStringList &files)
{
    QVariantList stored;
    for (const QString &f : files)
        stored << (filenames::hasRawBytes(f) ? QVariant(QByteArray::fromStdString(filenames::toBytes(f))) : QVariant(f));
    QSettings().setValue(kKey, stored);
}
} // namespace

RecentFiles::RecentFiles(QMenu *menu, QObject *parent)
    : QObject(parent)
    , m_menu(menu)
    , m_files(load())
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
    store(m_files);
    rebuildMenu();
    Q_EMIT changed();
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
