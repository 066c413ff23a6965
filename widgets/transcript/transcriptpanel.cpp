// SPDX-License-Identifier: MIT
#include "widgets/transcript/transcriptpanel.h"
#include "widgets/style/flowlayout.h"

#include "widgets/models/roles.h"
#include "widgets/models/transcriptfiltermodel.h"
#include "widgets/models/transcriptmodel.h"
#include "widgets/analysis/analysisdelegates.h"
#include "widgets/transcript/tokenbardelegate.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QScrollBar>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>
#include <string_view>
#include <unordered_map>

namespace cl::gui {

TranscriptPanel::TranscriptPanel(QWidget *parent)
    : QWidget(parent)
    , m_model(new TranscriptModel(this))
    , m_filter(new TranscriptFilterModel(this))
    , m_view(new QTreeView(this))
    , m_filterEdit(new QLineEdit(this))
    , m_regex(new QCheckBox(tr("Regex"), this))
    , m_hideMeta(new QCheckBox(tr("Fold events"), this))
    , m_hideHistory(new QCheckBox(tr("Hide history"), this))
    , m_priorityCombo(new QComboBox(this))
    , m_criticalOnly(new QCheckBox(tr("Critical"), this))
    , m_importantOnly(new QCheckBox(tr("Important"), this))
    , m_minBoundary(new QDoubleSpinBox(this))
    , m_chip(new QToolButton(this))
    , m_empty(new QLabel(this))
{
    m_filter->setSourceModel(m_model);
    m_filterEdit->setPlaceholderText(tr("Filter messages and blocks (Ctrl+F)"));
    m_filterEdit->setClearButtonEnabled(true);
    m_regex->setToolTip(tr("Treat the filter as a regular expression"));
    m_hideMeta->setObjectName(QStringLiteral("foldEvents"));
    m_hideMeta->setToolTip(tr("Fold metadata lines and events (progress, hooks, snapshots) into the message before them; "
                              "click a message's \u201c\u25b8 N events\u201d to show its own"));
    m_hideHistory->setToolTip(tr("Hide the messages before the last compaction: they are in the file but no longer sent to "
                                 "the model (shown greyed and italic)"));
    m_hideHistory->setVisible(false); // only for transcripts with history

    m_view->setModel(m_filter);
    m_view->setUniformRowHeights(true);                             // large transcripts: no per-row height queries
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection); // hand edits act on several messages
    m_view->setAlternatingRowColors(true);
    m_view->setTextElideMode(Qt::ElideRight);
    m_view->setAllColumnsShowFocus(true);
    m_view->setItemDelegateForColumn(TranscriptModel::TokensColumn, new TokenBarDelegate(TokensRole, MaxTokensRole, m_view));
    m_view->setItemDelegateForColumn(TranscriptModel::PriorityColumn, new PriorityBadgeDelegate(m_view));
    m_view->setItemDelegateForColumn(TranscriptModel::BoundaryColumn, new BoundaryBarDelegate(m_view));
    m_view->setItemDelegateForColumn(TranscriptModel::RoundColumn, new RoundBracketDelegate(m_view));
    // Sorting starts at the file order (ascending #, which the proxy does not sort at all).
    m_view->header()->setSortIndicator(TranscriptModel::IndexColumn, Qt::AscendingOrder);
    m_view->setSortingEnabled(true);
    QHeaderView *header = m_view->header();
    header->setStretchLastSection(false);
    // Preview takes what the other columns leave, but never less than kMinPreviewWidth (the tree then
    // scrolls sideways): stretched, it shrank to a sliver beside the analysis columns.
    header->setSectionResizeMode(TranscriptModel::PreviewColumn, QHeaderView::Interactive);
    connect(header, &QHeaderView::sectionResized, this, [this](int section) {
        if (m_fitting)
            return;
        if (section == TranscriptModel::PreviewColumn)
            m_previewSized = true;
        else
            fitPreviewColumn();
    });
    m_view->viewport()->installEventFilter(this);
    m_view->setIndentation(14); // the Index column holds the tree; keep "123.4" readable
    header->resizeSection(TranscriptModel::IndexColumn, 86);
    header->resizeSection(TranscriptModel::TimeColumn, 68);
    header->resizeSection(TranscriptModel::RoleColumn, 160); // fits "microcompact_boundary" in bold
    header->resizeSection(TranscriptModel::TokensColumn, 110);
    header->resizeSection(TranscriptModel::PriorityColumn, 78);
    header->resizeSection(TranscriptModel::ImportanceColumn, 104);
    header->resizeSection(TranscriptModel::BoundaryColumn, 80);
    header->resizeSection(TranscriptModel::RoundColumn, 64);
    header->resizeSection(TranscriptModel::CriticalColumn, 150);

