// SPDX-License-Identifier: MIT
#include "widgets/strategy/simulationview.h"
#include "widgets/models/qtext.h"

#include "core/strategy/strategy.h"
#include "core/strategies/registry.h"
#include "widgets/strategy/strategycombo.h"
#include "widgets/models/simulationmodel.h"
#include "widgets/strategy/paramform.h"
#include "widgets/strategy/simulationchart.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace cl::gui {

SimulationView::SimulationView(QWidget *parent)
    : QWidget(parent)
    , m_model(new SimulationModel(this))
{
    setObjectName(QStringLiteral("simulationView"));

    // Left column: what to simulate.
    m_combo = new QComboBox(this);
    m_combo->setObjectName(QStringLiteral("simulationStrategy"));
    m_combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    fillStrategyCombo(m_combo);
    for (int i = 0; i < m_combo->count(); ++i)
        if (!m_combo->itemData(i).toString().isEmpty()) {
            m_combo->setCurrentIndex(i);
            break;
        }
    m_description = new QLabel(this);
    m_description->setWordWrap(true);
    m_description->setForegroundRole(QPalette::PlaceholderText); // secondary to the controls around it
    m_description->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_form = new ParamForm(this);
    m_window = new QSpinBox(this);
    m_window->setRange(0, 10000000);
    m_window->setSingleStep(10000);
    m_window->setSpecialValueText(tr("by model"));
    m_window->setGroupSeparatorShown(true);
    m_window->setSuffix(tr(" tokens"));
    m_window->setToolTip(tr("Context window the live context is held against. By model: the main window's (the one the "
                            "source records or the model's), else 200,000"));
    m_step = new QComboBox(this);
    m_step->setObjectName(QStringLiteral("simulationStep"));
    m_step->addItem(tr("Each request"), QStringLiteral("request"));
    m_step->addItem(tr("Each user turn"), QStringLiteral("turn"));
    m_step->setToolTip(tr("Each request: a step ends at each response of the model, so an agent's tool calls are "
                          "steps, as the agent sent them. Each user turn: from one user request to the next."));
    m_stride = new QSpinBox(this);
    m_stride->setRange(0, 10000);
    m_stride->setSpecialValueText(tr("auto"));
    m_stride->setPrefix(tr("every "));
    m_stride->setSuffix(tr(" step(s)"));
    m_stride->setToolTip(tr("Run the strategy every N steps. Auto: every step, except in long sessions where it "
                            "runs about 200 times in all (the replay costs one strategy run per step)."));
    m_run = new QPushButton(tr("Run"), this);
    m_run->setDefault(true);
    m_run->setToolTip(tr("Replay the transcript step by step under the strategy"));
    m_cancelButton = new QPushButton(tr("Cancel"), this);
    m_progress = new QProgressBar(this);
    m_progress->setFormat(tr("step %v / %m"));
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *settings = new QFormLayout;
    settings->addRow(tr("Strategy"), m_combo);
    settings->addRow(tr("Step"), m_step);
    settings->addRow(tr("Window"), m_window);
    settings->addRow(tr("Runs"), m_stride);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_run);
    buttons->addWidget(m_cancelButton);
    auto *side = new QWidget(this);
    auto *sideLayout = new QVBoxLayout(side);
    // Run, progress and outcome stay at the top; the (long) description and the parameters below
    // may scroll.
    sideLayout->addLayout(settings);
    sideLayout->addLayout(buttons);
    sideLayout->addWidget(m_progress);
    sideLayout->addWidget(m_status);
    sideLayout->addWidget(m_description);
    sideLayout->addWidget(m_form);
    sideLayout->addStretch(1);
    auto *sideScroll = new QScrollArea(this);
    sideScroll->setWidget(side);
    sideScroll->setWidgetResizable(true);
    sideScroll->setFrameShape(QFrame::NoFrame);
    sideScroll->setMinimumWidth(220);

    // Right: chart above the per-turn table.
    m_chart = new SimulationChart(this);
    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("simulationTable"));
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);
    auto *right = new QSplitter(Qt::Vertical, this);
    right->addWidget(m_chart);
    right->addWidget(m_table);
    right->setStretchFactor(0, 3);
    right->setStretchFactor(1, 2);
    right->setChildrenCollapsible(false);

    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(sideScroll);
    split->addWidget(right);
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 1);
    split->setSizes({300, 1100});
    split->setChildrenCollapsible(false);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);

    connect(m_combo, &QComboBox::currentIndexChanged, this, &SimulationView::strategyChosen);
    connect(m_run, &QPushButton::clicked, this, &SimulationView::run);
    connect(m_cancelButton, &QPushButton::clicked, this, &SimulationView::cancel);
    // A stale simulation (new input) has ended: the controls follow isRunning().
    m_job.setStaleHandler([this](const Outcome &) { updateControls(); });
    connect(m_chart, &SimulationChart::turnClicked, this, [this](int turn) {
        selectTurn(turn);
        if (m_sim && turn >= 1 && std::size_t(turn) <= m_sim->turns.size())
            Q_EMIT messageActivated(int(m_sim->turns[std::size_t(turn) - 1].firstIndex));
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) { m_chart->setSelectedTurn(current.isValid() ? current.row() + 1 : 0); });
    connect(m_table, &QAbstractItemView::activated, this, [this](const QModelIndex &index) {
        const QVariant first = index.data(TurnFirstIndexRole);
        if (first.isValid())
            Q_EMIT messageActivated(first.toInt());
    });

    if (!setCurrentStrategy(QStringLiteral("progressive")))
        strategyChosen();
    m_status->setText(tr("Open a transcript, then run"));
    updateControls();
}

