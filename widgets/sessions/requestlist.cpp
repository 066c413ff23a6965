// SPDX-License-Identifier: MIT
#include "widgets/sessions/requestlist.h"

#include "widgets/models/filenames.h"
#include "widgets/models/requestlistmodel.h"
#include "widgets/models/roles.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QSortFilterProxyModel>
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
    layout->addWidget(m_view, 1);
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
    m_job.start(
        [path](JobControl &control) {
            LoadOptions opts;
            opts.cancel = control.cancelFlag();
            opts.threads = 1; // one request at a time, each small: the window keeps the other cores
            opts.progress = [&control](double f) { control.setProgress(f); };
            RecordingSummary summary;
            std::string error;
            summarizeRecordingFile(path, summary, error, opts);
            return std::make_pair(std::move(summary), QString::fromStdString(error));
        },
        [this](std::pair<RecordingSummary, QString> result) { showSummary(result.first, result.second); },
        [this](JobProgress p) { m_progress->setValue(int(p.fraction() * 1000)); });
}

void RequestList::showSummary(const RecordingSummary &summary, const QString &error)
{
    m_progress->hide();
    const std::size_t current = m_model->current();
    m_model->setRequests(summary.requests);
    m_model->setCurrent(current);
    const QString name = QFileInfo(m_file).fileName();
    if (!error.isEmpty()) {
        m_status->setText(error);
    } else {
        QString text = tr("%1: %2 requests, %3 model calls. Double-click one to open it.")
                           .arg(name, QLocale().toString(qulonglong(summary.requests.size())),
                                QLocale().toString(qulonglong(summary.modelCalls)));
        if (!summary.diagnostics.empty())
            text += u' ' + tr("%n line(s) could not be read (see Diagnostics of a request).", nullptr, int(summary.diagnostics.size()));
        m_status->setText(text);
    }
    for (int c : {RequestListModel::NumberColumn, RequestListModel::TimeColumn, RequestListModel::ApiColumn, RequestListModel::ModelColumn})
        m_view->resizeColumnToContents(c);
    const int row = m_model->rowOfNumber(current);
    if (row >= 0)
        m_view->scrollTo(m_proxy->mapFromSource(m_model->index(row, 0)));
    Q_EMIT read();
}

void RequestList::activate(const QModelIndex &proxyIndex)
{
    const RequestSummary *r = m_model->requestAt(m_proxy->mapToSource(proxyIndex).row());
    if (!r || r->api == Format::Unknown)
        return;
    Q_EMIT openRequested(filenames::fromBytes(requestPath(filenames::toBytes(m_file), r->number)));
}

} // namespace cl::gui