    m_priorityCombo->addItem(tr("Any priority"), -1);
    for (int p = int(cl::analysis::Priority::Sacred); p <= int(cl::analysis::Priority::Lowest); ++p)
        m_priorityCombo->addItem(QString::fromUtf8(cl::analysis::priorityName(cl::analysis::Priority(p)).data()), p);
    m_priorityCombo->setToolTip(tr("Show only messages (and blocks) of this priority class"));
    m_criticalOnly->setToolTip(tr("Show only critical tool calls and their results (file modification, system change, error)"));
    m_importantOnly->setToolTip(tr("Show only messages the importance score marks important"));
    m_minBoundary->setRange(0, 1000);
    m_minBoundary->setDecimals(0);
    m_minBoundary->setSingleStep(10);
    m_minBoundary->setSpecialValueText(tr("any cut"));
    m_minBoundary->setPrefix(tr("cut ≥ "));
    m_minBoundary->setToolTip(tr("Show only messages before which a cut scores at least this much (0 = off)"));

    // A flowing row: on a narrow window the filters continue on a second line instead of setting
    // the window's minimum width.
    auto *bar = new FlowLayout;
    m_filterEdit->setMinimumWidth(120);
    bar->addWidget(m_filterEdit, 1);
    bar->addWidget(m_regex);
    bar->addWidget(m_hideMeta);
    bar->addWidget(m_hideHistory);
    bar->addWidget(m_priorityCombo);
    bar->addWidget(m_criticalOnly);
    bar->addWidget(m_importantOnly);
    bar->addWidget(m_minBoundary);
    m_chip->setObjectName(QStringLiteral("messageFilterChip"));
    m_chip->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_chip->setAutoRaise(false);
    m_chip->setToolTip(tr("Only the messages of this category are shown; click to show all messages again"));
    m_chip->setVisible(false);
    connect(m_chip, &QToolButton::clicked, this, &TranscriptPanel::clearMessageFilter);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_chip, 0, Qt::AlignLeft);
    m_empty->setObjectName(QStringLiteral("noMatchNote"));
    m_empty->setWordWrap(true);
    m_empty->setVisible(false);
    layout->addWidget(m_empty);
    layout->addWidget(m_view, 1);
    connect(m_filter, &QAbstractItemModel::modelReset, this, &TranscriptPanel::updateEmptyNote);
    connect(m_filter, &QAbstractItemModel::layoutChanged, this, &TranscriptPanel::updateEmptyNote);
    connect(m_filter, &QAbstractItemModel::rowsInserted, this, &TranscriptPanel::updateEmptyNote);
    connect(m_filter, &QAbstractItemModel::rowsRemoved, this, &TranscriptPanel::updateEmptyNote);

    connect(m_filterEdit, &QLineEdit::textChanged, this, &TranscriptPanel::updateFilter);
    connect(m_regex, &QCheckBox::toggled, this, [this] { m_filter->setPattern(m_filterEdit->text(), m_regex->isChecked()); });
    connect(m_hideMeta, &QCheckBox::toggled, this, [this](bool fold) {
        m_filter->setHideMetaEvents(fold);
        QSettings().setValue(QStringLiteral("transcript/foldEvents"), fold);
    });
    // Folded by default, as the user left it: most lines of a real session are progress events.
    m_hideMeta->setChecked(QSettings().value(QStringLiteral("transcript/foldEvents"), true).toBool());
    m_filter->setHideMetaEvents(m_hideMeta->isChecked());
    // A click on a message's "▸ N events" shows them (again: folds them).
    connect(m_view, &QTreeView::clicked, this, [this](const QModelIndex &index) {
        if (index.column() != TranscriptModel::RoleColumn || index.parent().isValid() || index.data(FoldedEventsRole).toInt() == 0)
            return;
        m_filter->toggleEvents(m_filter->mapToSource(index).row());
    });
    connect(m_hideHistory, &QCheckBox::toggled, m_filter, &TranscriptFilterModel::setHideHistory);
    connect(m_priorityCombo, &QComboBox::currentIndexChanged, this,
            [this] { m_filter->setPriorityFilter(m_priorityCombo->currentData().toInt()); });
    connect(m_criticalOnly, &QCheckBox::toggled, m_filter, &TranscriptFilterModel::setCriticalOnly);
    connect(m_importantOnly, &QCheckBox::toggled, m_filter, &TranscriptFilterModel::setImportantOnly);
    connect(m_minBoundary, &QDoubleSpinBox::valueChanged, m_filter, &TranscriptFilterModel::setMinBoundaryScore);
    connect(m_model, &TranscriptModel::analysisChanged, this, &TranscriptPanel::updateAnalysisControls);
    updateAnalysisControls();
    connect(m_filter, &TranscriptFilterModel::patternApplied, this, [this] {
        // An invalid regex is shown, not silently treated as "no match".
        m_filterEdit->setStyleSheet(m_filter->isPatternValid() ? QString() : QStringLiteral("color: #d03030;"));
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, &TranscriptPanel::onCurrentChanged);
    // The rows open, kept as they change (readingPlace() reads them without visiting every row).
    connect(m_view, &QTreeView::expanded, this, [this](const QModelIndex &index) {
        m_expandedRows.insert(index);
        // An agent a subagent started sits one level deeper: keep its rows' numbers readable.
        if (index.data(SubagentRole).toInt() >= 0) {
            int levels = 1;
            for (QModelIndex up = index.parent(); up.isValid(); up = up.parent())
                ++levels;
            const int wanted = m_view->indentation() * (levels + 1) + m_view->fontMetrics().horizontalAdvance(QStringLiteral("\u21b3 0000")) + 12;
            if (m_view->header()->sectionSize(TranscriptModel::IndexColumn) < wanted)
                m_view->header()->resizeSection(TranscriptModel::IndexColumn, wanted);
        }
    });
    connect(m_view, &QTreeView::collapsed, this, [this](const QModelIndex &index) { m_expandedRows.remove(index); });
    connect(m_filter, &QAbstractItemModel::modelAboutToBeReset, this, [this] { m_expandedRows.clear(); });
}

