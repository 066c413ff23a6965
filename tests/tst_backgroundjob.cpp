// SPDX-License-Identifier: MIT
// The background-job helper (widgets/jobs/backgroundjob.h): results delivered on the owner's thread,
// stale results dropped after a second start and after cancel, the cancel flag seen by the work,
// progress delivered (merged, forward only, before the result), an owner destroyed mid-job, an
// exception in the work, work handed over after the pending paint; and the default worker count
// (core/util/parallel.h).
#include "core/util/parallel.h"
#include "widgets/jobs/backgroundjob.h"

#include "test_support.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QThread>
#include <QtTest>

#include <algorithm>
#include <atomic>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace cl;
using namespace cl::gui;

namespace {

// A flag the test opens to let a blocked work continue.
using Gate = std::shared_ptr<std::atomic_bool>;

Gate makeGate()
{
    return std::make_shared<std::atomic_bool>(false);
}

// Waits (at most 20 s) until `gate` opens or the run is cancelled; true when cancelled.
bool waitFor(const Gate &gate, const JobControl &control)
{
    QElapsedTimer timer;
    timer.start();
    while (!gate->load() && !control.isCancelled() && timer.elapsed() < 20000)
        QThread::msleep(1);
    return control.isCancelled();
}

class Owner : public QObject
{
public:
    BackgroundJob<int> job{this};
};

} // namespace

