// SPDX-License-Identifier: MIT
// `contextlens-cli hook` on the agents' compaction hooks (core/workflow/compactionhook.h): the real
// compacted Claude Code session replayed as the agent wrote it — PreCompact on the file as it stood
// before its compaction, the rest of the file, PostCompact with the summary — and the audit that links
// the snapshot to the compaction, in the CLI and the Compaction Audit panel. A session rewritten after
// its snapshot shows the facts only the snapshot still holds.
#include "test_support.h"

#include "core/io/backups.h"
#include "core/io/loader.h"
#include "core/workflow/audit.h"
#include "core/workflow/compactionhook.h"
#include "widgets/analysis/auditpanel.h"
#include "widgets/mainwindow/agentsetupdialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>

#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest>

#include <filesystem>

using namespace cl;
using Json = nlohmann::json;

namespace {

const bool kGuiEnvironment = cl::test::guiEnvironment();
const std::string kRealSession = CL_SAMPLES_DIR "/../real-sessions/claude-code-2.1.39-compacted.jsonl";

std::string pathIn(const QTemporaryDir &dir, const char *name)
{
    return dir.filePath(QString::fromUtf8(name)).toStdString();
}

// The session as it stood before its compaction (every line before the boundary) and whole.
struct Replay {
    std::string before, whole;
};
Replay replay()
{
    Replay r;
    r.whole = test::readFile(kRealSession);
    const std::size_t at = r.whole.find(R"("subtype":"compact_boundary")");
    r.before = r.whole.substr(0, r.whole.rfind('\n', at) + 1);
    return r;
}

std::string hookInput(const std::string &event, const std::string &path, const std::string &summary = {})
{
    Json j = {{"session_id", "ae4a77f8-aedd-4bc1-888f-c94edc91af04"},
              {"transcript_path", path},
              {"cwd", "/tmp"},
              {"hook_event_name", event},
              {"trigger", "manual"}};
    if (event == "PreCompact")
        j["custom_instructions"] = "keep the file names";
    if (!summary.empty())
        j["compact_summary"] = summary;
    return j.dump();
}

test::CliRun runHook(const QTemporaryDir &dir, const std::string &input, const std::string &root)
{
    const std::string file = pathIn(dir, "hook-input.json");
    test::writeFile(file, input);
    return test::runCli({"hook", "--input", file, "--root", root, "--json"});
}

} // namespace

