// SPDX-License-Identifier: MIT
#include "widgets/analysis/compositionpanel.h"

#include "widgets/analysis/compositionchart.h"
#include "widgets/analysis/compositiongrid.h"
#include "widgets/models/compositionmodel.h"
#include "widgets/models/tokencount.h"
#include "widgets/style/theme.h"

#include <QEvent>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace cl::gui {

namespace cp = cl::composition;

namespace {
constexpr int kStrategyRole = Qt::UserRole + 1;
constexpr int kParamsRole = Qt::UserRole + 2;
} // namespace

CompositionPanel::CompositionPanel(QWidget *parent)
    : QWidget(parent)
    , m_header(new QLabel(this))
    , m_grid(new CompositionGrid(this))
    , m_model(new CompositionModel(this))
    , m_table(new QTableView(this))
    , m_suggestionTitle(new QLabel(tr("<b>Suggestions</b> for the live context at the end (tokens freed, by running the strategy)"), this))
    , m_suggestionView(new QTreeWidget(this))
    , m_chart(new CompositionChart(this))
{
    setObjectName(QStringLiteral("compositionPanel"));
    m_header->setWordWrap(true);
    m_header->setTextFormat(Qt::RichText);
    m_table->setObjectName(QStringLiteral("compositionTable"));
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    // Every column as wide as its contents (a narrow dock scrolls rather than cutting "Category" to
    // "tego"); the last one takes the width left.
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setMouseTracking(true); // tooltips: a category's largest items
    m_table->setToolTip(tr("Click a category to show only its messages in the transcript"));
    m_model->setDark(theme::isDark(palette()));

    m_suggestionTitle->setWordWrap(true);
    m_suggestionView->setObjectName(QStringLiteral("compositionSuggestions"));
    m_suggestionView->setColumnCount(2);
    m_suggestionView->setHeaderLabels({tr("Suggestion"), tr("Frees")});
    m_suggestionView->setRootIsDecorated(false);
    m_suggestionView->setWordWrap(true);
    m_suggestionView->header()->setStretchLastSection(false);
    m_suggestionView->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_suggestionView->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);

    auto *top = new QWidget(this);
    auto *topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(m_header);
    topLayout->addWidget(m_grid);
    topLayout->addWidget(m_table, 1);
    auto *middle = new QWidget(this);
    auto *middleLayout = new QVBoxLayout(middle);
    middleLayout->setContentsMargins(0, 0, 0, 0);
    middleLayout->addWidget(m_suggestionTitle);
    middleLayout->addWidget(m_suggestionView, 1);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->setObjectName(QStringLiteral("compositionSplitter"));
    split->addWidget(top);
    split->addWidget(middle);
    split->addWidget(m_chart);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    split->setStretchFactor(2, 2);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(split);

    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex &i) { onCategoryRow(i.row()); });
    connect(m_table, &QTableView::activated, this, [this](const QModelIndex &i) { onCategoryRow(i.row()); }); // Enter
    connect(m_grid, &CompositionGrid::categoryClicked, this, [this](int row) {
        m_table->selectRow(row);
        onCategoryRow(row);
    });
    connect(m_chart, &CompositionChart::messageActivated, this, &CompositionPanel::messageActivated);
    connect(m_suggestionView, &QTreeWidget::itemClicked, this, &CompositionPanel::previewItem);
    m_suggestionView->installEventFilter(this); // Enter previews the current suggestion
    updateHeader();
}

CompositionPanel::~CompositionPanel() = default;

void CompositionPanel::previewItem(QTreeWidgetItem *item)
{
    const QString strategy = item ? item->data(0, kStrategyRole).toString() : QString();
    if (!strategy.isEmpty())
        Q_EMIT suggestionActivated(strategy, item->data(0, kParamsRole).toString());
}

