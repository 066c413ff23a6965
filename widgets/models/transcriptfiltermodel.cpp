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
    // IsMetaOrEventRole is also true on the blocks of such a message, so recursion cannot revive it.
    if (m_hideMeta && idx.data(IsMetaOrEventRole).toBool())
        return false;
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
