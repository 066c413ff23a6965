// SPDX-License-Identifier: MIT
#pragma once

#include "core/analysis/analysis.h"
#include "core/model/transcript.h"
#include "widgets/jobs/backgroundjob.h"

#include <QObject>

#include <memory>

namespace cl::gui {

// Runs cl::analysis::analyze on the thread pool (it takes a good fraction of a second on 100 000
// messages) and delivers the result on the GUI thread. Every request bumps a generation; a result
// computed for an older request (another transcript or context window) is dropped.
class AnalysisController : public QObject
{
    Q_OBJECT
public:
    explicit AnalysisController(QObject *parent = nullptr);
    ~AnalysisController() override;

    // contextWindow <= 0 lets the analysis pick the window from its model table. The work begins
    // once the window has painted what is pending (BackgroundJob::startAfterPaint).
    void start(std::shared_ptr<const Transcript> transcript, qint64 contextWindow);
    // The same analysis on the calling thread (openFileNow, screenshots); emits analysisReady too,
    // and makes any running background analysis stale.
    std::shared_ptr<const cl::analysis::Analysis> runNow(std::shared_ptr<const Transcript> transcript,
                                                         qint64 contextWindow);
    // Drops whatever is running (a new transcript without analysis yet).
    void clear();

    bool isRunning() const { return m_job.isRunning(); }
    std::shared_ptr<const cl::analysis::Analysis> analysis() const { return m_analysis; }
    std::shared_ptr<const Transcript> transcript() const { return m_transcript; } // the one analysed

    static cl::analysis::AnalysisOptions optionsFor(qint64 contextWindow);

Q_SIGNALS:
    void started();
    // The analysis belongs to transcript(); nullptr after clear().
    void analysisReady(std::shared_ptr<const cl::analysis::Analysis> analysis);

private:
    void deliver(std::shared_ptr<const Transcript> transcript, std::shared_ptr<const cl::analysis::Analysis> analysis);

    // Every start, runNow and clear makes the running analysis stale.
    BackgroundJob<std::shared_ptr<const cl::analysis::Analysis>> m_job{this};
    std::shared_ptr<const Transcript> m_transcript;
    std::shared_ptr<const cl::analysis::Analysis> m_analysis;
};

} // namespace cl::gui
