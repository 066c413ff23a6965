// SPDX-License-Identifier: MIT
// Saving over a session file (core/io/saveinplace.h, core/io/backups.h, `compact --in-place`,
// `backups`): the result reloads with the live context that was saved, in every session format; the
// original is backed up byte for byte first; a file that grew since it was loaded (the agent still
// writing it) is refused and left untouched; backups keep the last ten, newest first, and a restore
// puts the bytes back exactly after backing up what it replaces.
#include "cli/cli.h"
#include "core/generator/generator.h"
#include "core/io/backups.h"
#include "core/io/loader.h"
#include "core/io/saveinplace.h"
#include "core/strategies/registry.h"
#include "core/strategy/strategy.h"

#include "test_support.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace cl;
using cl::test::readFile;
using cl::test::writeFile;

namespace {

// A generated session of `format` written to dir/name; its path.
std::string session(const QTemporaryDir &dir, Format format, const std::string &name, std::uint64_t seed = 3)
{
    gen::Options o;
    o.format = format;
    o.messages = 160;
    o.seed = seed;
    o.maxReadLines = 120;
    std::string error;
    const std::string bytes = gen::generate(o, nullptr, &error);
    const std::string path = dir.filePath(QString::fromStdString(name)).toStdString();
    writeFile(path, bytes);
    return path;
}

// The transcript at path after `strategy` (forced), as the GUI's working transcript would be.
Transcript compacted(const Transcript &t, const char *strategy)
{
    const strategy::Strategy *s = strategy::find(strategy);
    strategy::Input in(t);
    const strategy::Result r = strategy::run(*s, in, {{"force", true}});
    return r.materialize(t);
}

} // namespace

