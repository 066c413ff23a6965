// SPDX-License-Identifier: MIT
#include "widgets/transcriptpanel.h"

#include "widgets/models/roles.h"
#include "widgets/models/transcriptfiltermodel.h"
#include "widgets/models/transcriptmodel.h"
#include "widgets/tokenbardelegate.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLineEdit>
#include <QTreeView>
#include <QVBoxLayout>

namespace cl::gui {

TranscriptPanel::TranscriptPanel(QWidget *parent)
    : QWidget(parent)
    , m_model(new TranscriptModel(this))
    , m_filter(new TranscriptFilterModel(this))
    , m_view(new QTreeView(this))
    , m_filterEdit(new QLineEdit(this))
    , m_regex(new QCheckBox(tr("Regex"), this))
    , m_hideMeta(new QCheckBox(tr("Hide metadata/events"), this))
{
    m_filter->setSourceModel(m_model);
    m_filterEdit->setPlaceholderText(tr("Filter messages and blocks (Ctrl+F)"));
    m_filterEdit->setClearButtonEnabled(true);
    m_regex->setToolTip(tr("Treat the filter as a regular expression"));
    m_hideMeta->setToolTip(tr("Hide metadata lines and system events"));

    m_view->setModel(m_filter);
    m_view->setUniformRowHeights(true); // large transcripts: no per-row height queries
    m_view->setAlternatingRowColors(true);
    m_view->setTextElideMode(Qt::ElideRight);
    m_view->setAllColumnsShowFocus(true);
    m_view->setItemDelegateForColumn(TranscriptModel::Tokens, new TokenBarDelegate(TokensRole, MaxTokensRole, m_view));
    QHeaderView *header = m_view->header();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(TranscriptModel::Preview, QHeaderView::Stretch);
    m_view->setIndentation(14); // the Index column holds the tree; keep "123.4" readable
    header->resizeSection(TranscriptModel::Index, 86);
    header->resizeSection(TranscriptModel::Time, 68);
    header->resizeSection(TranscriptModel::Role, 160); // fits "microcompact_boundary" in bold
    header->resizeSection(TranscriptModel::Tokens, 110);

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_filterEdit, 1);
    bar->addWidget(m_regex);
    bar->addWidget(m_hideMeta);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_view, 1);

    connect(m_filterEdit, &QLineEdit::textChanged, this, &TranscriptPanel::updateFilter);
    connect(m_regex, &QCheckBox::toggled, this, [this] { m_filter->setPattern(m_filterEdit->text(), m_regex->isChecked()); });
    connect(m_hideMeta, &QCheckBox::toggled, m_filter, &TranscriptFilterModel::setHideMetaEvents);
    connect(m_filter, &TranscriptFilterModel::patternApplied, this, [this] {
        // An invalid regex is shown, not silently treated as "no match".
        m_filterEdit->setStyleSheet(m_filter->isPatternValid() ? QString() : QStringLiteral("color: #d03030;"));
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, &TranscriptPanel::onCurrentChanged);
}

void TranscriptPanel::setTranscript(std::shared_ptr<const Transcript> transcript)
{
    m_model->setTranscript(std::move(transcript));
    Q_EMIT rowSelected(-1, -1);
}

void TranscriptPanel::selectSourceIndex(const QModelIndex &sourceIndex)
{
    const QModelIndex idx = m_filter->mapFromSource(sourceIndex);
    if (!idx.isValid())
        return;
    if (idx.parent().isValid())
        m_view->expand(idx.parent());
    m_view->setCurrentIndex(idx);
    m_view->scrollTo(idx, QAbstractItemView::PositionAtCenter);
}

void TranscriptPanel::focusFilter()
{
    m_filterEdit->setFocus(Qt::ShortcutFocusReason);
    m_filterEdit->selectAll();
}

void TranscriptPanel::updateFilter()
{
    m_filter->setPatternDebounced(m_filterEdit->text(), m_regex->isChecked());
}

void TranscriptPanel::onCurrentChanged(const QModelIndex &current)
{
    if (!current.isValid()) {
        Q_EMIT rowSelected(-1, -1);
        return;
    }
    Q_EMIT rowSelected(current.data(MessageIndexRole).toInt(), current.data(BlockIndexRole).toInt());
}

} // namespace cl::gui
