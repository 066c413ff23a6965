// SPDX-License-Identifier: MIT
#pragma once

#include "core/analysis/analysis.h"
#include "core/model/transcript.h"

#include <QWidget>

#include <memory>

class QTextBrowser;
class QUrl;

namespace cl::gui {

class EstimatorReport;

// Why the analysis decided what it did. Top: the selected message (priority rule, the boundary score
// of cutting before it with every reason, both importance scores, its tool round, critical tools).
// Bottom: the session (features, recommended strategy, seed 002 triggers, seed 001 needsCompaction,
// usage band, chosen boundary, facts) and the estimator error table (estimatorreport.h), computed in
// the background for each new transcript. Message numbers are links: a click asks to select that row.
class AnalysisPanel : public QWidget
{
    Q_OBJECT
public:
    explicit AnalysisPanel(QWidget *parent = nullptr);

    // A transcript other than the estimator report's starts the report for it (load, apply, undo).
    void setAnalysis(std::shared_ptr<const Transcript> transcript, std::shared_ptr<const cl::analysis::Analysis> analysis);
    void setBusy(bool busy);
    // Transcript index of the selected message, -1 for none.
    void showMessage(int message);
    int shownMessage() const { return m_message; }

    // The views, their text brought up to date first: a hidden panel (its dock closed or behind
    // another tab) renders its text only when shown, not at every analysis (20-27 ms for each live
    // update of an 800 MB session).
    QTextBrowser *messageView()
    {
        catchUp();
        return m_messageView;
    }
    QTextBrowser *sessionView()
    {
        catchUp();
        return m_sessionView;
    }
    EstimatorReport *estimatorReport() const { return m_estimator; }

    // The HTML both views show; plain functions of the analysis, so they are tested without a window.
    static QString messageHtml(const Transcript &t, const cl::analysis::Analysis &a, int message, bool dark);
    static QString sessionHtml(const Transcript &t, const cl::analysis::Analysis &a, bool dark);

Q_SIGNALS:
    void messageActivated(int transcriptIndex);

protected:
    void changeEvent(QEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    void onAnchor(const QUrl &url);
    void refresh();
    void refreshSession();
    void refreshMessage();
    void renderSession();
    void renderMessage();
    void catchUp(); // renders what changed while hidden

    QTextBrowser *m_messageView;
    QTextBrowser *m_sessionView;
    EstimatorReport *m_estimator;
    std::shared_ptr<const Transcript> m_transcript;
    std::shared_ptr<const cl::analysis::Analysis> m_analysis;
    int m_message = -1;
    bool m_busy = false;
    bool m_sessionStale = false, m_messageStale = false; // changed while hidden
};

} // namespace cl::gui
