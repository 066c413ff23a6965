// SPDX-License-Identifier: MIT
#pragma once

#include "core/workflow/composition.h"

#include <QAbstractTableModel>

#include <memory>

namespace cl::gui {

// The categories of a composition (core/workflow/composition.h) as a table: category (with its
// colour), tokens, share of the live context (of the window for free space and the reserved buffer),
// items. The tooltip of a row lists the category's largest items; CategoryKeyRole gives its key.
class CompositionModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        CategoryColumn,
        TokensColumn,
        ShareColumn,
        ItemsColumn,
        ColumnCount
    };
    enum Roles {
        CategoryKeyRole = Qt::UserRole + 300,
        GroupRole /* int composition::Group */
    };

    explicit CompositionModel(QObject *parent = nullptr);

    void setComposition(std::shared_ptr<const cl::composition::Composition> composition);
    const std::shared_ptr<const cl::composition::Composition> &composition() const { return m_c; }
    // The category of a row, nullptr when out of range.
    const cl::composition::Category *category(int row) const;
    void setDark(bool dark);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // "12.4 K" / "850" — the short figure the panel and its tooltips use.
    static QString shortTokens(qint64 tokens);

private:
    QString tooltip(const cl::composition::Category &c) const;

    std::shared_ptr<const cl::composition::Composition> m_c;
    bool m_dark = false;
};

} // namespace cl::gui
