// SPDX-License-Identifier: MIT
#pragma once

// The Requests dock: when the window shows a request of a recording (core/io/recordedrequest.h),
// every request of that recording, read in the background (each request loaded in turn, with
// progress; a recording read again when it changed on disk), and above it the prompt cache over the
// requests (core/cost/promptcache.h). Double-click or Enter opens one.

#include "core/cost/promptcache.h"
#include "core/io/recordedrequest.h"
#include "widgets/jobs/backgroundjob.h"

#include <QDateTime>
#include <QWidget>

class QLabel;
class QProgressBar;
class QSortFilterProxyModel;
class QTableView;

namespace cl::gui {

class CacheChart;
class RequestListModel;

class RequestList : public QWidget
{
    Q_OBJECT
public:
    explicit RequestList(QWidget *parent = nullptr);

    // The recording `file` with request `current` shown; an empty file clears the list.
    void setRecording(const QString &file, std::size_t current);
    QString file() const { return m_file; }
    bool isReading() const { return m_job.isRunning(); }
    void waitForWork() { m_job.waitForWork(); }

    RequestListModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    QLabel *status() const { return m_status; }
    CacheChart *cacheChart() const { return m_chart; }

Q_SIGNALS:
    void openRequested(const QString &path); // "recording#N"
    void read();                             // the list was (re)read

private:
    void activate(const QModelIndex &proxyIndex);
    struct Read {
        cl::RecordingSummary summary;
        std::vector<cl::cost::CacheStep> steps;
        QString error;
        QString session;        // the session file the agent wrote meanwhile, found by its session id
        std::size_t linked = 0; // requests whose answer it holds
    };
    void showRead(Read result);
    void selectRequest(std::size_t number);

    QString m_file;
    QDateTime m_readModified; // the file's modification time when it was read
    qint64 m_readSize = -1;
    RequestListModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QTableView *m_view;
    QLabel *m_status;
    QProgressBar *m_progress;
    CacheChart *m_chart;
    BackgroundJob<Read> m_job{this};
};

} // namespace cl::gui
