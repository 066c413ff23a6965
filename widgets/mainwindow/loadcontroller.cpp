// SPDX-License-Identifier: MIT
#include "widgets/mainwindow/loadcontroller.h"
#include "widgets/models/filenames.h"

#include <QFile>
#include <QFileInfo>
#include <QSettings>

namespace cl::gui {

namespace {
LoadOptions optionsFor(std::optional<Format> format, bool wholeHistory)
{
    LoadOptions opts;
    opts.format = format;
    opts.wholeHistory = wholeHistory;
    return opts;
}
} // namespace

bool LoadController::wholeHistory()
{
    return QSettings().value(QStringLiteral("view/wholeHistory"), false).toBool();
}

void LoadController::setWholeHistory(bool whole)
{
    QSettings().setValue(QStringLiteral("view/wholeHistory"), whole);
}

LoadController::LoadController(QObject *parent)
    : QObject(parent)
{
}

// The job cancels a running load (the worker owns its copies; it only needs to stop early).
LoadController::~LoadController() = default;

LoadResult LoadController::loadNow(const QString &path, std::optional<Format> format)
{
    return loadFile(filenames::toBytes(path), optionsFor(format, wholeHistory()));
}

std::shared_ptr<const Transcript> LoadController::loadFirstRows(const QString &path, std::optional<Format> format, bool whole)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return nullptr;
    QByteArray head = file.read(kFirstRowsBytes);
    const qsizetype end = head.lastIndexOf('\n');
    if (end < 0)
        return nullptr; // not one whole line
    LoadOptions opts = optionsFor(format, whole);
    opts.loadSubagents = false;
    opts.threads = 1; // the whole file's load has the other threads
    LoadResult r = loadBytes(std::string(head.constData(), std::size_t(end + 1)), filenames::toBytes(path), opts);
    if (!r.ok() || r.transcript->messages.empty())
        return nullptr;
    return r.transcript;
}

void LoadController::start(const QString &path, std::optional<Format> format)
{
    const std::string file = filenames::toBytes(path);
    const bool whole = wholeHistory();
    m_firstRows.cancel();
    if (QFileInfo(path).size() >= kFirstRowsFrom)
        m_firstRows.start([path, format, whole](JobControl &) { return loadFirstRows(path, format, whole); },
                          [this, path](std::shared_ptr<const Transcript> first) {
                              if (first && m_job.isRunning())
                                  Q_EMIT firstRowsLoaded(path, std::move(first));
                          });
    m_job.start( // cancels the running load: its result is stale
        [file, format, whole](JobControl &control) {
            LoadOptions opts = optionsFor(format, whole);
            opts.cancel = control.cancelFlag();
            // Called from loader threads; JobControl serialises progress updates.
            opts.progress = [&control](double f) { control.setProgress(f); };
            try {
                return loadFile(file, opts);
            } catch (...) {
                LoadResult result; // no result to show: reported like a cancelled load
                result.cancelled = true;
                return result;
            }
        },
        [this, path](LoadResult result) { Q_EMIT finished(path, result); },
        [this](JobProgress p) { Q_EMIT progress(p.fraction()); });
    Q_EMIT started(path);
}

void LoadController::cancel()
{
    m_job.cancel(); // whatever the cancelled load returns is stale
    m_firstRows.cancel();
}

} // namespace cl::gui
