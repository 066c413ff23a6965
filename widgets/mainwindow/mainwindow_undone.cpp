// SPDX-License-Identifier: MIT
// An undone compaction (core/workflow/undonecompaction.h): the banner over the transcript says at once
// that the agent continued from before a compaction ContextLens saved, whether the file was just
// opened or grew while it was followed; Re-apply runs that compaction's strategies again on the
// working transcript, one undo step, for File › Save to write once the agent is done.
#include "core/strategies/registry.h"
#include "core/strategy/strategy.h"
#include "core/util/json.h"
#include "core/workflow/undonecompaction.h"
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/analysis/analysiscontroller.h"
#include "widgets/mainwindow/undonebanner.h"
#include "widgets/transcript/contextgauge.h"
#include "widgets/strategy/strategypanel.h"
#include "widgets/transcript/transcriptdocument.h"

#include <QStatusBar>
#include <QUndoStack>
#include <QVBoxLayout>

namespace cl::gui {

void MainWindow::createUndoneBanner()
{
    m_undoneBanner = new UndoneBanner(this);
    if (auto *column = qobject_cast<QVBoxLayout *>(centralWidget()->layout()))
        column->insertWidget(column->indexOf(m_tabs), m_undoneBanner); // right over the transcript
    connect(m_undoneBanner, &UndoneBanner::reapplyRequested, this, &MainWindow::reapplyUndone);
    connect(this, &MainWindow::loadFinished, this, [this](bool) { updateUndoneBanner(m_doc->original().get()); });
}

void MainWindow::updateUndoneBanner(const Transcript *transcript)
{
    const std::vector<UndoneCompaction> undone = transcript ? findUndoneCompactions(*transcript) : std::vector<UndoneCompaction>{};
    QStringList lines;
    for (const UndoneCompaction &u : undone) {
        QString line = QString::fromStdString(describe(u));
        if (!line.isEmpty())
            line[0] = line[0].toUpper();
        lines << line + tr(": the agent's next request sends what the compaction removed.");
    }
    m_undoneStrategies = nlohmann::json();
    QString why;
    if (!undone.empty()) {
        // The last one is the compaction to make again.
        const nlohmann::json *steps = json::array(undone.back().origin, "strategies");
        if (!steps || steps->empty())
            why = tr("The compaction does not say which strategy made it: apply one again in the Strategies panel");
        else
            for (const nlohmann::json &step : *steps)
                if (const std::string name = json::str(step, "strategy"); !strategy::find(name)) {
                    why = tr("The compaction was made by %1, which cannot run again: apply a strategy in the Strategies panel")
                              .arg(QString::fromStdString(name.empty() ? std::string("hand edits") : name));
                    break;
                }
        if (why.isEmpty())
            m_undoneStrategies = *steps;
    }
    m_undoneBanner->setUndone(lines, why);
}

bool MainWindow::reapplyUndone()
{
    const auto current = m_doc->current();
    if (!current || !m_undoneStrategies.is_array() || m_undoneStrategies.empty()) {
        tell(tr("Nothing to re-apply"));
        return false;
    }
    const analysis::AnalysisOptions options = AnalysisController::optionsFor(m_gauge->contextWindow());
    const bool several = m_undoneStrategies.size() > 1; // one undo step for all of them
    int applied = 0;
    QString problem;
    for (const nlohmann::json &step : m_undoneStrategies) {
        const strategy::Strategy *s = strategy::find(json::str(step, "strategy"));
        if (!s)
            break;
        strategy::Input in(*m_doc->current(), options);
        in.pinned = m_pinned;
        for (const QString &tool : m_strategyPanel->exemptTools())
            in.exemptTools.push_back(tool.toStdString());
        const nlohmann::json *params = json::object(step, "params");
        const strategy::Result r = strategy::run(*s, in, params ? *params : nlohmann::json::object());
        if (!r.changed) {
            problem = QString::fromStdString(r.note);
            continue;
        }
        if (several && applied == 0)
            m_doc->undoStack()->beginMacro(tr("Re-apply the compaction"));
        QString error;
        if (!m_doc->apply(r, tr("Re-apply %1").arg(QString::fromStdString(std::string(s->title()))), &error)) {
            problem = error;
            break;
        }
        ++applied;
    }
    if (several && applied > 0)
        m_doc->undoStack()->endMacro();
    if (applied == 0) {
        tellFailure(tr("Nothing re-applied: %1").arg(problem));
        return false;
    }
    tell(tr("The compaction is applied again (Edit › Undo takes it back; File › Save writes it once the agent is done)"));
    return true;
}

} // namespace cl::gui
