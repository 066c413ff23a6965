// SPDX-License-Identifier: MIT
#include "widgets/models/transcriptfiltermodel.h"

#include "widgets/models/roles.h"

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

bool TranscriptFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QModelIndex idx = sourceModel()->index(sourceRow, 0, sourceParent);
    // IsMetaOrEventRole is also true on the blocks of such a message, so recursion cannot revive it.
    if (m_hideMeta && idx.data(IsMetaOrEventRole).toBool())
        return false;
    if (m_text.isEmpty())
        return true;
    if (!m_expression.isValid())
        return false; // a half-typed regex shows nothing rather than everything
    return m_expression.match(idx.data(FilterTextRole).toString()).hasMatch();
}

} // namespace cl::gui
