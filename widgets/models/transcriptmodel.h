// SPDX-License-Identifier: MIT
#pragma once

#include "core/analysis/analysis.h"
#include "core/analysis/subagents.h"
#include "core/cost/sessioncost.h"
#include "core/model/transcript.h"
#include "widgets/models/analysisrows.h"

#include <QAbstractItemModel>

#include <memory>
#include <unordered_map>
#include <optional>
#include <utility>

namespace cl::gui {

// Tree over a loaded transcript: top-level rows are messages, their children the content blocks, and
// under the Task / Agent call that started a subagent, the subagent's own messages (its file); under
// a subagent's message that started agents of its own, their messages, one run after the other.
// Internal id 0 marks a message row; a block row stores its message index + 1; a subagent message
// row kSubagentRow | its run's index, at row m_rowOffset[run] + its message; so parent() is O(1).
class TranscriptModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    // Columns after Tokens show the analysis (empty without one): priority class, seed 004/001
    // importance, boundary score, tool round bracket, critical tool category.
    enum Column {
        IndexColumn,
        TimeColumn,
        RoleColumn,
        PreviewColumn,
        TokensColumn,
        PriorityColumn,
        ImportanceColumn,
        BoundaryColumn,
        RoundColumn,
        CriticalColumn,
        ColumnCount
    };

    explicit TranscriptModel(QObject *parent = nullptr);
    ~TranscriptModel() override;

    void setTranscript(std::shared_ptr<const Transcript> transcript);
    // The same session grown (a live update) whose first `kept` messages are the ones shown now: the
    // rows after them are removed and the new ones inserted, so that views keep the state of the
    // rest (selection, expanded rows, scroll) and the cost follows what changed, not the session's
    // size. The analysis is cleared as by setTranscript, without a signal per row: a view filtering
    // or sorting by it resets instead (TranscriptPanel::growTranscript). Anything else resets.
    void growTranscript(std::shared_ptr<const Transcript> grown, std::size_t kept);
    const std::shared_ptr<const Transcript> &transcript() const { return m_transcript; }

    // Analysis columns. nullptr clears them; an analysis whose priority.size() differs from the
    // transcript's message count is stale (computed for another transcript) and is ignored.
    void setAnalysis(std::shared_ptr<const cl::analysis::Analysis> analysis);
    std::shared_ptr<const cl::analysis::Analysis> analysis() const { return m_analysis; }
    bool hasAnalysis() const { return m_analysis != nullptr; }

    // Direct lookups for the filter proxy (no QVariant per row). message / block as in the roles;
    // block -1 means the message row. Without an analysis: -1 / false / nullopt.
    int priorityClass(int message, int block = -1) const;
    bool hasCritical(int message, int block = -1) const;
    bool isImportant(int message) const;
    std::optional<double> boundaryScore(int message) const;
    bool isChosenBoundary(int message) const;
    // The SortRole value of a message row's cell; nullopt when the cell has no value.
    std::optional<double> sortKey(int message, int column) const;

    // The subagents beside the calls that started them; runAt: the run the session's call started,
    // -1 if none; nestedRuns: the runs a subagent's message started, in call order.
    const std::vector<cl::analysis::SubagentRun> &subagentRuns() const { return m_runs; }
    int runAt(int message, int block) const;
    const std::vector<int> &nestedRuns(int run, int message) const;
    // The row of a run's message under its parent row; the index of a run's message.
    int subagentRow(int run, int message) const { return m_rowOffset[std::size_t(run)] + message; }
    // The run and message of a subagent message row (isSubagentRow).
    std::pair<int, int> subagentMessageAt(const QModelIndex &row) const
    {
        const int run = int(row.internalId() & ~kSubagentRow);
        return {run, row.row() - m_rowOffset[std::size_t(run)]};
    }
    QModelIndex indexForSubagentMessage(int run, int message) const;
    // The subagent's transcript of a run (null if out of range).
    const Transcript *subagentTranscript(int run) const;
    static bool isSubagentRow(const QModelIndex &index) { return index.isValid() && (index.internalId() & kSubagentRow); }

    // Row of the message decoded from the given 1-based source line; invalid index if none.
    QModelIndex indexForSourceLine(std::uint32_t line) const;
    QModelIndex indexForMessage(int message, int block = -1) const;
    // The largest tool_result block (else the first block, else message 0): a row worth showing.
    QModelIndex representativeIndex() const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // One line of display text: newlines flattened, at most maxChars characters (… appended).
    static QString flattenPreview(std::string_view text, int maxChars = 240);
    // The message's source records, each pretty-printed (unparseable ones verbatim).
    static QString rawJson(const Transcript &t, const Message &m);

Q_SIGNALS:
    // After setAnalysis (also when it cleared or ignored one) and after setTranscript.
    void analysisChanged();

private:
    static constexpr quintptr kSubagentRow = quintptr(1) << (sizeof(quintptr) * 8 - 1);

    int messageRows() const; // top-level rows: the messages, or the first m_shownMessages during growTranscript
    qint64 largestEstimate() const;
    QVariant messageData(int row, int column, int role) const;
    // A subagent's message under its call (transcriptmodel_subagents.cpp).
    QVariant subagentData(int run, int row, int column, int role) const;
    // The row-th child of run's message (the runs it started, one after the other); their count.
    QModelIndex subagentChild(int run, int message, int row, int column) const;
    int subagentChildren(int run, int message) const;
    QString runSummary(int run) const;
    // "to subagent counter · " before a message that sends one a message, "subagent counter stopped · "
    // before a notification of it; "" for any other message.
    QString contactPrefix(int message) const;
    void linkSubagents();
    QVariant blockData(int messageRow, int blockRow, int column, int role) const;
    // Analysis columns and roles (transcriptmodel_analysis.cpp); block -1 for a message row.
    QVariant analysisData(int message, int block, int column, int role) const;
    QString analysisText(int message, int block, int column) const;
    QString analysisToolTip(int message, int block, int column) const;
    QVariant roundCell(int message, int block) const;
    std::int32_t positionOf(int message) const;
    static QString analysisHeaderToolTip(int section);

    std::shared_ptr<const Transcript> m_transcript;
    std::shared_ptr<const cl::analysis::Analysis> m_analysis;
    AnalysisRows m_rows;
    std::vector<cl::analysis::SubagentRun> m_runs;
    std::vector<cl::cost::SubagentCost> m_runCosts;           // by Transcript::subagents index
    std::unordered_map<quint64, int> m_runAt;                 // (message << 32 | block) of a linked call -> run
    std::unordered_map<quint64, std::vector<int>> m_nestedAt; // (parent run << 32 | message) -> runs it started
    std::vector<int> m_rowOffset;                             // by run: its first row under its parent
    std::unordered_map<int, int> m_contactAt;                 // session message to or about a run -> run
    qint64 m_maxTokens = 0;
    int m_shownMessages = -1; // >= 0 while growTranscript replaces the rows after them
};

} // namespace cl::gui
