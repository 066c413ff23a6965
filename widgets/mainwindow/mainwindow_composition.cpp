// SPDX-License-Identifier: MIT
// The composition dock: where the live context goes at the selected message. Tabbed with the
// analysis dock; it computes only while shown. A category filters the transcript to its messages, a
// suggestion opens its strategy's preview, the chart selects a message.
#include "widgets/mainwindow/mainwindow.h"

#include "widgets/analysis/compositionpanel.h"
#include "widgets/strategy/paramform.h"
#include "widgets/strategy/strategypanel.h"
#include "widgets/transcript/contextgauge.h"
#include "widgets/transcript/transcriptpanel.h"

#include <QDockWidget>
#include <QStatusBar>

#include <nlohmann/json.hpp>

namespace cl::gui {

void MainWindow::createCompositionDock()
{
    m_compositionPanel = new CompositionPanel(this);
    m_compositionDock = new QDockWidget(tr("Composition"), this);
    m_compositionDock->setObjectName(QStringLiteral("compositionDock"));
    m_compositionDock->setWidget(m_compositionPanel);
    addDockWidget(Qt::RightDockWidgetArea, m_compositionDock);
    tabifyDockWidget(m_analysisDock, m_compositionDock);
    m_analysisDock->raise(); // the analysis stays the first tab; the composition is one click away
    connectComposition();
}

void MainWindow::connectComposition()
{
    connect(m_compositionDock, &QDockWidget::visibilityChanged, m_compositionPanel, &CompositionPanel::setActive);
    connect(m_gauge, &ContextGauge::contextWindowChanged, m_compositionPanel, &CompositionPanel::setContextWindow);
    connect(m_compositionPanel, &CompositionPanel::messageActivated, this, &MainWindow::jumpToMessage);
    connect(m_compositionPanel, &CompositionPanel::categoryFilterRequested, this,
            [this](const QString &label, const QList<int> &messages) {
                m_transcriptPanel->setMessageFilter(label, messages);
                tell(tr("Showing the %n message(s) holding %1", nullptr, int(messages.size())).arg(label));
            });
    connect(m_compositionPanel, &CompositionPanel::suggestionActivated, this, &MainWindow::previewSuggestion);
}

void MainWindow::previewSuggestion(const QString &strategy, const QString &paramsJson)
{
    if (!m_strategyPanel->setCurrentStrategy(strategy)) {
        tellFailure(tr("No strategy named %1").arg(strategy));
        return;
    }
    // The suggestion's parameters (force: past the strategy's own trigger, as the saving was measured).
    const nlohmann::json params = nlohmann::json::parse(paramsJson.toStdString(), nullptr, false);
    QString error;
    if (params.is_object() && !params.empty() && !m_strategyPanel->paramForm()->setValues(params, &error))
        tellFailure(tr("Some parameters were not set: %1").arg(error));
    m_strategyDock->show();
    m_strategyDock->raise();
    m_strategyPanel->runPreview();
}

} // namespace cl::gui
