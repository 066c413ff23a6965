// SPDX-License-Identifier: MIT
#include "widgets/analysis/analysiscontroller.h"

#include <QFutureWatcher>
#include <QtConcurrent>

namespace cl::gui {

namespace {
using AnalysisPtr = std::shared_ptr<const cl::analysis::Analysis>;
}

AnalysisController::AnalysisController(QObject *parent)
    : QObject(parent)
{
}

// A running worker holds its own shared_ptr to the transcript, so it may finish after we are gone;
// its watcher is our child and dies with us, so the result is simply discarded.
AnalysisController::~AnalysisController() = default;

cl::analysis::AnalysisOptions AnalysisController::optionsFor(qint64 contextWindow)
{
    cl::analysis::AnalysisOptions o;
    o.contextWindow = contextWindow > 0 ? contextWindow : 0;
    return o;
}

void AnalysisController::start(std::shared_ptr<const Transcript> transcript, qint64 contextWindow)
{
    const quint64 generation = ++m_generation;
    if (!transcript) {
        clear();
        return;
    }
    m_running = true;
    auto *watcher = new QFutureWatcher<AnalysisPtr>(this);
    connect(watcher, &QFutureWatcher<AnalysisPtr>::finished, this, [this, watcher, generation, transcript] {
        watcher->deleteLater();
        if (generation != m_generation)
            return; // stale: a newer transcript or window was asked for
        m_running = false;
        const QFuture<AnalysisPtr> future = watcher->future();
        if (future.resultCount() > 0)
            deliver(transcript, future.result());
    });
    const cl::analysis::AnalysisOptions options = optionsFor(contextWindow);
    watcher->setFuture(QtConcurrent::run([transcript, options]() -> AnalysisPtr {
        return std::make_shared<const cl::analysis::Analysis>(cl::analysis::analyze(*transcript, options));
    }));
    Q_EMIT started();
}

AnalysisPtr AnalysisController::runNow(std::shared_ptr<const Transcript> transcript, qint64 contextWindow)
{
    ++m_generation;
    m_running = false;
    if (!transcript) {
        clear();
        return nullptr;
    }
    auto analysis = std::make_shared<const cl::analysis::Analysis>(cl::analysis::analyze(*transcript, optionsFor(contextWindow)));
    deliver(transcript, analysis);
    return analysis;
}

void AnalysisController::clear()
{
    ++m_generation;
    m_running = false;
    deliver(nullptr, nullptr);
}

void AnalysisController::deliver(std::shared_ptr<const Transcript> transcript, AnalysisPtr analysis)
{
    m_transcript = std::move(transcript);
    m_analysis = std::move(analysis);
    Q_EMIT analysisReady(m_analysis);
}

} // namespace cl::gui