class TestSaveInPlace : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void savesWithTheSameLiveContextInEveryFormat()
    {
        QTemporaryDir dir;
        const std::string root = dir.filePath(QStringLiteral("backups")).toStdString();
        for (Format f : {Format::ClaudeCode, Format::Codex, Format::GeminiCli, Format::CopilotCli, Format::OpenAIChat, Format::Anthropic}) {
            const std::string path = session(dir, f, "s-" + std::string(formatName(f)) + ".txt");
            const std::string before = readFile(path);
            const auto stamp = stampOf(path);
            QVERIFY(stamp);
            LoadResult loaded = loadFile(path);
            QVERIFY2(loaded.ok(), loaded.error.c_str());
            const Transcript working = compacted(*loaded.transcript, "sliding-window");
            SaveInPlaceOptions o;
            o.backupRoot = root;
            const SaveInPlaceResult saved = saveInPlace(working, path, *stamp, o);
            QVERIFY2(saved.ok, saved.error.c_str());
            // The backup is the file as it was, byte for byte.
            QCOMPARE(readFile(saved.backup.path), before);
            QCOMPARE(backups::list(root, path).size(), std::size_t(1));
            // The file now loads with the live context that was saved.
            const LoadResult back = loadFile(path);
            QVERIFY(back.ok());
            QCOMPARE(liveContextDifference(working, *back.transcript), std::string());
            QVERIFY(readFile(path) != before);
        }
    }

    void differenceIsFound()
    {
        QTemporaryDir dir;
        const LoadResult a = loadFile(session(dir, Format::OpenAIChat, "a.json", 3));
        const Transcript b = compacted(*a.transcript, "sliding-window");
        QVERIFY(!liveContextDifference(*a.transcript, b).empty());
        QCOMPARE(liveContextDifference(*a.transcript, *a.transcript), std::string());
    }

    void refusesAFileThatGrew()
    {
        QTemporaryDir dir;
        const std::string root = dir.filePath(QStringLiteral("backups")).toStdString();
        const std::string path = session(dir, Format::ClaudeCode, "running.jsonl");
        const auto stamp = stampOf(path);
        const LoadResult loaded = loadFile(path);
        const Transcript working = compacted(*loaded.transcript, "claude-code-compact");
        // The agent appends a line after ContextLens read the file.
        {
            std::ofstream append(path, std::ios::app | std::ios::binary);
            append << R"({"type":"user","message":{"role":"user","content":"one more"},"uuid":"u-late"})" << '\n';
        }
        const std::string grown = readFile(path);
        SaveInPlaceOptions o;
        o.backupRoot = root;
        const SaveInPlaceResult saved = saveInPlace(working, path, *stamp, o);
        QVERIFY(!saved.ok && saved.changedOnDisk);
        QVERIFY2(saved.error.find("grew") != std::string::npos && saved.error.find("still be writing") != std::string::npos,
                 saved.error.c_str());
        QCOMPARE(readFile(path), grown); // untouched
        QVERIFY(backups::list(root, path).empty());
    }

    void keepsTheLastTenAndRestoresExactly()
    {
        QTemporaryDir dir;
        const std::string root = dir.filePath(QStringLiteral("backups")).toStdString();
        const std::string path = dir.filePath(QStringLiteral("file.jsonl")).toStdString();
        for (int k = 0; k < 12; ++k) {
            writeFile(path, "version " + std::to_string(k) + "\n");
            std::string error;
            QVERIFY2(backups::create(root, path, nullptr, &error), error.c_str());
        }
        writeFile(path, "version 12\n");
        std::vector<backups::Entry> list = backups::list(root, path);
        QCOMPARE(list.size(), backups::kKeep);
        QCOMPARE(readFile(list.front().path), std::string("version 11\n"));
        QCOMPARE(readFile(list.back().path), std::string("version 2\n"));
        for (std::size_t k = 1; k < list.size(); ++k)
            QVERIFY(list[k - 1].stamp > list[k].stamp);
        QCOMPARE(backups::find(list, "latest"), &list.front());
        QCOMPARE(backups::find(list, "3"), &list[2]);
        QCOMPARE(backups::find(list, list[4].stamp), &list[4]);
        QVERIFY(!backups::find(list, "11"));
        // Restore the fifth newest ("version 7"): the file gets its bytes back; what it held is a backup.
        backups::Entry previous;
        std::string error;
        QVERIFY2(backups::restore(root, list[4], &error, &previous), error.c_str());
        QCOMPARE(readFile(path), std::string("version 7\n"));
        QCOMPARE(readFile(previous.path), std::string("version 12\n"));
        list = backups::list(root, path);
        QCOMPARE(list.front().stamp, previous.stamp);
        QVERIFY(list.size() <= backups::kKeep + 1);
        // Another file's backups are its own.
        const std::string other = dir.filePath(QStringLiteral("other.jsonl")).toStdString();
        writeFile(other, "x\n");
        QVERIFY(backups::list(root, other).empty());
    }

    void commandLine()
    {
        QTemporaryDir dir;
        const std::string root = dir.filePath(QStringLiteral("backups")).toStdString();
        const std::string path = session(dir, Format::ClaudeCode, "cli.jsonl");
        const std::string original = readFile(path);
        std::string out, err;
        QCOMPARE(cli::run({"compact", path, "--strategy", "claude-code-compact", "--param", "force=true", "--in-place",
                           "--backup-root", root, "--json"},
                          out, err),
                 int(cli::Success));
        const auto j = nlohmann::json::parse(out);
        QVERIFY(j["saved"]["written"].get<bool>());
        QCOMPARE(readFile(j["saved"]["backup"].get<std::string>()), original);
        const std::string saved = readFile(path);
        // -o FILE without --force is still refused; with --force it is the same save in place.
        out.clear();
        err.clear();
        QCOMPARE(cli::run({"compact", path, "--strategy", "claude-code-compact", "--param", "force=true", "-o", path}, out, err),
                 int(cli::Failure));
        out.clear();
        err.clear();
        QCOMPARE(cli::run({"compact", path, "--strategy", "claude-code-compact", "--param", "force=true", "-o", path, "--force",
                           "--backup-root", root},
                          out, err),
                 int(cli::Success));
        QVERIFY2(out.find("saved in place") != std::string::npos, out.c_str());
        // backups: two, newest first; --restore 2 gives the original bytes back.
        out.clear();
        QCOMPARE(cli::run({"backups", path, "--root", root, "--json"}, out, err), int(cli::Success));
        const auto list = nlohmann::json::parse(out)["backups"];
        QCOMPARE(list.size(), std::size_t(2));
        QCOMPARE(readFile(list[0]["path"].get<std::string>()), saved);
        out.clear();
        QCOMPARE(cli::run({"backups", path, "--root", root, "--restore", "2"}, out, err), int(cli::Success));
        QCOMPARE(readFile(path), original);
        QVERIFY(out.find("restored") != std::string::npos);
        out.clear();
        err.clear();
        QCOMPARE(cli::run({"backups", path, "--root", root, "--restore", "9"}, out, err), int(cli::Failure));
        // In place needs a file in its own format.
        QCOMPARE(cli::run({"compact", path, "--strategy", "claude-code-compact", "--in-place", "--to", "anthropic"}, out, err),
                 int(cli::Failure));
    }
};

QTEST_GUILESS_MAIN(TestSaveInPlace)
#include "tst_saveinplace.moc"
