// SPDX-License-Identifier: MIT
#pragma once

// The compaction audit (core/workflow/audit.h) of the open session: every compaction its agent made,
// with the tokens before and after and the facts kept; for the chosen one, the history it replaced
// beside what the agent wrote instead, the facts it dropped (and kept), and what each strategy
// would have kept from the same history. Computed in the background and only while shown.

#include "core/model/transcript.h"
#include "core/workflow/audit.h"
#include "widgets/jobs/backgroundjob.h"

#include <QWidget>

#include <memory>
#include <vector>

class QLabel;
class QListWidget;
class QPushButton;
class QTextBrowser;
class QTreeWidget;

namespace cl::gui {

class AuditPanel : public QWidget
{
    Q_OBJECT
public:
    explicit AuditPanel(QWidget *parent = nullptr);
    ~AuditPanel() override;

    void setTranscript(std::shared_ptr<const Transcript> transcript);
    void setActive(bool active); // off: nothing computed
    bool isActive() const { return m_active; }
    // A recording of the agent (`contextlens-cli record`): each compaction is linked to the request
    // that wrote its summary (core/workflow/audit.h WireCompaction). "" unlinks.
    void setRecording(const QString &file);
    QString recording() const { return m_recording; }
    void refreshNow(); // on this thread (tests, screenshots)
    bool isBusy() const { return m_job.isRunning(); }

    const std::vector<cl::audit::Compaction> &compactions() const { return m_compactions; }
    void selectCompaction(int index);
    int selectedCompaction() const;
    QTreeWidget *compactionList() const { return m_list; }
    QListWidget *history() const { return m_history; }
    QTextBrowser *summaryView() const { return m_summary; }
    QTreeWidget *strategyTable() const { return m_strategies; }
    QLabel *header() const { return m_header; }
    QPushButton *recordingButton() const { return m_recordingButton; }

Q_SIGNALS:
    void messageActivated(int message);         // a replaced message or a fact's source was clicked
    void requestActivated(const QString &path); // "recording#N": the compaction's request was clicked
    void auditUpdated();

private:
    void startWork();
    void setCompactions(std::vector<cl::audit::Compaction> list);
    void showCompaction(int index);
    void chooseRecording();
    struct Result {
        std::vector<cl::audit::Compaction> list;
        std::string error; // the recording could not be read
    };
    static Result compute(const Transcript &t, const std::string &recording);

    std::shared_ptr<const Transcript> m_transcript;
    std::shared_ptr<const Transcript> m_computedFor;
    bool m_active = false;
    std::vector<cl::audit::Compaction> m_compactions;
    BackgroundJob<Result> m_job{this};
    QString m_recording, m_computedRecording;
    QString m_recordingError;

    QLabel *m_header;
    QPushButton *m_recordingButton;
    QTreeWidget *m_list;
    QListWidget *m_history;
    QTextBrowser *m_summary;
    QTreeWidget *m_strategies;
};

} // namespace cl::gui
