// SPDX-License-Identifier: MIT
#include "widgets/models/transcriptmodel.h"

#include "widgets/models/roles.h"
#include "widgets/models/transcriptmodel_text.h"

#include "core/util/json.h"
#include "core/tokens/estimator.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QGuiApplication>
#include <QPalette>

#include <algorithm>
#include <array>

namespace cl::gui {

namespace {
constexpr quintptr kMessageRow = 0;
}

TranscriptModel::TranscriptModel(QObject *parent)
    : QAbstractItemModel(parent)
{
}

TranscriptModel::~TranscriptModel() = default;

void TranscriptModel::setTranscript(std::shared_ptr<const Transcript> transcript)
{
    beginResetModel();
    m_transcript = std::move(transcript);
    m_analysis.reset(); // belongs to the previous transcript
    m_rows.clear();
    m_maxTokens = largestEstimate();
    linkSubagents();
    endResetModel();
    Q_EMIT analysisChanged();
}

void TranscriptModel::growTranscript(std::shared_ptr<const Transcript> grown, std::size_t kept)
{
    const int before = messageRows();
    if (!m_transcript || !grown || kept == 0 || kept > std::size_t(before) || kept > grown->messages.size()) {
        setTranscript(std::move(grown));
        return;
    }
    if (int(kept) < before) { // the turn still being written: parsed again with the new lines
        beginRemoveRows({}, int(kept), before - 1);
        m_shownMessages = int(kept);
        endRemoveRows();
    }
    const int after = int(grown->messages.size());
    // The subagents under the kept rows: where each hangs and how many rows it has, to check that
    // the new lines changed none of them (a call's result line came, a subagent's file grew).
    auto linkedBefore = [kept, this](const std::vector<analysis::SubagentRun> &runs) {
        std::vector<std::array<std::int64_t, 4>> out;
        for (std::size_t r = 0; r < runs.size(); ++r) {
            const analysis::SubagentRun &run = runs[r];
            const Transcript *sub = subagentTranscript(int(r));
            if (run.sessionMessage >= 0 && std::size_t(run.sessionMessage) < kept)
                out.push_back({run.parentRun, run.message, run.block, sub ? std::int64_t(sub->messages.size()) : 0});
            else
                out.push_back({-1, -1, -1, 0});
        }
        return out;
    };
    auto linked = linkedBefore(m_runs);
    if (after > int(kept))
        beginInsertRows({}, int(kept), after - 1);
    m_transcript = std::move(grown);
    m_shownMessages = -1;
    m_analysis.reset(); // belongs to the previous version
    m_rows.clear();
    const qint64 largest = largestEstimate(); // (estimates are cached: a pass over the messages)
    linkSubagents();
    if (after > int(kept))
        endInsertRows();
    linked.resize(m_runs.size(), {-1, -1, -1, 0}); // subagents found since: linked to new rows, or to none
    if (linkedBefore(m_runs) != linked) {          // a kept call got its subagent (its result line came now)
        beginResetModel();
        endResetModel();
    }
    if (largest != m_maxTokens) { // every row's token bar is drawn against the largest
        m_maxTokens = largest;
        Q_EMIT dataChanged(index(0, TokensColumn), index(int(kept) - 1, TokensColumn));
    }
    Q_EMIT analysisChanged();
}

int TranscriptModel::messageRows() const
{
    if (!m_transcript)
        return 0;
    return m_shownMessages >= 0 ? m_shownMessages : int(m_transcript->messages.size());
}

qint64 TranscriptModel::largestEstimate() const
{
    qint64 largest = 0;
    if (m_transcript)
        for (const Message &m : m_transcript->messages)
            largest = std::max(largest, qint64(tokens::estimateMessage(m)));
    return largest;
}

QModelIndex TranscriptModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!m_transcript || row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (!parent.isValid())
        return row < messageRows() ? createIndex(row, column, kMessageRow) : QModelIndex();
    if (isSubagentRow(parent)) { // the agents a subagent's message started
        const auto [run, message] = subagentMessageAt(parent);
        return parent.column() == 0 ? subagentChild(run, message, row, column) : QModelIndex();
    }
    if (parent.internalId() != kMessageRow) { // a block: the subagent its call started
        const int run = parent.column() == 0 ? runAt(int(parent.internalId() - 1), parent.row()) : -1;
        const Transcript *sub = subagentTranscript(run);
        return sub && row < int(sub->messages.size()) ? createIndex(row, column, kSubagentRow | quintptr(run)) : QModelIndex();
    }
    if (parent.row() >= messageRows())
        return {};
    const Message &m = m_transcript->messages[std::size_t(parent.row())];
    if (row >= int(m.blocks.size()))
        return {};
    return createIndex(row, column, quintptr(parent.row()) + 1);
}

