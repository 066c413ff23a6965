// SPDX-License-Identifier: MIT
#include "widgets/strategy/compareview.h"
#include "widgets/style/flowlayout.h"

#include "widgets/strategy/comparechart.h"
#include "widgets/models/comparemodel.h"
#include "core/strategies/registry.h"
#include "core/cost/nextturns.h"
#include "net/modelsummarizer.h"

#include <QElapsedTimer>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QCheckBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace cl::gui {

namespace {

// The registry name of a row's strategy ("NAME" for "NAME+model").
QString baseStrategy(const QString &rowName)
{
    const std::string base = strategy::modelRowBase(rowName.toStdString());
    return base.empty() ? rowName : QString::fromStdString(base);
}

// Each row's extra.nextTurns: the dollars of the next request and of the next `turns` after it,
// beside no compaction (core/cost/nextturns.h), priced as the session's model.
void addNextTurns(const strategy::Input &in, std::vector<strategy::CompareRow> &rows, int turns)
{
    llm::PriceTable prices;
    std::string error;
    llm::PriceTable::load(prices, {}, &error);
    const cost::CompareNextTurns all = cost::compareNextTurns(in, rows, prices, {}, turns);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        strategy::CompareRow &row = rows[i];
        if (!row.error.empty())
            continue;
        nlohmann::json j = nlohmann::json::object();
        if (!all.price) {
            j["error"] = all.model.empty() ? std::string("no model recorded in the session: its price is unknown")
                                           : "no price for " + all.model + " (add it to ~/.config/contextlens/prices.json)";
        } else {
            const cost::NextTurns &n = all.rows[i];
            j["first"] = n.strategy.firstTurn();
            j["total"] = n.strategy.total();
            j["baselineFirst"] = n.baseline.firstTurn();
            j["baselineTotal"] = n.baseline.total();
            j["breakEven"] = n.breakEven;
            j["turns"] = turns;
            j["model"] = all.model;
        }
        row.result.extra["nextTurns"] = std::move(j);
    }
}

} // namespace

CompareView::CompareView(QWidget *parent)
    : QWidget(parent)
    , m_model(new CompareModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
{
    setObjectName(QStringLiteral("compareView"));
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(CompareSortRole);

    m_runAll = new QPushButton(tr("Run all"), this);
    m_runAll->setToolTip(tr("Run every registered strategy on the current transcript"));
    m_runChecked = new QPushButton(tr("Run checked"), this);
    m_runChecked->setToolTip(tr("Run only the strategies ticked in the table"));
    m_cancelButton = new QPushButton(tr("Cancel"), this);
    m_progress = new QProgressBar(this);
    m_progress->setTextVisible(true);
    m_progress->setFormat(tr("%v / %m"));
    m_progress->setMaximumWidth(220);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("compareStatus"));
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Its own row, wrapped: a long summary must never widen the window (it once pushed the minimum
    // width of the whole window past the screen).
    m_status->setWordWrap(true);
    m_status->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);

    auto *bar = new FlowLayout; // continues on a second line in a narrow window
    bar->addWidget(m_runAll);
    bar->addWidget(m_runChecked);
    m_force = new QCheckBox(tr("Ignore triggers"), this);
    m_force->setToolTip(tr("Run every triggered strategy as if its trigger had fired (its force parameter), to see "
                           "what it would do to this session before the context is full"));
    bar->addWidget(m_force);
    m_withModel = new QCheckBox(tr("With the model"), this);
    m_withModel->setObjectName(QStringLiteral("compareWithModel"));
    bar->addWidget(m_withModel);
    m_costTurns = new QSpinBox(this);
    m_costTurns->setObjectName(QStringLiteral("compareCostTurns"));
    m_costTurns->setRange(0, 1000);
    m_costTurns->setPrefix(tr("Cost over "));
    m_costTurns->setSuffix(tr(" turns"));
    m_costTurns->setSpecialValueText(tr("No cost"));
    m_costTurns->setValue(QSettings().value(QStringLiteral("compare/costTurns"), 10).toInt());
    m_costTurns->setToolTip(tr("Dollars of the next request and of the next N after each strategy, prompt cache included "
                               "(the session's model; prices: resources/prices.json, then ~/.config/contextlens/prices.json)"));
    connect(m_costTurns, &QSpinBox::valueChanged, this, [](int v) { QSettings().setValue(QStringLiteral("compare/costTurns"), v); });
    bar->addWidget(m_costTurns);
    bar->addWidget(m_progress);
    bar->addWidget(m_cancelButton);

    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("compareTable"));
    m_table->setModel(m_proxy);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setStretchLastSection(true);
    // No sort until the user clicks a header: rows start in registry (menu) order.
    m_table->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    m_table->setSortingEnabled(true);
    m_table->setWordWrap(false);

    m_chart = new CompareChart(this);

    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_table);
    auto *chartScroll = new QScrollArea(this);
    chartScroll->setWidget(m_chart);
    chartScroll->setWidgetResizable(true);
    chartScroll->setFrameShape(QFrame::NoFrame);
    split->addWidget(chartScroll);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setChildrenCollapsible(false);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_status);
    layout->addWidget(split, 1);

    connect(m_runAll, &QPushButton::clicked, this, &CompareView::runAll);
    connect(m_runChecked, &QPushButton::clicked, this, &CompareView::runChecked);
    connect(m_cancelButton, &QPushButton::clicked, this, &CompareView::cancel);
    // A stale comparison (new input) has ended: the controls follow isRunning().
    m_job.setStaleHandler([this](const std::vector<strategy::CompareRow> &) { updateControls(); });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this] { syncSelectionToChart(); });
    connect(m_table, &QAbstractItemView::activated, this, [this](const QModelIndex &index) {
        // A "+ model" row previews its strategy, which the strategy dock runs with the same model.
        const QString name = baseStrategy(index.data(StrategyNameRole).toString());
        if (!name.isEmpty())
            Q_EMIT previewRequested(name);
    });
    connect(m_chart, &CompareChart::strategyClicked, this, &CompareView::selectStrategy);
    connect(m_model, &QAbstractItemModel::dataChanged, this, [this] { updateControls(); });
    // The chart lists strategies in the table's (sorted) order so both read the same way.
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, [this] { updateChartRows(); });

    setModelSummarizer(loadSummarizer());
    resizeColumns();
    updateControls();
}

