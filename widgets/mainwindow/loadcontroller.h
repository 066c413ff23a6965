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
// A large file's first messages come first: the file's first kFirstRowsBytes, cut after its last
// whole line, loaded on their own (firstRowsLoaded) while the whole file loads.
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
    // Files from this size on have their first rows loaded first; how much of the file that reads.
    static constexpr qint64 kFirstRowsFrom = 32LL << 20;
    static constexpr qint64 kFirstRowsBytes = 1LL << 20;
    // The first messages of `path`: its first kFirstRowsBytes (up to the last line feed), loaded
    // as a transcript of their own; null when they hold no message.
    static std::shared_ptr<const Transcript> loadFirstRows(const QString &path, std::optional<Format> format, bool wholeHistory);
    // The same load, on the calling thread (used by --screenshot).
    static LoadResult loadNow(const QString &path, std::optional<Format> format = std::nullopt);

Q_SIGNALS:
    void started(const QString &path);
    void progress(double fraction);
    void finished(const QString &path, const cl::LoadResult &result);
    // The first messages of the file being loaded, while it loads (not after finished()).
    void firstRowsLoaded(const QString &path, std::shared_ptr<const cl::Transcript> firstRows);

private:
    BackgroundJob<LoadResult> m_job{this};
    BackgroundJob<std::shared_ptr<const Transcript>> m_firstRows{this};
};

} // namespace cl::gui