QModelIndex TranscriptModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == kMessageRow)
        return {};
    if (isSubagentRow(child)) {
        const auto &run = m_runs[std::size_t(child.internalId() & ~kSubagentRow)];
        if (run.parentRun >= 0) // a message of the subagent that started it
            return createIndex(subagentRow(run.parentRun, run.message), 0, kSubagentRow | quintptr(run.parentRun));
        return createIndex(run.block, 0, quintptr(run.message) + 1);
    }
    return createIndex(int(child.internalId() - 1), 0, kMessageRow);
}

int TranscriptModel::rowCount(const QModelIndex &parent) const
{
    if (!m_transcript)
        return 0;
    if (!parent.isValid())
        return messageRows();
    if (parent.column() != 0)
        return 0; // only column 0 carries children (tree convention)
    if (isSubagentRow(parent)) {
        const auto [run, message] = subagentMessageAt(parent);
        return subagentChildren(run, message);
    }
    if (parent.internalId() != kMessageRow) {
        const Transcript *sub = subagentTranscript(runAt(int(parent.internalId() - 1), parent.row()));
        return sub ? int(sub->messages.size()) : 0;
    }
    return int(m_transcript->messages[std::size_t(parent.row())].blocks.size());
}

int TranscriptModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant TranscriptModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::InitialSortOrderRole)
        // The first click on a score column shows the highest scores first; priority starts at sacred.
        return section == ImportanceColumn || section == BoundaryColumn || section == CriticalColumn || section == TokensColumn
                   ? int(Qt::DescendingOrder)
                   : int(Qt::AscendingOrder);
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && section >= PriorityColumn)
        return analysisHeaderToolTip(section);
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case IndexColumn: return tr("#");
    case TimeColumn: return tr("Time");
    case RoleColumn: return tr("Role / kind");
    case PreviewColumn: return tr("Preview");
    case TokensColumn: return tr("Tokens (est.)");
    case PriorityColumn: return tr("Priority");
    case ImportanceColumn: return tr("Importance");
    case BoundaryColumn: return tr("Boundary");
    case RoundColumn: return tr("Round");
    case CriticalColumn: return tr("Critical");
    default: return {};
    }
}

QVariant TranscriptModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    if (isSubagentRow(index)) {
        const auto [run, message] = subagentMessageAt(index);
        return subagentData(run, message, index.column(), role);
    }
    const bool messageRow = index.internalId() == kMessageRow;
    const int message = messageRow ? index.row() : int(index.internalId() - 1);
    const int block = messageRow ? -1 : index.row();
    // Analysis roles on any column, and the analysis columns' own display roles; the rest (row
    // background, grey text, ids) is shared with the other columns.
    if (role >= PriorityRole
        || (index.column() >= PriorityColumn
            && (role == Qt::DisplayRole || role == Qt::ToolTipRole || role == Qt::FontRole
                || role == Qt::ForegroundRole || role == Qt::TextAlignmentRole)))
        return analysisData(message, block, index.column(), role);
    if (messageRow)
        return messageData(message, index.column(), role);
    return blockData(message, block, index.column(), role);
}

