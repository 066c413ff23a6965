// SPDX-License-Identifier: MIT
#pragma once

// Side-by-side strategy preview: the original messages on the left, the result's on the right, in
// two tree views over two ResultModels with the same columns, rows tinted by fate. Selection and
// scrolling follow each other (a removed or inserted row selects nothing on the other side and the
// status line says why). Above: the stats of the result (tokens before -> after, reduction,
// efficiency, fact retention, cache prefix, time, validity) and its note; "Details" opens the log
// and the violations. Below: the full text of the selected message on each side.

#include "core/strategy/strategy.h"
#include "core/model/transcript.h"

#include <QWidget>

#include <memory>
#include <vector>

class QCheckBox;
class QLabel;
class QModelIndex;
class QPlainTextEdit;
class QToolButton;
class QTreeView;

namespace cl::gui {

class LongLineTextView;
class ChangeStrip;

class ResultModel;

class PreviewView : public QWidget
{
    Q_OBJECT
public:
    explicit PreviewView(QWidget *parent = nullptr);
    ~PreviewView() override;

    // original: the transcript the result was computed on (StrategyPanel::previewTranscript()).
    void setResult(std::shared_ptr<const Transcript> original, std::shared_ptr<const cl::strategy::Result> result);
    // Only the original (no preview yet, or the preview was dropped).
    void setTranscript(std::shared_ptr<const Transcript> transcript) { setResult(std::move(transcript), nullptr); }
    void clear() { setResult(nullptr, nullptr); }

    ResultModel *originalModel() const { return m_leftModel; }
    ResultModel *resultModel() const { return m_rightModel; }
    QTreeView *originalView() const { return m_left; }
    QTreeView *resultView() const { return m_right; }
    QString statsText() const;   // the header as plain text
    QString syncMessage() const; // why the other side has no selection, "" when it has one
    QString detailsText() const; // note, log and violations
    // The original's rows the result changed (every fate but kept), in order; the preview opens at
    // the first. currentChange(): the index among them of the selected row, -1 when none is.
    const std::vector<int> &changedRows() const { return m_changes; }
    int currentChange() const;
    ChangeStrip *changeStrip() const { return m_strip; }
    QCheckBox *foldEventsBox() const { return m_foldEvents; }

public Q_SLOTS:
    void selectOriginal(int transcriptIndex);
    void selectSlot(int slot);
    void setDetailsVisible(bool visible);
    // F8 / Shift+F8: the next / previous changed row after / before the selected one.
    void nextChange();
    void previousChange();

Q_SIGNALS:
    // Double-click on a row: the original transcript index (-1 for an inserted message).
    void messageActivated(int transcriptIndex);

protected:
    void changeEvent(QEvent *event) override;

private:
    void currentChanged(bool fromLeft, const QModelIndex &current);
    void scrolled(bool fromLeft);
    void updateHeader();
    void updatePalette();
    void updateChanges();
    void updateChangeLabel();
    void applyFolds();

    std::shared_ptr<const Transcript> m_original;
    std::shared_ptr<const cl::strategy::Result> m_result;
    ResultModel *m_leftModel = nullptr;
    ResultModel *m_rightModel = nullptr;
    QTreeView *m_left = nullptr;
    QTreeView *m_right = nullptr;
    QLabel *m_stats = nullptr;
    QLabel *m_fates = nullptr;
    QLabel *m_note = nullptr;
    QToolButton *m_detailsButton = nullptr;
    QCheckBox *m_foldEvents = nullptr;
    std::vector<int> m_leftHidden, m_rightHidden; // rows hidden as folded events
    QToolButton *m_previousButton = nullptr;
    QToolButton *m_nextButton = nullptr;
    QLabel *m_changeLabel = nullptr;
    ChangeStrip *m_strip = nullptr;
    std::vector<int> m_changes;
    QPlainTextEdit *m_details = nullptr;
    QLabel *m_sync = nullptr;
    LongLineTextView *m_leftText = nullptr; // long lines broken on screen only
    LongLineTextView *m_rightText = nullptr;
    bool m_syncing = false; // one side is being moved to follow the other
};

} // namespace cl::gui
