// SPDX-License-Identifier: MIT
// `contextlens-cli watch` and the compaction forecast it prints: the turns left before the agent's
// auto-compaction from a session's growth, a line per change (JSON Lines with --json), a file that is
// briefly missing waited for, names and texts printed safely. (Following the file itself:
// tst_livetail.)
#include "test_support.h"
#include "live_fixture.h"

#include "core/io/loader.h"
#include "core/workflow/forecast.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

using namespace cl;

namespace {

QString cliPath()
{
    return QStringLiteral(CL_BINARY_DIR "/app/contextlens-cli");
}

} // namespace

class TestWatch : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Six turns growing by 10,000 tokens each (plus 100 output): with a 200,000 window Claude Code
    // compacts at 187,000; the context is 70,100, so ceil(116,900 / 10,000) = 12 turns remain.
    void forecastFromGrowth()
    {
        const LoadResult r = loadBytes(test::growingSession(6), "growing.jsonl", LoadOptions{});
        QVERIFY(r.ok());
        const forecast::Compaction c = forecast::compaction(*r.transcript, 200000, 1);
        QCOMPARE(QString::fromStdString(c.agent), QStringLiteral("Claude Code"));
        QCOMPARE(c.trigger, std::int64_t(187000));
        QVERIFY(c.measured);
        QCOMPARE(c.current, std::int64_t(70100));
        QCOMPARE(c.turnsSampled, 5);
        QCOMPARE(c.growthPerTurn, 10000.0);
        QVERIFY(c.turnsLeft.has_value());
        QCOMPARE(*c.turnsLeft, 12);
        QVERIFY(!c.near());
        QCOMPARE(QString::fromStdString(forecast::describe(c)),
                 QStringLiteral("12 turns to Claude Code's auto-compact (at 187,000 of 200,000 tokens)"));
        // A smaller window: 80,000 - 13,000 = 67,000 is passed already.
        const forecast::Compaction due = forecast::compaction(*r.transcript, 80000, 1);
        QVERIFY(due.due());
        QVERIFY(due.near());
        QCOMPARE(*due.turnsLeft, 0);
        // 120,000: trigger 107,000, ceil(36,900 / 10,000) = 4 turns; near within 4, not within 3.
        const forecast::Compaction soon = forecast::compaction(*r.transcript, 120000, 1);
        QCOMPARE(*soon.turnsLeft, 4);
        QVERIFY(soon.near(4));
        QVERIFY(!soon.near(3));
        // One turn: too few to tell.
        const LoadResult one = loadBytes(test::growingSession(1), "one.jsonl", LoadOptions{});
        const forecast::Compaction early = forecast::compaction(*one.transcript, 200000, 1);
        QVERIFY(!early.turnsLeft);
        QVERIFY(QString::fromStdString(forecast::describe(early)).startsWith(QStringLiteral("too few turns")));
    }

    // Finding 8: numbers. --seconds bounds the run whatever the interval; a --seconds past what a
    // clock holds, and numbers with trailing junk, are refused (not an overflow that ends at once).
    void watchNumbers()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("watched.jsonl"));
        test::writeFile(path.toStdString(), test::growingSession(2));
        auto run = [&](const QStringList &extra) {
            QProcess cli;
            cli.start(cliPath(), QStringList{QStringLiteral("watch"), path} + extra);
            if (!cli.waitForFinished(30000)) {
                cli.kill();
                cli.waitForFinished();
                return std::make_pair(-1, QByteArray("did not finish"));
            }
            return std::make_pair(cli.exitCode(), cli.readAllStandardError());
        };
        // Before the fix: slept the whole minute (the bound above is 30 s).
        auto r = run({QStringLiteral("--seconds"), QStringLiteral("1"), QStringLiteral("--interval"), QStringLiteral("60000")});
        QCOMPARE(r.first, 0);
        r = run({QStringLiteral("--seconds"), QStringLiteral("9223372036854775807")});
        QCOMPARE(r.first, 2);
        QVERIFY(r.second.contains("--seconds"));
        for (const char *bad : {"10abc", "-1", "1e3", "99999999999999999999"}) {
            r = run({QStringLiteral("--updates"), QString::fromLatin1(bad)});
            QVERIFY2(r.first == 2, bad);
        }
        r = run({QStringLiteral("--interval"), QStringLiteral("5")});
        QCOMPARE(r.first, 2);
    }

    // Finding 15: a window smaller than Claude Code's free buffer is due at once (was: not near); a
    // huge window gives a large positive number of turns (was: -2147483648).
    void forecastExtremeWindows()
    {
        const LoadResult r = loadBytes(test::growingSession(6), "growing.jsonl", LoadOptions{});
        QVERIFY(r.ok());
        const forecast::Compaction tiny = forecast::compaction(*r.transcript, 1, 1);
        QVERIFY(tiny.due());
        QVERIFY(tiny.near());
        QCOMPARE(*tiny.turnsLeft, 0);
        const forecast::Compaction huge = forecast::compaction(*r.transcript, std::int64_t(1) << 60, 1);
        QVERIFY(huge.turnsLeft.has_value());
        QVERIFY(*huge.turnsLeft > 1000000);
        QVERIFY(!huge.near());
        QProcess cli;
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("w.jsonl"));
        test::writeFile(path.toStdString(), test::growingSession(6));
        cli.start(cliPath(), {QStringLiteral("watch"), path, QStringLiteral("--json"), QStringLiteral("--window"), QStringLiteral("1"),
                              QStringLiteral("--seconds"), QStringLiteral("1"), QStringLiteral("--interval"), QStringLiteral("100")});
        QVERIFY(cli.waitForFinished(20000));
        QCOMPARE(cli.exitCode(), 0);
        const auto start = nlohmann::json::parse(cli.readLine().toStdString());
        QVERIFY(start.value("near", false));
        QCOMPARE(start.value("turnsLeft", -1), 0);
    }

    // Finding 15: a file missing for a few polls (rotation, an atomic replace) is waited for and read
    // again when it is back; `watch` says so and goes on (was: exit 2 at the first missing poll).
    void watchWaitsForAMissingFile()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("watched.jsonl"));
        test::writeFile(path.toStdString(), test::growingSession(2));
        QProcess cli;
        cli.start(cliPath(), {QStringLiteral("watch"), path, QStringLiteral("--json"), QStringLiteral("--interval"), QStringLiteral("50"),
                              QStringLiteral("--updates"), QStringLiteral("1")});
        QVERIFY(cli.waitForStarted());
        QTRY_VERIFY(cli.canReadLine());
        QCOMPARE(nlohmann::json::parse(cli.readLine().toStdString()).value("event", ""), std::string("start"));
        QVERIFY(QFile::remove(path));
        QTRY_VERIFY_WITH_TIMEOUT(cli.canReadLine(), 10000);
        const auto missing = nlohmann::json::parse(cli.readLine().toStdString());
        QCOMPARE(missing.value("event", ""), std::string("missing"));
        QCOMPARE(cli.state(), QProcess::Running);
        test::writeFile(path.toStdString(), test::growingSession(3));
        QVERIFY(cli.waitForFinished(20000));
        QCOMPARE(cli.exitCode(), 0);
        const std::vector<nlohmann::json> events = test::readJsonLines(cli);
        QCOMPARE(events.size(), std::size_t(2));
        QCOMPARE(events[0].value("event", ""), std::string("back"));
        // Read again, or (the same inode number again, the same first lines) taken as grown: either way
        // the transcript is the new file's.
        QCOMPARE(events[1].value("messages", 0), 6);
    }

    // Finding 4/15: `watch --json` on a file whose name is not UTF-8 writes JSON (was: abort).
    void watchJsonNonUtf8Name()
    {
        QTemporaryDir dir;
        const std::string path = QFile::encodeName(dir.path()).toStdString() + "/s\xff\xfe.jsonl";
        test::writeFile(path, test::growingSession(2));
        const test::CliRun r = test::runCli({"watch", path, "--json", "--seconds", "1", "--interval", "200"});
        ::unlink(path.c_str()); // QTemporaryDir cannot name it
        QCOMPARE(r.code, 0);
    }

    // Finding 12 for `watch`: it writes as things happen, so its own lines are made terminal-safe: a
    // file name with ESC[2J and an OSC title reaches the terminal as visible escapes, in text and JSON.
    void watchOutputTerminalSafe()
    {
        QTemporaryDir dir;
        const std::string path = QFile::encodeName(dir.path()).toStdString() + "/s\x1b[2J\x1b]0;owned\x07\xc2\x9b.jsonl";
        test::writeFile(path, test::growingSession(2));
        for (const bool json : {false, true}) {
            QStringList args{QStringLiteral("watch"), QString::fromStdString(path), QStringLiteral("--seconds"),
                             QStringLiteral("1"), QStringLiteral("--interval"), QStringLiteral("200")};
            if (json)
                args << QStringLiteral("--json");
            QProcess cli;
            cli.start(cliPath(), args);
            QVERIFY(cli.waitForFinished(20000));
            QCOMPARE(cli.exitCode(), 0);
            const QByteArray out = cli.readAllStandardOutput();
            QVERIFY(out.contains("jsonl"));
            QVERIFY2(!out.contains('\x1b'), out.constData());
            QVERIFY2(!out.contains('\x07'), out.constData());
            QVERIFY2(!out.contains("\xc2\x9b"), out.constData());
        }
        ::unlink(path.c_str());
    }

    // `contextlens-cli watch --json`: a line at the start, one per change, as they happen.
    void watchCommand()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("watched.jsonl"));
        const std::string three = test::growingSession(3, 20000), six = test::growingSession(6, 20000);
        test::writeFile(path.toStdString(), three);
        QProcess cli;
        cli.start(cliPath(),
                  {QStringLiteral("watch"), path, QStringLiteral("--json"), QStringLiteral("--interval"), QStringLiteral("50"),
                   QStringLiteral("--updates"), QStringLiteral("1"), QStringLiteral("--window"), QStringLiteral("200000")});
        QVERIFY(cli.waitForStarted());
        QTRY_VERIFY(cli.canReadLine());
        const auto first = nlohmann::json::parse(cli.readLine().toStdString());
        QCOMPARE(first.value("event", ""), std::string("start"));
        QCOMPARE(first.value("messages", 0), 6);
        QCOMPARE(first.value("turnsLeft", 0), 6);
        test::appendFile(path.toStdString(), six.substr(three.size()));
        QVERIFY(cli.waitForFinished(10000));
        QCOMPARE(cli.exitCode(), 0);
        const auto second = nlohmann::json::parse(cli.readLine().toStdString());
        QCOMPARE(second.value("event", ""), std::string("appended"));
        QCOMPARE(second.value("messages", 0), 12);
        QCOMPARE(second.value("newMessages", 0), 6);
        QCOMPARE(second.value("bytesRead", 0), int(six.size() - three.size()));
        QCOMPARE(second.value("context", 0), 140100);
        QCOMPARE(second.value("trigger", 0), 187000);
        QCOMPARE(second.value("turnsLeft", 0), 3);
        QVERIFY(second.value("near", false));
    }
};

QTEST_GUILESS_MAIN(TestWatch)
#include "tst_watch.moc"
