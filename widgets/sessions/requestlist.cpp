// SPDX-License-Identifier: MIT
#include "widgets/sessions/requestlist.h"

#include "core/io/loader.h"
#include "core/io/requestsession.h"
#include "widgets/sessions/cachechart.h"
#include "widgets/models/filenames.h"
#include "widgets/models/requestlistmodel.h"
#include "widgets/models/roles.h"

#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <functional>

namespace cl::gui {

namespace {

// Enter opens the current row, like a double-click.
class RequestTable : public QTableView
{
public:
    using QTableView::QTableView;
    std::function<void(const QModelIndex &)> onActivate;

protected:
    void keyPressEvent(QKeyEvent *e) override
    {
        if ((e->key() == Qt::Key_Return || e->key() == Qt::Key_Enter) && currentIndex().isValid() && onActivate) {
            onActivate(currentIndex());
            return;
        }
        QTableView::keyPressEvent(e);
    }
};

} // namespace

RequestList::RequestList(QWidget *parent)
    : QWidget(parent)
    , m_model(new RequestListModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_status(new QLabel(this))
    , m_progress(new QProgressBar(this))
    , m_chart(new CacheChart(this))
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(SortRole);
    auto *table = new RequestTable(this);
    table->onActivate = [this](const QModelIndex &i) { activate(i); };
    m_view = table;
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(RequestListModel::NumberColumn, Qt::AscendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setAccessibleName(tr("Requests of the recording"));
    connect(m_view, &QAbstractItemView::doubleClicked, this, &RequestList::activate);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(false);
    m_progress->setMaximumHeight(m_status->fontMetrics().height() / 2 + 2);
    m_progress->hide();
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_status);
    layout->addWidget(m_progress);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_chart);
    split->addWidget(m_view);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    m_chart->setMaximumHeight(160);
    split->setChildrenCollapsible(false);
    layout->addWidget(split, 1);
    connect(m_chart, &CacheChart::requestClicked, this, &RequestList::selectRequest);
}

void RequestList::setRecording(const QString &file, std::size_t current)
{
    const QFileInfo info(file);
    const bool same = !file.isEmpty() && file == m_file && info.lastModified() == m_readModified && info.size() == m_readSize;
    m_model->setCurrent(current);
    if (same || (file == m_file && m_job.isRunning()))
        return;
    m_file = file;
    if (file.isEmpty()) {
        m_job.cancel();
        m_model->setRequests({});
        m_chart->setPoints({}, {});
        m_status->clear();
        m_progress->hide();
        return;
    }
    m_readModified = info.lastModified();
    m_readSize = info.size();
    m_status->setText(tr("Reading the requests of %1…").arg(info.fileName()));
    m_progress->setValue(0);
    m_progress->show();
    const std::string path = filenames::toBytes(file);
    const std::string home = filenames::toBytes(QDir::homePath());
    m_job.start(
        [path, home](JobControl &control) {
            LoadOptions opts;
            opts.cancel = control.cancelFlag();
            opts.threads = 1; // one request at a time, each small: the window keeps the other cores
            opts.progress = [&control](double f) { control.setProgress(f); };
            Read result;
            std::string bytes, error;
            if (!readRecordingFile(path, bytes, error)) {
                result.error = QString::fromStdString(error);
                return result;
            }
            result.summary = summarizeRecording(bytes, path, opts);
            const recording::Recording rec = recording::readRecording(bytes, path);
            llm::PriceTable prices;
            llm::PriceTable::load(prices, "", nullptr); // a broken user file: the shipped prices
            result.steps = cost::cacheSteps(rec, prices);
            // The session the agent wrote meanwhile, where its requests name it.
            if (const std::string session = findAgentSession(sessionIdOf(result.summary), home); !session.empty()) {
                LoadOptions so;
                so.cancel = opts.cancel;
                so.threads = 1;
                if (const LoadResult loaded = loadFile(session, so); loaded.ok()) {
                    result.linked = linkToSession(result.summary, rec, *loaded.transcript);
                    result.session = filenames::fromBytes(session);
                }
            }
            return result;
        },
        [this](Read result) { showRead(std::move(result)); },
        [this](JobProgress p) { m_progress->setValue(int(p.fraction() * 1000)); });
}

