// SPDX-License-Identifier: MIT
// Never writing over a session an agent is running (core/io/runningagent.h, core/io/saveinplace.h,
// core/io/backups.h, `compact --in-place`, `backups --restore`, File › Save): the three kinds of
// evidence on a fake /proc tree shaped like what the real agents leave (Claude Code 2.1.328's
// ~/.claude/sessions/<pid>.json, Codex 0.169's open rollout and thread-writer lock, Gemini CLI 0.61's
// working folder); a real process holding the file open; a write in the moment before the rename
// (rolled back with the written bytes); read-only files; backups stamped in the future.
#include "cli/cli.h"
#include "core/generator/generator.h"
#include "core/io/backups.h"
#include "core/io/loader.h"
#include "core/io/runningagent.h"
#include "core/io/saveinplace.h"
#include "core/strategies/registry.h"
#include "core/strategy/strategy.h"

#include "widgets/mainwindow/mainwindow.h"
#include "widgets/mainwindow/savegate.h"
#include "widgets/models/sessionmodel.h"
#include "widgets/sessions/sessionbrowser.h"
#include "widgets/transcript/transcriptdocument.h"

#include "test_support.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

#include <sys/stat.h>
#include <unistd.h>

using namespace cl;
using cl::test::readFile;
using cl::test::writeFile;
namespace fs = std::filesystem;

namespace {

const bool kGuiEnvironment = cl::test::guiEnvironment();

std::string session(const QTemporaryDir &dir, Format format, const std::string &name, std::uint64_t seed = 3)
{
    gen::Options o;
    o.format = format;
    o.messages = 120;
    o.seed = seed;
    o.maxReadLines = 80;
    std::string error;
    const std::string bytes = gen::generate(o, nullptr, &error);
    const std::string path = dir.filePath(QString::fromStdString(name)).toStdString();
    fs::create_directories(fs::path(path).parent_path());
    writeFile(path, bytes);
    return path;
}

Transcript compacted(const Transcript &t, const char *strategy)
{
    const strategy::Strategy *s = strategy::find(strategy);
    strategy::Input in(t);
    const strategy::Result r = strategy::run(*s, in, {{"force", true}});
    return r.materialize(t);
}

// One process in a fake /proc tree: what takeSnapshot reads (comm, stat, cmdline, cwd, fd, fdinfo).
struct FakeProcess {
    int pid = 0;
    int parent = 1;
    std::string comm;
    std::vector<std::string> argv;
    std::string cwd;
    std::vector<std::pair<std::string, bool>> open; // path, open for writing
    std::uint64_t startTicks = 5000;
};

void addProcess(const std::string &procRoot, const FakeProcess &p)
{
    const fs::path dir = fs::path(procRoot) / std::to_string(p.pid);
    fs::create_directories(dir / "fd");
    fs::create_directories(dir / "fdinfo");
    writeFile((dir / "comm").string(), p.comm + "\n");
    std::string stat = std::to_string(p.pid) + " (" + p.comm + ") S " + std::to_string(p.parent);
    for (int k = 5; k <= 21; ++k)
        stat += " 0";
    stat += " " + std::to_string(p.startTicks) + " 0 0\n";
    writeFile((dir / "stat").string(), stat);
    std::string cmdline;
    for (const auto &a : p.argv)
        cmdline += a + '\0';
    writeFile((dir / "cmdline").string(), cmdline);
    if (!p.cwd.empty())
        fs::create_symlink(p.cwd, dir / "cwd");
    int fd = 3;
    for (const auto &[path, writing] : p.open) {
        fs::create_symlink(path, dir / "fd" / std::to_string(fd));
        writeFile((dir / "fdinfo" / std::to_string(fd)).string(),
                  std::string("pos:\t0\nflags:\t") + (writing ? "02102002" : "02100000") + "\nmnt_id:\t20\n");
        ++fd;
    }
}

running::Options fakeProc(const std::string &procRoot)
{
    running::Options o;
    o.procRoot = procRoot;
    return o;
}

std::string claudeLine(const std::string &sessionId, const std::string &cwd)
{
    return R"({"type":"user","uuid":"u1","parentUuid":null,"sessionId":")" + sessionId + R"(","cwd":")" + cwd
           + R"(","message":{"role":"user","content":"hi"}})" + "\n";
}