CompareView::~CompareView()
{
    // The worker runs registered strategies on the transcript: stop it before the view goes.
    m_job.cancel();
    m_job.waitForWork();
}

void CompareView::setInput(std::shared_ptr<const Transcript> transcript, analysis::AnalysisOptions options,
                           std::vector<std::size_t> pinned, std::vector<std::string> exemptTools,
                           std::shared_ptr<strategy::TranscriptTables> tables)
{
    m_job.cancel(); // a running comparison's rows are for the old input: they are dropped
    if (tables)
        m_tables = std::move(tables);
    else if (!m_tables || transcript != m_transcript)
        m_tables = std::make_shared<strategy::TranscriptTables>();
    m_transcript = std::move(transcript);
    m_options = std::move(options);
    m_pinned = std::move(pinned);
    m_exempt = std::move(exemptTools);
    m_rows.clear();
    m_model->clearResults();
    updateChartRows();
    m_progress->reset();
    m_status->setText(m_transcript ? tr("%1 conversation messages: run the strategies to compare them")
                                         .arg(analysis::conversationView(*m_transcript).size())
                                   : tr("No transcript"));
    updateControls();
}

void CompareView::setModelSummarizer(const GuiSummarizer &s)
{
    m_gui = s;
    m_withModel->setToolTip(s.useModel ? tr("Run each strategy a second time with %1 writing its summaries, shown as "
                                            "\"+ model\" rows with their fact retention and cost. Every summary is a "
                                            "model call (answers are cached when a cache folder is set).")
                                             .arg(describe(s))
                                       : tr("Configure a model in the strategy dock (Summaries\u2026) to compare "
                                            "rule-based and model-written summaries"));
    if (!s.useModel)
        m_withModel->setChecked(false);
    updateControls();
}

void CompareView::setParamOverrides(nlohmann::json overrides)
{
    m_overrides = overrides.is_object() ? std::move(overrides) : nlohmann::json::object();
}

bool CompareView::isRunning() const
{
    return m_job.isBusy();
}

QString CompareView::selectedStrategy() const
{
    const QModelIndex current = m_table->selectionModel()->currentIndex();
    return current.isValid() ? current.data(StrategyNameRole).toString() : QString();
}

