// SPDX-License-Identifier: MIT
#include "widgets/models/diagnosticsmodel.h"

#include "widgets/models/roles.h"

#include <QBrush>
#include <QColor>
#include <QFileInfo>

#include <algorithm>

namespace cl::gui {

DiagnosticsModel::DiagnosticsModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void DiagnosticsModel::setDiagnostics(std::vector<Diagnostic> diagnostics)
{
    beginResetModel();
    m_diagnostics = std::move(diagnostics);
    endResetModel();
}

int DiagnosticsModel::errorCount() const
{
    return int(std::count_if(m_diagnostics.begin(), m_diagnostics.end(),
                             [](const Diagnostic &d) { return d.severity == Diagnostic::Severity::Error; }));
}

int DiagnosticsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_diagnostics.size());
}

int DiagnosticsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString DiagnosticsModel::severityName(Diagnostic::Severity s)
{
    switch (s) {
    case Diagnostic::Severity::Info: return tr("info");
    case Diagnostic::Severity::Warning: return tr("warning");
    case Diagnostic::Severity::Error: return tr("error");
    }
    return {};
}

QVariant DiagnosticsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Diagnostic &d = m_diagnostics[std::size_t(index.row())];
    const QString file = QString::fromStdString(d.file);
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case SeverityColumn: return severityName(d.severity);
        case LocationColumn: {
            const QString name = QFileInfo(file).fileName();
            return d.line ? name + u':' + QString::number(d.line) : name;
        }
        case MessageColumn: return QString::fromStdString(d.message);
        }
        return {};
    case Qt::ToolTipRole: return QString::fromStdString(d.toString());
    case Qt::ForegroundRole:
        if (index.column() == SeverityColumn && d.severity == Diagnostic::Severity::Error)
            return QBrush(QColor(220, 50, 47));
        if (index.column() == SeverityColumn && d.severity == Diagnostic::Severity::Warning)
            return QBrush(QColor(203, 130, 0));
        return {};
    case SourceLineRole: return int(d.line);
    case SeverityRole: return int(d.severity);
    }
    return {};
}

QVariant DiagnosticsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case SeverityColumn: return tr("Severity");
    case LocationColumn: return tr("Location");
    case MessageColumn: return tr("Message");
    }
    return {};
}

} // namespace cl::gui
