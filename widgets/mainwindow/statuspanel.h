// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/transcript.h"
#include "core/tokens/contextfigure.h"

#include <QWidget>

class QLabel;
class QProgressBar;
class QPushButton;

namespace cl::gui {

// Permanent status bar content: what is loaded, and the progress / cancel of a running load.
class StatusPanel : public QWidget
{
    Q_OBJECT
public:
    explicit StatusPanel(QWidget *parent = nullptr);

    // `figure`: the live context figure of the transcript as the window counts it (computed here when null).
    void showSummary(const Transcript *transcript, const tokens::ContextFigure *figure = nullptr);
    // While loading, `what` (when given) stands where the summary was; it comes back after.
    void setLoading(bool loading, const QString &what = {});
    void setProgress(double fraction);
    QString summaryText() const;

Q_SIGNALS:
    void cancelRequested();

private:
    QLabel *m_summary;
    QString m_summaryBeforeLoading; // shown again when the load ends
    bool m_showsLoading = false;
    QProgressBar *m_progress;
    QPushButton *m_cancel;
};

} // namespace cl::gui
