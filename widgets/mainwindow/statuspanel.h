// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/transcript.h"

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

    void showSummary(const Transcript *transcript);
    void setLoading(bool loading);
    void setProgress(double fraction);
    QString summaryText() const;

Q_SIGNALS:
    void cancelRequested();

private:
    QLabel *m_summary;
    QProgressBar *m_progress;
    QPushButton *m_cancel;
};

} // namespace cl::gui
