// SPDX-License-Identifier: MIT
#pragma once

// One side of the strategy preview: the original messages (Side::Original) or the result's
// messages (Side::Result, one row per Slot), with the same columns, each row carrying its fate.
// Two instances over the same result make the side-by-side view; partnerRow() maps a row to the
// other side's row (-1 for a removed original or an inserted message).

#include "core/strategy/strategy.h"
#include "core/model/transcript.h"
#include "widgets/models/eventfolds.h"
#include "widgets/models/roles.h"

#include <QAbstractTableModel>

#include <memory>

namespace cl::gui {

class ResultModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum class Side {
        Original,
        Result
    };
    enum Column {
        IndexColumn,
        RoleColumn,
        PreviewColumn,
        TokensColumn,
        FateColumn,
        ColumnCount
    };

    explicit ResultModel(Side side, QObject *parent = nullptr);

    Side side() const { return m_side; }
    // original: the transcript the result was computed on. result may be null: the original side
    // then lists the messages as kept, the result side is empty.
    void setResult(std::shared_ptr<const Transcript> original, std::shared_ptr<const cl::strategy::Result> result);
    void clear() { setResult(nullptr, nullptr); }
    const std::shared_ptr<const Transcript> &original() const { return m_original; }
    const std::shared_ptr<const cl::strategy::Result> &result() const { return m_result; }

    // Row colours follow the palette: the views call this on palette changes.
    void setDarkPalette(bool dark);
    bool darkPalette() const { return m_dark; }

    // Folds unchanged event and metadata rows into the message before them (eventfolds.h): the view
    // hides the rows isFolded() names, the owner's Role cell says "▸ N events". A changed event stays.
    void setFoldEvents(bool fold);
    bool foldEvents() const { return m_fold; }
    bool isFolded(int row) const;

    int partnerRow(int row) const;
    cl::strategy::Fate fate(int row) const;
    QString reason(int row) const;
    const Message *message(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const Transcript> m_original;
    std::shared_ptr<const cl::strategy::Result> m_result;
    Side m_side;
    bool m_dark = false;
    bool m_fold = false;
    EventFolds m_folds;

    void rebuildFolds();
};

} // namespace cl::gui