QVariant TranscriptModel::messageData(int row, int column, int role) const
{
    const Message &m = m_transcript->messages[std::size_t(row)];
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case IndexColumn: return row + 1; // numbered from 1, as the report and the docks number them
        case TimeColumn: return text::timeLabel(m.timeMs);
        case RoleColumn: return text::roleLabel(m);
        case PreviewColumn: return m_contactAt.empty() ? text::messagePreview(m) : QString(contactPrefix(row) + text::messagePreview(m));
        case TokensColumn: return qint64(tokens::estimateMessage(m));
        }
        return {};
    case Qt::ToolTipRole:
        return m.history ? tr("History: before the last compaction, no longer sent to the model") + QStringLiteral("\n")
                               + text::messageToolTip(m)
                         : text::messageToolTip(m);
    case Qt::TextAlignmentRole:
        return column == IndexColumn || column == TokensColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::ForegroundRole:
        if (text::isSecondary(m))
            return QGuiApplication::palette().brush(QPalette::Disabled, QPalette::Text);
        return {};
    case Qt::BackgroundRole:
        // Translucent amber reads on both light and dark palettes.
        return text::isBoundary(m) ? QVariant(QBrush(QColor(255, 170, 0, 70))) : QVariant();
    case Qt::FontRole:
        if (text::isBoundary(m) || m.history) {
            QFont f;
            f.setBold(text::isBoundary(m));
            f.setItalic(m.history);
            return f;
        }
        return {};
    case TokensRole: return qint64(tokens::estimateMessage(m));
    case MaxTokensRole: return m_maxTokens;
    case MessageIndexRole: return row;
    case BlockIndexRole: return -1;
    case SubagentRole:
    case SubagentMessageRole: return -1;
    case RoleNameRole: return text::fromUtf8(roleName(m.role));
    case KindRole: return text::fromUtf8(messageKindName(m.kind));
    case RawJsonRole: return rawJson(*m_transcript, m);
    case FilterTextRole: return text::messageFilterText(m);
    case ToolNameRole: return QString();
    case SourceLineRole: return int(m.line);
    case IsSecondaryRole: return text::isSecondary(m);
    case IsBoundaryRole: return text::isBoundary(m);
    case IsMetaOrEventRole: return m.isEvent();
    case IsHistoryRole: return m.history;
    }
    return {};
}

QVariant TranscriptModel::blockData(int messageRow, int blockRow, int column, int role) const
{
    const Message &m = m_transcript->messages[std::size_t(messageRow)];
    const Block &b = m.blocks[std::size_t(blockRow)];
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case IndexColumn: return QStringLiteral("%1.%2").arg(messageRow + 1).arg(blockRow + 1);
        case TimeColumn: return QString();
        case RoleColumn: return text::fromUtf8(blockTypeName(b.type));
        case PreviewColumn: {
            const int run = runAt(messageRow, blockRow);
            return run < 0 ? text::blockPreview(b) : QString(runSummary(run) + QStringLiteral(" · ") + text::blockPreview(b));
        }
        case TokensColumn: return qint64(tokens::estimateBlock(b));
        }
        return {};
    case Qt::ToolTipRole: {
        const int run = runAt(messageRow, blockRow);
        return run < 0 ? text::blockToolTip(b) : QString(runSummary(run) + QStringLiteral("\n") + text::blockToolTip(b));
    }
    case Qt::TextAlignmentRole:
        return column == IndexColumn || column == TokensColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::ForegroundRole:
        if (b.isError)
            return QBrush(QColor(220, 50, 47));
        if (text::isSecondary(m))
            return QGuiApplication::palette().brush(QPalette::Disabled, QPalette::Text);
        return {};
    case TokensRole: return qint64(tokens::estimateBlock(b));
    case MaxTokensRole: return m_maxTokens;
    case MessageIndexRole: return messageRow;
    case BlockIndexRole: return blockRow;
    case SubagentRole:
    case SubagentMessageRole: return -1;
    case RoleNameRole: return text::fromUtf8(roleName(m.role));
    case KindRole: return text::fromUtf8(blockTypeName(b.type));
    case RawJsonRole: return rawJson(*m_transcript, m);
    case FilterTextRole: return text::blockFilterText(b);
    case ToolNameRole: return text::fromUtf8(b.toolName);
    case SourceLineRole: return int(m.line);
    case IsSecondaryRole: return text::isSecondary(m);
    case IsBoundaryRole: return false;
    case IsMetaOrEventRole: return m.isEvent();
    case IsHistoryRole: return m.history;
    }
    return {};
}