void TranscriptPanel::setMessageFilter(const QString &label, const QList<int> &messages)
{
    m_filter->setMessageSet(QSet<int>(messages.begin(), messages.end()));
    m_chip->setText(tr("%1: %n message(s)  ✕", nullptr, int(messages.size())).arg(label));
    m_chip->setVisible(true);
}

void TranscriptPanel::clearMessageFilter()
{
    m_filter->setMessageSet(std::nullopt);
    m_chip->setVisible(false);
}

void TranscriptPanel::resetFilters()
{
    clearMessageFilter();
    m_filterEdit->clear();
    m_filter->setPattern({}, m_regex->isChecked()); // now, not after the typing delay
    m_priorityCombo->setCurrentIndex(0);
    m_criticalOnly->setChecked(false);
    m_importantOnly->setChecked(false);
    m_minBoundary->setValue(0);
    updateEmptyNote();
}

void TranscriptPanel::updateEmptyNote()
{
    const bool empty = m_model->rowCount() > 0 && m_filter->rowCount() == 0;
    if (empty)
        m_empty->setText(tr("No message matches the filters: all %1 messages are hidden. Clear the filter text or the other "
                            "filters to see them.")
                             .arg(m_model->rowCount()));
    m_empty->setVisible(empty);
}

bool TranscriptPanel::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_view->viewport() && event->type() == QEvent::Resize)
        fitPreviewColumn();
    return QWidget::eventFilter(watched, event);
}