void RequestList::showRead(Read result)
{
    m_progress->hide();
    const RecordingSummary &summary = result.summary;
    std::size_t breaks = 0;
    std::int64_t missed = 0;
    double dollars = 0;
    for (const cost::CacheStep &s : result.steps)
        if (s.missedTokens > 0) {
            ++breaks;
            missed += s.missedTokens;
            dollars += s.dollars;
        }
    const std::size_t current = m_model->current();
    m_model->setRequests(summary.requests, std::move(result.steps));
    m_model->setCurrent(current);
    // The chart: each model call the provider measured, its cache reads, writes and the rest.
    std::vector<CachePoint> points;
    std::vector<QString> tips;
    for (const RequestSummary &r : summary.requests) {
        if (!r.usage)
            continue;
        const cost::CacheStep *step = m_model->stepOf(r.number);
        const bool broke = step && step->missedTokens > 0;
        points.push_back({r.number, r.usage->cacheReadTokens, r.usage->cacheCreationTokens, r.usage->inputTokens, broke});
        QString tip = tr("Request %1: %2 read from the cache, %3 written to it, %4 uncached")
                          .arg(QString::number(r.number), QLocale().toString(qlonglong(r.usage->cacheReadTokens)),
                               QLocale().toString(qlonglong(r.usage->cacheCreationTokens)), QLocale().toString(qlonglong(r.usage->inputTokens)));
        if (step && !step->cause.empty())
            tip += u'\n' + QString::fromStdString(step->cause);
        tips.push_back(tip);
    }
    m_chart->setPoints(std::move(points), std::move(tips));
    const QString name = QFileInfo(m_file).fileName();
    if (!result.error.isEmpty()) {
        m_status->setText(result.error);
    } else {
        QString text = tr("%1: %2 requests, %3 model calls.")
                           .arg(name, QLocale().toString(qulonglong(summary.requests.size())),
                                QLocale().toString(qulonglong(summary.modelCalls)));
        if (!result.session.isEmpty())
            text += u' ' + tr("The agent's session %1 holds %n of the answers (In session column).", nullptr, int(result.linked)).arg(QFileInfo(result.session).fileName());
        if (breaks > 0)
            text += u' ' + tr("The prompt cache broke %n time(s): %1 tokens not read (%2).", nullptr, int(breaks)).arg(QLocale().toString(qlonglong(missed)), dollarText(dollars));
        QString unread;
        if (!summary.diagnostics.empty()) {
            text += u' ' + tr("%n line(s) not read.", nullptr, int(summary.diagnostics.size()));
            for (const Diagnostic &d : summary.diagnostics)
                unread += QString::fromStdString(d.toString()) + u'\n';
        }
        m_status->setText(text);
        m_status->setToolTip(unread.trimmed());
    }
    for (int c : {RequestListModel::NumberColumn, RequestListModel::TimeColumn, RequestListModel::ApiColumn, RequestListModel::ModelColumn,
                  RequestListModel::CacheColumn})
        m_view->resizeColumnToContents(c);
    const int row = m_model->rowOfNumber(current);
    if (row >= 0)
        m_view->scrollTo(m_proxy->mapFromSource(m_model->index(row, 0)));
    Q_EMIT read();
}

void RequestList::selectRequest(std::size_t number)
{
    const int row = m_model->rowOfNumber(number);
    if (row < 0)
        return;
    const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
    m_view->setCurrentIndex(index);
    m_view->scrollTo(index);
}

void RequestList::activate(const QModelIndex &proxyIndex)
{
    const RequestSummary *r = m_model->requestAt(m_proxy->mapToSource(proxyIndex).row());
    if (!r || r->api == Format::Unknown)
        return;
    Q_EMIT openRequested(filenames::fromBytes(requestPath(filenames::toBytes(m_file), r->number)));
}

} // namespace cl::gui