SimulationView::~SimulationView()
{
    // The worker runs a registered strategy on the transcript: stop it before the view goes.
    m_job.cancel();
    m_job.waitForWork();
}

void SimulationView::setInput(std::shared_ptr<const Transcript> transcript, analysis::AnalysisOptions options)
{
    if (transcript == m_transcript && options.contextWindow == m_options.contextWindow && options.estimator == m_options.estimator)
        return;
    m_transcript = std::move(transcript);
    m_options = std::move(options);
    resetResult();
}

void SimulationView::setGuards(std::vector<std::size_t> pinned, std::vector<std::string> exemptTools)
{
    if (pinned == m_pinned && exemptTools == m_exempt)
        return;
    m_pinned = std::move(pinned);
    m_exempt = std::move(exemptTools);
    resetResult();
}

void SimulationView::resetResult()
{
    m_job.cancel(); // a running simulation is for the old input: its result is dropped
    m_sim.reset();
    m_cost.reset();
    m_model->clear();
    m_chart->setSimulation(nullptr);
    m_progress->reset();
    m_status->setText(m_transcript ? tr("%1 requests, %2 user turns: choose a strategy and run")
                                         .arg(sim::countTurns(*m_transcript, sim::Step::Request))
                                         .arg(sim::countTurns(*m_transcript, sim::Step::Turn))
                                   : tr("Open a transcript, then run"));
    updateControls();
}

bool SimulationView::setCurrentStrategy(const QString &name)
{
    const int i = m_combo->findData(name);
    if (i < 0)
        return false;
    if (i == m_combo->currentIndex())
        strategyChosen(); // a fresh form either way: callers expect the defaults
    m_combo->setCurrentIndex(i);
    return true;
}

QString SimulationView::currentStrategy() const
{
    return m_combo->currentData().toString();
}

void SimulationView::strategyChosen()
{
    const strategy::Strategy *s = strategy::find(currentStrategy().toStdString());
    m_form->setSpecs(s ? s->params() : std::vector<strategy::ParamSpec>{});
    m_description->setText(s ? qs(s->description()) : tr("No strategy is registered."));
}

bool SimulationView::isRunning() const
{
    return m_job.isBusy();
}

bool SimulationView::prepare(Job &job)
{
    if (!m_transcript) {
        m_status->setText(tr("Open a transcript first"));
        return false;
    }
    job.strategy = strategy::find(currentStrategy().toStdString());
    if (!job.strategy) {
        m_status->setText(tr("Choose a strategy"));
        return false;
    }
    job.transcript = m_transcript;
    job.params = m_form->values();
    job.options.analysis = m_options;
    job.options.pinned = m_pinned;
    job.options.exemptTools = m_exempt;
    if (m_window->value() > 0)
        job.options.analysis.contextWindow = m_window->value();
    job.options.step = m_step->currentData().toString() == QLatin1String("turn") ? sim::Step::Turn : sim::Step::Request;
    const std::size_t turns = sim::countTurns(*m_transcript, job.options.step);
    job.options.stride = m_stride->value() > 0 ? std::size_t(m_stride->value()) : sim::suggestedStride(turns, m_strideBudget);
    m_progress->setRange(0, int(std::max<std::size_t>(1, turns)));
    m_progress->setValue(0);
    m_status->setText(tr("Simulating %1 over %2 steps\u2026").arg(currentStrategy()).arg(turns));
    return true;
}

void SimulationView::stopRun()
{
    if (isRunning()) {
        m_job.requestStop(); // a new run or runNow makes its result stale
        m_job.waitForWork();
    }
}

