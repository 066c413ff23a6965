// SPDX-License-Identifier: MIT
#pragma once

// Runs every registered strategy (or the ticked subset) on the current transcript in the background
// and shows the results as a sortable table above a small-multiples chart, selection synced.
// Activating a row (double-click / Enter) asks for a preview of that strategy. With "With the model"
// ticked (a model configured in Summaries…), each strategy is run again with the model writing its
// summaries, its "NAME+model" row beside the rule-based one with fact retention and cost.

#include "core/analysis/analysis.h"
#include "core/workflow/compare.h"
#include "core/model/transcript.h"
#include "core/util/parallel.h"
#include "widgets/jobs/backgroundjob.h"
#include "widgets/strategy/summarizersettings.h"

#include <QWidget>

#include <memory>
#include <vector>

class QLabel;
class QProgressBar;
class QCheckBox;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;

namespace cl::gui {

class CompareChart;
class CompareModel;

class CompareView : public QWidget
{
    Q_OBJECT
public:
    explicit CompareView(QWidget *parent = nullptr);
    ~CompareView() override;

    // A new input cancels a running comparison and clears the results.
    // tables (optional): the transcript's per-block tables, shared with other views (null: the view's own).
    void setInput(std::shared_ptr<const Transcript> transcript, analysis::AnalysisOptions options = {},
                  std::vector<std::size_t> pinned = {}, std::vector<std::string> exemptTools = {},
                  std::shared_ptr<strategy::TranscriptTables> tables = nullptr);
    const std::shared_ptr<strategy::TranscriptTables> &tables() const { return m_tables; }
    // {strategyName: {param: value}} passed to compare() (e.g. the preview panel's edited params).
    void setParamOverrides(nlohmann::json overrides);
    // Worker threads for compare() (default util::defaultThreads(): 2, the machine the app targets is small).
    void setThreads(int threads) { m_threads = threads; }

    const std::vector<strategy::CompareRow> &rows() const { return m_rows; }
    bool isRunning() const;
    QString selectedStrategy() const;

    CompareModel *model() const { return m_model; }
    QSortFilterProxyModel *proxy() const { return m_proxy; }
    QTableView *table() const { return m_table; }
    CompareChart *chart() const { return m_chart; }
    QCheckBox *forceTriggers() const { return m_force; }
    QCheckBox *withModel() const { return m_withModel; }
    // Dollars of the next request and of the next N after each strategy (0: not computed).
    QSpinBox *costTurns() const { return m_costTurns; }
    // The model summarizer of "With the model" (the strategy dock's Summaries… settings).
    void setModelSummarizer(const GuiSummarizer &s);

public Q_SLOTS:
    void runAll();
    void runChecked();
    void run(const QStringList &names); // empty: every registered strategy
    void cancel();
    void selectStrategy(const QString &name);
    // Re-reads the registry (strategies registered after construction).
    void refreshStrategies();

Q_SIGNALS:
    void started();
    void progress(int done, int total);
    void finished(); // rows() holds the (possibly partial) results
    void previewRequested(const QString &strategyName);
    void strategySelected(const QString &strategyName);

private:
    void onFinished(std::vector<strategy::CompareRow> rows);
    void onProgress(int done, int total);
    void updateControls();
    void syncSelectionToChart();
    void resizeColumns();
    void updateChartRows();

    std::shared_ptr<const Transcript> m_transcript;
    analysis::AnalysisOptions m_options;
    // Per-block tables of m_transcript kept from one run to the next (strategy/tables.h).
    std::shared_ptr<strategy::TranscriptTables> m_tables;
    std::vector<std::size_t> m_pinned;
    std::vector<std::string> m_exempt;
    nlohmann::json m_overrides = nlohmann::json::object();
    QCheckBox *m_force = nullptr;
    QCheckBox *m_withModel = nullptr;
    QSpinBox *m_costTurns = nullptr;
    GuiSummarizer m_gui;
    QString m_modelNote; // the last run's model calls and cost
    int m_threads = util::defaultThreads();

    std::vector<strategy::CompareRow> m_rows;
    bool m_cancelled = false;
    QString m_selected; // last strategy announced by strategySelected
    // The comparison; a new run or input makes the running one stale (its rows are dropped), Cancel
    // stops it and keeps the rows done so far.
    BackgroundJob<std::vector<strategy::CompareRow>> m_job{this};

    CompareModel *m_model = nullptr;
    QSortFilterProxyModel *m_proxy = nullptr;
    QTableView *m_table = nullptr;
    CompareChart *m_chart = nullptr;
    QPushButton *m_runAll = nullptr;
    QPushButton *m_runChecked = nullptr;
    QPushButton *m_cancelButton = nullptr;
    QProgressBar *m_progress = nullptr;
    QLabel *m_status = nullptr;
};

} // namespace cl::gui