void CompareView::refreshStrategies()
{
    m_model->resetFromRegistry();
    resizeColumns();
    updateControls();
}

void CompareView::runAll()
{
    run({});
}

void CompareView::runChecked()
{
    const QStringList names = m_model->checkedNames();
    if (names.isEmpty()) {
        m_status->setText(tr("Tick at least one strategy"));
        return;
    }
    run(names);
}

void CompareView::run(const QStringList &names)
{
    if (!m_transcript) {
        m_status->setText(tr("Open a transcript first"));
        return;
    }
    if (isRunning()) {
        m_job.cancel(); // its rows are dropped
        m_job.waitForWork();
    }
    // Strategies may have registered since the view was built; the table lists every one.
    if (m_model->rowCount() != int(strategy::all().size()))
        m_model->resetFromRegistry();
    m_cancelled = false;
    std::optional<llm::SummarizerSettings> model;
    QString keyNote;
    if (m_withModel->isChecked() && m_gui.useModel)
        model = withKey(m_gui, &keyNote);
    const int total = names.isEmpty() ? int(strategy::all().size()) : int(names.size());
    m_progress->setRange(0, std::max(1, model ? 2 * total : total));
    m_progress->setValue(0);
    m_modelNote.clear();
    QString text = total == 1 ? tr("Running 1 strategy\u2026") : tr("Running %1 strategies\u2026").arg(total);
    if (model)
        text += u' ' + tr("then again with the model (%1)").arg(keyNote);
    m_status->setText(text);

    std::vector<std::string> list;
    for (const QString &n : names)
        list.push_back(n.toStdString());
    auto transcript = m_transcript;
    auto options = m_options;
    auto pinned = m_pinned;
    auto exempt = m_exempt;
    auto overrides = m_overrides;
    if (m_force->isChecked())
        for (const strategy::Strategy *s : strategy::all())
            for (const auto &spec : s->params())
                if (spec.name == "force" && !overrides[std::string(s->name())].contains("force"))
                    overrides[std::string(s->name())]["force"] = true;
    auto tables = m_tables;
    const int threads = m_threads;
    const int costTurns = m_costTurns->value();
    m_job.start(
        [=](JobControl &control) {
            strategy::Input in(*transcript, options);
            in.setTables(tables);
            in.pinned = pinned;
            in.exemptTools = exempt;
            strategy::CompareOptions o;
            o.names = list;
            o.params = overrides;
            o.threads = threads;
            o.cancel = control.cancelFlag();
            const qint64 phases = model ? 2 : 1;
            o.progress = [&control, phases](std::size_t done, std::size_t all) {
                control.setProgress(qint64(done), phases * qint64(all));
            };
            std::vector<strategy::CompareRow> rows = strategy::compare(in, o);
            if (model && !control.isCancelled()) {
                net::ModelSummarizer writer(*model);
                writer.setCancelFlag(control.cancelFlag());
                o.progress = [&control](std::size_t done, std::size_t all) {
                    control.setProgress(qint64(all + done), 2 * qint64(all));
                };
                rows = strategy::withModelRows(in, std::move(rows), o, writer);
            }
            if (costTurns > 0)
                addNextTurns(in, rows, costTurns);
            return rows;
        },
        [this](std::vector<strategy::CompareRow> rows) { onFinished(std::move(rows)); },
        [this](JobProgress p) { onProgress(int(p.done), int(p.total)); });
    Q_EMIT started();
    updateControls();
}

void CompareView::cancel()
{
    if (!isRunning())
        return;
    m_job.requestStop(); // the rows done so far are still shown
    m_cancelled = true;
    m_status->setText(tr("Cancelling\u2026"));
}

void CompareView::onProgress(int done, int total)
{
    m_progress->setRange(0, std::max(1, total));
    m_progress->setValue(done);
    Q_EMIT progress(done, total);
}

