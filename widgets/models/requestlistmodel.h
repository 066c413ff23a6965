// SPDX-License-Identifier: MIT
#pragma once

// The requests of a recording (core/io/recordedrequest.h), one row each: what was sent (messages,
// tool definitions, ContextLens's estimate) beside what the provider measured for it and what came
// back, and how it used the prompt cache (core/cost/promptcache.h): appended, or where the cache
// broke and what that cost. The request shown in the window is marked (bold). Numeric columns answer
// SortRole.

#include "core/cost/promptcache.h"
#include "core/io/recordedrequest.h"

#include <QAbstractTableModel>

#include <vector>

namespace cl::gui {

// "$0.0123", "$4.56"; "<$0.0001" for less.
QString dollarText(double dollars);

class RequestListModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        NumberColumn,
        TimeColumn,
        ApiColumn,
        ModelColumn,
        KindColumn, // the agent's own compaction, else empty
        MessagesColumn,
        ToolsColumn,
        EstimateColumn, // ContextLens's figure for the request
        MeasuredColumn, // the provider's: input + cache read + cache written
        CacheReadColumn,
        CacheWrittenColumn,
        OutputColumn,
        CacheColumn,     // appended to the request before, or where the cache broke
        CacheCostColumn, // dollars of the cache not read
        StatusColumn,
        DurationColumn, // to the end of the answer
        SessionColumn,  // the session file's message that is the answer
        ColumnCount
    };

    explicit RequestListModel(QObject *parent = nullptr);

    // The rows and their cache steps (one per model call, by request number).
    void setRequests(std::vector<cl::RequestSummary> requests, std::vector<cl::cost::CacheStep> steps = {});
    const cl::cost::CacheStep *stepOf(std::size_t number) const;
    const std::vector<cl::RequestSummary> &requests() const { return m_requests; }
    // The request the window shows (its number, 0: none).
    void setCurrent(std::size_t number);
    std::size_t current() const { return m_current; }
    const cl::RequestSummary *requestAt(int row) const;
    int rowOfNumber(std::size_t number) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant display(const cl::RequestSummary &r, int column) const;
    QVariant sortKey(const cl::RequestSummary &r, int column) const;
    QString toolTip(const cl::RequestSummary &r) const;

    std::vector<cl::RequestSummary> m_requests;
    std::vector<cl::cost::CacheStep> m_steps; // ascending by number
    std::size_t m_current = 0;
};

} // namespace cl::gui
