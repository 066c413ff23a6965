// SPDX-License-Identifier: MIT
#pragma once

// Seed 004 operations on the current transcript's store (operationsstore.h): status and
// statistics, "Compress now" with its "N → M messages (removed K)" line, config editing (the seed
// 004 window parameters plus the default strategy and its parameters, through ParamForm) and the
// latest summaries. The dialog never modifies the transcript: it emits compressed() with the
// result so the owner applies it through its undo stack, and relays the seed 001 events. With "Let
// the model write the summary" ticked (a model configured in Summaries…) the compression runs in the
// background, cancellable, and summaries.json records the model and its cost.

#include "core/workflow/operations.h"
// Declares the std::shared_ptr<const strategy::Result> metatype (Q_DECLARE_METATYPE) that the
// compressed() signal carries; it must be seen before this header's moc code instantiates it, as
// every moc file of the library is compiled in one translation unit.
#include "widgets/strategy/strategypanel.h"
#include "widgets/jobs/backgroundjob.h"
#include "widgets/strategy/summarizersettings.h"

#include <QDialog>

#include <memory>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTextBrowser;
class QTreeWidget;

namespace cl::gui {

class ParamForm;

class OperationsDialog : public QDialog
{
    Q_OBJECT
public:
    explicit OperationsDialog(QWidget *parent = nullptr);
    ~OperationsDialog() override;

    // transcriptPath: the file the transcript came from; its store is operationsStoreFolder()'s
    // (the app's data folder, or .compression/ beside it when that exists or the user keeps it there).
    void setTranscript(std::shared_ptr<const Transcript> transcript, const QString &transcriptPath,
                       analysis::AnalysisOptions options = {}, std::vector<std::size_t> pinned = {},
                       std::vector<std::string> exemptTools = {});

    const ops::Store &store() const { return m_store; }
    const ops::Status &currentStatus() const { return m_status; }
    QString lastCompressText() const;
    // The config as the form shows it (seed fields, strategy, params that differ from defaults).
    ops::Config formConfig() const;
    ParamForm *paramForm() const { return m_params; }
    // The model of "Let the model write the summary" (the strategy dock's Summaries… settings).
    void setModelSummarizer(const GuiSummarizer &s);
    QCheckBox *withModel() const { return m_withModel; }
    QCheckBox *besideTranscript() const { return m_beside; }
    bool isCompressing() const { return m_job.isRunning(); }

public Q_SLOTS:
    void refresh();     // re-reads config, summaries and status
    bool saveConfig();  // validates and writes config.json; false (message shown) on error
    void compressNow(); // with the model: in the background, compressed() when it is done
    void cancelCompress();
    void checkNeeded(); // emits compactionNeeded when needsCompaction says so

Q_SIGNALS:
    void compressed(std::shared_ptr<const cl::strategy::Result> result);
    void compactionNeeded(const QString &reasons);
    void compactionStarted(const QString &strategy);
    void compactionCompleted(qint64 messagesBefore, qint64 messagesAfter, qint64 tokensBefore, qint64 tokensAfter);

private:
    void fillStatus();
    void fillConfig(const ops::Config &c);
    void fillSummaries();
    void strategyChanged();
    void showError(const QString &text);
    void finishCompress(const ops::CompressOutcome &out);
    void setCompressing(bool on);
    ops::Events events();

    std::shared_ptr<const Transcript> m_transcript;
    analysis::AnalysisOptions m_options;
    std::vector<std::size_t> m_pinned;
    std::vector<std::string> m_exempt;
    ops::Store m_store{std::string(".")};
    QString m_transcriptPath;
    ops::Status m_status;
    bool m_filling = false;

    QLabel *m_statusText = nullptr;
    QLabel *m_error = nullptr;
    QLabel *m_result = nullptr;
    QPushButton *m_compress = nullptr;
    QPushButton *m_cancel = nullptr;
    QCheckBox *m_withModel = nullptr;
    QCheckBox *m_beside = nullptr;
    GuiSummarizer m_gui;
    BackgroundJob<ops::CompressOutcome> m_job{this};
    QSpinBox *m_maxTurns = nullptr;
    QSpinBox *m_keepRecent = nullptr;
    QSpinBox *m_maxToolOutput = nullptr;
    QSpinBox *m_summaryMaxChars = nullptr;
    QCheckBox *m_autoCompress = nullptr;
    QDoubleSpinBox *m_importance = nullptr;
    QComboBox *m_strategy = nullptr;
    ParamForm *m_params = nullptr;
    QPushButton *m_save = nullptr;
    QSpinBox *m_latest = nullptr;
    QTreeWidget *m_summaries = nullptr;
    QTextBrowser *m_detail = nullptr;
};

} // namespace cl::gui
