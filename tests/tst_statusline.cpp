// SPDX-License-Identifier: MIT
// `contextlens-cli statusline` (core/sessions/statusline.h): the line Claude Code shows under its
// prompt. Its figures must be the ones `context` and `cost` give for the whole file, while a call
// after the first reads only the live part: checked on the real compacted Claude Code session grown
// line by line as the agent wrote it, on a generated session with many compactions, and with
// subagent files, a new compaction, a rewritten and a replaced file.
#include "test_support.h"

#include "core/cost/sessioncost.h"
#include "core/generator/generator.h"
#include "core/io/loader.h"
#include "core/llm/pricing.h"
#include "core/sessions/statusline.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>

using namespace cl;

namespace {

std::string pathIn(const QTemporaryDir &dir, const char *name)
{
    return dir.filePath(QString::fromUtf8(name)).toStdString();
}

const std::string kRealSession = CL_SAMPLES_DIR "/../real-sessions/claude-code-2.1.39-compacted.jsonl";

std::vector<std::string> linesOf(const std::string &bytes)
{
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at < bytes.size()) {
        const std::size_t nl = bytes.find('\n', at);
        const std::size_t end = nl == std::string::npos ? bytes.size() : nl + 1;
        out.push_back(bytes.substr(at, end - at));
        at = end;
    }
    return out;
}

std::string joined(const std::vector<std::string> &lines, std::size_t from, std::size_t to)
{
    std::string s;
    for (std::size_t i = from; i < std::min(to, lines.size()); ++i)
        s += lines[i];
    return s;
}

// The whole file's figures as `context` and `cost` compute them.
struct Whole {
    std::int64_t context = 0;
    double dollars = 0;
};
Whole whole(const std::string &path, const llm::PriceTable &prices)
{
    LoadOptions o;
    const LoadResult r = loadFile(path, o);
    if (!r.ok())
        return {};
    return {tokens::contextFigure(*r.transcript).total, cost::sessionCost(cost::readUsage(*r.transcript), prices).dollars.total()};
}

statusline::Figures call(const std::string &path, const std::string &stateDir, const llm::PriceTable &prices,
                         std::int64_t window = 0)
{
    statusline::Input in;
    in.transcriptPath = path;
    in.sessionId = "0f6c3a52-test";
    in.window = window;
    statusline::Options opts;
    opts.stateDir = stateDir;
    opts.prices = &prices;
    statusline::Figures f;
    std::string error;
    if (!statusline::compute(in, opts, f, error))
        qWarning("statusline: %s", error.c_str());
    return f;
}

} // namespace

