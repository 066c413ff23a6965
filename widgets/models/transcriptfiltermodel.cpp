// SPDX-License-Identifier: MIT
#include "widgets/models/transcriptfiltermodel.h"

#include "widgets/models/roles.h"
#include "widgets/models/transcriptmodel.h"

namespace cl::gui {

TranscriptFilterModel::TranscriptFilterModel(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setRecursiveFilteringEnabled(true);
    setFilterRole(FilterTextRole);
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(kDebounceMs);
    connect(&m_debounce, &QTimer::timeout, this, &TranscriptFilterModel::applyPending);
}

void TranscriptFilterModel::setPattern(const QString &text, bool isRegex)
{
    m_debounce.stop();
    m_text = text;
    m_regex = isRegex;
    m_expression = QRegularExpression(isRegex ? text : QRegularExpression::escape(text),
                                      QRegularExpression::CaseInsensitiveOption);
    invalidateFilter();
    Q_EMIT patternApplied();
}

void TranscriptFilterModel::setPatternDebounced(const QString &text, bool isRegex)
{
    m_pendingText = text;
    m_pendingRegex = isRegex;
    m_debounce.start(); // restarts: only the last keystroke of a burst filters
}

void TranscriptFilterModel::applyPending()
{
    setPattern(m_pendingText, m_pendingRegex);
}

void TranscriptFilterModel::setHideMetaEvents(bool hide)
{
    if (hide == m_hideMeta)
        return;
    m_hideMeta = hide;
    invalidateFilter();
}

void TranscriptFilterModel::setHideHistory(bool hide)
{
    if (hide == m_hideHistory)
        return;
    m_hideHistory = hide;
    invalidateFilter();
}

void TranscriptFilterModel::setMessageSet(std::optional<QSet<int>> messages)
{
    if (!messages && !m_messageSet)
        return;
    m_messageSet = std::move(messages);
    invalidateFilter();
}

void TranscriptFilterModel::setPriorityFilter(int priority)
{
    if (priority == m_priority)
        return;
    m_priority = priority;
    invalidateFilter();
}

void TranscriptFilterModel::setCriticalOnly(bool on)
{
    if (on == m_criticalOnly)
        return;
    m_criticalOnly = on;
    invalidateFilter();
}

void TranscriptFilterModel::setImportantOnly(bool on)
{
    if (on == m_importantOnly)
        return;
    m_importantOnly = on;
    invalidateFilter();
}

void TranscriptFilterModel::setMinBoundaryScore(double minScore)
{
    if (minScore == m_minBoundary)
        return;
    m_minBoundary = minScore;
    invalidateFilter();
}

void TranscriptFilterModel::setSourceModel(QAbstractItemModel *model)
{
    // A new analysis arrives as a layout change of the source, which re-filters and re-sorts.
    m_transcriptModel = qobject_cast<TranscriptModel *>(model);
    QSortFilterProxyModel::setSourceModel(model);
    if (model) {
        // Before the proxy re-filters: filterAcceptsRow reads the owners.
        connect(model, &QAbstractItemModel::modelAboutToBeReset, this, [this] { m_expanded.clear(); });
        connect(model, &QAbstractItemModel::modelReset, this, &TranscriptFilterModel::rebuildOwners, Qt::DirectConnection);
        // Lines a live session appends: counted once they are in (a folded event among them is
        // hidden either way; the owner's count shows it).
        connect(model, &QAbstractItemModel::rowsInserted, this, [this](const QModelIndex &parent) {
            if (!parent.isValid())
                rebuildOwners();
        });
    }
    rebuildOwners();
}

void TranscriptFilterModel::rebuildOwners()
{
    m_folds.clear();
    const Transcript *t = m_transcriptModel && m_transcriptModel->transcript() ? m_transcriptModel->transcript().get() : nullptr;
    if (t)
        m_folds = foldEvents(t->messages.size(), [t](std::size_t i) { return t->messages[i].isEvent(); });
}

int TranscriptFilterModel::ownerOf(int row) const
{
    return row >= 0 && std::size_t(row) < m_folds.owner.size() ? m_folds.owner[std::size_t(row)] : -1;
}

int TranscriptFilterModel::foldedCount(int row) const
{
    return row >= 0 && std::size_t(row) < m_folds.count.size() ? m_folds.count[std::size_t(row)] : 0;
}

void TranscriptFilterModel::toggleEvents(int row)
{
    if (foldedCount(row) == 0)
        return;
    if (!m_expanded.remove(row))
        m_expanded.insert(row);
    invalidateFilter();
    const QModelIndex owner = mapFromSource(sourceModel()->index(row, TranscriptModel::RoleColumn));
    if (owner.isValid())
        Q_EMIT dataChanged(owner, owner, {Qt::DisplayRole, FoldedEventsRole});
}

QVariant TranscriptFilterModel::data(const QModelIndex &index, int role) const
{
    if (!m_hideMeta || !index.isValid() || index.parent().isValid() || index.column() != TranscriptModel::RoleColumn
        || (role != Qt::DisplayRole && role != FoldedEventsRole && role != Qt::ToolTipRole))
        return QSortFilterProxyModel::data(index, role);
    const int row = mapToSource(index).row();
    const int n = foldedCount(row);
    if (role == FoldedEventsRole)
        return n;
    const QVariant base = QSortFilterProxyModel::data(index, role);
    if (n == 0)
        return base;
    const bool shown = m_expanded.contains(row);
    if (role == Qt::ToolTipRole)
        return (shown ? tr("%1 metadata / event lines after this message are shown; click to fold them")
                      : tr("%1 metadata / event lines (progress, hooks, snapshots) are folded into this message; click to show them"))
            .arg(n);
    return QString(base.toString() + QStringLiteral("  ") + (shown ? QStringLiteral("\u25be ") : QStringLiteral("\u25b8 "))
                   + (n == 1 ? tr("1 event") : tr("%1 events").arg(n)));
}

void TranscriptFilterModel::sort(int column, Qt::SortOrder order)
{
    // Ascending by # is the source order: no sorting at all, so large files pay nothing for it.
    QSortFilterProxyModel::sort(column == TranscriptModel::IndexColumn && order == Qt::AscendingOrder ? -1 : column, order);
}

bool TranscriptFilterModel::hasChildren(const QModelIndex &parent) const
{
    // The other filters take or drop a message with all its blocks (filterAcceptsRow).
    if (parent.isValid() && m_text.isEmpty() && !hasAnalysisFilter() && sourceModel())
        return sourceModel()->hasChildren(mapToSource(parent));
    return QSortFilterProxyModel::hasChildren(parent);
}

bool TranscriptFilterModel::acceptsAnalysis(int message, int block) const
{
    if (!hasAnalysisFilter() || !m_transcriptModel || !m_transcriptModel->hasAnalysis())
        return true;
    const TranscriptModel &m = *m_transcriptModel;
    if (m_priority >= 0 && m.priorityClass(message, block) != m_priority)
        return false;
    if (m_criticalOnly && !m.hasCritical(message, block))
        return false;
    if (m_importantOnly && !m.isImportant(message))
        return false;
    if (m_minBoundary > 0) {
        const auto s = m.boundaryScore(message);
        if (!s || *s < m_minBoundary)
            return false;
    }
    return true;
}

bool TranscriptFilterModel::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const bool ascending = sortOrder() == Qt::AscendingOrder;
    // Blocks stay in block order whatever the direction (the proxy reverses the comparison).
    if (left.parent().isValid() || !m_transcriptModel)
        return left.parent().isValid() ? (ascending ? left.row() < right.row() : left.row() > right.row())
                                       : QSortFilterProxyModel::lessThan(left, right);
    const int column = left.column();
    if (column == TranscriptModel::RoleColumn || column == TranscriptModel::PreviewColumn) {
        const int c = QString::localeAwareCompare(left.data().toString(), right.data().toString());
        if (c != 0)
            return c < 0;
    } else {
        const auto l = m_transcriptModel->sortKey(left.row(), column);
        const auto r = m_transcriptModel->sortKey(right.row(), column);
        // No value goes last in both directions; descending sorts call lessThan(right, left).
        if (!l && r)
            return !ascending;
        if (l && !r)
            return ascending;
        if (l && r && *l != *r)
            return *l < *r;
    }
    // Ties keep file order in both directions.
    return ascending ? left.row() < right.row() : left.row() > right.row();
}

