// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/transcript.h"

#include <QAbstractTableModel>

#include <vector>

namespace cl::gui {

// Flat table of the loader's diagnostics (including subagent files).
class DiagnosticsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        SeverityColumn,
        LocationColumn,
        MessageColumn,
        ColumnCount
    };

    explicit DiagnosticsModel(QObject *parent = nullptr);

    void setDiagnostics(std::vector<Diagnostic> diagnostics);
    const Diagnostic &diagnostic(int row) const { return m_diagnostics[std::size_t(row)]; }
    int errorCount() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    static QString severityName(Diagnostic::Severity s);

private:
    std::vector<Diagnostic> m_diagnostics;
};

} // namespace cl::gui