class TestStatusline : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QVERIFY(llm::PriceTable::load(m_prices, {}, nullptr)); }

    // The real session grows as Claude Code wrote it: every call equals the whole file's figures,
    // and after the first only the part after its compaction is read.
    void realSessionGrowing()
    {
        CL_REQUIRE_SAMPLES();
        const std::vector<std::string> lines = linesOf(test::readFile(kRealSession));
        QVERIFY(lines.size() > 2300);
        QTemporaryDir dir;
        const std::string path = pathIn(dir, "session.jsonl");
        const std::string state = pathIn(dir, "state");
        test::writeFile(path, joined(lines, 0, 1600));
        statusline::Figures f = call(path, state, m_prices);
        QVERIFY(!f.warm);
        QCOMPARE(f.why, std::string("first call for this session"));
        QVERIFY2(f.liveOffset > 0, "the compaction boundary was found and the live part alone gave the figure");
        Whole w = whole(path, m_prices);
        QCOMPARE(f.context.total, w.context);
        QVERIFY(std::abs(f.dollars - w.dollars) < 1e-9);
        QVERIFY(f.dollars > 0);
        const std::uint64_t offset = f.liveOffset;

        for (const std::size_t upTo : {1601ul, 1700ul, 2000ul, lines.size()}) {
            test::appendFile(path, joined(lines, upTo == 1601 ? 1600 : upTo == 1700 ? 1601
                                                                   : upTo == 2000   ? 1700
                                                                                    : 2000,
                                          upTo));
            f = call(path, state, m_prices);
            w = whole(path, m_prices);
            QVERIFY2(f.warm, f.why.c_str());
            QCOMPARE(f.liveOffset, offset);
            QCOMPARE(f.bytesRead, std::uint64_t(std::filesystem::file_size(path)) - offset);
            // The calibration is the one learned from the whole file at the first call; the
            // measurement itself is the file's, so only the estimate after it can move.
            const double off = std::abs(double(f.context.total - w.context)) / double(w.context);
            QVERIFY2(off < 0.005, qPrintable(QStringLiteral("%1 vs %2 at line %3").arg(f.context.total).arg(w.context).arg(upTo)));
            QVERIFY(std::abs(f.dollars - w.dollars) < 1e-9);
        }
        // Called again without a change: the same figures, still from the live part.
        const statusline::Figures again = call(path, state, m_prices);
        QVERIFY(again.warm);
        QCOMPARE(again.context.total, f.context.total);
    }

    // A generated session with many compactions: the first call's figures are the whole file's.
    void generatedSessionWithCompactions()
    {
        gen::Options g;
        g.format = Format::ClaudeCode;
        g.targetBytes = 6u << 20;
        g.seed = 17;
        gen::Stats stats;
        const std::string bytes = gen::generate(g, &stats);
        QVERIFY(stats.compactions >= 2);
        QTemporaryDir dir;
        const std::string path = pathIn(dir, "gen.jsonl");
        test::writeFile(path, bytes);
        const std::string state = pathIn(dir, "state");
        const statusline::Figures f = call(path, state, m_prices, 200000);
        const Whole w = whole(path, m_prices);
        QCOMPARE(f.context.total, w.context);
        QVERIFY(std::abs(f.dollars - w.dollars) < 1e-9);
        QVERIFY(f.liveOffset > bytes.size() / 2); // the last of several compactions
        QCOMPARE(f.window, std::int64_t(200000));
        QCOMPARE(f.windowSource, std::string("the agent's context_window_size"));
        const statusline::Figures warm = call(path, state, m_prices, 200000);
        QVERIFY(warm.warm);
        QCOMPARE(warm.context.total, w.context);
        QVERIFY(warm.bytesRead < bytes.size() / 2);
    }

    // A Codex rollout: no boundary search (Claude Code's), the whole file read each time in its own
    // format, the figures the whole file's.
    void codexRollout()
    {
        CL_REQUIRE_SAMPLES();
        QTemporaryDir dir;
        const std::string path = pathIn(dir, "rollout.jsonl");
        test::writeFile(path, test::readFile(CL_SAMPLES_DIR "/../real-sessions/codex-desktop-0.104-compacted.jsonl"));
        const std::string state = pathIn(dir, "state");
        const statusline::Figures first = call(path, state, m_prices);
        const statusline::Figures second = call(path, state, m_prices);
        QVERIFY(!first.warm);
        QVERIFY2(second.warm, second.why.c_str());
        QCOMPARE(second.liveOffset, std::uint64_t(0));
        QCOMPARE(second.context.total, whole(path, m_prices).context);
        QCOMPARE(second.compaction.agent, std::string("Codex CLI"));
    }

    // What makes a call read the whole file again.
    void coldWhenTheFileChanged()
    {
        CL_REQUIRE_SAMPLES();
        const std::vector<std::string> lines = linesOf(test::readFile(kRealSession));
        QTemporaryDir dir;
        const std::string path = pathIn(dir, "session.jsonl");
        const std::string state = pathIn(dir, "state");
        test::writeFile(path, joined(lines, 0, 1700));
        QVERIFY(!call(path, state, m_prices).warm);
        QVERIFY(call(path, state, m_prices).warm);

        // A new compaction: the boundary line again, as a later one.
        std::string boundary;
        for (const std::string &l : lines)
            if (l.find(R"("subtype":"compact_boundary")") != std::string::npos)
                boundary = l;
        QVERIFY(!boundary.empty());
        test::appendFile(path, boundary);
        statusline::Figures f = call(path, state, m_prices);
        QVERIFY(!f.warm);
        QCOMPARE(f.why, std::string("a new compaction"));
        QVERIFY(f.liveOffset > 0);
        QVERIFY(call(path, state, m_prices).warm);

        // Rewritten in place (same inode, other bytes at the start).
        std::string bytes = test::readFile(path);
        bytes[bytes.find("\"sessionId\":\"") + 13] ^= 1;
        {
            std::ofstream out(path, std::ios::binary | std::ios::in | std::ios::out);
            out.write(bytes.data(), std::streamsize(bytes.size()));
        }
        f = call(path, state, m_prices);
        QCOMPARE(f.why, std::string("the file was rewritten"));

        // Replaced by another file (the way an export is put in place).
        const std::string other = pathIn(dir, "other.jsonl");
        test::writeFile(other, joined(lines, 0, 1700));
        QVERIFY(std::rename(other.c_str(), path.c_str()) == 0);
        f = call(path, state, m_prices);
        QCOMPARE(f.why, std::string("another file at the path"));
        QCOMPARE(f.context.total, whole(path, m_prices).context);
    }

    // Subagent files count in the cost; one that grows is priced again, the others come from the state.
    void subagentFilesInTheCost()
    {
        CL_REQUIRE_SAMPLES();
        QTemporaryDir dir;
        const std::string path = pathIn(dir, "abc.jsonl");
        test::writeFile(path, test::readFile(CL_SAMPLES_DIR "/claude-code/viewer-sample-small.jsonl"));
        const std::string state = pathIn(dir, "state");
        const statusline::Figures alone = call(path, state, m_prices);
        QCOMPARE(alone.subagentFiles, std::size_t(0));
        std::filesystem::create_directories(pathIn(dir, "abc/subagents"));
        const std::string sub = pathIn(dir, "abc/subagents/agent-a1.jsonl");
        test::writeFile(sub, test::readFile(CL_SAMPLES_DIR "/claude-code/viewer-sample-edits.jsonl"));
        const double subCost = whole(sub, m_prices).dollars;
        QVERIFY(subCost > 0);
        const statusline::Figures with = call(path, state, m_prices);
        QCOMPARE(with.subagentFiles, std::size_t(1));
        QVERIFY(std::abs(with.dollars - (alone.dollars + subCost)) < 1e-9);
        // The session's own figure does not count its subagents' context.
        QCOMPARE(with.context.total, alone.context.total);
    }

    void commandLine()
    {
        CL_REQUIRE_SAMPLES();
        QTemporaryDir dir;
        const std::string input = pathIn(dir, "input.json");
        const nlohmann::json j = {{"hook_event_name", "Status"},
                                  {"session_id", "abc"},
                                  {"transcript_path", kRealSession},
                                  {"model", {{"id", "claude-opus-4-6"}, {"display_name", "Opus"}}},
                                  {"cost", {{"total_cost_usd", 1.25}}},
                                  {"context_window", {{"context_window_size", 200000}}}};
        test::writeFile(input, j.dump());
        const std::string state = pathIn(dir, "state");
        test::CliRun r = test::runCli({"statusline", "--input", input, "--state-dir", state});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.find(" of 200,000 tokens (") != std::string::npos, r.out.c_str());
        QVERIFY(r.out.find(" · $") != std::string::npos);
        QCOMPARE(std::count(r.out.begin(), r.out.end(), '\n'), 1l);
        QVERIFY(r.out.find("\033[") == std::string::npos);
        r = test::runCli({"statusline", "--input", input, "--state-dir", state, "--json"});
        QCOMPARE(r.code, 0);
        const nlohmann::json out = nlohmann::json::parse(r.out);
        QCOMPARE(out["read"]["warm"].get<bool>(), true);
        QCOMPARE(out["cost"]["agentReported"].get<double>(), 1.25);
        QCOMPARE(out["context"]["window"].get<std::int64_t>(), std::int64_t(200000));
        QCOMPARE(out["context"]["total"].get<std::int64_t>(), whole(kRealSession, m_prices).context);
        r = test::runCli({"statusline", "--input", input, "--no-state", "--color"});
        QVERIFY(r.out.find("\033[3") != std::string::npos);

        // Errors are the line, so that the agent shows them; with --json they fail.
        test::writeFile(input, "{\"session_id\": \"x\"}");
        r = test::runCli({"statusline", "--input", input, "--no-state"});
        QCOMPARE(r.code, 0);
        QCOMPARE(r.out, std::string("ContextLens: the status line input names no transcript_path\n"));
        test::writeFile(input, "{\"transcript_path\": \"/nonexistent/x.jsonl\"}");
        r = test::runCli({"statusline", "--input", input, "--no-state"});
        QCOMPARE(r.out, std::string("ContextLens: no messages yet (/nonexistent/x.jsonl)\n"));
        test::writeFile(input, "{\"transcript_path\": \"" + pathIn(dir, "state") + "\"}");
        r = test::runCli({"statusline", "--input", input, "--no-state"});
        QVERIFY2(r.out.find("not a regular file") != std::string::npos, r.out.c_str());
        r = test::runCli({"statusline", "--input", input, "--no-state", "--json"});
        QCOMPARE(r.code, 2);
    }

    // `setup` merges the status line and the hooks into the agent's settings, after a backup, and
    // never replaces another status line unasked.
    void setupMergesSettings()
    {
        QTemporaryDir dir;
        const std::string home = pathIn(dir, "home");
        const std::string settings = home + "/.claude/settings.json";
        std::filesystem::create_directories(home + "/.claude");
        const nlohmann::json before = {{"model", "opus"},
                                       {"statusLine", {{"type", "command"}, {"command", "my-line.sh"}}},
                                       {"hooks", {{"PreCompact", {{{"hooks", {{{"type", "command"}, {"command", "other"}}}}}}}}}};
        test::writeFile(settings, before.dump());
        test::CliRun r = test::runCli({"setup", "claude-code", "--home", home, "--command", "/opt/cl/contextlens-cli", "--json"});
        QCOMPARE(r.code, 1); // the other status line was left alone
        nlohmann::json out = nlohmann::json::parse(r.out);
        QCOMPARE(out["added"], nlohmann::json({"hooks.PreCompact", "hooks.PostCompact"}));
        QCOMPARE(out["refused"].size(), std::size_t(1));
        QVERIFY(!out["backup"].is_null());
        QCOMPARE(test::readFile(out["backup"].get<std::string>()), before.dump());
        nlohmann::json now = nlohmann::json::parse(test::readFile(settings));
        QCOMPARE(now["model"], nlohmann::json("opus"));
        QCOMPARE(now["statusLine"]["command"], nlohmann::json("my-line.sh"));
        QCOMPARE(now["hooks"]["PreCompact"].size(), std::size_t(2)); // the user's hook stays first
        QCOMPARE(now["hooks"]["PreCompact"][0]["hooks"][0]["command"], nlohmann::json("other"));
        QCOMPARE(now["hooks"]["PostCompact"][0]["hooks"][0]["command"], nlohmann::json("/opt/cl/contextlens-cli hook"));
        // Again, replacing the status line: the hooks are not added twice.
        r = test::runCli({"setup", "claude-code", "--home", home, "--command", "/opt/cl/contextlens-cli", "--replace-status-line", "--json"});
        QCOMPARE(r.code, 0);
        out = nlohmann::json::parse(r.out);
        QCOMPARE(out["added"], nlohmann::json({"statusLine"}));
        QCOMPARE(out["kept"], nlohmann::json({"hooks.PreCompact", "hooks.PostCompact"}));
        now = nlohmann::json::parse(test::readFile(settings));
        QCOMPARE(now["statusLine"]["command"], nlohmann::json("/opt/cl/contextlens-cli statusline --color"));
        QCOMPARE(now["hooks"]["PreCompact"].size(), std::size_t(2));
        // Nothing to add: nothing written, no new backup.
        r = test::runCli({"setup", "claude-code", "--home", home, "--command", "/opt/cl/contextlens-cli", "--json"});
        QVERIFY(nlohmann::json::parse(r.out)["backup"].is_null());
        QCOMPARE(nlohmann::json::parse(r.out)["written"], nlohmann::json(false));
        // Gemini CLI: a new file, PreCompress only; a dry run writes nothing.
        r = test::runCli({"setup", "gemini-cli", "--home", home, "--command", "cl", "--dry-run"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.find("would add hooks.PreCompress") != std::string::npos);
        QVERIFY(!std::filesystem::exists(home + "/.gemini/settings.json"));
        r = test::runCli({"setup", "gemini-cli", "--home", home, "--command", "cl"});
        QCOMPARE(nlohmann::json::parse(test::readFile(home + "/.gemini/settings.json"))["hooks"]["PreCompress"][0]["hooks"][0]["command"],
                 nlohmann::json("cl hook"));
        // Qwen Code: Claude Code's two hooks in its own settings, every key already there kept, no status line.
        std::filesystem::create_directories(home + "/.qwen");
        test::writeFile(home + "/.qwen/settings.json", R"({"context": {"autoCompactThreshold": 0.7}})");
        r = test::runCli({"setup", "qwen-code", "--home", home, "--command", "cl", "--json"});
        QCOMPARE(r.code, 0);
        const auto qwen = nlohmann::json::parse(test::readFile(home + "/.qwen/settings.json"));
        QCOMPARE(qwen["context"]["autoCompactThreshold"], nlohmann::json(0.7));
        QCOMPARE(qwen["hooks"]["PreCompact"][0]["hooks"][0]["command"], nlohmann::json("cl hook"));
        QCOMPARE(qwen["hooks"]["PostCompact"][0]["hooks"][0]["command"], nlohmann::json("cl hook"));
        QVERIFY(!qwen.contains("statusLine"));
        QVERIFY(!nlohmann::json::parse(r.out)["backup"].is_null()); // the file existed: backed up first
        // A file that is no JSON object is left as it is.
        test::writeFile(settings, "not json");
        r = test::runCli({"setup", "claude-code", "--home", home});
        QCOMPARE(r.code, 2);
        QCOMPARE(test::readFile(settings), std::string("not json"));
    }

private:
    llm::PriceTable m_prices;
};

QTEST_GUILESS_MAIN(TestStatusline)
#include "tst_statusline.moc"
