// SPDX-License-Identifier: MIT
// The transcript model's analysis columns: Priority, Importance, Boundary, Round, Critical. Every
// value comes from the Analysis (by transcript message index) or the flat lookups built from it in
// setAnalysis; tooltips give the reasons the analysis recorded.
#include "widgets/models/transcriptmodel.h"

#include "widgets/models/roles.h"
#include "widgets/models/transcriptmodel_text.h"

#include "core/tokens/estimator.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QStringList>

#include <cmath>

namespace cl::gui {

namespace an = cl::analysis;

namespace {

QString sv(std::string_view s)
{
    return text::fromUtf8(s);
}

QString score(double v)
{
    return QString::number(v, 'f', v == std::floor(v) ? 0 : 1);
}

QString signedNumber(double v, int decimals)
{
    return (v >= 0 ? QStringLiteral("+") : QString()) + QString::number(v, 'f', decimals);
}

QString reasonLine(const an::Reason &r, int decimals)
{
    return QStringLiteral("  %1 %2: %3").arg(sv(r.rule), signedNumber(r.points, decimals), text::fromUtf8(r.describe()));
}

// Seed 003 rule ids of analysis/priority.cpp, said in words.
QString priorityRuleText(std::string_view rule)
{
    if (rule == "system_prompt") return QStringLiteral("system prompt: never removed");
    if (rule == "last_user_messages") return QStringLiteral("one of the last user requests");
    if (rule == "last_assistant_message") return QStringLiteral("the last assistant message");
    if (rule == "error_result") return QStringLiteral("failed tool result");
    if (rule == "recent_tool_result") return QStringLiteral("one of the most recent tool results");
    if (rule == "large_read") return QStringLiteral("result of a large read");
    if (rule == "old_tool_result") return QStringLiteral("older tool result");
    if (rule == "error_message") return QStringLiteral("holds a failed tool result");
    if (rule == "old_assistant_message") return QStringLiteral("older assistant message");
    if (rule == "old_user_request") return QStringLiteral("older user request: it carries the task");
    if (rule == "not_conversation") return QStringLiteral("not part of the conversation");
    return {};
}

QString priorityLine(an::Priority p, std::string_view rule)
{
    const QString words = priorityRuleText(rule);
    return QStringLiteral("%1 (%2%3)").arg(sv(an::priorityName(p)), sv(rule), words.isEmpty() ? QString() : u": " + words);
}

int partOrder(RoundPart p)
{
    switch (p) {
    case RoundPart::Single:
    case RoundPart::Start: return 0;
    case RoundPart::Result: return 1;
    case RoundPart::End: return 2;
    default: return 3;
    }
}

} // namespace

void TranscriptModel::setAnalysis(std::shared_ptr<const an::Analysis> analysis)
{
    if (analysis && (!m_transcript || analysis->priority.size() != m_transcript->messages.size() || analysis->view.position.size() != m_transcript->messages.size()))
        analysis.reset(); // stale: computed for another transcript
    if (!analysis && !m_analysis) {
        Q_EMIT analysisChanged();
        return;
    }
    // Rows stay where they are, but sorting and filtering by the analysis columns may change:
    // a layout change lets proxies re-sort and re-filter while views keep selection and expansion.
    Q_EMIT layoutAboutToBeChanged({}, QAbstractItemModel::NoLayoutChangeHint);
    m_analysis = std::move(analysis);
    if (m_analysis)
        m_rows.build(*m_transcript, *m_analysis);
    else
        m_rows.clear();
    Q_EMIT layoutChanged({}, QAbstractItemModel::NoLayoutChangeHint);
    Q_EMIT analysisChanged();
}

std::int32_t TranscriptModel::positionOf(int message) const
{
    if (!m_analysis || message < 0 || std::size_t(message) >= m_analysis->view.position.size())
        return -1;
    return m_analysis->view.position[std::size_t(message)];
}

int TranscriptModel::priorityClass(int message, int block) const
{
    if (!m_analysis || message < 0 || std::size_t(message) >= m_analysis->priority.size())
        return -1;
    const an::PriorityInfo &info = m_analysis->priority[std::size_t(message)];
    an::Priority p = info.priority;
    if (block >= 0)
        p = std::size_t(block) < info.blocks.size() ? info.blocks[std::size_t(block)] : an::Priority::Excluded;
    return p == an::Priority::Excluded ? -1 : int(p);
}

bool TranscriptModel::hasCritical(int message, int block) const
{
    if (!m_analysis || message < 0 || std::size_t(message) + 1 >= m_rows.markBegin.size())
        return false;
    const std::uint32_t b = m_rows.markBegin[std::size_t(message)], e = m_rows.markBegin[std::size_t(message) + 1];
    if (block < 0)
        return b < e;
    for (std::uint32_t i = b; i < e; ++i)
        if (m_rows.marks[i].block == block)
            return true;
    return false;
}

bool TranscriptModel::isImportant(int message) const
{
    const std::int32_t pos = positionOf(message);
    return pos >= 0 && std::size_t(pos) < m_analysis->importance.size() && m_analysis->importance[std::size_t(pos)].important;
}

std::optional<double> TranscriptModel::boundaryScore(int message) const
{
    const std::int32_t pos = positionOf(message);
    // Element k of boundaries is position k + 1: there is no cut before the first message.
    if (pos < 1 || std::size_t(pos) > m_analysis->boundaries.size())
        return std::nullopt;
    return m_analysis->boundaries[std::size_t(pos) - 1].score;
}

bool TranscriptModel::isChosenBoundary(int message) const
{
    const std::int32_t pos = positionOf(message);
    return pos >= 1 && m_analysis->boundary && *m_analysis->boundary == std::size_t(pos);
}

std::optional<double> TranscriptModel::sortKey(int message, int column) const
{
    if (!m_transcript || message < 0 || std::size_t(message) >= m_transcript->messages.size())
        return std::nullopt;
    const Message &m = m_transcript->messages[std::size_t(message)];
    switch (column) {
    case IndexColumn: return double(message);
    case TimeColumn: return m.timeMs == kNoTime ? std::nullopt : std::optional<double>(double(m.timeMs));
    case TokensColumn: return double(tokens::estimateMessage(m));
    case PriorityColumn: {
        const int p = priorityClass(message);
        return p < 0 ? std::nullopt : std::optional<double>(p);
    }
    case ImportanceColumn: {
        const std::int32_t pos = positionOf(message);
        if (pos < 0 || std::size_t(pos) >= m_analysis->importance.size())
            return std::nullopt;
        // Seed 004 score first; seed 001 points (< 10 000) break its ties.
        const an::Importance &imp = m_analysis->importance[std::size_t(pos)];
        return std::round(imp.score * 100) * 10000 + imp.points;
    }
    case BoundaryColumn: return boundaryScore(message);
    case RoundColumn: {
        if (!m_analysis)
            return std::nullopt;
        const RoundPart part = m_rows.roundPart[std::size_t(message)];
        const std::int32_t r = m_rows.round[std::size_t(message)];
        if (r < 0 || part == RoundPart::None || part == RoundPart::Through)
            return std::nullopt;
        return double(r) * 4 + partOrder(part); // call before its results
    }
    case CriticalColumn: {
        if (!m_analysis || !m_rows.criticalRank[std::size_t(message)])
            return std::nullopt;
        return double(m_rows.criticalRank[std::size_t(message)]);
    }
    default: return std::nullopt;
    }
}

QVariant TranscriptModel::roundCell(int message, int block) const
{
    if (!m_analysis)
        return {};
    const std::size_t i = std::size_t(message);
    const std::int32_t r = m_rows.round[i];
    RoundCell cell;
    cell.part = m_rows.roundPart[i];
    cell.chainPart = m_rows.chainPart[i];
    if (r >= 0) {
        const an::ToolRound &rd = m_analysis->rounds[std::size_t(r)];
        cell.round = r + 1;
        cell.chain = int(rd.chain);
        cell.failed = rd.failed;
    }
    // The file-order span of the bracket this row draws a part of, and of its chain line.
    const std::int32_t spanRound = cell.part == RoundPart::Through ? m_rows.throughRound[i] : r;
    if (spanRound >= 0 && cell.part != RoundPart::None) {
        cell.first = int(m_analysis->rounds[std::size_t(spanRound)].assistant);
        cell.last = int(m_rows.roundLast[std::size_t(spanRound)]);
    }
    if (const std::int32_t c = m_rows.chain[i]; c >= 0) {
        cell.chainFirst = int(m_rows.chains[std::size_t(c)].first);
        cell.chainLast = int(m_rows.chains[std::size_t(c)].second);
    }
    if (block >= 0) {
        // A block belongs to the round when it is one of its calls or answers one of them.
        if (r < 0)
            return {};
        const Block &b = m_transcript->messages[i].blocks[std::size_t(block)];
        const an::ToolRound &rd = m_analysis->rounds[std::size_t(r)];
        bool member = false;
        for (const an::ToolCall &c : rd.calls)
            if ((b.type == BlockType::ToolUse && c.message == i && c.block == std::size_t(block))
                || (b.type == BlockType::ToolResult && !b.toolId.empty() && c.id == b.toolId)) {
                member = true;
                break;
            }
        if (!member)
            return {};
        cell.block = true;
        cell.part = RoundPart::None;
        cell.chainPart = ChainPart::None;
        return QVariant::fromValue(cell);
    }
    if (cell.part == RoundPart::None && cell.chainPart == ChainPart::None)
        return {};
    return QVariant::fromValue(cell);
}

QVariant TranscriptModel::analysisData(int message, int block, int column, int role) const
{
    if (!m_analysis || !m_transcript || message < 0 || std::size_t(message) >= m_transcript->messages.size())
        return {};
    const bool messageRow = block < 0;
    switch (role) {
    case Qt::DisplayRole: {
        const QString s = analysisText(message, block, column);
        return s.isEmpty() ? QVariant() : QVariant(s);
    }
    case Qt::ToolTipRole: {
        const QString s = analysisToolTip(message, block, column);
        return s.isEmpty() ? QVariant() : QVariant(s);
    }
    case Qt::FontRole:
        if (messageRow && ((column == ImportanceColumn && isImportant(message)) || (column == BoundaryColumn && isChosenBoundary(message)))) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::ForegroundRole:
        // The red of error results (blockData), readable on light and dark bases.
        if (column == CriticalColumn && hasCritical(message, block))
            return QBrush(QColor(220, 50, 47));
        return {};
    case Qt::TextAlignmentRole:
        return column == ImportanceColumn || column == BoundaryColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case PriorityRole: {
        const int p = priorityClass(message, block);
        return p < 0 ? QVariant() : QVariant(p);
    }
    case ImportanceRole:
    case ImportantRole:
    case PointsRole: {
        const std::int32_t pos = positionOf(message);
        if (!messageRow || pos < 0 || std::size_t(pos) >= m_analysis->importance.size())
            return {};
        const an::Importance &imp = m_analysis->importance[std::size_t(pos)];
        return role == ImportanceRole ? QVariant(imp.score) : role == ImportantRole ? QVariant(imp.important)
                                                                                    : QVariant(imp.points);
    }
    case BoundaryScoreRole: {
        const auto s = messageRow ? boundaryScore(message) : std::nullopt;
        return s ? QVariant(*s) : QVariant();
    }
    case BoundaryMaxRole: return m_rows.maxBoundary;
    case ChosenBoundaryRole: return messageRow && isChosenBoundary(message);
    case RoundRole: return roundCell(message, block);
    case CriticalRole: {
        QStringList cats;
        const std::uint32_t b = m_rows.markBegin[std::size_t(message)], e = m_rows.markBegin[std::size_t(message) + 1];
        for (std::uint32_t i = b; i < e; ++i)
            if (messageRow || m_rows.marks[i].block == block) {
                const QString c = text::fromUtf8(m_analysis->critical[m_rows.marks[i].critical].category);
                if (!cats.contains(c))
                    cats << c;
            }
        return cats.isEmpty() ? QVariant() : QVariant(cats.join(u','));
    }
    case SortRole: {
        if (!messageRow)
            return block; // children keep block order
        const auto k = sortKey(message, column);
        return k ? QVariant(*k) : QVariant();
    }
    }
    return {};
}

QString TranscriptModel::analysisText(int message, int block, int column) const
{
    const bool messageRow = block < 0;
    switch (column) {
    case PriorityColumn: {
        const int p = priorityClass(message, block);
        return p < 0 ? QString() : sv(an::priorityName(an::Priority(p)));
    }
    case ImportanceColumn: {
        const std::int32_t pos = positionOf(message);
        if (!messageRow || pos < 0 || std::size_t(pos) >= m_analysis->importance.size())
            return {};
        const an::Importance &imp = m_analysis->importance[std::size_t(pos)];
        return QStringLiteral("%1 · %2 pts").arg(QString::number(imp.score, 'f', 2)).arg(imp.points);
    }
    case BoundaryColumn: {
        const auto s = messageRow ? boundaryScore(message) : std::nullopt;
        if (!s)
            return {};
        return isChosenBoundary(message) ? QStringLiteral("✂ %1").arg(score(*s)) : score(*s);
    }
    case RoundColumn: {
        const QVariant v = roundCell(message, block);
        const RoundCell c = v.value<RoundCell>();
        if (!v.isValid() || c.round < 0 || c.part == RoundPart::Through)
            return {};
        return QString::number(c.round);
    }
    case CriticalColumn: {
        const QString cats = analysisData(message, block, column, CriticalRole).toString();
        if (cats.isEmpty())
            return {};
        bool call = false;
        const std::uint32_t b = m_rows.markBegin[std::size_t(message)], e = m_rows.markBegin[std::size_t(message) + 1];
        for (std::uint32_t i = b; i < e; ++i)
            if ((messageRow || m_rows.marks[i].block == block) && !m_rows.marks[i].result)
                call = true;
        // ⚠ on the call, ↳ on the result that answers a critical call.
        return (call ? QStringLiteral("⚠ ") : QStringLiteral("↳ ")) + QString(cats).replace(u',', QStringLiteral(", "));
    }
    }
    return {};
}

QString TranscriptModel::analysisToolTip(int message, int block, int column) const
{
    const bool messageRow = block < 0;
    const std::int32_t pos = positionOf(message);
    QStringList lines;
    switch (column) {
    case PriorityColumn: {
        const an::PriorityInfo &info = m_analysis->priority[std::size_t(message)];
        if (priorityClass(message, block) < 0)
            return {};
        if (!messageRow) {
            lines << tr("Priority: %1").arg(priorityLine(info.blocks[std::size_t(block)], info.blockRules[std::size_t(block)]));
            break;
        }
        lines << tr("Priority: %1").arg(priorityLine(info.priority, info.rule));
        // Blocks whose class differs from the message's (several results in one message).
        for (std::size_t b = 0; b < info.blocks.size() && b < info.blockRules.size(); ++b)
            if (info.blocks[b] != info.priority || info.blockRules[b] != info.rule)
                lines << tr("  block %1: %2").arg(b).arg(priorityLine(info.blocks[b], info.blockRules[b]));
        break;
    }
    case ImportanceColumn: {
        if (!messageRow || pos < 0 || std::size_t(pos) >= m_analysis->importance.size())
            return {};
        const an::Importance &imp = m_analysis->importance[std::size_t(pos)];
        lines << tr("Importance: %1, %2").arg(QString::number(imp.score, 'f', 2), imp.important ? tr("important") : tr("not important"));
        for (const an::Reason &r : an::reasonsFor(imp, m_analysis->options))
            lines << reasonLine(r, 2);
        lines << tr("Points: %1").arg(imp.points);
        for (const an::Reason &r : an::pointReasonsFor(imp))
            lines << reasonLine(r, 0);
        break;
    }
    case BoundaryColumn: {
        if (!messageRow || pos < 1 || std::size_t(pos) > m_analysis->boundaries.size())
            return {};
        const an::BoundaryScore &b = m_analysis->boundaries[std::size_t(pos) - 1];
        lines << tr("Cut before message %1 (conversation position %2): score %3").arg(message + 1).arg(pos).arg(score(b.score));
        if (isChosenBoundary(message))
            lines << tr("the chosen compaction boundary");
        for (const an::Reason &r : an::reasonsFor(b, m_analysis->options))
            lines << reasonLine(r, 0);
        break;
    }
    case RoundColumn: {
        const std::int32_t r = m_rows.round[std::size_t(message)];
        const QVariant v = roundCell(message, block);
        if (!v.isValid())
            return {};
        if (r < 0 || v.value<RoundCell>().part == RoundPart::Through) {
            lines << tr("Inside a tool round (this row is not part of it)");
            break;
        }
        const an::ToolRound &rd = m_analysis->rounds[std::size_t(r)];
        std::size_t chainFirst = std::size_t(r), chainLast = std::size_t(r);
        while (chainFirst > 0 && m_analysis->rounds[chainFirst - 1].chain == rd.chain)
            --chainFirst;
        while (chainLast + 1 < m_analysis->rounds.size() && m_analysis->rounds[chainLast + 1].chain == rd.chain)
            ++chainLast;
        lines << tr("Tool round %1: call in message %2").arg(r + 1).arg(rd.assistant + 1);
        if (chainLast > chainFirst)
            lines << tr("chained rounds %1–%2 (no user request between them)").arg(chainFirst + 1).arg(chainLast + 1);
        for (const an::ToolCall &c : rd.calls) {
            const QString where = c.resultMessage < 0 ? tr("unanswered") : tr("result in message %1").arg(c.resultMessage + 1);
            lines << QStringLiteral("  %1 (%2): %3%4").arg(sv(c.name), sv(an::toolKindName(c.kind)), where, c.failed ? tr(", failed") : QString());
        }
        break;
    }
    case CriticalColumn: {
        const std::uint32_t b = m_rows.markBegin[std::size_t(message)], e = m_rows.markBegin[std::size_t(message) + 1];
        for (std::uint32_t i = b; i < e; ++i) {
            const CriticalMark &mk = m_rows.marks[i];
            if (!messageRow && mk.block != block)
                continue;
            const an::CriticalTool &ct = m_analysis->critical[mk.critical];
            lines << tr("%1: %2%3").arg(text::fromUtf8(ct.category), text::fromUtf8(ct.reason), mk.result ? tr(" (this is its result; call in message %1)").arg(ct.message + 1) : QString());
        }
        break;
    }
    }
    return lines.join(u'\n');
}

QString TranscriptModel::analysisHeaderToolTip(int section)
{
    switch (section) {
    case PriorityColumn: return tr("Priority class, what a compaction must keep: sacred > critical > high > medium > low > lowest");
    case ImportanceColumn: return tr("Importance score (0–1) · points; bold = important");
    case BoundaryColumn: return tr("How good a place to cut before this message is; ✂ marks the chosen boundary");
    case RoundColumn: return tr("Tool round: an assistant call and the messages holding its results; chained rounds are linked");
    case CriticalColumn: return tr("Critical tool calls: file_modification, system_change, error_context");
    }
    return {};
}

} // namespace cl::gui
