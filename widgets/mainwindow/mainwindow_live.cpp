// SPDX-License-Identifier: MIT
// View › Follow Live Session: the open session grows while its agent writes it (LiveWatch), and the
// status bar says how many turns remain before the agent's own auto-compaction (core/workflow/forecast.h),
// with a notification when that is near.
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/models/filenames.h"

#include "core/workflow/forecast.h"
#include "widgets/mainwindow/livewatch.h"
#include "widgets/mainwindow/loadcontroller.h"
#include "widgets/transcript/contextgauge.h"
#include "widgets/transcript/transcriptdocument.h"
#include "widgets/transcript/transcriptpanel.h"

#include <QApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QScrollBar>
#include <QSettings>
#include <QStatusBar>
#include <QSystemTrayIcon>
#include <QTime>
#include <QTreeView>

namespace cl::gui {

namespace {
const QString kFollowKey = QStringLiteral("view/followLive");
constexpr int kNearTurns = 3;       // the notification comes this many turns before the agent compacts
constexpr int kRecentSeconds = 600; // a session file written this recently is taken for a running one
} // namespace

bool MainWindow::followLive()
{
    return QSettings().value(kFollowKey, true).toBool();
}

void MainWindow::setFollowLive(bool on)
{
    QSettings().setValue(kFollowKey, on);
    if (!on) {
        m_live->stop();
        updateLiveStatus();
    } else {
        startFollowing();
    }
}

void MainWindow::createLiveWatch()
{
    m_live = new LiveWatch(this);
    m_liveLabel = new QLabel(this);
    m_liveLabel->setObjectName(QStringLiteral("liveStatus"));
    m_liveLabel->setTextFormat(Qt::RichText);
    m_liveLabel->hide();
    statusBar()->addPermanentWidget(m_liveLabel);
    connect(this, &MainWindow::loadFinished, this, [this](bool) { startFollowing(); });
    connect(this, &MainWindow::analysisUpdated, this, &MainWindow::updateLiveStatus);
    connect(m_live, &LiveWatch::updated, this, &MainWindow::onLiveUpdate);
    connect(m_live, &LiveWatch::failed, this, [this](const QString &reason) {
        if (m_liveFailure == reason)
            return;
        m_liveFailure = reason;
        m_liveActive = true;
        updateLiveStatus();
    });
}

void MainWindow::startFollowing()
{
    m_liveNear = false;
    m_liveNew = 0;
    m_liveFailure.clear();
    m_liveLast.clear();
    // A request of a recording is not a file an agent appends to.
    if (!followLive() || m_path.isEmpty() || !m_transcript || m_transcript->path != filenames::toBytes(m_path)
        || !m_transcript->recording.is_null()) {
        m_live->stop();
        updateLiveStatus();
        return;
    }
    LoadOptions options;
    options.wholeHistory = LoadController::wholeHistory();
    m_live->follow(m_path, m_transcript, options);
    // The label shows for a session its agent is writing: one in an agent's session folder changed in
    // the last minutes, or any file once it grows.
    const QFileInfo info(m_path);
    const QString where = QDir::fromNativeSeparators(info.absoluteFilePath());
    const bool agentFolder = where.contains(QLatin1String("/.claude/projects/")) || where.contains(QLatin1String("/.codex/sessions/"))
                             || where.contains(QLatin1String("/.gemini/tmp/")) || where.contains(QLatin1String("/.qwen/projects/"))
                             || where.contains(QLatin1String("/.copilot/session-state/"));
    const QDateTime written = info.lastModified();
    m_liveActive = agentFolder && written.isValid() && written.secsTo(QDateTime::currentDateTime()) < kRecentSeconds;
    updateLiveStatus();
}

void MainWindow::onLiveUpdate(std::shared_ptr<const Transcript> transcript, const LiveTail::Update &update,
                              const std::optional<UsageData> &usage)
{
    m_liveFailure.clear();
    m_liveActive = true;
    updateUndoneBanner(transcript.get()); // at once, whether the new lines are shown or not
    if (m_doc->isModified()) {
        // Edits of the working transcript are not mixed with the agent's new lines: say so, keep both.
        m_liveNew += update.newMessages;
        updateLiveStatus();
        return;
    }
    QTreeView *view = m_transcriptPanel->view();
    const bool atEnd = view->verticalScrollBar()->value() >= view->verticalScrollBar()->maximum();
    const std::size_t before = m_transcript ? m_transcript->messages.size() : 0;
    const bool grown = update.kind != LiveTail::Update::Kind::Reloaded && transcript->messages.size() >= before;
    if (!grown)
        m_pinned.clear();
    // The session grew: the reader keeps their place (row, expanded rows, events shown, message
    // filter, scroll). A file read again may be another conversation: it starts afresh.
    const TranscriptPanel::ReadingPlace place = m_transcriptPanel->readingPlace();
    showTranscript(transcript, false, usage, grown ? update.keptMessages : 0);
    if (grown)
        m_transcriptPanel->restoreReadingPlace(place);
    m_doc->setSource(transcript, m_path);
    m_liveLast = update.newMessages >= 0 ? tr("+%1 at %2").arg(update.newMessages).arg(QTime::currentTime().toString(QStringLiteral("HH:mm:ss")))
                                         : tr("read again at %1").arg(QTime::currentTime().toString(QStringLiteral("HH:mm:ss")));
    if (atEnd)
        view->scrollToBottom();
    if (!update.note.empty())
        statusBar()->showMessage(tr("Live: %1").arg(QString::fromStdString(update.note)), 5000);
    updateLiveStatus();
}

std::optional<forecast::Compaction> MainWindow::liveForecast() const
{
    if (!m_transcript || !m_live->isFollowing())
        return std::nullopt;
    const std::int64_t estimated = m_analysis ? m_analysis->usage.tokens : 0;
    return forecast::compaction(*m_transcript, m_gauge->contextWindow(), estimated);
}

void MainWindow::updateLiveStatus()
{
    if (!m_live->isFollowing() || !m_liveActive) {
        m_liveLabel->hide();
        m_liveNear = false;
        return;
    }
    QString text = tr("<b>● Live</b>");
    if (!m_liveLast.isEmpty())
        text += QStringLiteral(" · ") + m_liveLast.toHtmlEscaped();
    if (!m_liveFailure.isEmpty())
        text += QStringLiteral(" · ") + m_liveFailure.toHtmlEscaped();
    if (m_liveNew > 0)
        text += QStringLiteral(" · ")
                + (m_liveNew == 1 ? tr("1 new message since your edits (File › Reload shows it)")
                                  : tr("%1 new messages since your edits (File › Reload shows them)").arg(m_liveNew));
    const std::optional<forecast::Compaction> f = liveForecast();
    bool near = false;
    if (f) {
        near = f->near(kNearTurns);
        const QString line = QString::fromStdString(forecast::describe(*f)).toHtmlEscaped();
        text += QStringLiteral(" · ") + (near ? QStringLiteral("<span style='color:#e0533d'><b>%1</b></span>").arg(line) : line);
        m_liveLabel->setToolTip(tr("Context now %1 tokens%2; growing %3 tokens a turn over the last %4 turns; the agent compacts at %5")
                                    .arg(QLocale().toString(qlonglong(f->current)))
                                    .arg(f->measured ? tr(" (recorded by the agent)") : tr(" (estimated)"))
                                    .arg(QLocale().toString(qlonglong(f->growthPerTurn)))
                                    .arg(f->turnsSampled)
                                    .arg(QString::fromStdString(f->rule)));
    }
    m_liveLabel->setText(text);
    m_liveLabel->show();
    if (near && !m_liveNear) {
        // Near the agent's compaction: a status message, and the window asks for attention.
        statusBar()->showMessage(tr("The agent will compact soon: %1").arg(QString::fromStdString(forecast::describe(*f))), 15000);
        QApplication::alert(this);
        if (QSystemTrayIcon::isSystemTrayAvailable() && QSystemTrayIcon::supportsMessages()) {
            // A desktop notification too, where the desktop shows them.
            if (!m_liveTray) {
                m_liveTray = new QSystemTrayIcon(windowIcon(), this);
                m_liveTray->setToolTip(tr("ContextLens"));
            }
            m_liveTray->show();
            m_liveTray->showMessage(tr("The agent will compact soon"), QString::fromStdString(forecast::describe(*f)),
                                    QSystemTrayIcon::Information, 10000);
        }
        Q_EMIT compactionNear(QString::fromStdString(forecast::describe(*f)));
    }
    m_liveNear = near;
}

} // namespace cl::gui
