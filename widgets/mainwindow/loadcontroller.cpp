// SPDX-License-Identifier: MIT
#include "widgets/mainwindow/loadcontroller.h"

#include <QFile>
#include <QFutureWatcher>
#include <QPromise>
#include <QtConcurrent>

namespace cl::gui {

namespace {
constexpr int kProgressSteps = 1000;

LoadOptions optionsFor(std::optional<Format> format)
{
    LoadOptions opts;
    opts.format = format;
    return opts;
}
} // namespace

LoadController::LoadController(QObject *parent)
    : QObject(parent)
{
}

LoadController::~LoadController()
{
    cancel(); // the worker owns its copies; it only needs to stop early
}

LoadResult LoadController::loadNow(const QString &path, std::optional<Format> format)
{
    return loadFile(QFile::encodeName(path).toStdString(), optionsFor(format));
}

void LoadController::start(const QString &path, std::optional<Format> format)
{
    cancel();
    const quint64 generation = ++m_generation;
    m_cancel = std::make_shared<std::atomic_bool>(false);
    m_running = true;

    auto *watcher = new QFutureWatcher<LoadResult>(this);
    connect(watcher, &QFutureWatcher<LoadResult>::progressValueChanged, this, [this, generation](int value) {
        if (generation == m_generation)
            Q_EMIT progress(double(value) / kProgressSteps);
    });
    connect(watcher, &QFutureWatcher<LoadResult>::finished, this, [this, watcher, generation, path] {
        watcher->deleteLater();
        if (generation != m_generation)
            return; // stale: a newer load replaced this one
        m_running = false;
        const QFuture<LoadResult> future = watcher->future();
        LoadResult result;
        if (future.resultCount() > 0)
            result = future.result();
        else
            result.cancelled = true;
        Q_EMIT finished(path, result);
    });

    const std::string file = QFile::encodeName(path).toStdString();
    auto cancelFlag = m_cancel;
    watcher->setFuture(QtConcurrent::run([file, format, cancelFlag](QPromise<LoadResult> &promise) {
        promise.setProgressRange(0, kProgressSteps);
        LoadOptions opts = optionsFor(format);
        opts.cancel = cancelFlag.get();
        // Called from loader threads; QPromise serialises progress updates internally.
        opts.progress = [&promise](double f) { promise.setProgressValue(int(f * kProgressSteps)); };
        promise.addResult(loadFile(file, opts));
    }));
    Q_EMIT started(path);
}

void LoadController::cancel()
{
    if (m_cancel)
        m_cancel->store(true);
    if (m_running) {
        m_running = false;
        ++m_generation; // whatever the cancelled load returns is now stale
    }
}

} // namespace cl::gui
