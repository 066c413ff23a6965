// SPDX-License-Identifier: MIT
#include "widgets/mainwindow/backupsdialog.h"
#include "widgets/models/filenames.h"

#include "core/io/backups.h"

#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QTimeZone>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace cl::gui {

namespace {

std::string local(const QString &path)
{
    return filenames::toBytes(path);
}

constexpr int StampRole = Qt::UserRole + 1;

} // namespace

BackupsDialog::BackupsDialog(const QString &file, const QString &root, QWidget *parent)
    : QDialog(parent)
    , m_file(file)
    , m_root(root)
    , m_list(new QTreeWidget(this))
    , m_note(new QLabel(this))
    , m_restore(new QPushButton(tr("Restore"), this))
{
    setObjectName(QStringLiteral("backupsDialog"));
    setWindowTitle(tr("Backups of %1").arg(QFileInfo(file).fileName()));
    m_list->setObjectName(QStringLiteral("backupList"));
    m_list->setRootIsDecorated(false);
    m_list->setHeaderLabels({tr("Backed up at"), tr("Size"), tr("Copy")});
    m_list->header()->setStretchLastSection(true);
    m_note->setWordWrap(true);
    m_note->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_restore->setObjectName(QStringLiteral("restoreBackup"));
    m_restore->setToolTip(tr("Put this backup back over the file; what the file holds now is backed up first"));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addButton(m_restore, QDialogButtonBox::ActionRole);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_restore, &QPushButton::clicked, this, [this] {
        QString error;
        if (!restoreSelected(&error) && !error.isEmpty())
            m_note->setText(error);
    });
    connect(m_list, &QTreeWidget::currentItemChanged, this, [this] { m_restore->setEnabled(m_list->currentItem()); });
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(tr("ContextLens keeps the last %1 versions of a file it saved over.").arg(backups::kKeep), this));
    layout->addWidget(m_list, 1);
    layout->addWidget(m_note);
    layout->addWidget(buttons);
    resize(760, 360);
    refresh();
}

void BackupsDialog::refresh()
{
    m_list->clear();
    const std::vector<backups::Entry> entries = backups::list(local(m_root), local(m_file));
    const QLocale loc;
    for (const backups::Entry &e : entries) {
        auto *item = new QTreeWidgetItem(m_list);
        const QString stamp = QString::fromStdString(e.stamp);
        const QDateTime when = QDateTime::fromString(stamp, QStringLiteral("yyyyMMdd'T'HHmmss.zzz'Z'"));
        QDateTime utc = when;
        utc.setTimeZone(QTimeZone::utc());
        item->setText(0, when.isValid() ? loc.toString(utc.toLocalTime(), QLocale::ShortFormat) : stamp);
        item->setToolTip(0, stamp);
        item->setText(1, loc.formattedDataSize(qint64(e.size)));
        item->setText(2, QDir::toNativeSeparators(QString::fromStdString(e.path)));
        item->setData(0, StampRole, stamp);
    }
    for (int c = 0; c < 2; ++c)
        m_list->resizeColumnToContents(c);
    if (m_list->topLevelItemCount() > 0)
        m_list->setCurrentItem(m_list->topLevelItem(0));
    m_restore->setEnabled(m_list->currentItem());
    m_note->setText(entries.empty() ? tr("No backups of %1 yet: File › Save makes one before it writes.").arg(QDir::toNativeSeparators(m_file))
                                    : QString());
}

bool BackupsDialog::restoreSelected(QString *error)
{
    const QTreeWidgetItem *item = m_list->currentItem();
    if (!item)
        return false;
    const std::string stamp = item->data(0, StampRole).toString().toStdString();
    const std::vector<backups::Entry> entries = backups::list(local(m_root), local(m_file));
    const backups::Entry *chosen = backups::find(entries, stamp);
    if (!chosen) {
        if (error)
            *error = tr("That backup is gone.");
        refresh();
        return false;
    }
    if (m_confirm
        && QMessageBox::question(this, tr("Restore backup?"),
                                 tr("Put the version of %1 back over %2?\nWhat the file holds now is kept as a backup.")
                                     .arg(item->text(0), QDir::toNativeSeparators(m_file)))
               != QMessageBox::Yes)
        return false;
    std::string why;
    backups::Entry previous;
    if (!backups::restore(local(m_root), *chosen, &why, &previous)) {
        if (error)
            *error = tr("Not restored: %1").arg(QString::fromStdString(why));
        return false;
    }
    refresh();
    m_note->setText(tr("Restored. What the file held is the newest backup."));
    Q_EMIT restored(m_file);
    return true;
}

} // namespace cl::gui
