// SPDX-License-Identifier: MIT
#include "widgets/models/simulationmodel.h"

#include <QLocale>

namespace cl::gui {

SimulationModel::SimulationModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void SimulationModel::setSimulation(std::shared_ptr<const sim::Simulation> simulation,
                                    std::shared_ptr<const cost::SimulationCost> cost)
{
    beginResetModel();
    m_sim = std::move(simulation);
    m_cost = m_sim && cost && cost->turns.size() == m_sim->turns.size() ? std::move(cost) : nullptr;
    endResetModel();
}

int SimulationModel::rowOfTurn(int turn) const
{
    // Turns are consecutive from 1, so the row is turn - 1 when it exists.
    return turn >= 1 && turn <= rowCount() ? turn - 1 : -1;
}

int SimulationModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_sim ? 0 : int(m_sim->turns.size());
}

int SimulationModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SimulationModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !m_sim)
        return {};
    const sim::TurnPoint &p = m_sim->turns[std::size_t(index.row())];
    const double share = m_sim->window > 0 ? double(p.liveWith) / double(m_sim->window) : 0.0;
    const bool priced = m_cost && m_cost->price;
    const cost::SimulatedTurnCost *turnCost = m_cost ? &m_cost->turns[std::size_t(index.row())] : nullptr;
    switch (role) {
    case TurnFirstIndexRole: return int(p.firstIndex);
    case TurnRole: return int(p.turn);
    case ChangedRole: return p.changed;
    case ValueRole:
        switch (index.column()) {
        case TurnColumn: return int(p.turn);
        case MessagesColumn: return qint64(p.messages);
        case WithoutColumn: return qint64(p.liveWithout);
        case WithColumn: return qint64(p.liveWith);
        case ShareColumn: return share;
        case ManagedColumn: return qint64(p.managedMessages);
        case CostColumn: return priced ? QVariant(turnCost->with.dollars) : QVariant();
        case NoteColumn: return p.changed;
        }
        return {};
    case Qt::TextAlignmentRole:
        return index.column() == NoteColumn ? QVariant(int(Qt::AlignLeft | Qt::AlignVCenter))
                                            : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    case Qt::ToolTipRole:
        if (index.column() == NoteColumn || index.column() == WithColumn)
            return tr("Step %1 (messages %2–%3): live context %4 before the strategy, %5 after (conversation %6 → %7, "
                      "plain estimate).\n%8")
                .arg(p.turn)
                .arg(p.firstIndex)
                .arg(p.lastIndex)
                .arg(QLocale().toString(qint64(p.liveBefore)), QLocale().toString(qint64(p.liveWith)),
                     QLocale().toString(qint64(p.beforeStrategy)), QLocale().toString(qint64(p.with)), QString::fromStdString(p.note));
        if (index.column() == CostColumn && priced) {
            const QLocale loc;
            const QString requests = turnCost->requests == 1 ? tr("1 request") : tr("%1 requests").arg(turnCost->requests);
            return tr("Turn %1: %2, priced as %3\nWith the strategy: $%4 (cache read %5, written %6, output %7 "
                      "tokens)\nWithout: $%8 (cache read %9, written %10, output %11 tokens)")
                .arg(p.turn)
                .arg(requests, QString::fromStdString(m_cost->model), loc.toString(turnCost->with.dollars, 'f', 4),
                     loc.toString(qint64(turnCost->with.tokens.cacheRead)), loc.toString(qint64(turnCost->with.tokens.cacheWrite5m)),
                     loc.toString(qint64(turnCost->with.tokens.output)), loc.toString(turnCost->without.dollars, 'f', 4),
                     loc.toString(qint64(turnCost->without.tokens.cacheRead)))
                .arg(loc.toString(qint64(turnCost->without.tokens.cacheWrite5m)), loc.toString(qint64(turnCost->without.tokens.output)));
        }
        if (index.column() == CostColumn && m_cost)
            return QString::fromStdString(m_cost->error);
        return {};
    case Qt::DisplayRole: {
        const QLocale loc;
        switch (index.column()) {
        case TurnColumn: return QString::number(p.turn);
        case MessagesColumn: return QString::number(p.messages);
        case WithoutColumn: return loc.toString(qint64(p.liveWithout));
        case WithColumn: return loc.toString(qint64(p.liveWith));
        case ShareColumn: return QStringLiteral("%1 %").arg(loc.toString(share * 100, 'f', 1));
        case ManagedColumn: return QString::number(p.managedMessages);
        case CostColumn: return priced ? QStringLiteral("$%1").arg(loc.toString(turnCost->with.dollars, 'f', 4)) : QStringLiteral("?");
        case NoteColumn:
            return QString((p.changed ? QStringLiteral("✱ ") : QString()) + QString::fromStdString(p.note));
        }
        return {};
    }
    default: return {};
    }
}

QVariant SimulationModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::DisplayRole) {
        switch (section) {
        case TurnColumn: return m_sim && m_sim->step == sim::Step::Turn ? tr("Turn") : tr("Request");
        case MessagesColumn: return tr("Messages");
        case WithoutColumn: return tr("Without");
        case WithColumn: return tr("With");
        case ShareColumn: return tr("Of window");
        case ManagedColumn: return tr("Managed");
        case CostColumn: return tr("Cost");
        case NoteColumn: return tr("Strategy");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case TurnColumn:
            return m_sim && m_sim->step == sim::Step::Turn ? tr("A turn starts at each user request")
                                                           : tr("A step is one request to the model: it ends at each response");
        case MessagesColumn: return tr("Conversation messages in the step");
        case WithoutColumn: return tr("Live context after this step without any strategy (fixed part included, in the agent's count)");
        case WithColumn: return tr("Live context after this step with the strategy run after every step");
        case ShareColumn: return tr("With, as a share of the context window");
        case ManagedColumn: return tr("Messages in the managed context after the strategy");
        case CostColumn:
            return tr("Dollars of the turn's requests with the strategy, prompt cache included: each response reads "
                      "the cached prefix, writes the rest and pays its output; a compaction rewrites the cache "
                      "(estimated tokens, priced as the session's model)");
        case NoteColumn: return tr("✱: the strategy changed the context at this step; its note");
        }
    }
    return {};
}

} // namespace cl::gui
