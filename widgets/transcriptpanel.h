// SPDX-License-Identifier: MIT
#pragma once

#include "core/transcript.h"

#include <QWidget>

#include <memory>

class QCheckBox;
class QLineEdit;
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
    // Selects (and scrolls to) a row given as an index of the source model.
    void selectSourceIndex(const QModelIndex &sourceIndex);
    void focusFilter();

    TranscriptModel *model() const { return m_model; }
    TranscriptFilterModel *filterModel() const { return m_filter; }
    QTreeView *view() const { return m_view; }
    QLineEdit *filterEdit() const { return m_filterEdit; }

Q_SIGNALS:
    // block is -1 for a message row; message is -1 when nothing is selected.
    void rowSelected(int message, int block);

private:
    void onCurrentChanged(const QModelIndex &current);
    void updateFilter();

    TranscriptModel *m_model;
    TranscriptFilterModel *m_filter;
    QTreeView *m_view;
    QLineEdit *m_filterEdit;
    QCheckBox *m_regex;
    QCheckBox *m_hideMeta;
};

} // namespace cl::gui