class TestBackgroundJob : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void deliversOnOwnersThread()
    {
        Owner owner;
        std::atomic<QThread *> workThread{nullptr};
        QThread *doneThread = nullptr;
        int delivered = 0;
        owner.job.start(
            [&workThread](JobControl &) {
                workThread = QThread::currentThread();
                return 42;
            },
            [&](int value) {
                doneThread = QThread::currentThread();
                delivered = value;
            });
        QVERIFY(owner.job.isRunning());
        QVERIFY(owner.job.isBusy());
        QCOMPARE(delivered, 0); // never from inside start()
        QTRY_COMPARE(delivered, 42);
        QCOMPARE(doneThread, QThread::currentThread());
        QVERIFY(workThread.load() != QThread::currentThread());
        QVERIFY(!owner.job.isRunning());
        QVERIFY(!owner.job.isBusy());
    }

    void secondStartMakesFirstStale()
    {
        Owner owner;
        std::vector<int> done, stale;
        owner.job.setStaleHandler([&stale](int v) { stale.push_back(v); });
        const Gate first = makeGate();
        std::atomic_bool firstSawCancel{false};
        owner.job.start(
            [first, &firstSawCancel](JobControl &control) {
                firstSawCancel = waitFor(first, control);
                return 1;
            },
            [&done](int v) { done.push_back(v); });
        owner.job.start([](JobControl &) { return 2; }, [&done](int v) { done.push_back(v); });
        QVERIFY(owner.job.isRunning());
        first->store(true);
        QTRY_VERIFY(!owner.job.isBusy());
        QCOMPARE(done, std::vector<int>{2});
        QCOMPARE(stale, std::vector<int>{1});
        QVERIFY(firstSawCancel); // start() cancels the run it replaces
    }

    void cancelDropsResultAndSetsFlag()
    {
        Owner owner;
        bool delivered = false;
        std::atomic_bool sawCancel{false};
        const Gate gate = makeGate(); // never opened: only the cancel flag ends the work
        owner.job.start(
            [gate, &sawCancel](JobControl &control) {
                sawCancel = waitFor(gate, control);
                return 7;
            },
            [&delivered](int) { delivered = true; });
        QTest::qWait(20);
        owner.job.cancel();
        QVERIFY(!owner.job.isRunning()); // at once
        QTRY_VERIFY(!owner.job.isBusy());
        QVERIFY(sawCancel);
        QVERIFY(!delivered);
    }

    void invalidateKeepsWorkGoing()
    {
        Owner owner;
        bool delivered = false;
        std::atomic_bool sawCancel{true};
        const Gate gate = makeGate();
        owner.job.start(
            [gate, &sawCancel](JobControl &control) {
                sawCancel = waitFor(gate, control);
                return 3;
            },
            [&delivered](int) { delivered = true; });
        owner.job.invalidate();
        QVERIFY(!owner.job.isRunning());
        gate->store(true);
        QTRY_VERIFY(!owner.job.isBusy());
        QVERIFY(!sawCancel);
        QVERIFY(!delivered);
    }

    void requestStopKeepsResult()
    {
        Owner owner;
        int delivered = 0;
        const Gate gate = makeGate();
        owner.job.start(
            [gate](JobControl &control) { return waitFor(gate, control) ? 5 : 6; },
            [&delivered](int v) { delivered = v; });
        owner.job.requestStop();
        QVERIFY(owner.job.isRunning());
        QTRY_COMPARE(delivered, 5); // what the stopped work returned
        QVERIFY(!owner.job.isRunning());
    }

    void progressDelivered()
    {
        Owner owner;
        std::vector<JobProgress> seen;
        bool progressOnOwnersThread = true;
        bool progressAfterDone = false;
        bool done = false;
        owner.job.start(
            [](JobControl &control) {
                control.setProgress(0, 10); // a first report of nothing done is dropped
                for (int i = 1; i <= 10; ++i) {
                    control.setProgress(i, 10);
                    control.setProgress(i - 1, 10); // never backwards
                    QThread::msleep(2);
                }
                return 0;
            },
            [&done](int) { done = true; },
            [&](JobProgress p) {
                progressOnOwnersThread = progressOnOwnersThread && QThread::currentThread() == QCoreApplication::instance()->thread();
                progressAfterDone = progressAfterDone || done;
                seen.push_back(p);
            });
        QTRY_VERIFY(done);
        QVERIFY(!seen.empty());
        QVERIFY(progressOnOwnersThread);
        QVERIFY(!progressAfterDone);
        QCOMPARE(seen.back().done, qint64(10));
        QCOMPARE(seen.back().total, qint64(10));
        QCOMPARE(seen.back().fraction(), 1.0);
        for (std::size_t k = 0; k < seen.size(); ++k) {
            QVERIFY(seen[k].done > 0);
            if (k > 0)
                QVERIFY(seen[k].done > seen[k - 1].done);
        }

        // Fractions arrive in steps of 1/1000; a stale run's progress is not passed on.
        seen.clear();
        done = false;
        const Gate gate = makeGate();
        owner.job.start(
            [gate](JobControl &control) {
                control.setProgress(0.25);
                waitFor(gate, control);
                control.setProgress(0.5);
                return 0;
            },
            [&done](int) { done = true; }, [&seen](JobProgress p) { seen.push_back(p); });
        QTRY_COMPARE(seen.size(), std::size_t(1));
        QCOMPARE(seen.front().done, qint64(250));
        QCOMPARE(seen.front().total, qint64(1000));
        QCOMPARE(seen.front().fraction(), 0.25);
        owner.job.invalidate();
        gate->store(true);
        QTRY_VERIFY(!owner.job.isBusy());
        QCOMPARE(seen.size(), std::size_t(1));
        QVERIFY(!done);
    }

    void ownerDestroyedMidJob()
    {
        auto owner = std::make_unique<Owner>();
        auto called = std::make_shared<std::atomic_int>(0);
        auto finished = std::make_shared<std::atomic_bool>(false);
        auto sawCancel = std::make_shared<std::atomic_bool>(false);
        const Gate gate = makeGate();
        owner->job.start(
            [gate, finished, sawCancel](JobControl &control) {
                control.setProgress(1, 4);
                *sawCancel = waitFor(gate, control);
                control.setProgress(2, 4); // after the owner is gone: posts nothing
                *finished = true;
                return 1;
            },
            [called](int) { ++*called; }, [called](JobProgress) { ++*called; });
        owner->job.setStaleHandler([called](int) { ++*called; });
        owner.reset(); // returns at once; the work goes on in the background
        gate->store(true);
        QTRY_VERIFY(finished->load());
        backgroundPool()->waitForDone(20000);
        QCoreApplication::processEvents();
        QTest::qWait(20);
        QCOMPARE(called->load(), 0);
        QVERIFY(sawCancel->load()); // destroying the job cancels its run
    }

    void waitForWorkBlocks()
    {
        Owner owner;
        std::atomic_bool ended{false};
        owner.job.start(
            [&ended](JobControl &) {
                QThread::msleep(50);
                ended = true;
                return 0;
            },
            {});
        owner.job.waitForWork();
        QVERIFY(ended);
        QVERIFY(owner.job.isBusy()); // its end has not reached the owner's thread yet
        QTRY_VERIFY(!owner.job.isBusy());
    }

    void exceptionEndsWithoutResult()
    {
        Owner owner;
        bool delivered = false;
        QTest::ignoreMessage(QtWarningMsg, "background job failed: boom");
        owner.job.start([](JobControl &) -> int { throw std::runtime_error("boom"); }, [&delivered](int) { delivered = true; });
        QTRY_VERIFY(!owner.job.isBusy());
        QVERIFY(!owner.job.isRunning());
        QVERIFY(!delivered);
    }

    // afterPendingPaint posts below a window's paint pass (Qt::LowEventPriority): what is queued
    // before or after it at normal priority comes first; a gone context drops it.
    void afterPendingPaintComesLast()
    {
        QObject context;
        QStringList order;
        afterPendingPaint(&context, [&order] { order << QStringLiteral("after paint"); });
        QMetaObject::invokeMethod(
            &context, [&order] { order << QStringLiteral("queued"); }, Qt::QueuedConnection);
        QTRY_COMPARE(order, (QStringList{QStringLiteral("queued"), QStringLiteral("after paint")}));
        bool called = false;
        {
            QObject gone;
            afterPendingPaint(&gone, [&called] { called = true; });
        }
        QTest::qWait(20);
        QVERIFY(!called);
    }

    // startAfterPaint: running from the call on, the work handed over from the event loop; a run
    // superseded before that never runs, and waitForWork hands over at once.
    void startAfterPaint()
    {
        Owner owner;
        std::atomic_int runs{0};
        std::vector<int> done;
        owner.job.startAfterPaint([&runs](JobControl &) { return ++runs; }, [&done](int v) { done.push_back(v); });
        QVERIFY(owner.job.isRunning());
        QVERIFY(owner.job.isBusy());
        owner.job.startAfterPaint([](JobControl &) { return 10; }, [&done](int v) { done.push_back(v); });
        QTRY_VERIFY(!owner.job.isBusy());
        QCOMPARE(done, std::vector<int>{10});
        QCOMPARE(runs.load(), 0); // the superseded one never ran

        owner.job.startAfterPaint([](JobControl &) { return 11; }, [&done](int v) { done.push_back(v); });
        owner.job.cancel();
        QTRY_VERIFY(!owner.job.isBusy());
        QCOMPARE(done, std::vector<int>{10});

        std::atomic_bool ran{false};
        owner.job.startAfterPaint(
            [&ran](JobControl &) {
                ran = true;
                return 12;
            },
            [&done](int v) { done.push_back(v); });
        owner.job.waitForWork(); // without the event loop
        QVERIFY(ran);
        QTRY_COMPARE(done, (std::vector<int>{10, 12}));
    }

    void defaultThreads()
    {
        const int n = util::defaultThreads();
        QVERIFY(n >= 1);
        if (qEnvironmentVariableIsEmpty("CONTEXTLENS_THREADS")) {
            QVERIFY(n <= 2);
            QCOMPARE(n, int(std::max(1u, std::min(2u, std::thread::hardware_concurrency()))));
        }
    }
};

QTEST_GUILESS_MAIN(TestBackgroundJob)
#include "tst_backgroundjob.moc"
