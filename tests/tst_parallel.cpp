// SPDX-License-Identifier: MIT
// cl::parallelFor: every item exactly once, on one thread below the threshold and on two above it,
// and an exception from either thread reaches the caller; the second thread is one long-lived worker
// when it is free, and a thread of its own for nested or concurrent callers. A large file read and
// split into lines on two threads gives the same bytes and the same lines as on one.
#include "core/io/filebytes.h"
#include "core/util/parallel.h"
#include "core/util/splitlines.h"

#include <QtTest>

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <mutex>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

// Lines of varied length (some empty, some ending in "\r\n"), about `bytes` of them, each different.
std::string variedLines(std::size_t bytes, bool finalNewline)
{
    std::mt19937 rng(7);
    std::string s;
    s.reserve(bytes + 4096);
    for (std::size_t n = 0; s.size() < bytes; ++n) {
        const std::size_t len = rng() % 9 == 0 ? 0 : rng() % 3000;
        s += "{\"n\":" + std::to_string(n) + ",\"t\":\"" + std::string(len, char('a' + n % 26)) + "\"}";
        s += rng() % 5 == 0 ? "\r\n" : "\n";
    }
    if (!finalNewline)
        s.pop_back();
    return s;
}

bool sameSpans(const std::vector<cl::json::LineSpan> &a, const std::vector<cl::json::LineSpan> &b)
{
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].offset != b[i].offset || a[i].length != b[i].length || a[i].contentLength != b[i].contentLength
            || a[i].line != b[i].line)
            return false;
    return true;
}

} // namespace

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

    void largeFileReadOnTwoThreadsIsTheFile()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("big.jsonl")).toStdString();
        const std::string bytes = variedLines(std::size_t(40) << 20, true); // above the two-thread size
        {
            std::ofstream(path, std::ios::binary) << bytes;
        }
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        QVERIFY(fd >= 0);
        // The size as stat said, and as it would be had the file shrunk since: what is there.
        for (const std::size_t claimed : {bytes.size(), bytes.size() + 1000, bytes.size() * 2, bytes.size() * 3}) {
            std::string read, error;
            QVERIFY(cl::readWholeFile(fd, claimed, read, error));
            QVERIFY(error.empty());
            QCOMPARE(read.size(), bytes.size());
            QVERIFY(read == bytes);
            QVERIFY(read.capacity() >= read.size() + cl::kBufferPadding);
        }
        // Grown since: its first `size` bytes.
        std::string read, error;
        QVERIFY(cl::readWholeFile(fd, bytes.size() - 12345, read, error));
        QVERIFY(std::string_view(read) == std::string_view(bytes).substr(0, bytes.size() - 12345));
        ::close(fd);
    }

    void splitOnTwoThreadsIsTheSameSpans()
    {
        for (const bool finalNewline : {true, false}) {
            const std::string bytes = variedLines(std::size_t(12) << 20, finalNewline);
            const auto one = cl::json::splitLines(bytes);
            QVERIFY(one.size() > 1000);
            QVERIFY(sameSpans(cl::json::splitLinesOnThreads(bytes, 2), one));
            QVERIFY(sameSpans(cl::json::splitLinesOnThreads(bytes, 1), one));
        }
        // The middle right on a line end; one unbroken line; a line end only at the very end.
        std::string halves(std::size_t(10) << 20, 'x');
        halves[halves.size() / 2] = '\n';
        QVERIFY(sameSpans(cl::json::splitLinesOnThreads(halves, 2), cl::json::splitLines(halves)));
        std::string unbroken(std::size_t(10) << 20, 'y');
        QCOMPARE(cl::json::splitLinesOnThreads(unbroken, 2).size(), std::size_t(1));
        unbroken.back() = '\n';
        QVERIFY(sameSpans(cl::json::splitLinesOnThreads(unbroken, 2), cl::json::splitLines(unbroken)));
    }
};

QTEST_GUILESS_MAIN(TestParallel)
#include "tst_parallel.moc"
