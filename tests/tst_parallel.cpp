// SPDX-License-Identifier: MIT
// cl::parallelFor: every item exactly once, on one thread below the threshold and on two above it,
// and an exception from either thread reaches the caller; the second thread is one long-lived worker
// when it is free, and a thread of its own for nested or concurrent callers.
#include "core/util/parallel.h"

#include <QtTest>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

class TestParallel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyItemOnce_data()
    {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("chunk");
        QTest::addColumn<int>("minItems");
        QTest::addColumn<int>("threads");
        QTest::newRow("empty") << 0 << 16 << 0 << 1;
        QTest::newRow("below threshold") << 500 << 16 << 512 << 1;
        QTest::newRow("one chunk") << 16 << 16 << 0 << 1;
        QTest::newRow("two threads") << 10001 << 32 << 256 << 2;
        QTest::newRow("odd tail") << 97 << 8 << 0 << 2;
    }
    void everyItemOnce()
    {
        QFETCH(int, n);
        QFETCH(int, chunk);
        QFETCH(int, minItems);
        QFETCH(int, threads);
        threads = std::min(threads, cl::util::defaultThreads()); // CONTEXTLENS_THREADS=1 keeps it on one
        std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
        std::mutex lock;
        std::set<std::thread::id> ids;
        cl::parallelFor(std::size_t(n), std::size_t(chunk), std::size_t(minItems), [&](std::size_t k) {
            hits[k].fetch_add(1);
            const std::lock_guard<std::mutex> guard(lock);
            ids.insert(std::this_thread::get_id());
        });
        for (int k = 0; k < n; ++k)
            QCOMPARE(hits[std::size_t(k)].load(), 1);
        if (n > 0)
            QCOMPARE(int(ids.size()), threads);
        if (threads == 1 && n > 0)
            QVERIFY(ids.count(std::this_thread::get_id()));
    }

    void exceptionsReachTheCaller()
    {
        for (const std::size_t bad : {std::size_t(3), std::size_t(40)}) { // item 3: caller's chunk; 40: the other's
            std::atomic<int> done{0};
            bool caught = false;
            try {
                cl::parallelFor(1000, 32, 0, [&](std::size_t k) {
                    if (k == bad)
                        throw std::runtime_error("bad item");
                    done.fetch_add(1);
                });
            } catch (const std::runtime_error &) {
                caught = true;
            }
            QVERIFY(caught);
            QVERIFY(done.load() < 1000);
        }
    }

    void secondThreadIsReused()
    {
        auto secondThreadOf = [] {
            std::thread::id other;
            cl::onTwoThreads([&](std::size_t k) {
                if (k == 1)
                    other = std::this_thread::get_id();
            });
            return other;
        };
        const std::thread::id first = secondThreadOf();
        QVERIFY(first != std::this_thread::get_id());
        QCOMPARE(secondThreadOf(), first); // the same worker: its allocator's memory is reused
    }

    void nestedAndConcurrentCallers()
    {
        constexpr std::size_t kOuter = 64, kInner = 2000;
        std::vector<std::atomic<int>> hits(kOuter * kInner);
        auto nested = [&](std::size_t base) {
            cl::parallelFor(kOuter / 2, 1, 0, [&](std::size_t o) {
                cl::parallelFor(kInner, 100, 0, [&](std::size_t i) { hits[(base + o) * kInner + i].fetch_add(1); });
            });
        };
        std::thread other(nested, kOuter / 2); // holds the worker or competes for it
        nested(0);
        other.join();
        for (const auto &h : hits)
            QCOMPARE(h.load(), 1);
    }
};

QTEST_GUILESS_MAIN(TestParallel)
#include "tst_parallel.moc"
