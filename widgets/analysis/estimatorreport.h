// SPDX-License-Identifier: MIT
#pragma once

// The estimator error report of the analysis panel: how far the seed 001 estimator and chars/4 are
// from exact o200k_base counts, by content type (core/tokens/counts.h estimatorErrorTable). Counting a
// large session takes a while and the o200k vocabulary takes a moment to load, so both run on the
// thread pool; the result is delivered on the GUI thread. Widgets never parse files: this only calls
// core functions on an already-loaded Transcript.

#include "core/tokens/bpe.h"
#include "core/tokens/counts.h"
#include "core/model/transcript.h"
#include "widgets/jobs/backgroundjob.h"

#include <QColor>
#include <QMetaType>
#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <string>

namespace cl::gui {

class EstimatorReport : public QObject
{
    Q_OBJECT
public:
    enum class State {
        Idle,
        Computing,
        Ready,
        Unavailable
    };

    explicit EstimatorReport(QObject *parent = nullptr);
    ~EstimatorReport() override;

    // Reads o200k_base.tiktoken from `dir` instead of bpe::Tokenizer::load()'s search path (tests,
    // a --vocab-dir); empty: the search path. Forgets a tokenizer loaded from elsewhere.
    void setVocabDir(const QString &dir);
    QString vocabDir() const { return m_vocabDir; }

    // Computes the table in the background, from when the window has painted what is pending. A
    // newer request supersedes a running one: the older result is dropped when it arrives. A null
    // transcript is clear().
    void start(std::shared_ptr<const Transcript> transcript);
    // The same on the calling thread (openFileNow, screenshots): ready / unavailable before it returns.
    void runNow(std::shared_ptr<const Transcript> transcript);
    void clear();

    State state() const { return m_state; }
    bool isComputing() const { return m_state == State::Computing; }
    // The transcript the state belongs to (the one being computed while Computing).
    std::shared_ptr<const Transcript> transcript() const { return m_transcript; }
    const cl::tokencount::ErrorTable &table() const { return m_table; } // valid when Ready
    QString reason() const { return m_reason; }                         // set when Unavailable
    // Samples counted exactly for the current file so far (the rest came from the cache).
    std::size_t countedSamples() const { return m_cache ? m_cache->computed() : 0; }

Q_SIGNALS:
    void started();
    void ready(const cl::tokencount::ErrorTable &table);
    void unavailable(const QString &reason);

private:
    struct Outcome {
        std::shared_ptr<const bpe::Tokenizer> tokenizer;
        cl::tokencount::ErrorTable table;
        std::string error;      // non-empty: no table
        bool cancelled = false; // no table either; nothing to show
        QString vocabDir;       // the directory the tokenizer was looked for in
    };
    static Outcome compute(std::shared_ptr<const Transcript> transcript, std::shared_ptr<const bpe::Tokenizer> tokenizer,
                           const std::string &vocabDir, std::shared_ptr<cl::tokencount::SampleCache> cache,
                           const std::atomic<bool> *cancel);
    // Starts counting for `transcript`'s file.
    void useCacheFor(const Transcript &transcript);
    // Keeps the tokenizer a run loaded (even a stale run: the vocabulary is what it loaded).
    void keepTokenizer(const Outcome &outcome);
    void deliver(const Outcome &outcome);

    State m_state = State::Idle;
    QString m_vocabDir;
    std::shared_ptr<const bpe::Tokenizer> m_tokenizer; // loaded once, for m_vocabDir
    std::shared_ptr<const Transcript> m_transcript;
    // Counts of samples already seen, for the file in m_cachePath: after an apply or undo only the
    // changed blocks are counted again.
    std::shared_ptr<cl::tokencount::SampleCache> m_cache;
    std::string m_cachePath;
    cl::tokencount::ErrorTable m_table;
    QString m_reason;
    // Every start, runNow and clear cancels the running count (its result is stale).
    BackgroundJob<Outcome> m_job{this};
};

// |error| above this many percent is drawn in the warning tone.
constexpr double kEstimatorWarnPercent = 15.0;
// Background of a cell whose error is above kEstimatorWarnPercent: an amber tint under the palette's
// own text colour (light tint on light palettes, deep tint on dark ones) so it reads in both.
QColor estimatorWarningColor(bool dark);
// "+12.3%": the signed error with one decimal, as the table shows it.
QString estimatorPercent(double percent);
// The panel's section "Estimator accuracy (exact o200k_base vs estimates)": the table when ready,
// "computing…" while running, the reason when unavailable, nothing when idle.
QString estimatorReportHtml(const EstimatorReport &report, bool dark);

} // namespace cl::gui

Q_DECLARE_METATYPE(cl::tokencount::ErrorTable)
