// SPDX-License-Identifier: MIT
// The subagents of a Claude Code session in the transcript tree: under the Task / Agent call that
// started one, the subagent's own messages (read from its file), greyed like every row that is not
// part of the session's own context; the call's row says how big and how long the run was.
#include "widgets/models/transcriptmodel.h"

#include "widgets/models/roles.h"
#include "widgets/models/transcriptmodel_text.h"

#include "core/cost/sessioncost.h"
#include "core/llm/pricing.h"
#include "core/tokens/estimator.h"
#include "core/util/numbertext.h"

#include <QGuiApplication>
#include <QPalette>

#include <algorithm>

namespace cl::gui {

void TranscriptModel::linkSubagents()
{
    m_runs.clear();
    m_runCosts.clear();
    m_runAt.clear();
    m_nestedAt.clear();
    m_rowOffset.clear();
    m_contactAt.clear();
    if (!m_transcript)
        return;
    // The shipped prices and the user's own (prices.json), read once.
    static const llm::PriceTable prices = [] {
        llm::PriceTable table;
        std::string error;
        llm::PriceTable::load(table, {}, &error);
        return table;
    }();
    m_runs = analysis::subagentRuns(*m_transcript);
    m_runCosts = cost::subagentCosts(*m_transcript, prices);
    m_rowOffset.assign(m_runs.size(), 0);
    for (std::size_t r = 0; r < m_runs.size(); ++r) {
        const analysis::SubagentRun &run = m_runs[r];
        for (const auto *contacts : {&run.messagesTo, &run.notifications})
            for (std::int32_t message : *contacts)
                m_contactAt.emplace(message, int(r));
        if (run.message < 0)
            continue;
        if (run.parentRun < 0)
            m_runAt.emplace(quint64(run.message) << 32 | quint32(run.block), int(r));
        else
            m_nestedAt[quint64(run.parentRun) << 32 | quint32(run.message)].push_back(int(r));
    }
    // Runs started by one message follow each other in the order of their calls.
    for (auto &[key, runs] : m_nestedAt) {
        std::sort(runs.begin(), runs.end(), [this](int a, int b) { return m_runs[std::size_t(a)].block < m_runs[std::size_t(b)].block; });
        int offset = 0;
        for (int r : runs) {
            m_rowOffset[std::size_t(r)] = offset;
            if (const Transcript *sub = subagentTranscript(r))
                offset += int(sub->messages.size());
        }
    }
}

const std::vector<int> &TranscriptModel::nestedRuns(int run, int message) const
{
    static const std::vector<int> none;
    if (m_nestedAt.empty() || run < 0 || message < 0)
        return none;
    const auto it = m_nestedAt.find(quint64(run) << 32 | quint32(message));
    return it == m_nestedAt.end() ? none : it->second;
}

QModelIndex TranscriptModel::indexForSubagentMessage(int run, int message) const
{
    const Transcript *sub = subagentTranscript(run);
    if (!sub || message < 0 || message >= int(sub->messages.size()) || m_runs[std::size_t(run)].sessionMessage < 0)
        return {}; // a run not under a call of the session has no row
    return createIndex(subagentRow(run, message), 0, kSubagentRow | quintptr(run));
}

QModelIndex TranscriptModel::subagentChild(int run, int message, int row, int column) const
{
    for (int child : nestedRuns(run, message)) {
        const Transcript *sub = subagentTranscript(child);
        const int first = m_rowOffset[std::size_t(child)], size = sub ? int(sub->messages.size()) : 0;
        if (row >= first && row < first + size)
            return createIndex(row, column, kSubagentRow | quintptr(child));
    }
    return {};
}

int TranscriptModel::subagentChildren(int run, int message) const
{
    int rows = 0;
    for (int child : nestedRuns(run, message))
        if (const Transcript *sub = subagentTranscript(child))
            rows += int(sub->messages.size());
    return rows;
}

int TranscriptModel::runAt(int message, int block) const
{
    if (m_runAt.empty() || message < 0 || block < 0)
        return -1;
    const auto it = m_runAt.find(quint64(message) << 32 | quint32(block));
    return it == m_runAt.end() ? -1 : it->second;
}

const Transcript *TranscriptModel::subagentTranscript(int run) const
{
    if (run < 0 || std::size_t(run) >= m_runs.size() || !m_transcript)
        return nullptr;
    const std::size_t s = m_runs[std::size_t(run)].subagent;
    return s < m_transcript->subagents.size() ? m_transcript->subagents[s].get() : nullptr;
}

QString TranscriptModel::runSummary(int run) const
{
    const analysis::SubagentRun &r = m_runs[std::size_t(run)];
    QString who = tr("subagent");
    if (!r.name.empty())
        who += QStringLiteral(" ") + text::fromUtf8(r.name);
    if (r.background)
        who += tr(" (in the background)");
    QString s = who + (r.messages == 1 ? tr(": 1 message") : tr(": %1 messages").arg(r.messages)) + tr(", %L1 tokens").arg(r.tokens);
    if (const QString d = QString::fromStdString(util::durationText(r.durationMs)); !d.isEmpty())
        s += QStringLiteral(", ") + d;
    if (r.toolUses >= 0)
        s += r.toolUses == 1 ? tr(", 1 tool use") : tr(", %1 tool uses").arg(r.toolUses);
    if (r.subagent < m_runCosts.size() && m_runCosts[r.subagent].priced) {
        const cost::SubagentCost &c = m_runCosts[r.subagent];
        s += QStringLiteral(", $%1").arg(c.dollars, 0, 'f', c.dollars < 1 ? 3 : 2);
        if (!c.complete)
            s += tr(" (some models unpriced)");
    }
    return s;
}

QString TranscriptModel::contactPrefix(int message) const
{
    const auto it = m_contactAt.find(message);
    if (it == m_contactAt.end())
        return {};
    const analysis::SubagentRun &r = m_runs[std::size_t(it->second)];
    const QString who = text::fromUtf8(r.name.empty() ? r.agentId : r.name);
    const bool notification = std::binary_search(r.notifications.begin(), r.notifications.end(), message);
    return (notification ? tr("subagent %1 stopped").arg(who) : tr("to subagent %1").arg(who)) + QStringLiteral(" \u00b7 ");
}

QVariant TranscriptModel::subagentData(int run, int row, int column, int role) const
{
    const Transcript *sub = subagentTranscript(run);
    if (!sub || row < 0 || row >= int(sub->messages.size()))
        return {};
    const Message &m = sub->messages[std::size_t(row)];
    const analysis::SubagentRun &r = m_runs[std::size_t(run)];
    // The agents this message started: their size before its own text.
    QString started;
    for (int child : nestedRuns(run, row))
        started += runSummary(child) + QStringLiteral(" · ");
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case IndexColumn: return QStringLiteral("\u21b3 %1").arg(row + 1);
        case TimeColumn: return text::timeLabel(m.timeMs);
        case RoleColumn: return text::roleLabel(m);
        case PreviewColumn: return QString(started + text::messagePreview(m));
        case TokensColumn: return qint64(tokens::estimateMessage(m));
        }
        return {};
    case Qt::ToolTipRole: {
        QString owner = tr("Subagent %1: its own conversation, not part of this session's context").arg(text::fromUtf8(r.agentId));
        if (r.parentRun >= 0)
            owner += tr(" (started by subagent %1)").arg(text::fromUtf8(m_runs[std::size_t(r.parentRun)].agentId));
        if (!started.isEmpty())
            owner += QStringLiteral("\n") + started.chopped(3);
        return QString(owner + QStringLiteral("\n") + text::messageToolTip(m));
    }
    case Qt::TextAlignmentRole:
        return column == IndexColumn || column == TokensColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::ForegroundRole: return QGuiApplication::palette().brush(QPalette::Disabled, QPalette::Text);
    case TokensRole: return qint64(tokens::estimateMessage(m));
    case MaxTokensRole: return m_maxTokens;
    // The session's own row it belongs to: the call (the analysis and the map follow it).
    case MessageIndexRole: return r.sessionMessage;
    case BlockIndexRole: return r.sessionBlock;
    case SubagentRole: return run;
    case SubagentMessageRole: return row;
    case RoleNameRole: return text::fromUtf8(roleName(m.role));
    case KindRole: return text::fromUtf8(messageKindName(m.kind));
    case RawJsonRole: return rawJson(*sub, m);
    case FilterTextRole: { // no block rows below: the blocks' text is the message's
        QString all = text::messageFilterText(m);
        for (const Block &b : m.blocks)
            all += u' ' + text::blockFilterText(b);
        return all;
    }
    case ToolNameRole: return QString();
    case SourceLineRole: return 0; // a line of another file
    case IsSecondaryRole: return true;
    case IsBoundaryRole: return false;
    case IsMetaOrEventRole: return m.isEvent();
    case IsHistoryRole: return false;
    }
    return {};
}

} // namespace cl::gui
