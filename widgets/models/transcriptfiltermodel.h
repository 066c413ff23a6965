// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/models/eventfolds.h"

#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QTimer>

#include <QPointer>
#include <QSet>

#include <optional>
#include <vector>

namespace cl::gui {

class TranscriptModel;

// Filters the transcript tree by FilterTextRole. Recursive: a block that matches keeps its
// message visible. Plain text is escaped so that "a.b" means the three characters.
//
// Analysis filters (active only while the source TranscriptModel has an analysis): a message row
// passes when its priority class equals the chosen one, it holds a critical tool call or result,
// it is important (seed 004) and its boundary score is at least the minimum. A block row passes on
// its own priority class and critical mark and on its message's importance and boundary score,
// so e.g. "lowest" shows a high message with just its lowest result block.
//
// Sorting: top-level rows by the column's numeric key (TranscriptModel::sortKey; rows without a
// value go last in both orders, ties stay in file order), Role and Preview by their text; the
// Index column in ascending order is the file order (no sort at all). Blocks keep block order.
class TranscriptFilterModel : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    static constexpr int kDebounceMs = 300;

    explicit TranscriptFilterModel(QObject *parent = nullptr);

    // Applies the pattern at once.
    void setPattern(const QString &text, bool isRegex);
    // Applies the pattern after kDebounceMs without a further call, so typing stays fluent.
    void setPatternDebounced(const QString &text, bool isRegex);
    // Folds metadata and event lines (progress, hooks, snapshots) into the message before them (the
    // first message, for those at the start): hidden, that message's Role cell says "▸ N events",
    // and toggleEvents() shows them under it again.
    void setHideMetaEvents(bool hide);
    // Shows / folds again the events folded into message `row` (a source row).
    void toggleEvents(int row);
    bool eventsShown(int row) const { return m_expanded.contains(row); }
    QList<int> ownersShowingEvents() const { return m_expanded.values(); }
    // The message an event row is folded into (-1: not an event, or no message to fold into).
    int ownerOf(int row) const;
    int foldedCount(int row) const;
    void setHideHistory(bool hide);       // rows before the last compaction (Message::history)
    void setPriorityFilter(int priority); // cl::analysis::Priority as int, -1 = any
    void setCriticalOnly(bool on);
    void setImportantOnly(bool on);
    void setMinBoundaryScore(double minScore); // 0 = off
    // Only these messages (transcript indices) and their blocks; std::nullopt = off. The composition
    // panel sets it when a category is clicked.
    void setMessageSet(std::optional<QSet<int>> messages);
    bool hasMessageSet() const { return m_messageSet.has_value(); }
    const std::optional<QSet<int>> &messageSet() const { return m_messageSet; }

    void setSourceModel(QAbstractItemModel *model) override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;
    // Without a pattern or an analysis filter every block of a shown message is shown, so the
    // source answers; QSortFilterProxyModel would build a child mapping per message for it (the
    // tree asks for every row when it lays a new transcript out).
    bool hasChildren(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

    QString patternText() const { return m_text; }
    bool isRegex() const { return m_regex; }
    bool isPatternValid() const { return m_expression.isValid(); }
    bool hideMetaEvents() const { return m_hideMeta; }
    bool hideHistory() const { return m_hideHistory; }
    bool isPending() const { return m_debounce.isActive(); }
    int priorityFilter() const { return m_priority; }
    bool criticalOnly() const { return m_criticalOnly; }
    bool importantOnly() const { return m_importantOnly; }
    double minBoundaryScore() const { return m_minBoundary; }
    // Any analysis filter set (whether or not an analysis is there to apply it).
    bool hasAnalysisFilter() const { return m_priority >= 0 || m_criticalOnly || m_importantOnly || m_minBoundary > 0; }

Q_SIGNALS:
    void patternApplied();

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    void applyPending();
    bool acceptsAnalysis(int message, int block) const;
    void rebuildOwners();

    QTimer m_debounce;
    QString m_text;
    QString m_pendingText;
    bool m_regex = false;
    bool m_pendingRegex = false;
    bool m_hideMeta = false;
    bool m_hideHistory = false;
    QRegularExpression m_expression;
    QPointer<TranscriptModel> m_transcriptModel; // the source when it is one: direct lookups
    int m_priority = -1;
    bool m_criticalOnly = false;
    bool m_importantOnly = false;
    double m_minBoundary = 0;
    std::optional<QSet<int>> m_messageSet;
    EventFolds m_folds;   // per top-level source row
    QSet<int> m_expanded; // messages whose events are shown
};

} // namespace cl::gui