void SimulationView::run()
{
    stopRun();
    Job job;
    if (!prepare(job))
        return;
    m_job.start(
        [job = std::move(job)](JobControl &control) mutable {
            job.options.progress = [&control](std::size_t done, std::size_t total) {
                control.setProgress(qint64(done), qint64(total));
                return !control.isCancelled();
            };
            return simulate(job);
        },
        [this](Outcome outcome) {
            const bool cancelled = outcome.simulation && outcome.simulation->cancelled;
            showResult(std::move(outcome), cancelled);
        },
        [this](JobProgress p) { onProgress(int(p.done), int(p.total)); });
    Q_EMIT started();
    updateControls();
}

void SimulationView::runNow()
{
    stopRun();
    Job job;
    if (!prepare(job))
        return;
    m_job.invalidate();
    Q_EMIT started();
    showResult(simulate(job), false);
}

void SimulationView::cancel()
{
    if (!isRunning())
        return;
    m_job.requestStop(); // the turns done so far are still shown
    m_status->setText(tr("Cancelling\u2026"));
}

void SimulationView::onProgress(int done, int total)
{
    m_progress->setRange(0, std::max(1, total));
    m_progress->setValue(done);
    Q_EMIT progress(done, total);
}

SimulationView::Outcome SimulationView::simulate(const Job &job)
{
    Outcome out;
    auto s = std::make_shared<sim::Simulation>(sim::simulate(*job.transcript, *job.strategy, job.params, job.options));
    if (s->error.empty()) {
        // Priced as the session's model: the shipped table, then the user's file.
        llm::PriceTable prices;
        std::string error;
        llm::PriceTable::load(prices, {}, &error);
        out.cost = std::make_shared<cost::SimulationCost>(cost::simulationCost(*job.transcript, *s, prices));
    }
    out.simulation = std::move(s);
    return out;
}

void SimulationView::showResult(Outcome outcome, bool cancelled)
{
    m_sim = std::move(outcome.simulation);
    m_cost = std::move(outcome.cost);
    m_model->setSimulation(m_sim, m_cost);
    m_chart->setSimulation(m_sim);
    m_table->resizeColumnsToContents();
    const QLocale loc;
    QString text;
    if (!m_sim) {
        text = tr("Nothing simulated");
    } else if (!m_sim->error.empty()) {
        text = tr("Not simulated: %1").arg(QString::fromStdString(m_sim->error));
    } else {
        const bool byTurn = m_sim->step == sim::Step::Turn;
        const auto turnText = [this, byTurn](std::int32_t k) {
            return k <= 0 ? tr("fits") : byTurn ? tr("over at turn %1").arg(k)
                                                : tr("over at request %1").arg(k);
        };
        text = (byTurn ? tr("%1 turns · without: %2 · with %3: %4 · %5 compactions")
                       : tr("%1 requests · without: %2 · with %3: %4 · %5 compactions"))
                   .arg(m_sim->turns.size())
                   .arg(turnText(m_sim->exceedsWithout), QString::fromStdString(m_sim->strategy), turnText(m_sim->exceedsWith))
                   .arg(m_sim->compactions);
        if (m_cost && m_cost->price)
            text += tr(" · %1 requests: $%2 with, $%3 without (%4)")
                        .arg(m_cost->requests)
                        .arg(loc.toString(m_cost->with.dollars, 'f', 4), loc.toString(m_cost->without.dollars, 'f', 4),
                             QString::fromStdString(m_cost->model));
        else if (m_cost)
            text += tr(" · cost unknown: %1").arg(QString::fromStdString(m_cost->error));
        if (cancelled)
            text = tr("Cancelled after %1 of %2 steps · ").arg(m_sim->turns.size()).arg(m_sim->totalTurns) + text;
    }
    m_status->setText(text);
    if (!cancelled)
        m_progress->setValue(m_progress->maximum());
    updateControls();
    Q_EMIT finished();
}

void SimulationView::selectTurn(int turn)
{
    const int row = m_model->rowOfTurn(turn);
    m_chart->setSelectedTurn(row >= 0 ? turn : 0);
    if (row < 0)
        return;
    const QModelIndex index = m_model->index(row, 0);
    m_table->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_table->scrollTo(index);
}

void SimulationView::updateControls()
{
    const bool running = isRunning();
    m_run->setEnabled(!running && m_transcript);
    m_cancelButton->setEnabled(running);
    m_combo->setEnabled(!running);
    m_form->setEnabled(!running);
}

} // namespace cl::gui
