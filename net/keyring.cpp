// SPDX-License-Identifier: MIT
#include "net/keyring.h"

#include "config-net.h"

#if CONTEXTLENS_HAVE_KEYCHAIN
#include <qt6keychain/keychain.h>

#include <QEventLoop>
#include <QTimer>
#endif

namespace cl::net::keyring {

namespace {

#if CONTEXTLENS_HAVE_KEYCHAIN
const QString kService = QStringLiteral("ContextLens");

// Runs `job` to its end (or the timeout) and turns its outcome into an Outcome.
Outcome wait(QKeychain::Job *job, int timeoutMs)
{
    job->setAutoDelete(false);
    QEventLoop loop;
    QTimer timer;
    timer.setSingleShot(true);
    bool finished = false;
    QObject::connect(job, &QKeychain::Job::finished, &loop, [&] {
        finished = true;
        loop.quit();
    });
    QObject::connect(&timer, &QTimer::timeout, &loop, &QEventLoop::quit);
    timer.start(timeoutMs);
    job->start();
    if (!finished)
        loop.exec();
    Outcome out;
    if (!finished) {
        out.error = "the system keyring did not answer within " + std::to_string(timeoutMs / 1000) + " s";
        job->deleteLater(); // it may still finish; it cleans up after itself then
        job->setAutoDelete(true);
        return out;
    }
    switch (job->error()) {
    case QKeychain::NoError:
        out.ok = true;
        break;
    case QKeychain::EntryNotFound:
        out.notFound = true;
        out.error = "no key stored in the system keyring";
        break;
    case QKeychain::NoBackendAvailable:
        out.error = "no system keyring service runs here (" + job->errorString().toStdString() + ")";
        break;
    case QKeychain::AccessDenied:
    case QKeychain::AccessDeniedByUser:
        out.error = "the system keyring refused access (" + job->errorString().toStdString() + ")";
        break;
    default:
        out.error = "the system keyring is not available (" + job->errorString().toStdString() + ")";
        break;
    }
    if (auto *read = qobject_cast<QKeychain::ReadPasswordJob *>(job); read && out.ok)
        out.value = read->textData().toStdString();
    delete job;
    return out;
}
#endif

} // namespace

bool compiledIn()
{
    return CONTEXTLENS_HAVE_KEYCHAIN != 0;
}

#if CONTEXTLENS_HAVE_KEYCHAIN
Outcome read(const std::string &name, int timeoutMs)
{
    auto *job = new QKeychain::ReadPasswordJob(kService);
    job->setKey(QString::fromStdString(name));
    return wait(job, timeoutMs);
}

Outcome write(const std::string &name, const std::string &secret, int timeoutMs)
{
    auto *job = new QKeychain::WritePasswordJob(kService);
    job->setKey(QString::fromStdString(name));
    job->setTextData(QString::fromStdString(secret));
    return wait(job, timeoutMs);
}

Outcome remove(const std::string &name, int timeoutMs)
{
    auto *job = new QKeychain::DeletePasswordJob(kService);
    job->setKey(QString::fromStdString(name));
    return wait(job, timeoutMs);
}
#else
namespace {
Outcome unavailable()
{
    Outcome out;
    out.error = "this build has no system keyring support (QtKeychain was not found)";
    return out;
}
} // namespace

Outcome read(const std::string &, int)
{
    return unavailable();
}
Outcome write(const std::string &, const std::string &, int)
{
    return unavailable();
}
Outcome remove(const std::string &, int)
{
    return unavailable();
}
#endif

} // namespace cl::net::keyring
