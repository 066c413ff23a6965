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

namespace cl::gui {

void TranscriptModel::linkSubagents()
{
    m_runs.clear();
    m_runCosts.clear();
    m_runAt.clear();
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
    for (std::size_t r = 0; r < m_runs.size(); ++r)
        if (m_runs[r].message >= 0)
            m_runAt.emplace(quint64(m_runs[r].message) << 32 | quint32(m_runs[r].block), int(r));
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
    QString s = (r.messages == 1 ? tr("subagent: 1 message") : tr("subagent: %1 messages").arg(r.messages))
                + tr(", %L1 tokens").arg(r.tokens);
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

QVariant TranscriptModel::subagentData(int run, int row, int column, int role) const
{
    const Transcript *sub = subagentTranscript(run);
    if (!sub || row < 0 || row >= int(sub->messages.size()))
        return {};
    const Message &m = sub->messages[std::size_t(row)];
    const analysis::SubagentRun &r = m_runs[std::size_t(run)];
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case IndexColumn: return QStringLiteral("\u21b3 %1").arg(row + 1);
        case TimeColumn: return text::timeLabel(m.timeMs);
        case RoleColumn: return text::roleLabel(m);
        case PreviewColumn: return text::messagePreview(m);
        case TokensColumn: return qint64(tokens::estimateMessage(m));
        }
        return {};
    case Qt::ToolTipRole:
        return QString(tr("Subagent %1: its own conversation, not part of this session's context").arg(text::fromUtf8(r.agentId))
                       + QStringLiteral("\n") + text::messageToolTip(m));
    case Qt::TextAlignmentRole:
        return column == IndexColumn || column == TokensColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::ForegroundRole: return QGuiApplication::palette().brush(QPalette::Disabled, QPalette::Text);
    case TokensRole: return qint64(tokens::estimateMessage(m));
    case MaxTokensRole: return m_maxTokens;
    // The session's own row it belongs to: the call (the analysis and the map follow it).
    case MessageIndexRole: return r.message;
    case BlockIndexRole: return r.block;
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
