// SPDX-License-Identifier: MIT
#pragma once

#include "core/io/loader.h"
#include "widgets/jobs/backgroundjob.h"

#include <QObject>
#include <QString>

#include <optional>

namespace cl::gui {

// Runs cl::loadFile on the thread pool and delivers the result on the GUI thread. Starting a new
// load cancels the running one; a result that arrives after a newer load started is dropped.
class LoadController : public QObject
{
    Q_OBJECT
public:
    explicit LoadController(QObject *parent = nullptr);
    ~LoadController() override;

    void start(const QString &path, std::optional<Format> format = std::nullopt);
    void cancel();
    // View › Whole History: load every message as live, history before a compaction included
    // (LoadOptions::wholeHistory); remembered across sessions.
    static bool wholeHistory();
    static void setWholeHistory(bool whole);
    bool isLoading() const { return m_job.isRunning(); }
    // The same load, on the calling thread (used by --screenshot).
    static LoadResult loadNow(const QString &path, std::optional<Format> format = std::nullopt);

Q_SIGNALS:
    void started(const QString &path);
    void progress(double fraction);
    void finished(const QString &path, const cl::LoadResult &result);

private:
    BackgroundJob<LoadResult> m_job{this};
};

} // namespace cl::gui
