// SPDX-License-Identifier: MIT
#include "widgets/mainwindow/shortcutsdialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QTableWidget>
#include <QVBoxLayout>

namespace cl::gui {

namespace {

QString plain(QString text)
{
    text.remove(QLatin1Char('&'));
    if (text.endsWith(QChar(0x2026))) // "Open…" reads "Open"
        text.chop(1);
    return text;
}

void collect(const QMenu *menu, const QString &where, QList<ShortcutsDialog::Row> &out)
{
    for (const QAction *a : menu->actions()) {
        if (a->isSeparator())
            continue;
        if (a->menu()) {
            collect(a->menu(), where + QStringLiteral(" \u203a ") + plain(a->text()), out);
            continue;
        }
        QStringList keys;
        for (const QKeySequence &k : a->shortcuts())
            keys << k.toString(QKeySequence::NativeText);
        if (!keys.isEmpty())
            out.push_back({where, plain(a->text()), keys.join(QStringLiteral(", "))});
    }
}

} // namespace

QList<ShortcutsDialog::Row> ShortcutsDialog::rows(const QMenuBar *menus)
{
    QList<Row> out;
    if (menus)
        for (const QAction *a : menus->actions())
            if (a->menu())
                collect(a->menu(), plain(a->text()), out);
    // Keys that act inside one view, not in a menu.
    const auto key = [](QKeySequence k) { return k.toString(QKeySequence::NativeText); };
    out.push_back({tr("Preview"), tr("Next change"), key(QKeySequence(Qt::Key_F8))});
    out.push_back({tr("Preview"), tr("Previous change"), key(QKeySequence(Qt::SHIFT | Qt::Key_F8))});
    return out;
}

ShortcutsDialog::ShortcutsDialog(const QMenuBar *menus, QWidget *parent)
    : QDialog(parent)
    , m_table(new QTableWidget(this))
{
    setObjectName(QStringLiteral("shortcutsDialog"));
    setWindowTitle(tr("Keyboard Shortcuts"));
    auto *search = new QLineEdit(this);
    search->setPlaceholderText(tr("Find a command or a key"));
    search->setClearButtonEnabled(true);
    const QList<Row> list = rows(menus);
    m_table->setColumnCount(3);
    m_table->setHorizontalHeaderLabels({tr("Keys"), tr("Command"), tr("Where")});
    m_table->setRowCount(int(list.size()));
    for (int r = 0; r < list.size(); ++r) {
        m_table->setItem(r, 0, new QTableWidgetItem(list[r].keys));
        m_table->setItem(r, 1, new QTableWidgetItem(list[r].command));
        m_table->setItem(r, 2, new QTableWidgetItem(list[r].where));
    }
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(search, &QLineEdit::textChanged, this, &ShortcutsDialog::filter);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(search);
    layout->addWidget(m_table, 1);
    layout->addWidget(buttons);
    resize(640, 560);
}

void ShortcutsDialog::filter(const QString &text)
{
    for (int r = 0; r < m_table->rowCount(); ++r) {
        bool match = text.isEmpty();
        for (int c = 0; c < 3 && !match; ++c)
            match = m_table->item(r, c)->text().contains(text, Qt::CaseInsensitive);
        m_table->setRowHidden(r, !match);
    }
}

} // namespace cl::gui