void TranscriptPanel::fitPreviewColumn()
{
    if (m_previewSized)
        return;
    QHeaderView *header = m_view->header();
    int others = 0;
    for (int c = 0; c < header->count(); ++c)
        if (c != TranscriptModel::PreviewColumn && !header->isSectionHidden(c))
            others += header->sectionSize(c);
    m_fitting = true;
    header->resizeSection(TranscriptModel::PreviewColumn, std::max(kMinPreviewWidth, m_view->viewport()->width() - others));
    m_fitting = false;
}

void TranscriptPanel::showFirstRows(std::shared_ptr<const Transcript> firstRows)
{
    showRows(std::move(firstRows), true);
}

void TranscriptPanel::setTranscript(std::shared_ptr<const Transcript> transcript)
{
    showRows(std::move(transcript), false);
    Q_EMIT rowSelected(-1, -1);
}

void TranscriptPanel::showRows(std::shared_ptr<const Transcript> transcript, bool firstRowsOnly)
{
    m_firstRowsOnly = firstRowsOnly;
    clearMessageFilter(); // indices of another transcript
    m_keptRows = 0;
    m_hideHistory->setVisible(!firstRowsOnly && transcript && liveStart(*transcript) > 0);
    m_model->setTranscript(std::move(transcript));
    // Lay the rows out now rather than on the view's zero timer: the paint that follows this load
    // then shows them, instead of a paint without them and another one after the timer.
    m_view->doItemsLayout();
}

void TranscriptPanel::growTranscript(std::shared_ptr<const Transcript> transcript, std::size_t kept)
{
    const std::shared_ptr<const Transcript> &shown = m_model->transcript();
    const bool analysisOrdered = m_filter->hasAnalysisFilter() || m_filter->sortColumn() > TranscriptModel::TokensColumn;
    if (!shown || !transcript || kept == 0 || analysisOrdered || liveStart(*transcript) != liveStart(*shown)) {
        setTranscript(std::move(transcript));
        return;
    }
    m_model->growTranscript(std::move(transcript), kept);
    m_keptRows = kept;
}

TranscriptPanel::ReadingPlace TranscriptPanel::readingPlace() const
{
    ReadingPlace place;
    const std::shared_ptr<const Transcript> &shown = m_model->transcript();
    if (!shown)
        return place;
    auto spot = [&](int message, int block) {
        Spot s{message, block, {}};
        if (message >= 0 && std::size_t(message) < shown->messages.size())
            s.id = shown->messages[std::size_t(message)].id;
        return s;
    };
    if (const QModelIndex index = m_view->currentIndex(); index.isValid())
        place.current = spot(index.data(MessageIndexRole).toInt(), index.data(BlockIndexRole).toInt());
    for (const QPersistentModelIndex &row : m_expandedRows)
        if (row.isValid() && m_view->isExpanded(row) && row.data(SubagentRole).toInt() < 0)
            place.expanded.push_back(spot(row.data(MessageIndexRole).toInt(), row.data(BlockIndexRole).toInt()));
    for (const int owner : m_filter->ownersShowingEvents())
        place.eventsShown.push_back(spot(owner, -1));
    place.messageSet = m_filter->messageSet();
    place.chip = m_chip->isVisible() ? m_chip->text() : QString();
    place.scroll = m_view->verticalScrollBar()->value();
    return place;
}

