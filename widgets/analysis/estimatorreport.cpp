// SPDX-License-Identifier: MIT
#include "widgets/analysis/estimatorreport.h"

#include <QDir>
#include <QLocale>

#include <cmath>

namespace cl::gui {

namespace tc = cl::tokencount;

EstimatorReport::EstimatorReport(QObject *parent)
    : QObject(parent)
{
    m_job.setStaleHandler([this](Outcome o) { keepTokenizer(o); });
}

// A running worker holds its own shared_ptrs to transcript and tokenizer, so it may finish after we
// are gone; the job cancels it and delivers nothing once we are, so the result is simply discarded.
EstimatorReport::~EstimatorReport() = default;

void EstimatorReport::keepTokenizer(const Outcome &o)
{
    if (o.tokenizer && o.vocabDir == m_vocabDir)
        m_tokenizer = o.tokenizer;
}

void EstimatorReport::useCacheFor(const Transcript &transcript)
{
    if (!m_cache || m_cachePath != transcript.path) {
        m_cache = std::make_shared<tc::SampleCache>();
        m_cachePath = transcript.path;
    }
}

void EstimatorReport::setVocabDir(const QString &dir)
{
    if (dir == m_vocabDir)
        return;
    m_vocabDir = dir;
    m_tokenizer.reset();
    m_cache.reset(); // counts made with another vocabulary
}

EstimatorReport::Outcome EstimatorReport::compute(std::shared_ptr<const Transcript> transcript,
                                                  std::shared_ptr<const bpe::Tokenizer> tokenizer,
                                                  const std::string &vocabDir, std::shared_ptr<tc::SampleCache> cache,
                                                  const std::atomic<bool> *cancel)
{
    Outcome o;
    o.tokenizer = std::move(tokenizer);
    if (!o.tokenizer) {
        // Tokenizer::load caches process-wide and retries after a failure, so vocabularies fetched
        // while the app runs are found by the next request.
        o.tokenizer = bpe::loadVocabulary(bpe::Encoding::O200kBase, vocabDir, o.error);
        if (!o.tokenizer)
            return o;
    }
    std::optional<tc::ErrorTable> table = tc::estimatorErrorTable(*transcript, *o.tokenizer, *cache, cancel);
    if (table)
        o.table = std::move(*table);
    else
        o.cancelled = true;
    return o;
}

void EstimatorReport::start(std::shared_ptr<const Transcript> transcript)
{
    if (!transcript) {
        clear();
        return;
    }
    useCacheFor(*transcript);
    m_transcript = transcript;
    m_state = State::Computing;
    m_table = {};
    m_reason.clear();
    const QString dir = m_vocabDir;
    // After the pending paint, like the analysis (AnalysisController::start). It cancels the
    // running count: its result is stale.
    m_job.startAfterPaint(
        [transcript = std::move(transcript), tokenizer = m_tokenizer, dir, cache = m_cache](JobControl &control) {
            Outcome o = compute(transcript, tokenizer, dir.toStdString(), cache, control.cancelFlag());
            o.vocabDir = dir;
            return o;
        },
        [this](Outcome o) {
            keepTokenizer(o);
            if (o.cancelled)
                return;
            deliver(o);
        });
    Q_EMIT started();
}

void EstimatorReport::runNow(std::shared_ptr<const Transcript> transcript)
{
    if (!transcript) {
        clear();
        return;
    }
    m_job.cancel(); // a background run still going is stale now
    useCacheFor(*transcript);
    m_transcript = transcript;
    const Outcome o = compute(std::move(transcript), m_tokenizer, m_vocabDir.toStdString(), m_cache, nullptr);
    if (o.tokenizer)
        m_tokenizer = o.tokenizer;
    deliver(o);
}

void EstimatorReport::clear()
{
    m_job.cancel();
    m_transcript.reset();
    m_state = State::Idle;
    m_table = {};
    m_reason.clear();
}

void EstimatorReport::deliver(const Outcome &o)
{
    if (!o.error.empty() || !o.tokenizer) {
        m_state = State::Unavailable;
        m_table = {};
        m_reason = QString::fromStdString(o.error);
        Q_EMIT unavailable(m_reason);
        return;
    }
    m_state = State::Ready;
    m_table = o.table;
    m_reason.clear();
    Q_EMIT ready(m_table);
}

// ---- HTML ----

QColor estimatorWarningColor(bool dark)
{
    return dark ? QColor(110, 72, 20) : QColor(255, 222, 170);
}

QString estimatorPercent(double percent)
{
    // One decimal; -0.0 would read oddly next to +0.0, so tiny values are plain 0.0.
    const double v = std::round(percent * 10.0) / 10.0;
    if (v == 0.0)
        return QStringLiteral("0.0%");
    return (v > 0 ? QStringLiteral("+") : QString()) + QString::number(v, 'f', 1) + QStringLiteral("%");
}

namespace {

QString count(std::int64_t v)
{
    return QLocale().toString(qlonglong(v));
}

QString errorCell(double percent, std::int64_t exact, bool dark)
{
    if (exact == 0)
        return QStringLiteral("<td align=\"right\" style=\"white-space:nowrap\">–</td>");
    const bool warn = std::abs(percent) > kEstimatorWarnPercent;
    return QStringLiteral("<td align=\"right\" style=\"white-space:nowrap\"%1>%2</td>")
        .arg(warn ? QStringLiteral(" bgcolor=\"%1\"").arg(estimatorWarningColor(dark).name()) : QString(),
             estimatorPercent(percent));
}

QString tableRow(const QString &label, const tc::ReportRow &r, bool dark, bool bold)
{
    const QString open = bold ? QStringLiteral("<b>") : QString(), close = bold ? QStringLiteral("</b>") : QString();
    // No wrapping inside a cell: the dock is narrow, and "50,24|2" split over two lines misreads.
    return QStringLiteral("<tr><td style=\"white-space:nowrap\">%1%2%3</td><td align=\"right\" style=\"white-space:nowrap\">%4</td>"
                          "<td align=\"right\" style=\"white-space:nowrap\">%5</td><td align=\"right\" style=\"white-space:nowrap\">%6</td>"
                          "%7<td align=\"right\" style=\"white-space:nowrap\">%8</td>%9</tr>")
        .arg(open, label.toHtmlEscaped(), close, count(std::int64_t(r.samples)), count(r.exact), count(r.estimator),
             errorCell(r.estimatorErrorPercent(), r.exact, dark), count(r.charsDiv4),
             errorCell(r.charsErrorPercent(), r.exact, dark));
}

} // namespace

QString estimatorReportHtml(const EstimatorReport &report, bool dark)
{
    if (report.state() == EstimatorReport::State::Idle)
        return {};
    QString html = QStringLiteral("<p><b>Estimator accuracy (exact o200k_base vs estimates)</b></p>");
    switch (report.state()) {
    case EstimatorReport::State::Computing:
        return html + QStringLiteral("<p><i>computing…</i></p>");
    case EstimatorReport::State::Unavailable:
        return html + QStringLiteral("<p>Not available: %1</p>").arg(report.reason().toHtmlEscaped());
    case EstimatorReport::State::Idle:
    case EstimatorReport::State::Ready: break;
    }
    const tc::ErrorTable &t = report.table();
    if (t.rows.empty())
        return html + QStringLiteral("<p>No text in the conversation to count.</p>");
    // Two-line headers keep the seven columns inside the analysis dock's default width.
    html += QStringLiteral("<table cellspacing=\"0\" cellpadding=\"2\" border=\"1\" style=\"border-collapse:collapse\">"
                           "<tr><th style=\"white-space:nowrap\" align=\"left\">type</th><th style=\"white-space:nowrap\" align=\"right\">n</th>"
                           "<th style=\"white-space:nowrap\" align=\"right\">exact<br>tokens</th><th style=\"white-space:nowrap\" align=\"right\">seed<br>001</th><th style=\"white-space:nowrap\" align=\"right\">err</th>"
                           "<th style=\"white-space:nowrap\" align=\"right\">chars<br>/4</th><th style=\"white-space:nowrap\" align=\"right\">err</th></tr>");
    for (const tc::ReportRow &r : t.rows)
        html += tableRow(QString::fromUtf8(tc::contentTypeName(r.type).data(), qsizetype(tc::contentTypeName(r.type).size())), r,
                         dark, false);
    html += tableRow(QStringLiteral("total"), t.total, dark, true);
    html += QStringLiteral("</table><p><small>n: samples, one per text, thinking, tool input and tool result, by content type. err: "
                           "the estimate minus exact, in percent of exact; beyond ±%1 % shaded.</small></p>")
                .arg(kEstimatorWarnPercent, 0, 'f', 0);
    return html;
}

} // namespace cl::gui
