// SPDX-License-Identifier: MIT
#include "widgets/mainwindow/diagnosticspanel.h"

#include "widgets/models/diagnosticsmodel.h"
#include "widgets/models/roles.h"

#include <QHeaderView>
#include <QTreeView>

namespace cl::gui {

DiagnosticsPanel::DiagnosticsPanel(QWidget *parent)
    : QDockWidget(tr("Diagnostics"), parent)
    , m_model(new DiagnosticsModel(this))
    , m_view(new QTreeView(this))
{
    setObjectName(QStringLiteral("diagnosticsDock"));
    m_view->setModel(m_model);
    m_view->setRootIsDecorated(false);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->header()->resizeSection(DiagnosticsModel::SeverityColumn, 80);
    m_view->header()->resizeSection(DiagnosticsModel::LocationColumn, 220);
    m_view->header()->setStretchLastSection(true);
    setWidget(m_view);
    connect(m_view, &QTreeView::doubleClicked, this, [this](const QModelIndex &idx) {
        const int line = idx.data(SourceLineRole).toInt();
        if (line > 0)
            Q_EMIT lineActivated(quint32(line));
    });
}

void DiagnosticsPanel::setTranscript(const Transcript *transcript)
{
    std::vector<Diagnostic> all;
    if (transcript) {
        all = transcript->diagnostics;
        for (const auto &sub : transcript->subagents)
            if (sub)
                all.insert(all.end(), sub->diagnostics.begin(), sub->diagnostics.end());
    }
    m_model->setDiagnostics(std::move(all));
    setWindowTitle(tr("Diagnostics (%1)").arg(m_model->rowCount()));
}

} // namespace cl::gui
