// SPDX-License-Identifier: MIT
// Hand edits (core/workflow/handedits.h): the selected messages removed, or their tool results
// replaced by a note. Each is one undo step, and the Preview tab shows its fates like a strategy's.
#include "widgets/mainwindow/mainwindow.h"

#include "core/workflow/handedits.h"
#include "widgets/models/roles.h"
#include "widgets/models/transcriptfiltermodel.h"
#include "widgets/strategy/previewview.h"
#include "widgets/strategy/strategypanel.h"
#include "widgets/transcript/transcriptdocument.h"
#include "widgets/transcript/transcriptpanel.h"

#include <QInputDialog>
#include <QItemSelectionModel>
#include <QStatusBar>
#include <QTreeView>

#include <set>

namespace cl::gui {

QList<int> MainWindow::selectedMessages() const
{
    std::set<int> messages;
    const QModelIndexList rows = m_transcriptPanel->view()->selectionModel()->selectedRows();
    for (const QModelIndex &row : rows) {
        const QVariant v = row.data(MessageIndexRole);
        if (v.isValid())
            messages.insert(v.toInt());
    }
    if (messages.empty()) // nothing selected: the current row
        if (const QVariant v = m_transcriptPanel->view()->currentIndex().data(MessageIndexRole); v.isValid())
            messages.insert(v.toInt());
    return QList<int>(messages.begin(), messages.end());
}

bool MainWindow::applyHandEdit(const QList<int> &messages, bool remove, const QString &note)
{
    if (!m_transcript || messages.isEmpty()) {
        tell(tr("Select the messages first"));
        return false;
    }
    handedit::Edit edit;
    edit.action = remove ? handedit::Action::Remove : handedit::Action::ReplaceResults;
    for (int m : messages)
        if (m >= 0)
            edit.messages.push_back(std::size_t(m));
    edit.note = note.toStdString();
    strategy::Input in(*m_transcript);
    in.setTables(m_tables);
    in.pinned = m_pinned;
    for (const QString &tool : m_strategyPanel->exemptTools())
        in.exemptTools.push_back(tool.toStdString());
    auto result = std::make_shared<const strategy::Result>(handedit::run(in, edit));
    if (!result->changed) {
        tell(tr("Nothing changed: %1").arg(QString::fromStdString(result->note)));
        return false;
    }
    const auto before = m_transcript;
    const QString label = remove ? tr("Remove %n message(s)", nullptr, int(edit.messages.size()))
                                 : tr("Replace tool results by a note");
    QString error;
    if (!m_doc->apply(*result, label, &error)) {
        tellFailure(tr("Not applied: %1").arg(error));
        return false;
    }
    m_preview->setResult(before, result); // its fates, like a strategy's
    tell(tr("%1 (Edit › Undo takes it back)").arg(QString::fromStdString(result->note)));
    return true;
}

void MainWindow::removeSelectedMessages()
{
    applyHandEdit(selectedMessages(), true, {});
}

void MainWindow::replaceSelectedResults()
{
    const QList<int> messages = selectedMessages();
    QString note = tr("not needed any more");
    if (m_showErrorDialogs) {
        bool ok = false;
        note = QInputDialog::getText(this, tr("Replace tool results by a note"),
                                     tr("The tool results of the %n selected message(s) become this note:", nullptr, int(messages.size())),
                                     QLineEdit::Normal, note, &ok);
        if (!ok)
            return;
    }
    applyHandEdit(messages, false, note);
}

} // namespace cl::gui
