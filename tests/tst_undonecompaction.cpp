// SPDX-License-Identifier: MIT
// An undone compaction (core/workflow/undonecompaction.h): a compaction ContextLens saved into a
// Claude Code session is marked as its own; when later lines continue the chain from before it (Claude
// Code continuing from memory after a save made in the middle of its turn), `info`, `watch` and the
// GUI say so at once, and the GUI's Re-apply makes the compaction again as one undoable step. The
// agent's own compactions, a normal continuation and a compaction made again are not reported.
#include "test_support.h"

#include "core/generator/generator.h"
#include "core/io/loader.h"
#include "core/util/json.h"
#include "core/workflow/undonecompaction.h"
#include "widgets/mainwindow/livewatch.h"
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/mainwindow/undonebanner.h"
#include "widgets/transcript/transcriptdocument.h"

#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <algorithm>
#include <fstream>

using namespace cl;

namespace {

LoadOptions options()
{
    LoadOptions o;
    o.loadSubagents = false;
    o.threads = 1;
    return o;
}

void append(const std::string &path, const std::string &bytes)
{
    std::ofstream(path, std::ios::app | std::ios::binary) << bytes;
}

std::size_t lineCount(const std::string &bytes)
{
    return std::size_t(std::count(bytes.begin(), bytes.end(), '\n'));
}

// What Claude Code writes when it continues its turn from memory: a prompt and its answer hanging
// off `parent`, the last line it knew.
std::string continuation(const std::string &parent, const std::string &sessionId, const std::string &tag)
{
    const nlohmann::json user = {{"type", "user"},
                                 {"uuid", tag + "-u"},
                                 {"parentUuid", parent},
                                 {"isSidechain", false},
                                 {"sessionId", sessionId},
                                 {"timestamp", "2026-11-28T12:00:00.000Z"},
                                 {"message", {{"role", "user"}, {"content", "carry on " + tag}}}};
    const nlohmann::json assistant = {
        {"type", "assistant"},
        {"uuid", tag + "-a"},
        {"parentUuid", tag + "-u"},
        {"isSidechain", false},
        {"sessionId", sessionId},
        {"timestamp", "2026-11-28T12:00:01.000Z"},
        {"message",
         {{"id", "msg_" + tag},
          {"type", "message"},
          {"role", "assistant"},
          {"model", "claude-sonnet-4-5"},
          {"content", {{{"type", "text"}, {"text", "carried on " + tag}}}},
          {"usage", {{"input_tokens", 1000}, {"output_tokens", 10}, {"cache_creation_input_tokens", 0}, {"cache_read_input_tokens", 0}}}}}};
    return user.dump() + "\n" + assistant.dump() + "\n";
}

// A generated Claude Code session, compacted by `contextlens-cli compact` into another file.
struct Compacted {
    std::string original, compacted; // paths
    std::string leaf;                // uuid of the original's last main-chain line (what the agent remembers)
    std::uint32_t leafLine = 0;
    std::string sessionId;
    std::uint32_t boundaryLine = 0; // the compact_boundary line the export wrote
    nlohmann::json marker;
    std::string lastUuid; // the last line of the compacted file's new chain
};

Compacted makeCompacted(const QTemporaryDir &dir)
{
    Compacted c;
    c.original = dir.filePath(QStringLiteral("session.jsonl")).toStdString();
    c.compacted = dir.filePath(QStringLiteral("compacted.jsonl")).toStdString();
    gen::Options g;
    g.format = Format::ClaudeCode;
    g.messages = 40;
    g.seed = 7;
    test::writeFile(c.original, gen::generate(g));
    const LoadResult loaded = loadFile(c.original, options());
    for (const Message &m : loaded.transcript->messages)
        if (!m.sidechain && !m.records.empty() && !m.id.empty()) {
            c.leaf = m.id;
            c.leafLine = loaded.transcript->records[m.records.back()].line;
        }
    c.sessionId = loaded.transcript->header.value("sessionId", "");
    const test::CliRun run = test::runCli({"compact", c.original, "--strategy", "trim-tools", "--param", "keepLastToolRounds=0", "-o", c.compacted});
    if (run.code != 0)
        qWarning("compact: %s%s", run.out.c_str(), run.err.c_str());
    const std::string bytes = test::readFile(c.compacted);
    std::uint32_t line = 0;
    for (const auto &span : json::splitLines(bytes)) {
        ++line;
        const std::string_view text = std::string_view(bytes).substr(span.offset, span.contentLength);
        nlohmann::json origin;
        if (isContextLensBoundary(text, &origin)) {
            c.boundaryLine = line;
            c.marker = origin;
        }
        if (const std::string u = json::topLevelString(text, "uuid"); !u.empty())
            c.lastUuid = u;
    }
    return c;
}

} // namespace

