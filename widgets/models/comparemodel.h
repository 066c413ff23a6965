// SPDX-License-Identifier: MIT
#pragma once

// Table over the rows of strategy::compare(): one row per registered strategy (checkable, so the
// user can run a subset), with its result's numbers once a run delivered them. A run with a model
// summarizer adds a "NAME+model" row under each strategy it reran (strategy::withModelRows), not
// checkable, with the model's cost. Every column has a numeric CompareSortRole so a
// QSortFilterProxyModel sorts "12 %" after "9 %".

#include "core/workflow/compare.h"
#include "widgets/models/roles.h"

#include <QAbstractTableModel>
#include <QStringList>

#include <optional>
#include <vector>

namespace cl::gui {

class CompareModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        StrategyColumn, // title (name), checkable
        SourceColumn,
        ChangedColumn,
        TokensColumn,    // before → after
        ReductionColumn, // %
        MessagesColumn,  // after (before in the tooltip)
        EfficiencyColumn,
        FactsColumn,     // fact retention %
        CostColumn,      // model rows: the model calls' cost
        NextTurnColumn,  // $ of the next request after the strategy (extra.nextTurns)
        NextTurnsColumn, // $ of the next N requests, prompt cache included
        CacheColumn,     // cache prefix tokens (share %)
        ValidityColumn,  // ✓ or number of violations
        TimeColumn,      // ms
        NoteColumn,
        ColumnCount
    };

    explicit CompareModel(QObject *parent = nullptr);

    // One unchecked-result row per registered strategy, all checked (keeps the check states of
    // strategies already listed).
    void resetFromRegistry();
    // Installs the rows of a run; strategies not in `rows` lose their previous result. "NAME+model"
    // rows go under NAME; rows of unknown strategies (errors) are appended.
    void setRows(std::vector<strategy::CompareRow> rows);
    void clearResults();

    // The rows of the last run, in registry order.
    std::vector<strategy::CompareRow> rows() const;
    const strategy::CompareRow *rowFor(const QString &name) const;
    int rowOf(const QString &name) const; // -1 when absent
    QString nameAt(int row) const;
    bool isModelRow(int row) const;
    QStringList checkedNames() const;
    void setChecked(const QString &name, bool checked);
    void setAllChecked(bool checked);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Entry {
        QString name, title, source;
        QString base; // model rows: the strategy they reran ("" otherwise)
        bool checked = true;
        std::optional<strategy::CompareRow> row;
    };
    QVariant display(const Entry &e, int column) const;
    QVariant sortValue(const Entry &e, int column) const;
    QVariant tooltip(const Entry &e, int column) const;
    void dropModelEntries();

    std::vector<Entry> m_entries;
};

// "✓", or "3 violations" / "1 violation"; "error" for a row with a parameter error.
QString validityText(const strategy::CompareRow &row);

} // namespace cl::gui
