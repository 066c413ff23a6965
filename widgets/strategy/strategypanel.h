// SPDX-License-Identifier: MIT
#pragma once

// Choose a strategy, set its parameters, preview it in the background and request its apply.
// The panel knows nothing of the main window: feed it the working transcript with setTranscript()
// (again after every apply / undo, which drops the now stale preview) and the selected rows with
// setPinned(); connect previewReady to a PreviewView and applyRequested to TranscriptDocument::apply.

#include "core/analysis/analysis.h"
#include "core/strategy/strategy.h"
#include "core/model/transcript.h"
#include "widgets/jobs/backgroundjob.h"
#include "widgets/strategy/summarizersettings.h"

#include <QWidget>

#include <memory>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QTextBrowser;
class QProgressBar;
class QPushButton;

namespace cl::gui {

class ParamForm;

class StrategyPanel : public QWidget
{
    Q_OBJECT
public:
    explicit StrategyPanel(QWidget *parent = nullptr);
    ~StrategyPanel() override;

    // The transcript strategies run on. analysis (optional) is reused when it belongs to it;
    // tables (optional): its per-block tables, shared with other views (null: the panel's own).
    void setTranscript(std::shared_ptr<const Transcript> transcript,
                       std::shared_ptr<const cl::analysis::Analysis> analysis = nullptr,
                       std::shared_ptr<cl::strategy::TranscriptTables> tables = nullptr);
    const std::shared_ptr<cl::strategy::TranscriptTables> &tables() const { return m_tables; }
    std::shared_ptr<const Transcript> transcript() const { return m_transcript; }
    void setAnalysisOptions(const cl::analysis::AnalysisOptions &options);
    const cl::analysis::AnalysisOptions &analysisOptions() const { return m_options; }
    void setSummarizer(const cl::strategy::Summarizer *summarizer); // null: rule-based; not owned
    // The model summarizer of previews when no summarizer is set (summarizersettings.h; QSettings by
    // default). With useModel, a preview streams the model's answer into summaryStream() and reports
    // its tokens, cost, missing sections and dropped facts in summaryReport().
    void setModelSummarizer(const GuiSummarizer &s);
    const GuiSummarizer &modelSummarizer() const { return m_gui; }
    void editSummarizer(); // the settings dialog
    QPlainTextEdit *summaryStream() const { return m_stream; }
    QTextBrowser *summaryReport() const { return m_report; }
    int streamedPieces() const { return m_pieces; } // text deltas received by the last model preview

    // Transcript indices never removed or edited; also editable by hand ("3, 7-9").
    void setPinned(const std::vector<std::size_t> &indices);
    std::vector<std::size_t> pinned() const;
    void setExemptTools(const QStringList &tools);
    QStringList exemptTools() const;

    QString currentStrategy() const; // kebab-case name, "" when none
    bool setCurrentStrategy(const QString &name);
    ParamForm *paramForm() const { return m_form; }

    // The last finished preview and the transcript it was computed on (null when none / stale).
    std::shared_ptr<const cl::strategy::Result> preview() const { return m_preview; }
    std::shared_ptr<const Transcript> previewTranscript() const { return m_previewBasis; }
    bool isBusy() const { return m_busy; }

public Q_SLOTS:
    void runPreview();
    void cancelPreview(); // the running computation finishes in the background; its result is dropped
    void requestApply();
    void reloadStrategies(); // strategy::all() again (keeps the current choice when it still exists)

Q_SIGNALS:
    void previewStarted();
    void previewReady(std::shared_ptr<const cl::strategy::Result> result);
    void previewCleared(); // the shown preview no longer matches the transcript
    void busyChanged(bool busy);
    void modelSummarizerChanged(); // modelSummarizer() was set or edited
    void applyRequested(std::shared_ptr<const cl::strategy::Result> result, const QString &label);

private:
    struct Outcome {
        std::shared_ptr<const cl::strategy::Result> result;
        std::shared_ptr<const cl::analysis::Analysis> analysis;
        nlohmann::json summaries; // the model summarizer's reports (null with the rules)
    };
    void appendStream(quint64 run, const QString &text);
    void showSummaryReport(const nlohmann::json &summaries);
    void strategyChosen();
    void clearPreview();
    void updateButtons();
    void setBusy(bool busy);

    std::shared_ptr<const Transcript> m_transcript;
    std::shared_ptr<const cl::analysis::Analysis> m_analysis;
    // Per-block tables of m_transcript kept from one preview to the next (strategy/tables.h).
    std::shared_ptr<cl::strategy::TranscriptTables> m_tables;
    cl::analysis::AnalysisOptions m_options;
    const cl::strategy::Summarizer *m_summarizer = nullptr;
    std::shared_ptr<const cl::strategy::Result> m_preview;
    std::shared_ptr<const Transcript> m_previewBasis;
    // Every run, cancel and transcript change makes the running preview stale: its result is dropped.
    BackgroundJob<Outcome> m_job{this};
    bool m_busy = false;

    QComboBox *m_combo = nullptr;
    QLabel *m_description = nullptr;
    ParamForm *m_form = nullptr;
    QLineEdit *m_pinned = nullptr;
    QLineEdit *m_exempt = nullptr;
    QPushButton *m_previewButton = nullptr;
    QPushButton *m_cancelButton = nullptr;
    QPushButton *m_applyButton = nullptr;
    QProgressBar *m_busyBar = nullptr;
    QLabel *m_status = nullptr;
    GuiSummarizer m_gui;
    QLabel *m_summaryMode = nullptr;
    QCheckBox *m_keepFacts = nullptr;
    QPlainTextEdit *m_stream = nullptr;
    QTextBrowser *m_report = nullptr;
    quint64 m_run = 0; // the preview whose stream is shown
    int m_pieces = 0;
};

} // namespace cl::gui

Q_DECLARE_METATYPE(std::shared_ptr<const cl::strategy::Result>)
