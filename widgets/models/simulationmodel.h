// SPDX-License-Identifier: MIT
#pragma once

// One row per simulated turn (cl::sim::TurnPoint): turn, messages, context without / with the
// strategy, its share of the window, managed messages, the turn's dollars with the strategy
// (cl::cost::SimulationCost, when given) and what the strategy did.

#include "core/cost/simulationcost.h"
#include "core/strategy/simulation.h"
#include "widgets/models/roles.h"

#include <QAbstractTableModel>

#include <memory>

namespace cl::gui {

class SimulationModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        TurnColumn,
        MessagesColumn,
        WithoutColumn,
        WithColumn,
        ShareColumn,
        ManagedColumn,
        CostColumn,
        NoteColumn,
        ColumnCount
    };

    explicit SimulationModel(QObject *parent = nullptr);

    // `cost`: its turns priced (null or unpriced: the Cost column reads "?").
    void setSimulation(std::shared_ptr<const sim::Simulation> simulation,
                       std::shared_ptr<const cost::SimulationCost> cost = nullptr);
    void clear() { setSimulation(nullptr); }
    const sim::Simulation *simulation() const { return m_sim.get(); }
    // Row of a 1-based turn, -1 when absent.
    int rowOfTurn(int turn) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const sim::Simulation> m_sim;
    std::shared_ptr<const cost::SimulationCost> m_cost;
};

} // namespace cl::gui