// A real process holding `path` open for writing (as Codex holds its rollout) until it is killed.
struct Holder {
    QProcess process;
    explicit Holder(const std::string &path)
    {
        process.start(QStringLiteral("sh"), {QStringLiteral("-c"), QStringLiteral("exec 3>>\"$0\"; echo ready; exec sleep 60"),
                                             QString::fromStdString(path)});
        process.waitForReadyRead(10000);
    }
    ~Holder() { stop(); }
    void stop()
    {
        if (process.state() != QProcess::NotRunning) {
            process.kill();
            process.waitForFinished(5000);
        }
    }
    int pid() const { return int(process.processId()); }
};

} // namespace

class TestRunningAgent : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void hintsFromTheAgentsFiles()
    {
        QTemporaryDir dir;
        const std::string claude = dir.filePath(QStringLiteral("c.jsonl")).toStdString();
        writeFile(claude, R"({"type":"summary","summary":"x"})"
                          "\n" + claudeLine("sid-1", "/work/p"));
        running::SessionHint h = running::hintFromFile(claude);
        QCOMPARE(h.format, Format::ClaudeCode);
        QCOMPARE(h.sessionId, std::string("sid-1"));
        QCOMPARE(h.folder, std::string("/work/p"));

        const std::string codex = dir.filePath(QStringLiteral("rollout-2026-11-28T15-34-57-01a222cb-9531-7ce3-b9f3-154971a77363.jsonl")).toStdString();
        writeFile(codex, R"({"timestamp":"t","type":"session_meta","payload":{"id":"01a222cb-9531-7ce3-b9f3-154971a77363","cwd":"/work/q"}})"
                         "\n");
        h = running::hintFromFile(codex);
        QCOMPARE(h.format, Format::Codex);
        QCOMPARE(h.sessionId, std::string("01a222cb-9531-7ce3-b9f3-154971a77363"));
        QCOMPARE(h.folder, std::string("/work/q"));

        // Gemini CLI: the folder is in the project's .project_root beside chats/.
        fs::create_directories(dir.filePath(QStringLiteral("tmp/work/chats")).toStdString());
        writeFile(dir.filePath(QStringLiteral("tmp/work/.project_root")).toStdString(), "/work/g");
        const std::string gemini = dir.filePath(QStringLiteral("tmp/work/chats/session-2026-11-28T15-35-c22500ac.jsonl")).toStdString();
        writeFile(gemini, R"({"sessionId":"c22500ac-1","projectHash":"ab","startTime":"t","kind":"main"})"
                          "\n");
        h = running::hintFromFile(gemini);
        QCOMPARE(h.format, Format::GeminiCli);
        QCOMPARE(h.sessionId, std::string("c22500ac-1"));
        QCOMPARE(h.folder, std::string("/work/g"));
    }

    void aProcessWithTheFileOpenForWriting()
    {
        QTemporaryDir dir;
        const std::string proc = dir.filePath(QStringLiteral("proc")).toStdString();
        const std::string path = dir.filePath(QStringLiteral("rollout-x.jsonl")).toStdString();
        writeFile(path, "{}\n");
        // Codex 0.169: the node launcher and the native binary; the native one holds the rollout.
        addProcess(proc, {4240, 1, "node", {"node", "/opt/agents/node_modules/.bin/codex", "exec"}, "/", {}});
        addProcess(proc, {4242, 4240, "codex", {"/opt/agents/node_modules/@openai/codex-linux-x64/vendor/bin/codex", "exec"}, "/", {{path, true}}});
        // A reader (tail -f) is no writer.
        addProcess(proc, {4300, 1, "tail", {"tail", "-f", path}, "/", {{path, false}}});
        const auto a = running::find(path, fakeProc(proc));
        QVERIFY(a);
        QCOMPARE(a->agent, std::string("Codex"));
        QCOMPARE(a->pid, 4242);
        const std::string text = running::refusal(*a);
        QVERIFY2(text.find("quit Codex (pid 4242), then save again") != std::string::npos, text.c_str());
        QVERIFY(running::writerOf(path, fakeProc(proc)));
        // Only the reader: nothing running.
        fs::remove_all(fs::path(proc) / "4242");
        fs::remove_all(fs::path(proc) / "4240");
        QVERIFY(!running::find(path, fakeProc(proc)));
        QVERIFY(!running::writerOf(path, fakeProc(proc)));
        // Any other writer is named by its process name.
        addProcess(proc, {5000, 1, "vim", {"vim", path}, "/", {{path, true}}});
        const auto w = running::find(path, fakeProc(proc));
        QVERIFY(w);
        QCOMPARE(w->agent, std::string("vim"));
    }

    void claudeCodesRunningSessionRecord()
    {
        QTemporaryDir dir;
        const std::string proc = dir.filePath(QStringLiteral("proc")).toStdString();
        fs::create_directories(proc);
        const std::string home = dir.filePath(QStringLiteral("home")).toStdString();
        const std::string project = dir.filePath(QStringLiteral("project")).toStdString();
        fs::create_directories(project);
        const std::string path = home + "/.claude/projects/-project/sid-1.jsonl";
        fs::create_directories(fs::path(path).parent_path());
        writeFile(path, claudeLine("sid-1", project));
        fs::create_directories(home + "/.claude/sessions");
        // What Claude Code 2.1.328 keeps while it runs (a peer token file beside it is never read).
        writeFile(home + "/.claude/sessions/7001.json",
                  R"({"pid":7001,"sessionId":"sid-1","cwd":")" + project + R"(","procStart":"39314","version":"2.1.328","status":"busy"})");
        writeFile(home + "/.claude/sessions/7001.abc.key", "not json");
        // Not running: the pid is gone (a record left by a crash).
        QVERIFY(!running::find(path, fakeProc(proc)));
        // The pid reused by another program started later: still not running.
        addProcess(proc, {7001, 1, "bash", {"bash"}, "/", {}, 99999});
        QVERIFY(!running::find(path, fakeProc(proc)));
        fs::remove_all(fs::path(proc) / "7001");
        // The agent itself (cwd elsewhere: the record alone says it runs this session).
        addProcess(proc, {7001, 1, "claude", {"/opt/agents/node_modules/.bin/claude", "-p", "hi", "--resume", "sid-1"}, "/", {}, 39314});
        auto a = running::find(path, fakeProc(proc));
        QVERIFY(a);
        QCOMPARE(a->agent, std::string("Claude Code"));
        QCOMPARE(a->pid, 7001);
        QVERIFY2(a->evidence.find("7001.json") != std::string::npos, a->evidence.c_str());

        // Claude Code running another session in the same folder: not this one.
        writeFile(home + "/.claude/sessions/7001.json",
                  R"({"pid":7001,"sessionId":"sid-2","cwd":")" + project + R"(","procStart":"39314"})");
        fs::remove_all(fs::path(proc) / "7001");
        addProcess(proc, {7001, 1, "claude", {"/opt/agents/node_modules/.bin/claude"}, project, {}, 39314});
        QVERIFY(!running::find(path, fakeProc(proc)));
        // Without a record (it has not written one yet): a Claude Code process in the session's folder.
        fs::remove(home + "/.claude/sessions/7001.json");
        a = running::find(path, fakeProc(proc));
        QVERIFY(a);
        QCOMPARE(a->pid, 7001);
        QVERIFY2(a->evidence.find("folder") != std::string::npos, a->evidence.c_str());
        // A Codex process in that folder is not running a Claude Code session.
        fs::remove_all(fs::path(proc) / "7001");
        addProcess(proc, {7002, 1, "codex", {"/usr/bin/codex"}, project, {}});
        QVERIFY(!running::find(path, fakeProc(proc)));
    }

    void codexsThreadWriterLock()
    {
        QTemporaryDir dir;
        const std::string proc = dir.filePath(QStringLiteral("proc")).toStdString();
        fs::create_directories(proc);
        const std::string home = dir.filePath(QStringLiteral("home")).toStdString();
        const std::string id = "01a222cd-a83d-7fc1-bcc8-6b7b361790d6";
        const std::string path = home + "/.codex/sessions/2026/11/28/rollout-2026-11-28T15-37-13-" + id + ".jsonl";
        fs::create_directories(fs::path(path).parent_path());
        writeFile(path, R"({"type":"session_meta","payload":{"id":")" + id + R"(","cwd":"/nowhere"}})"
                                                                             "\n");
        const std::string lock = home + "/.codex/thread-writer-locks/" + id + ".lock";
        fs::create_directories(fs::path(lock).parent_path());
        writeFile(lock, "");
        // A lock nobody holds (left behind): not running.
        QVERIFY(!running::find(path, fakeProc(proc)));
        addProcess(proc, {8100, 1, "codex", {"/x/codex", "exec", "resume", id}, "/elsewhere", {{lock, true}}});
        const auto a = running::find(path, fakeProc(proc));
        QVERIFY(a);
        QCOMPARE(a->agent, std::string("Codex"));
        QCOMPARE(a->pid, 8100);
        QVERIFY2(a->evidence.find("lock") != std::string::npos, a->evidence.c_str());
    }

    void geminiCliInTheSessionsFolder()
    {
        QTemporaryDir dir;
        const std::string proc = dir.filePath(QStringLiteral("proc")).toStdString();
        fs::create_directories(proc);
        const std::string project = dir.filePath(QStringLiteral("work")).toStdString();
        fs::create_directories(project);
        const std::string chats = dir.filePath(QStringLiteral("home/.gemini/tmp/work/chats")).toStdString();
        fs::create_directories(chats);
        writeFile(chats + "/../.project_root", project);
        const std::string path = chats + "/session-2026-11-28T15-35-c22500ac.jsonl";
        writeFile(path, R"({"sessionId":"c22500ac-1","projectHash":"ab","kind":"main"})"
                        "\n");
        addProcess(proc, {9100, 1, "node", {"node", "/opt/agents/node_modules/.bin/gemini", "--yolo"}, "/tmp", {}});
        QVERIFY(!running::find(path, fakeProc(proc)));
        addProcess(proc, {9200, 1, "node", {"node", "/opt/agents/node_modules/.bin/gemini", "--resume", "latest"}, project, {}});
        const auto a = running::find(path, fakeProc(proc));
        QVERIFY(a);
        QCOMPARE(a->agent, std::string("Gemini CLI"));
        QCOMPARE(a->pid, 9200);
    }

    // A real process holding the file open for writing (the real /proc): the save is refused, naming
    // it, and the file untouched; once it exits the save succeeds.
    void saveRefusedWhileAProcessHoldsTheFile()
    {
        QTemporaryDir dir;
        const std::string root = dir.filePath(QStringLiteral("backups")).toStdString();
        const std::string path = session(dir, Format::Codex, "rollout-held.jsonl");
        const std::string before = readFile(path);
        const LoadResult loaded = loadFile(path);
        QVERIFY(loaded.ok());
        const Transcript working = compacted(*loaded.transcript, "sliding-window");
        SaveInPlaceOptions o;
        o.backupRoot = root;
        {
            Holder holder(path);
            QVERIFY(holder.process.state() == QProcess::Running);
            const SaveInPlaceResult r = saveInPlace(working, path, *stampOf(path), o);
            QVERIFY(!r.ok);
            QVERIFY(r.agent);
            QCOMPARE(r.agent->pid, holder.pid());
            QVERIFY2(r.error.find("quit ") != std::string::npos && r.error.find(std::to_string(holder.pid())) != std::string::npos,
                     r.error.c_str());
            QCOMPARE(readFile(path), before);
            QVERIFY(backups::list(root, path).empty());
            // The CLI: a non-zero exit with the same reason; backups --restore likewise.
            const auto run = cl::test::runCli({"compact", path, "--strategy", "sliding-window", "--param", "force=true",
                                               "--in-place", "--backup-root", root});
            QCOMPARE(run.code, int(cli::Failure));
            QVERIFY2(run.err.find("is running this session") != std::string::npos, run.err.c_str());
            QCOMPARE(readFile(path), before);
            holder.stop();
        }
        const SaveInPlaceResult r = saveInPlace(working, path, *stampOf(path), o);
        QVERIFY2(r.ok, r.error.c_str());
        QCOMPARE(readFile(r.backup.path), before);
        // Restoring while a process holds it: refused.
        Holder again(path);
        std::string error;
        QVERIFY(!backups::restore(root, backups::list(root, path).front(), &error));
        QVERIFY2(error.find("not restored") != std::string::npos && error.find("quit ") != std::string::npos, error.c_str());
        const auto run = cl::test::runCli({"backups", path, "--root", root, "--restore", "latest"});
        QCOMPARE(run.code, int(cli::Failure));
    }

    // Finding 2: a line appended after the last check, in the moment before the rename. The original
    // (kept open) grew: it is put back with the line, and the save says so.
    void aWriteJustBeforeTheRenameIsNotLost()
    {
        QTemporaryDir dir;
        const std::string root = dir.filePath(QStringLiteral("backups")).toStdString();
        const std::string path = session(dir, Format::Codex, "rollout-window.jsonl");
        const std::string before = readFile(path);
        const LoadResult loaded = loadFile(path);
        const Transcript working = compacted(*loaded.transcript, "sliding-window");
        const std::string late = R"({"timestamp":"t","type":"event_msg","payload":{"type":"agent_message","message":"late"}})"
                                 "\n";
        SaveInPlaceOptions o;
        o.backupRoot = root;
        o.testHook = [&](SaveStep step) {
            if (step == SaveStep::BeforeRename)
                std::ofstream(path, std::ios::app | std::ios::binary) << late;
        };
        const SaveInPlaceResult r = saveInPlace(working, path, *stampOf(path), o);
        QVERIFY(!r.ok);
        QVERIFY(r.rolledBack);
        QVERIFY2(r.error.find("put back") != std::string::npos, r.error.c_str());
        QCOMPARE(readFile(path), before + late);
        // Nothing left beside it.
        int files = 0;
        for (const auto &e : fs::directory_iterator(dir.path().toStdString()))
            files += e.is_regular_file() ? 1 : 0;
        QCOMPARE(files, 1);

        // The same line a moment earlier (before the last check): refused before the rename.
        const auto stamp = stampOf(path);
        o.testHook = [&](SaveStep step) {
            if (step == SaveStep::BeforeFinalCheck)
                std::ofstream(path, std::ios::app | std::ios::binary) << late;
        };
        const LoadResult again = loadFile(path);
        const SaveInPlaceResult r2 = saveInPlace(compacted(*again.transcript, "sliding-window"), path, *stamp, o);
        QVERIFY(!r2.ok && r2.changedOnDisk && !r2.rolledBack);
        QCOMPARE(readFile(path), before + late + late);
    }

    // Finding 3 (read-only part): a file the user may not write is not replaced.
    void readOnlyFileRefused()
    {
        QTemporaryDir dir;
        const std::string root = dir.filePath(QStringLiteral("backups")).toStdString();
        const std::string path = session(dir, Format::ClaudeCode, "ro.jsonl");
        const std::string before = readFile(path);
        ::chmod(path.c_str(), 0444);
        const LoadResult loaded = loadFile(path);
        SaveInPlaceOptions o;
        o.backupRoot = root;
        const SaveInPlaceResult r = saveInPlace(compacted(*loaded.transcript, "claude-code-compact"), path, *stampOf(path), o);
        QVERIFY(!r.ok);
        QVERIFY2(r.error.find("read-only") != std::string::npos, r.error.c_str());
        const auto run = cl::test::runCli(
            {"compact", path, "--strategy", "claude-code-compact", "--param", "force=true", "--in-place", "--backup-root", root});
        QCOMPARE(run.code, int(cli::Failure));
        QVERIFY2(run.err.find("read-only") != std::string::npos, run.err.c_str());
        QCOMPARE(readFile(path), before);
        struct stat st {};
        QVERIFY(::stat(path.c_str(), &st) == 0);
        QCOMPARE(int(st.st_mode & 0777), 0444);
        QVERIFY(!whyNotWritable(path).empty());
        ::chmod(path.c_str(), 0644);
        QVERIFY(whyNotWritable(path).empty());
    }

    // Finding 1: ten backups stamped later than now (a clock that ran ahead): the new backup is kept
    // (and reported), the oldest by age goes; names that are not ours stay.
    void backupsPrunedByAgeNeverTheNewOne()
    {
        QTemporaryDir dir;
        const std::string root = dir.filePath(QStringLiteral("backups")).toStdString();
        const std::string path = session(dir, Format::ClaudeCode, "future.jsonl");
        const std::string folder = backups::folderFor(root, path);
        fs::create_directories(folder);
        // Made an hour ago, stamped in 2099.
        for (int k = 0; k < 10; ++k) {
            const std::string name = folder + "/2099123" + std::to_string(k) + "T000000.000Z-future.jsonl";
            writeFile(name, "old " + std::to_string(k) + "\n");
            fs::last_write_time(name, fs::file_time_type::clock::now() - std::chrono::minutes(60 - k));
        }
        const std::string notOurs = folder + "/notastamp-xxxxxxxxxxx-future.jsonl";
        writeFile(notOurs, "mine\n");
        const auto run = cl::test::runCli({"compact", path, "--strategy", "claude-code-compact", "--param", "force=true",
                                           "--in-place", "--backup-root", root, "--json"});
        QCOMPARE(run.code, int(cli::Success));
        const std::string made = nlohmann::json::parse(run.out)["saved"]["backup"].get<std::string>();
        QVERIFY2(fs::exists(made), made.c_str());
        std::vector<backups::Entry> list = backups::list(root, path);
        QCOMPARE(list.size(), backups::kKeep);
        QCOMPARE(list.front().path, made);
        QVERIFY(fs::exists(notOurs));
        // backups --restore: what the file held is kept too, and so is the restored backup.
        const std::string saved = readFile(path);
        const auto restore = cl::test::runCli({"backups", path, "--root", root, "--restore", "2", "--json"});
        QCOMPARE(restore.code, int(cli::Success));
        const auto j = nlohmann::json::parse(restore.out);
        const std::string previous = j["previous"]["path"].get<std::string>();
        QVERIFY2(fs::exists(previous), previous.c_str());
        QCOMPARE(readFile(previous), saved);
        QVERIFY(fs::exists(j["restored"]["path"].get<std::string>()));
        QCOMPARE(backups::list(root, path).size(), backups::kKeep);
        QVERIFY(fs::exists(notOurs));
    }

    // File › Save: off while a process holds the loaded session (tooltip and status say who and what
    // to do), on again once it exits; the session browser marks the session running.
    void saveOffInTheWindowWhileHeld()
    {
        QTemporaryDir dir;
        const std::string path = session(dir, Format::ClaudeCode, "gui.jsonl");
        const QString file = QString::fromStdString(path);
        gui::MainWindow w;
        w.setShowErrorDialogs(false);
        w.document()->setBackupRoot(dir.filePath(QStringLiteral("backups")));
        QVERIFY(w.openFileNow(file));
        auto *save = w.findChild<QAction *>(QStringLiteral("saveAction"));
        auto *gate = w.findChild<gui::SaveGate *>(QStringLiteral("saveGate"));
        QVERIFY(save && gate);
        QVERIFY(!save->isEnabled()); // nothing applied
        const strategy::Result r = strategy::run(*strategy::find("claude-code-compact"), strategy::Input(*w.document()->current()),
                                                 {{"force", true}});
        QString error;
        QVERIFY2(w.document()->apply(r, QStringLiteral("Compact"), &error), qPrintable(error));
        QVERIFY(save->isEnabled());
        const std::string before = readFile(path);
        {
            Holder holder(path);
            QSignalSpy changed(gate, &gui::SaveGate::runningChanged);
            gate->checkNow();
            QCOMPARE(changed.count(), 1);
            QVERIFY(!save->isEnabled());
            const QString pid = QString::number(holder.pid());
            QVERIFY2(save->toolTip().contains(QStringLiteral("quit ")) && save->toolTip().contains(pid), qPrintable(save->toolTip()));
            QVERIFY2(save->toolTip().contains(QStringLiteral("then Save")), qPrintable(save->toolTip()));
            // Triggered anyway (a shortcut queued before the poll): refused by the save itself.
            QVERIFY(!w.saveInPlace());
            QVERIFY2(w.lastError().contains(QStringLiteral("is running this session")), qPrintable(w.lastError()));
            // Export over the loaded file in another format (confirmed): refused the same way.
            QString exportError;
            QVERIFY(!w.document()->exportTo(file, Format::Anthropic, &exportError, true));
            QVERIFY2(exportError.contains(QStringLiteral("is running this session")), qPrintable(exportError));
            QCOMPARE(readFile(path), before);
            holder.stop();
            gate->setInterval(50); // the poll brings Save back by itself
            QTRY_VERIFY_WITH_TIMEOUT(save->isEnabled(), 20000);
            QCOMPARE(changed.count(), 2);
        }
        QVERIFY(w.saveInPlace());
        QVERIFY(readFile(path).size() > before.size());
    }

    void sessionBrowserMarksRunningSessions()
    {
        QTemporaryDir dir;
        const QString home = dir.filePath(QStringLiteral("home"));
        const std::string path = session(dir, Format::ClaudeCode, "home/.claude/projects/-p/held.jsonl");
        const std::string other = session(dir, Format::ClaudeCode, "home/.claude/projects/-p/idle.jsonl", 4);
        Holder holder(path);
        gui::SessionBrowser browser;
        browser.setHome(home);
        browser.setCachePath(dir.filePath(QStringLiteral("cache.json")));
        QSignalSpy scanned(&browser, &gui::SessionBrowser::scanned);
        browser.setActive(true);
        QVERIFY(scanned.wait(30000));
        const QString mark = browser.model()->runningAt(QString::fromStdString(path));
        QVERIFY2(mark.contains(QString::number(holder.pid())), qPrintable(mark));
        QVERIFY(browser.model()->runningAt(QString::fromStdString(other)).isEmpty());
        const QModelIndex held = browser.model()->indexOfPath(QString::fromStdString(path));
        QVERIFY(held.isValid());
        const QString agent = held.siblingAtColumn(gui::SessionModel::AgentColumn).data().toString();
        QVERIFY2(agent.contains(QStringLiteral("running")), qPrintable(agent));
        const QString idle = browser.model()->indexOfPath(QString::fromStdString(other)).siblingAtColumn(gui::SessionModel::AgentColumn).data().toString();
        QVERIFY2(!idle.contains(QStringLiteral("running")), qPrintable(idle));
    }
};

QTEST_MAIN(TestRunningAgent)
#include "tst_runningagent.moc"