bool TranscriptFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QModelIndex idx = sourceModel()->index(sourceRow, 0, sourceParent);
    if (TranscriptModel::isSubagentRow(idx)) {
        // A subagent's message, under the call that started it: no analysis of its own (the
        // analysis filters show the session's rows), events hidden with the session's.
        if ((m_hideMeta && idx.data(IsMetaOrEventRole).toBool()) || hasAnalysisFilter() || m_messageSet)
            return false;
        return m_text.isEmpty() || (m_expression.isValid() && m_expression.match(idx.data(FilterTextRole).toString()).hasMatch());
    }
    // IsMetaOrEventRole is also true on the blocks of such a message, so recursion cannot revive it.
    if (m_hideMeta && idx.data(IsMetaOrEventRole).toBool()) {
        const int owner = ownerOf(sourceParent.isValid() ? sourceParent.row() : sourceRow);
        if (owner < 0 || !m_expanded.contains(owner))
            return false;
    }
    if (m_hideHistory && idx.data(IsHistoryRole).toBool())
        return false;
    if (m_messageSet && !m_messageSet->contains(sourceParent.isValid() ? sourceParent.row() : sourceRow))
        return false;
    if (!acceptsAnalysis(sourceParent.isValid() ? sourceParent.row() : sourceRow, sourceParent.isValid() ? sourceRow : -1))
        return false;
    if (m_text.isEmpty())
        return true;
    if (!m_expression.isValid())
        return false; // a half-typed regex shows nothing rather than everything
    return m_expression.match(idx.data(FilterTextRole).toString()).hasMatch();
}

} // namespace cl::gui
