// SPDX-License-Identifier: MIT
#include "widgets/mainwindow/savegate.h"
#include "widgets/models/filenames.h"

#include "widgets/transcript/transcriptdocument.h"

#include <QAction>
#include <QFile>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

namespace cl::gui {

namespace {
const char *kSaveTip = QT_TRANSLATE_NOOP("cl::gui::SaveGate", "Write the compacted transcript over the session file (a backup is kept)");
}

SaveGate::SaveGate(QAction *save, TranscriptDocument *doc, QObject *parent)
    : QObject(parent)
    , m_save(save)
    , m_doc(doc)
    , m_timer(new QTimer(this))
{
    setObjectName(QStringLiteral("saveGate"));
    m_timer->setInterval(2000);
    connect(m_timer, &QTimer::timeout, this, &SaveGate::poll);
    connect(&m_look, &QFutureWatcher<Look>::finished, this, [this] { take(m_lookPath, m_look.result()); });
    connect(m_doc, &TranscriptDocument::modifiedChanged, this, &SaveGate::update);
    connect(m_doc, &TranscriptDocument::transcriptChanged, this, [this] {
        // A new file loaded (or none): look at once, then every interval while there is one.
        if (m_doc->path() != m_watched) {
            m_watched = m_doc->path();
            if (m_watched.isEmpty())
                m_timer->stop();
            else
                m_timer->start();
            checkNow();
        } else {
            update();
        }
    });
    update();
}

void SaveGate::setInterval(int ms)
{
    m_timer->setInterval(ms);
}

QString SaveGate::reason() const
{
    return m_agent ? QString::fromStdString(running::refusal(*m_agent, "Save")) : QString();
}

void SaveGate::poll()
{
    if (m_watched.isEmpty() || m_look.isRunning())
        return;
    m_lookPath = m_watched;
    const std::string path = filenames::toBytes(m_watched);
    m_look.setFuture(QtConcurrent::run([path]() -> Look { return running::find(path); }));
}

void SaveGate::checkNow()
{
    take(m_watched, m_watched.isEmpty() ? Look() : running::find(filenames::toBytes(m_watched)));
}

void SaveGate::take(const QString &path, Look now)
{
    if (path != m_watched)
        return; // a look at the file loaded before
    const bool changed = now.has_value() != m_agent.has_value() || (now && (now->pid != m_agent->pid || now->agent != m_agent->agent));
    m_agent = std::move(now);
    update();
    if (changed)
        Q_EMIT runningChanged(reason());
}

void SaveGate::update()
{
    m_save->setEnabled(m_doc->isModified() && !m_agent);
    m_save->setToolTip(m_agent ? tr("Save is off: %1").arg(reason()) : tr(kSaveTip));
}

} // namespace cl::gui
