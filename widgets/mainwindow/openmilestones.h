// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/transcript.h"

#include <QFuture>
#include <QObject>

#include <memory>
#include <utility>
#include <vector>

namespace cl::gui {

class MainWindow;

// The milestones of showing a transcript in the main window (a load, an apply, an undo), as
// signals: rowsShown() once the transcript view has painted rows of it (firstRowsPainted() when a
// large file's first messages came before it), finished() once everything
// the window computes for it in the background has arrived: the analysis (tree columns, context map,
// analysis panel), the estimator table's exact counts and the strategy tables. The window owns one
// (of()); the GUI benchmark (bench/bench_gui.cpp) and the tests time and wait with it.
class OpenMilestones : public QObject
{
    Q_OBJECT
public:
    // Watches `window`'s panels; made once the window has them.
    explicit OpenMilestones(MainWindow *window);
    static OpenMilestones *of(const MainWindow *window);

    // The window shows another transcript: the milestones start over.
    void transcriptShown(const Transcript *transcript);
    // The transcript view shows the first messages of a file still loading (firstRowsPainted()
    // once it has painted them; the milestones of the whole file follow its transcriptShown).
    void firstRowsShown(const Transcript *firstRows);
    // The strategy tables of `transcript` are being prepared by `work` (kept for the last few
    // transcripts, like the window keeps their tables).
    void tablesStarted(const std::shared_ptr<const Transcript> &transcript, QFuture<void> work);

    bool hasShownRows() const { return m_rows; }
    bool isFinished() const { return m_finished; }
    bool analysisReady() const;
    bool countsReady() const;
    bool tablesReady() const;

Q_SIGNALS:
    void rowsShown();
    void firstRowsPainted();
    void tablesPrepared(); // the strategy tables of some transcript (tablesReady() says whether of this one)
    void finished();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void check();

    MainWindow *m_window;
    QObject *m_viewport;
    const Transcript *m_shown = nullptr;
    quint64 m_generation = 0;   // bumped by transcriptShown
    bool m_rowsPainted = false; // the view is painting rows; m_rows once that pass is over
    bool m_rows = false;
    bool m_firstRowsPending = false; // firstRowsShown, not painted yet
    bool m_finished = false;
    std::vector<std::pair<std::weak_ptr<const Transcript>, QFuture<void>>> m_tables;
};

} // namespace cl::gui