void TranscriptPanel::restoreReadingPlace(const ReadingPlace &place)
{
    const std::shared_ptr<const Transcript> &shown = m_model->transcript();
    if (!shown)
        return;
    // Each message by its id (searched from the end, where a live session grows), else its index.
    std::unordered_map<std::string_view, int> byId;
    auto want = [&](const Spot &s) {
        if (!s.id.empty())
            byId.emplace(s.id, -1);
    };
    want(place.current);
    std::for_each(place.expanded.begin(), place.expanded.end(), want);
    std::for_each(place.eventsShown.begin(), place.eventsShown.end(), want);
    std::size_t found = 0;
    for (std::size_t i = shown->messages.size(); i-- > 0 && found < byId.size();)
        if (const auto it = byId.find(shown->messages[i].id); it != byId.end() && it->second < 0) {
            it->second = int(i);
            ++found;
        }
    auto messageOf = [&](const Spot &s) {
        if (!s.id.empty())
            return byId.at(s.id);
        return s.message >= 0 && std::size_t(s.message) < shown->messages.size() ? s.message : -1;
    };
    auto sourceIndex = [&](const Spot &s) {
        const int message = messageOf(s);
        if (message < 0)
            return QModelIndex();
        const QModelIndex row = m_model->index(message, 0);
        return s.block < 0 ? row : m_model->index(s.block, 0, row);
    };
    // After growTranscript the rows before m_keptRows kept their state and the view its scroll
    // position: only what was in the rows after them comes back (a layout of every row is not needed).
    const auto changed = [this, &messageOf](const Spot &s) { return std::size_t(std::max(0, messageOf(s))) >= m_keptRows; };
    if (m_keptRows > 0) {
        for (const Spot &s : place.eventsShown)
            if (const int row = messageOf(s); row >= 0 && changed(s) && !m_filter->eventsShown(row))
                m_filter->toggleEvents(row);
        for (const Spot &s : place.expanded)
            if (const QModelIndex index = m_filter->mapFromSource(sourceIndex(s)); index.isValid() && changed(s))
                m_view->expand(index);
        if (const QModelIndex current = m_filter->mapFromSource(sourceIndex(place.current));
            current.isValid() && changed(place.current) && m_view->currentIndex() != current)
            m_view->selectionModel()->setCurrentIndex(current, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        return;
    }
    if (place.messageSet) {
        m_filter->setMessageSet(place.messageSet); // the messages kept keep their indices
        m_chip->setText(place.chip);
        m_chip->setVisible(true);
    }
    for (const Spot &s : place.eventsShown)
        if (const int row = messageOf(s); row >= 0 && !m_filter->eventsShown(row))
            m_filter->toggleEvents(row);
    m_view->doItemsLayout();
    for (const Spot &s : place.expanded)
        if (const QModelIndex index = m_filter->mapFromSource(sourceIndex(s)); index.isValid())
            m_view->expand(index);
    if (const QModelIndex current = m_filter->mapFromSource(sourceIndex(place.current)); current.isValid())
        m_view->selectionModel()->setCurrentIndex(current, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_view->verticalScrollBar()->setValue(place.scroll);
}

void TranscriptPanel::setAnalysis(std::shared_ptr<const cl::analysis::Analysis> analysis)
{
    m_model->setAnalysis(std::move(analysis));
}

void TranscriptPanel::updateAnalysisControls()
{
    // The filters keep their settings without an analysis (they apply again when one arrives) but
    // cannot be changed: there is nothing to filter by.
    const bool on = m_model->hasAnalysis();
    for (QWidget *w : {static_cast<QWidget *>(m_priorityCombo), static_cast<QWidget *>(m_criticalOnly),
                       static_cast<QWidget *>(m_importantOnly), static_cast<QWidget *>(m_minBoundary)})
        w->setEnabled(on);
}

void TranscriptPanel::selectSourceIndex(const QModelIndex &sourceIndex)
{
    QModelIndex idx = m_filter->mapFromSource(sourceIndex);
    if (!idx.isValid() && m_filter->hideMetaEvents()) { // a folded event: show its message's events
        const int message = sourceIndex.parent().isValid() ? sourceIndex.parent().row() : sourceIndex.row();
        if (const int owner = m_filter->ownerOf(message); owner >= 0 && !m_filter->eventsShown(owner))
            m_filter->toggleEvents(owner);
        idx = m_filter->mapFromSource(sourceIndex);
    }
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
    if (m_firstRowsOnly)
        return; // the window still shows what it showed before this file
    if (!current.isValid()) {
        Q_EMIT rowSelected(-1, -1);
        return;
    }
    if (const int run = current.data(SubagentRole).toInt(); run >= 0) {
        Q_EMIT subagentRowSelected(run, current.data(SubagentMessageRole).toInt());
        return;
    }
    Q_EMIT rowSelected(current.data(MessageIndexRole).toInt(), current.data(BlockIndexRole).toInt());
}

} // namespace cl::gui