QString TranscriptModel::rawJson(const Transcript &t, const Message &m)
{
    QString out;
    for (std::uint32_t r : m.records) {
        if (r >= t.records.size() || !t.buffer)
            continue;
        const std::string_view bytes = t.recordBytes(t.records[r]);
        json::json value;
        std::string error;
        if (!out.isEmpty())
            out += u'\n';
        // Unparseable records are shown as they are: the point is to see the source.
        if (json::parse(bytes, value, error) == json::ParseStatus::Failed)
            out += text::fromUtf8(bytes);
        else
            out += text::fromUtf8(json::dump(value, 2)) + u'\n';
    }
    return out;
}

QModelIndex TranscriptModel::indexForSourceLine(std::uint32_t line) const
{
    if (!m_transcript || line == 0)
        return {};
    const auto &msgs = m_transcript->messages;
    for (std::size_t i = 0; i < msgs.size(); ++i) {
        if (msgs[i].line == line)
            return index(int(i), 0);
        for (std::uint32_t r : msgs[i].records)
            if (r < m_transcript->records.size() && m_transcript->records[r].line == line)
                return index(int(i), 0);
    }
    return {};
}

QModelIndex TranscriptModel::indexForMessage(int message, int block) const
{
    const QModelIndex msg = index(message, 0);
    return block < 0 || !msg.isValid() ? msg : index(block, 0, msg);
}

QModelIndex TranscriptModel::representativeIndex() const
{
    if (!m_transcript)
        return {};
    // The largest tool result fills the detail pane best; ties go to the earliest.
    const auto &msgs = m_transcript->messages;
    QModelIndex best;
    std::size_t bestSize = 0;
    for (std::size_t i = 0; i < msgs.size(); ++i)
        for (std::size_t b = 0; b < msgs[i].blocks.size(); ++b) {
            const Block &blk = msgs[i].blocks[b];
            if (blk.type == BlockType::ToolResult && blk.text.size() > bestSize) {
                bestSize = blk.text.size();
                best = indexForMessage(int(i), int(b));
            }
        }
    if (best.isValid())
        return best;
    for (std::size_t i = 0; i < msgs.size(); ++i)
        if (!msgs[i].blocks.empty())
            return indexForMessage(int(i), 0);
    return index(0, 0);
}

QString TranscriptModel::flattenPreview(std::string_view textIn, int maxChars)
{
    // Cut the UTF-8 early: previews of multi-megabyte tool results must stay cheap.
    const bool longer = textIn.size() > std::size_t(maxChars) * 4;
    QString s = text::fromUtf8(textIn.substr(0, std::size_t(maxChars) * 4));
    QString out;
    out.reserve(std::min<qsizetype>(s.size(), maxChars + 1));
    bool lastSpace = false;
    for (QChar c : std::as_const(s)) {
        const bool space = c.isSpace();
        if (space && (lastSpace || out.isEmpty()))
            continue; // collapse runs of whitespace, newlines included
        out += space ? QChar(u' ') : c;
        lastSpace = space;
        if (out.size() >= maxChars)
            break;
    }
    while (out.endsWith(u' '))
        out.chop(1);
    if (out.size() >= maxChars || longer)
        out += u'…';
    return out;
}

} // namespace cl::gui
