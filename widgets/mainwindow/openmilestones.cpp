// SPDX-License-Identifier: MIT
#include "widgets/mainwindow/openmilestones.h"

#include "widgets/analysis/analysiscontroller.h"
#include "widgets/analysis/analysispanel.h"
#include "widgets/analysis/estimatorreport.h"
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/models/transcriptmodel.h"
#include "widgets/transcript/transcriptpanel.h"

#include <QEvent>
#include <QTreeView>

#include <algorithm>

namespace cl::gui {

namespace {
constexpr std::size_t kKeptTables = 4; // as many as the window keeps
}

OpenMilestones::OpenMilestones(MainWindow *window)
    : QObject(window)
    , m_window(window)
    , m_viewport(window->transcriptPanel()->view()->viewport())
{
    setObjectName(QStringLiteral("openMilestones"));
    m_viewport->installEventFilter(this);
    connect(window, &MainWindow::analysisUpdated, this, &OpenMilestones::check);
    EstimatorReport *report = window->analysisPanel()->estimatorReport();
    connect(report, &EstimatorReport::ready, this, &OpenMilestones::check);
    connect(report, &EstimatorReport::unavailable, this, &OpenMilestones::check);
}

OpenMilestones *OpenMilestones::of(const MainWindow *window)
{
    return window->findChild<OpenMilestones *>(QString(), Qt::FindDirectChildrenOnly);
}

void OpenMilestones::transcriptShown(const Transcript *transcript)
{
    m_shown = transcript;
    ++m_generation;
    m_firstRowsPending = false;
    m_rowsPainted = false;
    m_rows = false;
    m_finished = false;
}

void OpenMilestones::firstRowsShown(const Transcript *firstRows)
{
    m_firstRowsPending = firstRows != nullptr;
    ++m_generation;
}

void OpenMilestones::tablesStarted(const std::shared_ptr<const Transcript> &transcript, QFuture<void> work)
{
    std::erase_if(m_tables, [](const auto &entry) { return entry.first.expired(); });
    if (m_tables.size() == kKeptTables)
        m_tables.erase(m_tables.begin());
    m_tables.emplace_back(transcript, work);
    work.then(this, [this] {
        Q_EMIT tablesPrepared();
        check();
    });
}

bool OpenMilestones::analysisReady() const
{
    return m_shown && m_window->analysis() && m_window->analysisController()->transcript().get() == m_shown
           && m_window->transcriptPanel()->model()->hasAnalysis();
}

bool OpenMilestones::countsReady() const
{
    const EstimatorReport *report = m_window->analysisPanel()->estimatorReport();
    return m_shown && report->transcript().get() == m_shown
           && (report->state() == EstimatorReport::State::Ready || report->state() == EstimatorReport::State::Unavailable);
}

bool OpenMilestones::tablesReady() const
{
    return m_shown && std::any_of(m_tables.begin(), m_tables.end(), [this](const auto &entry) {
               return entry.first.lock().get() == m_shown && entry.second.isFinished();
           });
}

bool OpenMilestones::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_viewport && event->type() == QEvent::Paint && m_firstRowsPending
        && m_window->transcriptPanel()->showsFirstRows() && m_window->transcriptPanel()->view()->model()->rowCount() > 0) {
        m_firstRowsPending = false;
        QMetaObject::invokeMethod(
            this,
            [this, generation = m_generation] {
                if (generation == m_generation)
                    Q_EMIT firstRowsPainted();
            },
            Qt::QueuedConnection);
        return false;
    }
    if (watched != m_viewport || event->type() != QEvent::Paint || m_rowsPainted || !m_shown
        || m_window->transcriptPanel()->view()->model()->rowCount() == 0)
        return false;
    // Said once this paint pass is over (the window is on screen then), not from inside it.
    m_rowsPainted = true;
    QMetaObject::invokeMethod(
        this,
        [this, generation = m_generation] {
            if (generation != m_generation)
                return; // another transcript came meanwhile
            m_rows = true;
            Q_EMIT rowsShown();
            check();
        },
        Qt::QueuedConnection);
    return false;
}

void OpenMilestones::check()
{
    if (m_finished || !m_rows || !analysisReady() || !countsReady() || !tablesReady())
        return;
    m_finished = true;
    Q_EMIT finished();
}

} // namespace cl::gui