bool CompositionPanel::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_suggestionView && event->type() == QEvent::KeyPress) {
        const int key = static_cast<QKeyEvent *>(event)->key();
        if (key == Qt::Key_Return || key == Qt::Key_Enter) {
            previewItem(m_suggestionView->currentItem());
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

cp::Options CompositionPanel::options() const
{
    cp::Options o;
    o.contextWindow = m_window > 0 ? m_window : 0;
    o.estimator = tokencount::chosen();
    return o;
}

void CompositionPanel::setTranscript(std::shared_ptr<const Transcript> transcript)
{
    if (transcript == m_transcript)
        return;
    m_transcript = std::move(transcript);
    m_atJob.cancel();
    m_sessionJob.cancel();
    m_message = -1;
    setComposition(nullptr);
    setSession({});
    m_atDirty = m_sessionDirty = bool(m_transcript);
    startWork();
}

void CompositionPanel::setContextWindow(qint64 window)
{
    if (window == m_window)
        return;
    m_window = window;
    m_atDirty = m_sessionDirty = bool(m_transcript); // free space, reserved buffer, the chart's window line
    startWork();
}

void CompositionPanel::recount()
{
    m_atDirty = m_sessionDirty = bool(m_transcript);
    startWork();
}

void CompositionPanel::showMessage(int message)
{
    if (message == m_message)
        return;
    m_message = message;
    m_chart->setSelectedMessage(message);
    m_atDirty = bool(m_transcript);
    startWork();
}

void CompositionPanel::setActive(bool active)
{
    m_active = active;
    startWork();
}

void CompositionPanel::startWork()
{
    if (!m_active || !m_transcript)
        return;
    const std::shared_ptr<const Transcript> t = m_transcript;
    const cp::Options o = options();
    if (m_atDirty) {
        m_atDirty = false;
        const std::size_t at = m_message < 0 ? SIZE_MAX : std::size_t(m_message);
        m_atJob.start([t, at, o](JobControl &) { return std::shared_ptr<const cp::Composition>(
                                                     std::make_shared<cp::Composition>(cp::compose(*t, at, o))); },
                      [this](std::shared_ptr<const cp::Composition> c) { setComposition(std::move(c)); });
    }
    if (m_sessionDirty) {
        m_sessionDirty = false;
        m_suggestionTitle->setText(tr("<b>Suggestions</b>: running the strategies…"));
        m_sessionJob.start([t, o](JobControl &) { return computeSession(*t, o); },
                           [this](SessionFigures f) { setSession(std::move(f)); });
    }
}

void CompositionPanel::refreshNow()
{
    if (!m_transcript)
        return;
    const cp::Options o = options();
    if (m_atDirty || !m_composition) {
        m_atJob.invalidate();
        m_atDirty = false;
        setComposition(std::make_shared<cp::Composition>(
            cp::compose(*m_transcript, m_message < 0 ? SIZE_MAX : std::size_t(m_message), o)));
    }
    if (m_sessionDirty || !m_chart->series()) {
        m_sessionJob.invalidate();
        m_sessionDirty = false;
        setSession(computeSession(*m_transcript, o));
    }
}

CompositionPanel::SessionFigures CompositionPanel::computeSession(const Transcript &t, const cp::Options &o)
{
    SessionFigures f;
    f.series = std::make_shared<cp::Series>(cp::overTime(t, o));
    f.suggestions = cp::suggest(t, cp::compose(t, SIZE_MAX, o));
    for (std::size_t i = 0; i < t.messages.size(); ++i)
        if (!t.messages[i].sidechain && t.messages[i].kind == MessageKind::CompactBoundary)
            f.compactions.push_back(int(i));
    return f;
}

void CompositionPanel::setComposition(std::shared_ptr<const cp::Composition> c)
{
    m_composition = std::move(c);
    m_model->setComposition(m_composition);
    m_grid->setComposition(m_composition);
    updateHeader();
    if (m_composition)
        Q_EMIT compositionUpdated();
}

void CompositionPanel::setSession(SessionFigures figures)
{
    m_chart->setSeries(figures.series, figures.compactions, m_composition ? m_composition->window : m_window);
    m_suggestions = std::move(figures.suggestions);
    m_suggestionView->clear();
    for (const auto &s : m_suggestions) {
        auto *item = new QTreeWidgetItem(m_suggestionView);
        item->setText(0, QString::fromStdString(s.text));
        if (!s.strategy.empty()) {
            item->setText(1, s.frees > 0 ? CompositionModel::shortTokens(s.frees) : tr("nothing"));
            item->setData(0, kStrategyRole, QString::fromStdString(s.strategy));
            item->setData(0, kParamsRole, QString::fromStdString(s.params.dump()));
            item->setToolTip(0, tr("%1 frees %2 tokens (%3). Click to preview it.")
                                    .arg(QString::fromStdString(s.strategy))
                                    .arg(s.frees)
                                    .arg(QString::fromStdString(s.note).toHtmlEscaped()));
        } else {
            item->setText(1, QStringLiteral("–"));
            item->setToolTip(0, QString::fromStdString(s.note));
            item->setForeground(0, palette().brush(QPalette::PlaceholderText));
        }
        item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
    }
    m_suggestionTitle->setText(m_chart->series() ? tr("<b>Suggestions</b> for the live context at the end (tokens freed, by "
                                                      "running the strategy; click to preview)")
                                                 : tr("<b>Suggestions</b>"));
    if (m_chart->series())
        Q_EMIT sessionUpdated();
}

void CompositionPanel::onCategoryRow(int row)
{
    const cp::Category *c = m_model->category(row);
    if (!c || c->messages.empty())
        return;
    QList<int> messages;
    messages.reserve(int(c->messages.size()));
    for (const auto m : c->messages)
        messages.push_back(int(m));
    Q_EMIT categoryFilterRequested(QString::fromStdString(c->label), messages);
}

void CompositionPanel::updateHeader()
{
    if (!m_composition) {
        m_header->setText(m_transcript ? tr("Computing the composition…") : tr("Open a transcript to see where its context goes."));
        return;
    }
    const auto &c = *m_composition;
    const QString where = m_message < 0 ? tr("at the end of the session (message %1)").arg(c.at + 1)
                                        : tr("at message %1").arg(c.at + 1);
    m_header->setText(tr("<b>Live context %1</b>, sent from message %2 on; fixed part: %3; window %4")
                          .arg(where)
                          .arg(c.from + 1)
                          .arg(QString::fromStdString(c.fixedSource).toHtmlEscaped(), CompositionModel::shortTokens(c.window)));
}

void CompositionPanel::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange)
        m_model->setDark(theme::isDark(palette()));
    QWidget::changeEvent(event);
}

} // namespace cl::gui
