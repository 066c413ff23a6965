// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/transcript.h"
#include "core/workflow/composition.h"
#include "widgets/jobs/backgroundjob.h"

#include <QWidget>

#include <memory>
#include <vector>

class QLabel;
class QTableView;
class QTreeWidget;
class QTreeWidgetItem;

namespace cl::gui {

class CompositionChart;
class CompositionGrid;
class CompositionModel;

// Where the live context goes (core/workflow/composition.h), for the selected message: the window as
// a grid like /context, the category table (click: show only its messages; hover: its largest
// items), the suggestions for the live context with the tokens each strategy frees (click: preview
// it), and the categories over the whole session as stacked areas. Computed in the background and
// only while the panel is shown (setActive).
class CompositionPanel : public QWidget
{
    Q_OBJECT
public:
    explicit CompositionPanel(QWidget *parent = nullptr);
    ~CompositionPanel() override;

    void setTranscript(std::shared_ptr<const Transcript> transcript);
    void setContextWindow(qint64 window); // <= 0: the file's
    void recount();                       // the token count changed (tokencount.h): everything is computed again
    // The composition at this message (transcript index); -1: at the end of the session.
    void showMessage(int message);
    // Off: nothing is computed (the dock is hidden); on: whatever is out of date starts.
    void setActive(bool active);
    bool isActive() const { return m_active; }
    // Computes what is out of date on this thread (tests, screenshots), whether active or not.
    void refreshNow();
    bool isBusy() const { return m_atJob.isRunning() || m_sessionJob.isRunning(); }

    std::shared_ptr<const cl::composition::Composition> composition() const { return m_composition; }
    const std::vector<cl::composition::Suggestion> &suggestionList() const { return m_suggestions; }
    CompositionGrid *grid() const { return m_grid; }
    CompositionModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    QTreeWidget *suggestions() const { return m_suggestionView; }
    CompositionChart *chart() const { return m_chart; }
    QLabel *header() const { return m_header; }

Q_SIGNALS:
    // A category was clicked (table or grid): show only these messages in the transcript.
    void categoryFilterRequested(const QString &label, const QList<int> &messages);
    void messageActivated(int message);
    // A suggestion with a strategy was clicked: preview it with these parameters (a JSON object).
    void suggestionActivated(const QString &strategy, const QString &paramsJson);
    void compositionUpdated(); // the composition at the message arrived
    void sessionUpdated();     // the series and the suggestions arrived

protected:
    void changeEvent(QEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    struct SessionFigures {
        std::shared_ptr<const cl::composition::Series> series;
        std::vector<cl::composition::Suggestion> suggestions;
        QList<int> compactions;
    };
    static SessionFigures computeSession(const Transcript &t, const cl::composition::Options &o);
    cl::composition::Options options() const;
    void startWork();
    void setComposition(std::shared_ptr<const cl::composition::Composition> c);
    void setSession(SessionFigures figures);
    void onCategoryRow(int row);
    void previewItem(QTreeWidgetItem *item);
    void updateHeader();

    std::shared_ptr<const Transcript> m_transcript;
    qint64 m_window = 0;
    int m_message = -1;
    bool m_active = false;
    bool m_atDirty = false;
    bool m_sessionDirty = false;
    std::shared_ptr<const cl::composition::Composition> m_composition;
    std::vector<cl::composition::Suggestion> m_suggestions;

    QLabel *m_header;
    CompositionGrid *m_grid;
    CompositionModel *m_model;
    QTableView *m_table;
    QLabel *m_suggestionTitle;
    QTreeWidget *m_suggestionView;
    CompositionChart *m_chart;
    BackgroundJob<std::shared_ptr<const cl::composition::Composition>> m_atJob{this};
    BackgroundJob<SessionFigures> m_sessionJob{this};
};

} // namespace cl::gui
