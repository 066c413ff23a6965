// SPDX-License-Identifier: MIT
#include "widgets/analysis/analysiscontroller.h"

#include "widgets/models/tokencount.h"

namespace cl::gui {

namespace {
using AnalysisPtr = std::shared_ptr<const cl::analysis::Analysis>;
}

AnalysisController::AnalysisController(QObject *parent)
    : QObject(parent)
{
}

// A running worker holds its own shared_ptr to the transcript, so it may finish after we are gone;
// the job delivers nothing once we are, so the result is simply discarded.
AnalysisController::~AnalysisController() = default;

cl::analysis::AnalysisOptions AnalysisController::optionsFor(qint64 contextWindow)
{
    cl::analysis::AnalysisOptions o;
    o.contextWindow = contextWindow > 0 ? contextWindow : 0;
    o.estimator = tokencount::chosen();
    return o;
}

void AnalysisController::start(std::shared_ptr<const Transcript> transcript, qint64 contextWindow)
{
    if (!transcript) {
        clear();
        return;
    }
    const cl::analysis::AnalysisOptions options = optionsFor(contextWindow);
    // After the pending paint: a new transcript's rows are painted before the analysis competes
    // for the CPU. A result for an older transcript or window is stale.
    m_job.startAfterPaint(
        [transcript, options](JobControl &) -> AnalysisPtr {
            return std::make_shared<const cl::analysis::Analysis>(cl::analysis::analyze(*transcript, options));
        },
        [this, transcript](AnalysisPtr analysis) { deliver(transcript, std::move(analysis)); });
    Q_EMIT started();
}

AnalysisPtr AnalysisController::runNow(std::shared_ptr<const Transcript> transcript, qint64 contextWindow)
{
    m_job.invalidate();
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
    m_job.invalidate();
    deliver(nullptr, nullptr);
}

void AnalysisController::deliver(std::shared_ptr<const Transcript> transcript, AnalysisPtr analysis)
{
    m_transcript = std::move(transcript);
    m_analysis = std::move(analysis);
    Q_EMIT analysisReady(m_analysis);
}

} // namespace cl::gui
