// SPDX-License-Identifier: MIT
#pragma once

#include "core/analysis/analysis.h"
#include "core/model/transcript.h"

#include <QPersistentModelIndex>
#include <QSet>
#include <QString>
#include <QWidget>

#include <memory>
#include <optional>
#include <string>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QToolButton;
class QTreeView;

namespace cl::gui {

class TranscriptModel;
class TranscriptFilterModel;

// The message tree with its filter bar.
class TranscriptPanel : public QWidget
{
    Q_OBJECT
public:
    explicit TranscriptPanel(QWidget *parent = nullptr);

    void setTranscript(std::shared_ptr<const Transcript> transcript);
    // The first messages of a file still loading (LoadController::firstRowsLoaded): shown to read
    // and scroll, but selecting a row says nothing to the rest of the window, which still shows what
    // it showed. The next setTranscript ends it.
    void showFirstRows(std::shared_ptr<const Transcript> firstRows);
    bool showsFirstRows() const { return m_firstRowsOnly; }
    // What the reader has in view: the current row, the expanded rows, the events shown, the message
    // filter and the scroll position (the caller keeps a view at the end there). Taken before a live update and given back
    // after it, each message found again by its id (by its index when it has none), so that the
    // agent's next line does not take the reader's place away.
    // The same session grown by a live update, its first `kept` messages unchanged: only the rows
    // after them change (TranscriptModel::growTranscript), unless the view filters or sorts by the
    // analysis or the new lines made earlier messages history (a compaction); then as
    // setTranscript.
    void growTranscript(std::shared_ptr<const Transcript> transcript, std::size_t kept);
    struct Spot {
        int message = -1, block = -1;
        std::string id;
    };
    struct ReadingPlace {
        Spot current;
        std::vector<Spot> expanded, eventsShown;
        std::optional<QSet<int>> messageSet;
        QString chip;
        int scroll = 0;
    };
    ReadingPlace readingPlace() const;
    // After growTranscript, only what was in the rows that changed (the rest kept its state).
    void restoreReadingPlace(const ReadingPlace &place);
    // Fills the analysis columns (forwarded to the model); nullptr clears them.
    void setAnalysis(std::shared_ptr<const cl::analysis::Analysis> analysis);
    // Selects (and scrolls to) a row given as an index of the source model.
    void selectSourceIndex(const QModelIndex &sourceIndex);
    void focusFilter();
    // Shows only `messages` (transcript indices) with a removable "label ✕" chip above the tree;
    // clearMessageFilter() (or the chip) shows everything again.
    void setMessageFilter(const QString &label, const QList<int> &messages);
    void clearMessageFilter();
    // Another file: the text and analysis filters start empty (the view settings, regex and hide
    // metadata, stay).
    void resetFilters();
    QToolButton *messageFilterChip() const { return m_chip; }
    // "No message matches ...": shown while the filters leave no row.
    QLabel *emptyNote() const { return m_empty; }

    TranscriptModel *model() const { return m_model; }
    TranscriptFilterModel *filterModel() const { return m_filter; }
    QTreeView *view() const { return m_view; }
    QLineEdit *filterEdit() const { return m_filterEdit; }
    // Analysis filters: priority class (item data = Priority as int, -1 any), critical tools only,
    // important only, minimum boundary score (0 = off). Disabled while there is no analysis.
    QComboBox *priorityCombo() const { return m_priorityCombo; }
    QCheckBox *criticalOnlyBox() const { return m_criticalOnly; }
    QCheckBox *importantOnlyBox() const { return m_importantOnly; }
    QDoubleSpinBox *minBoundarySpin() const { return m_minBoundary; }

    // The Preview column's least width when it takes what the other columns leave.
    static constexpr int kMinPreviewWidth = 240;

Q_SIGNALS:
    // block is -1 for a message row; message is -1 when nothing is selected.
    void rowSelected(int message, int block);
    // A subagent's message under the call that started it: run as in TranscriptModel::subagentRuns(),
    // message an index into that subagent's transcript.
    void subagentRowSelected(int run, int message);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void onCurrentChanged(const QModelIndex &current);
    void fitPreviewColumn();
    // setTranscript and showFirstRows: the rows of `transcript`, the filters of another one cleared.
    void showRows(std::shared_ptr<const Transcript> transcript, bool firstRowsOnly);
    void updateFilter();
    void updateAnalysisControls();
    void updateEmptyNote();

    QSet<QPersistentModelIndex> m_expandedRows; // rows of m_filter the user (or a restore) opened
    TranscriptModel *m_model;
    TranscriptFilterModel *m_filter;
    QTreeView *m_view;
    QLineEdit *m_filterEdit;
    QCheckBox *m_regex;
    QCheckBox *m_hideMeta;
    QCheckBox *m_hideHistory;
    bool m_firstRowsOnly = false; // showFirstRows until the next setTranscript
    std::size_t m_keptRows = 0;   // rows the last growTranscript left as they were (0 after setTranscript)
    QComboBox *m_priorityCombo;
    QCheckBox *m_criticalOnly;
    QCheckBox *m_importantOnly;
    QDoubleSpinBox *m_minBoundary;
    QToolButton *m_chip;
    QLabel *m_empty;
    bool m_previewSized = false; // the user dragged the Preview column: it keeps that width
    bool m_fitting = false;
};

} // namespace cl::gui