void CompareView::onFinished(std::vector<strategy::CompareRow> rows)
{
    m_rows = std::move(rows);
    const QString keep = selectedStrategy();
    m_model->setRows(m_rows);
    updateChartRows();
    resizeColumns();
    double millis = 0;
    std::size_t changed = 0, invalid = 0, strategies = 0, modelRows = 0; // changed: rule-based rows
    for (const auto &r : m_rows) {
        const bool modelRow = !strategy::modelRowBase(r.strategy).empty();
        millis += r.result.stats.millis;
        changed += r.result.changed && !modelRow ? 1 : 0;
        invalid += r.result.violations.empty() && r.error.empty() ? 0 : 1;
        (modelRow ? modelRows : strategies) += 1;
    }
    QString text = strategies == 1 ? tr("1 strategy ran") : tr("%1 strategies ran").arg(strategies);
    if (modelRows > 0)
        text += u' ' + tr("(%1 again with the model)").arg(modelRows);
    if (m_cancelled)
        text = tr("Cancelled: %1").arg(text);
    text += tr(" \u00b7 %1 changed the transcript \u00b7 %2 ms in strategies").arg(changed).arg(QLocale().toString(millis, 'f', 1));
    if (invalid > 0)
        text += tr(" \u00b7 %1 with problems").arg(invalid);
    for (const auto &r : m_rows)
        if (const auto it = r.result.extra.is_object() ? r.result.extra.find("nextTurns") : r.result.extra.end();
            it != r.result.extra.end() && it->contains("baselineTotal")) {
            text += tr(" \u00b7 no compaction: $%1 next turn, $%2 over %3 turns (%4)")
                        .arg(QLocale().toString((*it)["baselineFirst"].get<double>(), 'f', 4),
                             QLocale().toString((*it)["baselineTotal"].get<double>(), 'f', 4))
                        .arg((*it)["turns"].get<int>())
                        .arg(QString::fromStdString((*it)["model"].get<std::string>()));
            break;
        }
    std::size_t calls = 0;
    double dollars = 0;
    bool priced = true, anyModel = false;
    for (const auto &r : m_rows) {
        if (!r.result.extra.is_object() || !r.result.extra.contains("modelCalls"))
            continue;
        anyModel = true;
        calls += r.result.extra["modelCalls"].get<std::size_t>();
        const auto &cost = r.result.extra["modelCost"];
        if (cost.is_number())
            dollars += cost.get<double>();
        else
            priced = false;
    }
    if (anyModel)
        text += (calls == 1 ? tr(" \u00b7 model: 1 call, ") : tr(" \u00b7 model: %1 calls, ").arg(calls))
                + (priced ? QStringLiteral("$%1").arg(QLocale().toString(dollars, 'f', 4)) : tr("price unknown"));
    m_status->setText(text);
    m_progress->setValue(m_cancelled ? m_progress->value() : m_progress->maximum());
    if (!keep.isEmpty())
        selectStrategy(keep);
    updateControls();
    Q_EMIT finished();
}

void CompareView::selectStrategy(const QString &name)
{
    const int row = m_model->rowOf(name);
    if (row < 0)
        return;
    const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, CompareModel::StrategyColumn));
    if (m_table->selectionModel()->currentIndex().row() != index.row()
        || !m_table->selectionModel()->isRowSelected(index.row(), {}))
        m_table->selectionModel()->setCurrentIndex(
            index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_table->scrollTo(index);
    syncSelectionToChart();
}

void CompareView::syncSelectionToChart()
{
    const QString name = selectedStrategy();
    m_chart->setSelectedStrategy(name);
    if (name == m_selected)
        return;
    m_selected = name;
    if (!name.isEmpty())
        Q_EMIT strategySelected(baseStrategy(name));
}

void CompareView::updateChartRows()
{
    QList<CompareBar> bars;
    for (int r = 0; r < m_proxy->rowCount(); ++r)
        if (const auto *row = m_model->rowFor(m_proxy->index(r, 0).data(StrategyNameRole).toString()))
            bars.push_back(compareBar(*row));
    m_chart->setBars(std::move(bars));
}

void CompareView::resizeColumns()
{
    m_table->resizeColumnsToContents();
    // The note can be long; the last section stretches, the others stay readable.
    for (int c = 0; c < CompareModel::NoteColumn; ++c)
        m_table->setColumnWidth(c, std::min(m_table->columnWidth(c), 320));
}

void CompareView::updateControls()
{
    const bool running = isRunning();
    m_runAll->setEnabled(!running && m_transcript);
    m_runChecked->setEnabled(!running && m_transcript && !m_model->checkedNames().isEmpty());
    m_cancelButton->setEnabled(running);
    m_withModel->setEnabled(!running && m_gui.useModel);
    m_progress->setVisible(running || m_progress->value() > 0);
}

} // namespace cl::gui
