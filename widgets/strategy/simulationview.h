// SPDX-License-Identifier: MIT
#pragma once

// The Simulate tab (seed 003 §11): pick a strategy and its parameters, replay the current
// transcript turn by turn in the background (cl::sim::simulate) and show the context per turn with
// and without it as a chart above a per-turn table. Clicking a turn (chart or table) asks the main
// window to jump to the turn's first message.

#include "core/analysis/analysis.h"
#include "core/cost/simulationcost.h"
#include "core/strategy/simulation.h"
#include "core/model/transcript.h"
#include "widgets/jobs/backgroundjob.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableView;

namespace cl::gui {

class ParamForm;
class SimulationChart;
class SimulationModel;

class SimulationView : public QWidget
{
    Q_OBJECT
public:
    explicit SimulationView(QWidget *parent = nullptr);
    ~SimulationView() override;

    // A different transcript (or analysis options) cancels a running simulation and clears the
    // result; the same input again changes nothing (the main window re-sends it on every pin).
    void setInput(std::shared_ptr<const Transcript> transcript, analysis::AnalysisOptions options = {});
    // The user's guards (pinned transcript indices, exempt tools), kept by every strategy run; a
    // change drops the shown simulation, which was made without them.
    void setGuards(std::vector<std::size_t> pinned, std::vector<std::string> exemptTools);
    std::shared_ptr<const Transcript> transcript() const { return m_transcript; }

    bool setCurrentStrategy(const QString &name);
    QString currentStrategy() const;
    // Strategy runs at most this many times before the stride grows ("auto" stride); for tests.
    void setStrideBudget(std::size_t budget) { m_strideBudget = budget; }

    std::shared_ptr<const sim::Simulation> simulation() const { return m_sim; }
    // Its turns' dollars with the prompt cache, priced as the session's model (null before a run).
    std::shared_ptr<const cost::SimulationCost> cost() const { return m_cost; }
    bool isRunning() const;
    bool hasResult() const { return m_sim != nullptr; }

    SimulationChart *chart() const { return m_chart; }
    SimulationModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    QComboBox *strategyCombo() const { return m_combo; }
    ParamForm *paramForm() const { return m_form; }
    QSpinBox *windowSpin() const { return m_window; } // 0: by model
    QSpinBox *strideSpin() const { return m_stride; } // 0: auto
    QComboBox *stepCombo() const { return m_step; }   // data: "request" or "turn"
    QPushButton *runButton() const { return m_run; }
    QPushButton *cancelButton() const { return m_cancelButton; }
    QLabel *statusLabel() const { return m_status; }

public Q_SLOTS:
    void run();    // in the background
    void runNow(); // on this thread (screenshots, scripted use)
    void cancel();
    void selectTurn(int turn);

Q_SIGNALS:
    void started();
    void progress(int done, int total);
    void finished(); // simulation() holds the (possibly partial) result
    void messageActivated(int message);

private:
    struct Job {
        std::shared_ptr<const Transcript> transcript;
        const strategy::Strategy *strategy = nullptr;
        nlohmann::json params;
        sim::SimulationOptions options;
    };
    struct Outcome {
        std::shared_ptr<const sim::Simulation> simulation;
        std::shared_ptr<const cost::SimulationCost> cost;
    };
    static Outcome simulate(const Job &job);
    bool prepare(Job &job);
    void stopRun(); // cancels a background run and waits for it (a new run supersedes it)
    void strategyChosen();
    void onProgress(int done, int total);
    void showResult(Outcome outcome, bool cancelled);
    void updateControls();

    std::shared_ptr<const Transcript> m_transcript;
    analysis::AnalysisOptions m_options;
    std::vector<std::size_t> m_pinned;
    std::vector<std::string> m_exempt;
    void resetResult();
    std::shared_ptr<const sim::Simulation> m_sim;
    std::shared_ptr<const cost::SimulationCost> m_cost;
    std::size_t m_strideBudget = 200;
    // The simulation; a new run or input makes the running one stale (its result is dropped), Cancel
    // stops it and keeps the turns done so far.
    BackgroundJob<Outcome> m_job{this};

    QComboBox *m_combo = nullptr;
    ParamForm *m_form = nullptr;
    QLabel *m_description = nullptr;
    QSpinBox *m_window = nullptr;
    QSpinBox *m_stride = nullptr;
    QComboBox *m_step = nullptr;
    QPushButton *m_run = nullptr;
    QPushButton *m_cancelButton = nullptr;
    QProgressBar *m_progress = nullptr;
    QLabel *m_status = nullptr;
    SimulationChart *m_chart = nullptr;
    SimulationModel *m_model = nullptr;
    QTableView *m_table = nullptr;
};

} // namespace cl::gui