class TestCompactionHook : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void snapshotThenFactsThenAudit()
    {
        CL_REQUIRE_SAMPLES();
        const Replay r = replay();
        QVERIFY(r.before.size() > 100000 && r.before.size() < r.whole.size());
        QTemporaryDir dir;
        const std::string session = pathIn(dir, "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl");
        const std::string root = backups::defaultRoot(); // the panel reads the default root
        test::writeFile(session, r.before);

        // Before: a copy of the file as it is, and its live context.
        test::CliRun run = runHook(dir, hookInput("PreCompact", session), root);
        QCOMPARE(run.code, 0);
        const Json pre = Json::parse(run.out);
        QCOMPARE(pre["event"], Json("PreCompact"));
        QCOMPARE(pre["bytes"].get<std::size_t>(), r.before.size());
        QCOMPARE(test::readFile(pre["snapshot"].get<std::string>()), r.before);
        const LoadResult stateThen = loadFile(session);
        QVERIFY(stateThen.ok());
        QCOMPARE(pre["liveTokens"].get<std::int64_t>(), tokens::contextFigure(*stateThen.transcript).total);
        QVERIFY(pre["liveMessages"].get<std::size_t>() > 10);

        // The agent compacts: the rest of the file as it wrote it.
        test::writeFile(session, r.whole);
        const LoadResult after = loadFile(session);
        QVERIFY(after.ok());
        std::vector<audit::Compaction> plain = audit::auditCompactions(*after.transcript, audit::Options{{}, {}, 1});
        QCOMPARE(plain.size(), std::size_t(1));
        QVERIFY(!plain[0].snapshot);
        QVERIFY(!plain[0].summary.empty());

        // After: the snapshot's facts against the summary the agent hands over.
        run = runHook(dir, hookInput("PostCompact", session, plain[0].summary), root);
        QCOMPARE(run.code, 0);
        const Json post = Json::parse(run.out);
        QCOMPARE(post["snapshot"], pre["snapshot"]);
        QVERIFY(post["factsChecked"].get<bool>());
        // The snapshot is the state the file's history holds: the same facts, kept and dropped alike.
        QCOMPARE(post["factsKept"].get<std::size_t>(), plain[0].kept.size());
        QCOMPARE(post["dropped"].size(), plain[0].dropped.size());
        QVERIFY(plain[0].factsTotal() > 5);

        // The audit links them.
        audit::Options o;
        o.strategies = std::vector<std::string>{};
        o.hooks = compactionhook::records(root, session);
        QCOMPARE(o.hooks.size(), std::size_t(2));
        const std::vector<audit::Compaction> linked = audit::auditCompactions(*after.transcript, o);
        QVERIFY(linked[0].snapshot);
        const audit::HookSnapshot &s = *linked[0].snapshot;
        QVERIFY(s.readable);
        QCOMPARE(s.before.instructions, std::string("keep the file names"));
        QVERIFY(s.after);
        QCOMPARE(s.factsKept, plain[0].kept.size());
        QVERIFY(s.onlyInSnapshot.empty());

        run = test::runCli({"audit", session, "--strategies", "none", "--hooks-root", root});
        QVERIFY2(run.out.find("snapshot before it (PreCompact hook, ") != std::string::npos, run.out.c_str());
        run = test::runCli({"audit", session, "--strategies", "none", "--hooks-root", root, "--json"});
        const Json snap = Json::parse(run.out)["compactions"][0]["snapshot"];
        QCOMPARE(snap["liveTokens"], pre["liveTokens"]);
        QCOMPARE(snap["factsKept"].get<std::size_t>(), plain[0].kept.size());
        QVERIFY(!snap["postCompact"].is_null());
        // Another root: nothing linked.
        run = test::runCli({"audit", session, "--strategies", "none", "--hooks-root", pathIn(dir, "none"), "--json"});
        QVERIFY(Json::parse(run.out)["compactions"][0]["snapshot"].is_null());

        // The Compaction Audit panel shows it.
        gui::AuditPanel panel;
        panel.resize(900, 700);
        panel.setTranscript(std::shared_ptr<const Transcript>(after.transcript));
        panel.refreshNow();
        QVERIFY(panel.compactions().at(0).snapshot);
        const QString text = panel.summaryView()->toPlainText();
        QVERIFY2(text.contains(QStringLiteral("Snapshot before it")), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("taken by the PreCompact hook")));
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.grab().save(QStringLiteral(CL_BINARY_DIR "/audit-snapshot.png"));

        // The session rewritten since (as an agent that replaces its history does): a dropped path
        // the file no longer holds is shown from the snapshot.
        std::string gone;
        for (const strategy::Fact &f : s.dropped)
            if (f.kind == strategy::Fact::Kind::Path && f.text.size() > 8) {
                gone = f.text;
                break;
            }
        QVERIFY2(!gone.empty(), "the summary dropped a path");
        std::string rewritten = r.whole;
        for (std::size_t at = rewritten.find(gone); at != std::string::npos; at = rewritten.find(gone, at))
            rewritten.replace(at, gone.size(), std::string(gone.size(), 'q'));
        test::writeFile(session, rewritten);
        const LoadResult edited = loadFile(session);
        const std::vector<audit::Compaction> again = audit::auditCompactions(*edited.transcript, o);
        QVERIFY(again[0].snapshot);
        const auto &only = again[0].snapshot->onlyInSnapshot;
        QVERIFY(std::any_of(only.begin(), only.end(), [&gone](const strategy::Fact &f) { return f.text == gone; }));
    }

    // Help › Use ContextLens Inside an Agent…: what would be added, then added after a backup.
    void agentSetupDialog()
    {
        QTemporaryDir dir;
        const QString home = dir.filePath(QStringLiteral("home"));
        const std::string settings = QString(home + QStringLiteral("/.claude/settings.json")).toStdString();
        std::filesystem::create_directories(home.toStdString() + "/.claude");
        test::writeFile(settings, R"({"theme": "dark"})");
        gui::AgentSetupDialog dialog(home, QStringLiteral("/opt/cl/contextlens-cli"));
        QVERIFY2(dialog.summary()->text().contains(QStringLiteral("Adds statusLine, hooks.PreCompact, hooks.PostCompact")),
                 qPrintable(dialog.summary()->text()));
        QVERIFY(dialog.preview()->toPlainText().contains(QStringLiteral("/opt/cl/contextlens-cli statusline --color")));
        QCOMPARE(test::readFile(settings), std::string(R"({"theme": "dark"})")); // nothing written yet
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        dialog.grab().save(QStringLiteral(CL_BINARY_DIR "/agent-setup.png"));
        QTest::mouseClick(dialog.addButton(), Qt::LeftButton);
        const Json now = Json::parse(test::readFile(settings));
        QCOMPARE(now["theme"], Json("dark"));
        QCOMPARE(now["hooks"]["PostCompact"][0]["hooks"][0]["command"], Json("/opt/cl/contextlens-cli hook"));
        QVERIFY2(dialog.summary()->text().startsWith(QStringLiteral("Added ")), qPrintable(dialog.summary()->text()));
        QVERIFY(dialog.summary()->text().contains(QStringLiteral("The file as it was: ")));
        QVERIFY(!dialog.addButton()->isEnabled()); // all there now
        dialog.agentBox()->setCurrentIndex(1);     // Gemini CLI: a file still to make
        QVERIFY(dialog.summary()->text().contains(QStringLiteral("Adds hooks.PreCompress")));
        QVERIFY(dialog.addButton()->isEnabled());
    }

    // Gemini CLI's PreCompress has the same shape; other events and bad input are warnings (exit 1),
    // never a stop of the agent's compaction.
    void otherEventsAndErrors()
    {
        CL_REQUIRE_SAMPLES();
        QTemporaryDir dir;
        const std::string root = pathIn(dir, "backups");
        const std::string chat = pathIn(dir, "session-1.json");
        std::string gemini;
        for (const auto &e : std::filesystem::directory_iterator(CL_SAMPLES_DIR "/gemini"))
            if (e.path().extension() == ".json" && gemini.empty())
                gemini = e.path().string();
        QVERIFY(!gemini.empty());
        test::writeFile(chat, test::readFile(gemini));
        test::CliRun run = runHook(dir, hookInput("PreCompress", chat), root);
        QCOMPARE(run.code, 0);
        QCOMPARE(Json::parse(run.out)["event"], Json("PreCompress"));
        QCOMPARE(compactionhook::records(root, chat).size(), std::size_t(1));

        const std::string input = pathIn(dir, "in.json");
        test::writeFile(input, hookInput("PreToolUse", chat));
        run = test::runCli({"hook", "--input", input, "--root", root});
        QCOMPARE(run.code, 1);
        QVERIFY2(run.err.find("not a compaction hook event ('PreToolUse'") != std::string::npos, run.err.c_str());
        QVERIFY(run.out.empty());
        test::writeFile(input, "{\"hook_event_name\": \"PreCompact\"}");
        run = test::runCli({"hook", "--input", input, "--root", root});
        QCOMPARE(run.code, 1);
        QVERIFY(run.err.find("names no transcript_path") != std::string::npos);
        test::writeFile(input, hookInput("PreCompact", pathIn(dir, "missing.jsonl")));
        run = test::runCli({"hook", "--input", input, "--root", root});
        QCOMPARE(run.code, 1);
        run = test::runCli({"hook", "--input", input, "--root", root, "--json"});
        QCOMPARE(run.code, 2);
        // Nothing but the one good snapshot was recorded.
        QCOMPARE(compactionhook::records(root, chat).size(), std::size_t(1));
    }
};

QTEST_MAIN(TestCompactionHook)
#include "tst_compactionhook.moc"