class TestUndoneCompaction : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // The export marks its boundary with the strategy that made it; nothing is undone yet.
    void compactionIsMarked()
    {
        QTemporaryDir dir;
        const Compacted c = makeCompacted(dir);
        QVERIFY2(c.boundaryLine > 0, "the export has no boundary marked as ContextLens's");
        QVERIFY(c.marker.is_object());
        QCOMPARE(c.marker["strategies"][0].value("strategy", ""), std::string("trim-tools"));
        QCOMPARE(c.marker["strategies"][0]["params"].value("keepLastToolRounds", -1), 0);
        const LoadResult loaded = loadFile(c.compacted, options());
        QVERIFY(loaded.ok());
        QVERIFY(findUndoneCompactions(*loaded.transcript).empty());
        const test::CliRun info = test::runCli({"info", c.compacted, "--json"});
        const auto j = nlohmann::json::parse(info.out);
        QVERIFY(j["undoneCompactions"].is_array());
        QVERIFY(j["undoneCompactions"].empty());
        QCOMPARE(j.value("compactions", 0), 1);
    }

    // The agent continues from its memory after the save: the compaction is reported undone, with
    // its line, in core, `info --json` and `info`.
    void continuationFromBeforeIsReported()
    {
        QTemporaryDir dir;
        const Compacted c = makeCompacted(dir);
        QVERIFY(c.boundaryLine > 0);
        const std::size_t linesBefore = lineCount(test::readFile(c.compacted));
        append(c.compacted, continuation(c.leaf, c.sessionId, "late"));
        const LoadResult loaded = loadFile(c.compacted, options());
        QVERIFY(loaded.ok());
        const auto undone = findUndoneCompactions(*loaded.transcript);
        QCOMPARE(undone.size(), std::size_t(1));
        QCOMPARE(undone[0].boundaryLine, c.boundaryLine);
        QCOMPARE(std::size_t(undone[0].continuedLine), linesBefore + 1);
        QCOMPARE(undone[0].fromLine, c.leafLine);
        QCOMPARE(undone[0].origin["strategies"][0].value("strategy", ""), std::string("trim-tools"));
        const std::string said = "the agent continued from before your compaction at line " + std::to_string(c.boundaryLine)
                                 + "; it is no longer live";
        QVERIFY(describe(undone[0]).rfind(said, 0) == 0);

        const test::CliRun info = test::runCli({"info", c.compacted, "--json"});
        const auto j = nlohmann::json::parse(info.out);
        QCOMPARE(j["undoneCompactions"].size(), std::size_t(1));
        QCOMPARE(j["undoneCompactions"][0].value("line", 0u), c.boundaryLine);
        QCOMPARE(j["undoneCompactions"][0].value("continuedLine", std::size_t(0)), linesBefore + 1);
        QCOMPARE(j.value("compactions", 1), 0); // what the issue saw: no live compaction any more
        const test::CliRun text = test::runCli({"info", c.compacted});
        QVERIFY2(text.out.find("undone compaction") != std::string::npos && text.out.find(said) != std::string::npos,
                 text.out.c_str());
    }

    // Not undone: the agent going on from the new chain; the agent's own compaction left behind (a
    // boundary without the mark); the compaction made again after the continuation.
    void othersAreNotReported()
    {
        QTemporaryDir dir;
        const Compacted c = makeCompacted(dir);
        QVERIFY(c.boundaryLine > 0);
        const std::string compacted = test::readFile(c.compacted);

        const std::string onward = dir.filePath(QStringLiteral("onward.jsonl")).toStdString();
        test::writeFile(onward, compacted + continuation(c.lastUuid, c.sessionId, "next"));
        LoadResult r = loadFile(onward, options());
        QVERIFY(r.ok());
        QVERIFY(findUndoneCompactions(*r.transcript).empty());

        std::string unmarked = compacted;
        const std::size_t at = unmarked.find("\"contextlens\":");
        QVERIFY(at != std::string::npos);
        unmarked.replace(at, 14, "\"otherfield0\":");
        const std::string own = dir.filePath(QStringLiteral("own.jsonl")).toStdString();
        test::writeFile(own, unmarked + continuation(c.leaf, c.sessionId, "late"));
        r = loadFile(own, options());
        QVERIFY(r.ok());
        QVERIFY(findUndoneCompactions(*r.transcript).empty());

        const std::string undone = dir.filePath(QStringLiteral("undone.jsonl")).toStdString();
        test::writeFile(undone, compacted + continuation(c.leaf, c.sessionId, "late"));
        const std::string again = dir.filePath(QStringLiteral("again.jsonl")).toStdString();
        const test::CliRun run = test::runCli({"compact", undone, "--strategy", "trim-tools", "--param", "keepLastToolRounds=0", "-o", again});
        QCOMPARE(run.code, 0);
        r = loadFile(again, options());
        QVERIFY(r.ok());
        QVERIFY(findUndoneCompactions(*r.transcript).empty());
    }

    // `watch --json`: the continuation arrives while it watches; the undone compaction is an event of
    // its own right after the update, with the boundary's line.
    void watchSaysItAtOnce()
    {
        QTemporaryDir dir;
        const Compacted c = makeCompacted(dir);
        QVERIFY(c.boundaryLine > 0);
        QProcess cli;
        cli.start(QStringLiteral(CL_BINARY_DIR "/app/contextlens-cli"),
                  {QStringLiteral("watch"), QString::fromStdString(c.compacted), QStringLiteral("--json"), QStringLiteral("--interval"),
                   QStringLiteral("50"), QStringLiteral("--updates"), QStringLiteral("1")});
        QVERIFY(cli.waitForStarted());
        QTRY_VERIFY(cli.canReadLine());
        const auto start = nlohmann::json::parse(cli.readLine().toStdString());
        QCOMPARE(start.value("event", ""), std::string("start"));
        append(c.compacted, continuation(c.leaf, c.sessionId, "late"));
        QVERIFY(cli.waitForFinished(20000));
        QCOMPARE(cli.exitCode(), 0);
        const std::vector<nlohmann::json> events = test::readJsonLines(cli);
        QCOMPARE(events.size(), std::size_t(2));
        QCOMPARE(events[1].value("event", ""), std::string("undone-compaction"));
        QCOMPARE(events[1].value("line", 0u), c.boundaryLine);
        QVERIFY(events[1].value("note", "").find("no longer live") != std::string::npos);

        // Text: the same at the start, for a file that holds one already.
        QProcess text;
        text.start(QStringLiteral(CL_BINARY_DIR "/app/contextlens-cli"),
                   {QStringLiteral("watch"), QString::fromStdString(c.compacted), QStringLiteral("--seconds"), QStringLiteral("1"),
                    QStringLiteral("--interval"), QStringLiteral("50")});
        QVERIFY(text.waitForFinished(20000));
        QCOMPARE(text.exitCode(), 0);
        const QString out = QString::fromUtf8(text.readAllStandardOutput());
        QVERIFY2(out.contains(QStringLiteral("the agent continued from before your compaction at line %1; it is no longer live").arg(c.boundaryLine)),
                 qPrintable(out));
    }

    // The GUI: the banner over the transcript when the file is opened, and at once when the agent's
    // lines arrive while it is followed; Re-apply is one undoable step that makes the compaction again.
    void bannerAndReapply()
    {
        QTemporaryDir dir;
        const Compacted c = makeCompacted(dir);
        QVERIFY(c.boundaryLine > 0);
        gui::MainWindow w;
        w.setShowErrorDialogs(false);
        w.resize(1200, 800);
        w.show();
        QVERIFY(w.openFileNow(QString::fromStdString(c.compacted)));
        QVERIFY(w.undoneBanner());
        QVERIFY(!w.undoneBanner()->isVisible());
        QVERIFY(w.liveWatch()->isFollowing());
        const std::size_t liveBefore = w.transcript()->messages.size();

        append(c.compacted, continuation(c.leaf, c.sessionId, "late"));
        w.liveWatch()->pollNow();
        QTRY_VERIFY(w.undoneBanner()->isVisible());
        QVERIFY(w.undoneBanner()->label()->text().contains(
            QStringLiteral("continued from before your compaction at line %1; it is no longer live").arg(c.boundaryLine)));
        QVERIFY(w.undoneBanner()->reapplyButton()->isEnabled());
        QTRY_VERIFY(w.transcript()->messages.size() != liveBefore);

        gui::TranscriptDocument *doc = w.document();
        QVERIFY(!doc->isModified());
        w.undoneBanner()->reapplyButton()->click();
        QVERIFY(doc->isModified());
        QCOMPARE(doc->undoStack()->count(), 1);
        QCOMPARE(doc->appliedStrategies().size(), std::size_t(1));
        QCOMPARE(doc->appliedStrategies()[0].value("strategy", ""), std::string("trim-tools"));
        QVERIFY(doc->current() != doc->original());
        doc->undoStack()->undo();
        QVERIFY(!doc->isModified());

        // Opened with the continuation already there: the banner at once.
        gui::MainWindow again;
        again.setShowErrorDialogs(false);
        again.show();
        QVERIFY(again.openFileNow(QString::fromStdString(c.compacted)));
        QVERIFY(again.undoneBanner()->isVisible());

        // Re-applied and saved (the agent is done): the compaction is live again, the banner goes, and
        // the new boundary carries the strategy too.
        doc->setBackupRoot(dir.filePath(QStringLiteral("backups")));
        QVERIFY(w.reapplyUndone());
        QVERIFY(w.saveInPlace());
        QTRY_VERIFY(!w.undoneBanner()->isVisible());
        const LoadResult saved = loadFile(c.compacted, options());
        QVERIFY(saved.ok());
        QVERIFY(findUndoneCompactions(*saved.transcript).empty());
        nlohmann::json mark;
        const std::string bytes = test::readFile(c.compacted);
        for (const auto &span : json::splitLines(bytes))
            isContextLensBoundary(std::string_view(bytes).substr(span.offset, span.contentLength), &mark);
        QCOMPARE(mark["strategies"][0].value("strategy", ""), std::string("trim-tools"));
    }
};

QTEST_MAIN(TestUndoneCompaction)
#include "tst_undonecompaction.moc"
