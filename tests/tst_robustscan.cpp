// SPDX-License-Identifier: MIT
// Nothing a home folder or a price table holds stops the session scan, `sessions` or `cost` (issue 29,
// findings 5, 6, 12 and 15): bad price entries are skipped with a warning, never abort, never price
// at $inf or below zero; FIFOs and links to /dev/zero where the scan reads a file are refused at once;
// a subagent file that cannot be read is reported and its lower cost never cached; a damaged cache
// is not trusted; control sequences from transcripts never reach the terminal; a line Claude Code
// writes again on resume is information for `validate`. Then a fuzz run over hostile homes and
// price tables, in process and through the CLI.
#include "core/llm/pricing.h"
#include "core/sessions/sessions.h"
#include "core/util/regularfile.h"
#include "core/util/terminaltext.h"
#include "widgets/models/sessionmodel.h"
#include "widgets/sessions/sessionbrowser.h"

#include "sessions_fixture.h"
#include "test_support.h"

#include <QLabel>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <nlohmann/json.hpp>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

using namespace cl;
using nlohmann::json;
namespace fx = cl::test::sessions;
namespace fs = std::filesystem;

namespace {

const bool kGuiEnvironment = cl::test::guiEnvironment();
const QString kCli = QStringLiteral(CL_BINARY_DIR "/app/contextlens-cli");

// A call that must end: on a hang the test fails and the process ends (a thread blocked in open()
// or read() cannot be joined).
template <typename F>
auto bounded(const char *what, F &&f)
{
    auto future = std::async(std::launch::async, std::forward<F>(f));
    if (future.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
        std::fprintf(stderr, "FAIL: %s did not finish in 30 s\n", what);
        std::fflush(stderr);
        std::_Exit(1);
    }
    return future.get();
}

// Raw control characters a terminal obeys (C0 but \n, DEL, C1 as UTF-8); also bytes that are no
// UTF-8 are counted through terminalSafe's own check.
bool hasTerminalControls(const std::string &text)
{
    return !util::isTerminalSafe(text, util::LineBreaks::Keep);
}

struct Proc {
    bool finished = false;
    bool crashed = false;
    int code = -1;
    std::string out, err;
};

// contextlens-cli run as a program, with XDG_CONFIG_HOME / HOME as given; `asNobody` runs it as
// user nobody when the test runs as root (root reads any file whatever its mode).
Proc runProgram(const QStringList &args, const QString &config, bool asNobody = false)
{
    Proc r;
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (!config.isEmpty())
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), config);
    env.insert(QStringLiteral("XDG_CACHE_HOME"), config + QStringLiteral("/cache"));
    p.setProcessEnvironment(env);
    if (asNobody && ::geteuid() == 0)
        p.start(QStringLiteral("setpriv"),
                QStringList{QStringLiteral("--reuid=nobody"), QStringLiteral("--regid=nogroup"), QStringLiteral("--clear-groups"), kCli}
                    + args);
    else
        p.start(kCli, args);
    r.finished = p.waitForFinished(30000);
    if (!r.finished) {
        p.kill();
        p.waitForFinished(5000);
    }
    r.crashed = p.exitStatus() != QProcess::NormalExit;
    r.code = p.exitCode();
    r.out = p.readAllStandardOutput().toStdString();
    r.err = p.readAllStandardError().toStdString();
    return r;
}

bool contains(const std::vector<std::string> &list, const std::string &part)
{
    for (const auto &s : list)
        if (s.find(part) != std::string::npos)
            return true;
    return false;
}

void makeFifo(const std::string &path)
{
    fs::create_directories(fs::path(path).parent_path());
    QVERIFY2(::mkfifo(path.c_str(), 0644) == 0, path.c_str());
}

void symlinkTo(const std::string &target, const std::string &path)
{
    fs::create_directories(fs::path(path).parent_path());
    std::error_code ec;
    fs::create_symlink(target, path, ec);
    QVERIFY2(!ec, path.c_str());
}

// A small Claude Code session whose first request is `request` (JSON-escaped by the caller),
// priced as `model`.
std::vector<std::string> claudeSession(const std::string &id, const std::string &request, const std::string &model = "claude-sonnet-4-5")
{
    const std::string env = R"("isSidechain":false,"cwd":"/work/x","sessionId":")" + id + R"(","version":"2.0.14",)";
    return {"{" + env + R"("parentUuid":null,"type":"user","message":{"role":"user","content":")" + request
                + R"("},"uuid":"u1","timestamp":"2025-06-01T09:00:00.000Z"})",
            "{" + env + R"("parentUuid":"u1","type":"assistant","message":{"id":"msg_1","role":"assistant","model":")" + model
                + R"(","content":[{"type":"text","text":"done"}],"usage":{"input_tokens":1000,"output_tokens":100}},"uuid":"a1","timestamp":"2025-06-01T09:00:05.000Z"})"};
}

// {"models": [entries]}
std::string priceTable(const std::string &entries) { return R"({"models": [)" + entries + "]}"; }

} // namespace

class TestRobustScan : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void priceEntriesValidated();
    void costSkipsBadUserPrices();
    void scanSkipsBadUserPrices();
    void browserFinishesAndReports();
    void priceFileMustBeRegular();
    void metadataFilesMustBeRegular();
    void writerNeverReplacesDevices();
    void unreadableSubagentReportedNotCached();
    void corruptCacheRescanned();
    void terminalSafeText();
    void controlSequencesNeverPrinted();
    void resumeRepeatIsInformation();
    void fuzzHomesAndPrices();
};

// Finding 5: wrong types, negative, huge and non-finite prices: each entry skipped with a warning
// naming the file and the entry, the good ones kept, merge never throws.
void TestRobustScan::priceEntriesValidated()
{
    llm::PriceTable t;
    std::string error;
    const std::string text = priceTable(R"(
        {"match": "zz-provider-number", "provider": 5, "input": 1, "output": 2},
        {"match": "zz-provider-null", "provider": null, "input": 1, "output": 2},
        {"match": 7, "input": 1},
        {"input": 1},
        "not an object",
        {"match": "zz-negative", "input": -2.12, "output": 1},
        {"match": "zz-huge", "input": 1e308, "output": 1},
        {"match": "zz-two-to-64", "input": 1, "output": 18446744073709551616},
        {"match": "zz-string", "input": "3", "output": 1},
        {"match": "zz-cache", "input": 1, "output": 1, "cacheRead": [1]},
        {"match": "zz-good", "provider": "openai", "input": 2, "output": 8, "cacheRead": 0.5})");
    QVERIFY2(t.merge(text, &error, "/cfg/prices.json"), error.c_str());
    QCOMPARE(t.warnings().size(), std::size_t(10));
    for (std::size_t i = 0; i < 10; ++i) {
        const std::string &w = t.warnings()[i];
        QVERIFY2(w.rfind("/cfg/prices.json: models[" + std::to_string(i) + "]", 0) == 0, w.c_str());
        QVERIFY2(w.find("skipped") != std::string::npos, w.c_str());
    }
    QVERIFY(t.warnings()[0].find("\"zz-provider-number\"") != std::string::npos);
    QVERIFY(t.warnings()[5].find("-2.12") != std::string::npos);
    for (const char *bad : {"zz-provider-number", "zz-provider-null", "zz-negative", "zz-huge", "zz-two-to-64", "zz-string", "zz-cache"})
        QVERIFY2(!t.find(bad), bad);
    const auto good = t.find("zz-good");
    QVERIFY(good);
    QCOMPARE(good->input, 2.0);
    QCOMPARE(good->cacheRead, 0.5);
    QCOMPARE(good->provider, std::string("openai"));
    // A bad value over an existing entry leaves that entry as it was.
    QVERIFY(t.merge(priceTable(R"({"match": "zz-good", "input": -1})"), &error, "second"));
    QCOMPARE(t.find("zz-good")->input, 2.0);
    QCOMPARE(t.warnings().size(), std::size_t(11));
    // Every price of the table is a price.
    for (const auto &p : t.prices())
        for (double v : {p.input, p.output, p.cacheWrite5m, p.cacheWrite1h, p.cacheRead})
            QVERIFY(std::isfinite(v) && v >= 0 && v <= llm::kMaxPrice);
}

// Finding 5 through `cost`: the user's file with bad entries warns and prices nothing at $inf.
void TestRobustScan::costSkipsBadUserPrices()
{
    QTemporaryDir dir;
    const std::string config = dir.filePath(QStringLiteral("config")).toStdString();
    fx::writeBytes(config + "/contextlens/prices.json",
                   priceTable(R"({"match": "zz-model", "provider": 5, "input": 1, "output": 1},
                                 {"match": "zz-model-2", "input": 1e308, "output": 1e308},
                                 {"match": "zz-model-3", "input": -5, "output": 18446744073709551616})"));
    const std::string session = dir.filePath(QStringLiteral("s.jsonl")).toStdString();
    for (const char *model : {"zz-model", "zz-model-2", "zz-model-3"}) {
        fx::write(session, claudeSession("s", "hi", model));
        const Proc text = runProgram({QStringLiteral("cost"), QString::fromStdString(session)}, QString::fromStdString(config));
        QVERIFY2(text.finished && !text.crashed, text.err.c_str());
        QCOMPARE(text.code, 1); // no price: the cost is unknown, not a failure
        QVERIFY2(text.err.find("prices.json: models[") != std::string::npos, text.err.c_str());
        QVERIFY2(text.out.find("NO PRICE") != std::string::npos, text.out.c_str());
        QVERIFY2(text.out.find("inf") == std::string::npos && text.out.find("$-") == std::string::npos, text.out.c_str());
        const Proc j = runProgram({QStringLiteral("cost"), QString::fromStdString(session), QStringLiteral("--json")},
                                  QString::fromStdString(config));
        QVERIFY2(j.finished && !j.crashed, j.err.c_str());
        const json doc = json::parse(j.out, nullptr, false);
        QVERIFY2(doc.is_object(), j.out.c_str());
        QCOMPARE(doc["prices"]["warnings"].size(), std::size_t(3));
        QVERIFY(doc["dollars"]["total"].is_number());
        QCOMPARE(doc["dollars"]["total"].get<double>(), 0.0);
    }
}

// Finding 5 in the scan: the user's file with "provider": 5 aborted `sessions` and the browser's
// scan; now the scan ends with a warning.
void TestRobustScan::scanSkipsBadUserPrices()
{
    QTemporaryDir dir;
    const std::string home = dir.filePath(QStringLiteral("home")).toStdString();
    const std::string config = dir.filePath(QStringLiteral("config")).toStdString();
    fx::write(home + "/.claude/projects/-work-x/s1.jsonl", claudeSession("s1", "hello"));
    fx::writeBytes(config + "/contextlens/prices.json",
                   priceTable(R"({"match": "claude-sonnet-4-5", "provider": 5, "input": 1}, {"match": "x", "provider": null})"));
    qputenv("XDG_CONFIG_HOME", QByteArray::fromStdString(config));
    sessions::ScanOptions o;
    o.home = home;
    const sessions::ScanResult r = bounded("scan", [&] { return sessions::scan(o); });
    qunsetenv("XDG_CONFIG_HOME");
    QCOMPARE(r.sessions.size(), std::size_t(1));
    QVERIFY2(contains(r.warnings, config + "/contextlens/prices.json: models[0] \"claude-sonnet-4-5\""), fx::list(r.warnings).join(QLatin1Char('\n')).toUtf8());
    QVERIFY(contains(r.warnings, "models[1]"));
    // The shipped price of claude-sonnet-4-5 still counts: 1000 input at $3, 100 output at $15.
    QVERIFY2(std::abs(r.sessions[0].cost - 0.0045) < 1e-9, std::to_string(r.sessions[0].cost).c_str());

    const Proc p = runProgram({QStringLiteral("sessions"), QStringLiteral("--home"), QString::fromStdString(home), QStringLiteral("--no-cache")},
                              QString::fromStdString(config));
    QVERIFY2(p.finished && !p.crashed, p.err.c_str());
    QCOMPARE(p.code, 0);
    QVERIFY2(p.err.find("warning: prices:") != std::string::npos, p.err.c_str());
    QVERIFY(p.out.find("1 session in 1 project") != std::string::npos);
}

// Findings 5 and 6 in the GUI: with "provider": 5 in the user's prices and a FIFO as a project's
// .project_root, the browser's scan ends (it never did) and its status line says what went wrong,
// every warning in its tooltip.
void TestRobustScan::browserFinishesAndReports()
{
    QTemporaryDir dir;
    const std::string home = dir.filePath(QStringLiteral("home")).toStdString();
    const std::string config = dir.filePath(QStringLiteral("config")).toStdString();
    fx::writeHome(home);
    fx::writeBytes(config + "/contextlens/prices.json", priceTable(R"({"match": "claude-sonnet-4-5", "provider": 5})"));
    fs::remove(home + "/.gemini/tmp/shop/.project_root");
    makeFifo(home + "/.gemini/tmp/shop/.project_root");
    qputenv("XDG_CONFIG_HOME", QByteArray::fromStdString(config));
    gui::SessionBrowser browser;
    browser.setHome(QString::fromStdString(home));
    browser.setCachePath(dir.filePath(QStringLiteral("cache.json")));
    QSignalSpy scanned(&browser, &gui::SessionBrowser::scanned);
    browser.setActive(true);
    const bool finished = scanned.wait(30000);
    qunsetenv("XDG_CONFIG_HOME");
    QVERIFY(finished);
    const QString status = browser.status()->text();
    QVERIFY2(status.contains(QStringLiteral("2 warning")), qPrintable(status));
    const QString tip = browser.status()->toolTip();
    QVERIFY2(tip.contains(QStringLiteral("models[0] \"claude-sonnet-4-5\" \"provider\" is 5")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral(".project_root: not a regular file")), qPrintable(tip));
    QVERIFY(browser.model()->sessions().size() > 3);
}

// Finding 6 for the price table: a FIFO or /dev/zero as prices.json is refused at once.
void TestRobustScan::priceFileMustBeRegular()
{
    QTemporaryDir dir;
    const std::string fifo = dir.filePath(QStringLiteral("fifo.json")).toStdString();
    const std::string zero = dir.filePath(QStringLiteral("zero.json")).toStdString();
    makeFifo(fifo);
    symlinkTo("/dev/zero", zero);
    for (const std::string &path : {fifo, zero}) {
        llm::PriceTable t;
        std::string error;
        const bool ok = bounded("mergeFile", [&] { return t.mergeFile(path, &error); });
        QVERIFY(!ok);
        QVERIFY2(error.find("not a regular file") != std::string::npos, error.c_str());
    }
    // The reader's cap: a file one byte over is refused, one at the cap read.
    const std::string big = dir.filePath(QStringLiteral("big")).toStdString();
    cl::test::writeFile(big, std::string(1000, 'x'));
    std::string text;
    QVERIFY(util::readRegularFile(big, text, 1000).ok());
    QCOMPARE(text.size(), std::size_t(1000));
    QCOMPARE(util::readRegularFile(big, text, 999).status, util::ReadStatus::TooLarge);
    QCOMPARE(util::readRegularFile(big + "-missing", text, 999).status, util::ReadStatus::Missing);
}

// Finding 6: .project_root and ~/.gemini/projects.json as a FIFO or a link to /dev/zero, session
// and subagent files as FIFOs and links: the scan ends, with warnings, and lists the rest.
void TestRobustScan::metadataFilesMustBeRegular()
{
    QTemporaryDir dir;
    const std::string home = dir.filePath(QStringLiteral("home")).toStdString();
    const std::string folder = dir.filePath(QStringLiteral("added")).toStdString();
    fx::writeHome(home);
    // Gemini CLI: a FIFO and /dev/zero where the project folders are named.
    fs::remove(home + "/.gemini/tmp/shop/.project_root");
    makeFifo(home + "/.gemini/tmp/shop/.project_root");
    fs::remove(home + "/.gemini/projects.json");
    symlinkTo("/dev/zero", home + "/.gemini/projects.json");
    fx::write(home + "/.gemini/tmp/zeroed/chats/session-2025-06-03T08-00-zzzz.jsonl", fx::geminiShopLines());
    symlinkTo("/dev/zero", home + "/.gemini/tmp/zeroed/.project_root");
    // Claude Code: a FIFO and a link to /dev/zero as sessions and as subagent files.
    makeFifo(home + "/.claude/projects/-work-shop/fifo.jsonl");
    symlinkTo("/dev/zero", home + "/.claude/projects/-work-shop/zero.jsonl");
    makeFifo(home + "/.claude/projects/-work-shop/s-claude-1/subagents/agent-fifo.jsonl");
    symlinkTo("/dev/zero", home + "/.claude/projects/-work-shop/s-claude-1/subagents/agent-zero.jsonl");
    // An added folder whose .project_root is a FIFO.
    fx::write(folder + "/s.jsonl", claudeSession("s9", "added"));
    makeFifo(folder + "/.project_root");

    sessions::ScanOptions o;
    o.home = home;
    o.folders = {folder};
    o.cachePath = dir.filePath(QStringLiteral("cache.json")).toStdString();
    const sessions::ScanResult r = bounded("scan", [&] { return sessions::scan(o); });
    const QString warnings = fx::list(r.warnings).join(QLatin1Char('\n'));
    QVERIFY2(contains(r.warnings, home + "/.gemini/tmp/shop/.project_root: not a regular file"), qPrintable(warnings));
    QVERIFY2(contains(r.warnings, home + "/.gemini/projects.json: not a regular file"), qPrintable(warnings));
    QVERIFY2(contains(r.warnings, folder + "/.project_root: not a regular file"), qPrintable(warnings));
    QVERIFY(fx::find(r.sessions, fx::claudeShop(home)));
    QVERIFY(fx::find(r.sessions, folder + "/s.jsonl"));
    QVERIFY(fx::find(r.sessions, home + "/.gemini/tmp/zeroed/chats/session-2025-06-03T08-00-zzzz.jsonl"));
    QVERIFY(!fx::find(r.sessions, home + "/.claude/projects/-work-shop/fifo.jsonl"));
    // The session keeps its two regular subagent files; the FIFO and the device are none.
    QCOMPARE(fx::find(r.sessions, fx::claudeShop(home))->subagentFiles, std::uint64_t(2));

    const Proc p = runProgram({QStringLiteral("sessions"), QStringLiteral("--home"), QString::fromStdString(home), QStringLiteral("--folder"),
                               QString::fromStdString(folder), QStringLiteral("--no-cache"), QStringLiteral("--json")},
                              {});
    QVERIFY2(p.finished && !p.crashed, p.err.c_str());
    QCOMPARE(p.code, 0);
    QVERIFY(json::parse(p.out, nullptr, false).is_object());
}

// Found by the fuzz run: the atomic writer follows a link and renamed its file over whatever the
// link named, a FIFO or a device too (as root, /dev/zero became a session cache). A FIFO, directly
// or behind a link, is now refused and stays; nothing is written into its folder.
void TestRobustScan::writerNeverReplacesDevices()
{
    QTemporaryDir dir;
    const std::string session = dir.filePath(QStringLiteral("s.jsonl")).toStdString();
    fx::write(session, claudeSession("s1", "hello"));
    const std::string fifo = dir.filePath(QStringLiteral("fifo")).toStdString();
    const std::string link = dir.filePath(QStringLiteral("link.jsonl")).toStdString();
    makeFifo(fifo);
    symlinkTo(fifo, link);
    for (const std::string &target : {fifo, link}) {
        const auto r = cl::test::runCli({"convert", session, "--to", "codex", "-o", target, "--force"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.find("not a regular file; not replaced") != std::string::npos, r.err.c_str());
        QVERIFY(fs::is_fifo(fifo));
        QVERIFY(fs::is_symlink(link));
    }
    std::size_t files = 0;
    for (const auto &e : fs::directory_iterator(dir.path().toStdString()))
        files += e.is_regular_file() && e.path().filename() != "s.jsonl";
    QCOMPARE(files, std::size_t(0)); // no temporary file left beside it
}

// Finding 15: a subagent file that cannot be read is reported (CLI and scan) and the session's
// lower cost is not cached: once the file is readable, its cost counts.
void TestRobustScan::unreadableSubagentReportedNotCached()
{
    QTemporaryDir dir;
    QVERIFY(::chmod(dir.path().toLocal8Bit().constData(), 0755) == 0);
    const std::string home = dir.filePath(QStringLiteral("home")).toStdString();
    const std::string cacheDir = dir.filePath(QStringLiteral("cache")).toStdString();
    const std::string prices = dir.filePath(QStringLiteral("prices.json")).toStdString();
    fx::writeClaude(home);
    fx::writeBytes(prices, fx::kPrices);
    fs::create_directories(cacheDir);
    QVERIFY(::chmod(cacheDir.c_str(), 0777) == 0);
    const std::string sub = home + "/.claude/projects/-work-shop/s-claude-1/subagents/agent-a2.jsonl";
    QVERIFY(::chmod(sub.c_str(), 0) == 0);
    const QStringList args{QStringLiteral("sessions"),
                           QStringLiteral("--home"),
                           QString::fromStdString(home),
                           QStringLiteral("--cache"),
                           QString::fromStdString(cacheDir + "/sessions.json"),
                           QStringLiteral("--prices"),
                           QString::fromStdString(prices),
                           QStringLiteral("--json")};
    auto costOf = [&](const Proc &p) {
        const json doc = json::parse(p.out, nullptr, false);
        for (const auto &s : doc["sessions"])
            if (s["path"] == fx::claudeShop(home))
                return std::make_pair(s["cost"].get<double>(), s["costComplete"].get<bool>());
        return std::make_pair(-1.0, false);
    };
    const Proc before = runProgram(args, dir.filePath(QStringLiteral("config")), true);
    QVERIFY2(before.finished && !before.crashed && before.code == 0, before.err.c_str());
    QVERIFY2(before.err.find(fx::claudeShop(home) + ": 1 of its subagent files cannot be read") != std::string::npos, before.err.c_str());
    const auto [partial, partialComplete] = costOf(before);
    QVERIFY(!partialComplete);
    QVERIFY2(before.out.find("\"unreadSubagents\": [\n        \"" + sub + ": Permission denied\"") != std::string::npos, before.out.c_str());
    QVERIFY(::chmod(sub.c_str(), 0644) == 0);
    const Proc after = runProgram(args, dir.filePath(QStringLiteral("config")), true);
    QVERIFY2(after.finished && !after.crashed && after.code == 0, after.err.c_str());
    QVERIFY2(after.err.find("subagent") == std::string::npos, after.err.c_str());
    const auto [full, fullComplete] = costOf(after);
    QVERIFY(fullComplete);
    // agent-a2's 50 input and 10 output tokens of claude-haiku-4-5 ($1 and $5 per million).
    QVERIFY2(std::abs(full - partial - 0.0001) < 1e-9, (std::to_string(partial) + " " + std::to_string(full)).c_str());
}

// Finding 15: a damaged cache entry (a count of -5 read as 18446744073709551611, wrong types, a
// missing field) is not trusted: that file is read again, with a warning.
void TestRobustScan::corruptCacheRescanned()
{
    QTemporaryDir dir;
    const std::string home = dir.filePath(QStringLiteral("home")).toStdString();
    fx::writeHome(home);
    sessions::ScanOptions o;
    o.home = home;
    o.cachePath = dir.filePath(QStringLiteral("cache.json")).toStdString();
    const sessions::ScanResult first = sessions::scan(o);
    QVERIFY(first.stats.parsed > 3);
    json cache = json::parse(cl::test::readFile(o.cachePath));
    auto &entries = cache["entries"];
    QVERIFY(entries.size() > 3);
    entries[0]["messages"] = -5;
    entries[1]["title"] = 12;
    entries[2]["usage"] = json::array({json::array({"m", 1, -1, 0, 0, 0, 0})});
    entries[3].erase("peakContext");
    const std::vector<std::string> damaged{entries[0]["path"], entries[1]["path"], entries[2]["path"], entries[3]["path"]};
    cl::test::writeFile(o.cachePath, cache.dump());

    const sessions::ScanResult second = sessions::scan(o);
    QVERIFY2(contains(second.warnings, "4 entries of the session cache are not valid"), qPrintable(fx::list(second.warnings).join(QLatin1Char('\n'))));
    std::vector<std::string> reread = second.stats.parsedPaths;
    std::vector<std::string> expected = damaged;
    std::sort(expected.begin(), expected.end());
    QCOMPARE(fx::list(reread), fx::list(expected));
    QCOMPARE(second.sessions.size(), first.sessions.size());
    for (std::size_t i = 0; i < first.sessions.size(); ++i) {
        QCOMPARE(second.sessions[i].messages, first.sessions[i].messages);
        QCOMPARE(second.sessions[i].title, first.sessions[i].title);
        QCOMPARE(second.sessions[i].peakContext, first.sessions[i].peakContext);
    }
    // The rewritten cache is whole again.
    const sessions::ScanResult third = sessions::scan(o);
    QVERIFY(third.warnings.empty());
    QCOMPARE(third.stats.parsed, std::size_t(0));
    // A cache that is a FIFO is refused at once.
    fs::remove(o.cachePath);
    makeFifo(o.cachePath);
    const sessions::ScanResult fifo = bounded("scan", [&] { return sessions::scan(o); });
    QVERIFY(contains(fifo.warnings, "the session cache cannot be read (not a regular file)"));
    // Nor replaced: the cache is written only over a regular file (writeFileAtomic follows links,
    // so a cache linked to /dev/null would replace the device itself when run as root).
    QVERIFY(contains(fifo.warnings, "cannot write the session cache: " + o.cachePath + ": not a regular file; not replaced"));
    QVERIFY(fs::is_fifo(o.cachePath));
}

void TestRobustScan::terminalSafeText()
{
    using util::LineBreaks;
    QCOMPARE(util::terminalSafe("a\x1b[2Jb"), std::string("a\\x1b[2Jb"));
    QCOMPARE(util::terminalSafe("\x1b]0;title\x07"), std::string("\\x1b]0;title\\x07"));
    QCOMPARE(util::terminalSafe("line\nnext\tcol\r"), std::string("line\nnext\tcol\\x0d"));
    QCOMPARE(util::terminalSafe("line\nnext\t", LineBreaks::Escape), std::string("line\\x0anext\\x09"));
    QCOMPARE(util::terminalSafe("del\x7f"), std::string("del\\x7f"));
    QCOMPARE(util::terminalSafe("csi\xc2\x9b"
                                "2J"),
             std::string("csi\\u009b2J")); // U+009B, C1
    QCOMPARE(util::terminalSafe("bad\x9b"
                                "2J"),
             std::string("bad\xef\xbf\xbd"
                         "2J")); // no UTF-8
    QCOMPARE(util::terminalSafe("caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x99\x82"), std::string("caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x99\x82"));
    QVERIFY(util::isTerminalSafe("plain\ntext\t"));
    QVERIFY(!util::isTerminalSafe("\x1b"));
    QCOMPARE(util::jsonTerminalSafe("{\"a\": \"x\x7f\xc2\x9by\xc3\xa9\"}"), std::string("{\"a\": \"x\\u007f\\u009by\xc3\xa9\"}"));
    const json j = json::parse(util::jsonTerminalSafe(json{{"t", "\x7f\xc2\x85\x1b"}}.dump()));
    QCOMPARE(j["t"].get<std::string>(), std::string("\x7f\xc2\x85\x1b"));
}

// Finding 12: titles, requests, paths and texts with ESC[2J, OSC and C1 controls are printed
// escaped by every command that shows transcript text; the JSON says the same text, escaped.
void TestRobustScan::controlSequencesNeverPrinted()
{
    QTemporaryDir dir;
    const std::string home = dir.filePath(QStringLiteral("home")).toStdString();
    const std::string hostile = R"(\u001b[2J\u001b]0;pwned\u0007\u009b31m\u007fred)";
    const std::string raw = "\x1b[2J\x1b]0;pwned\x07\xc2\x9b"
                            "31m\x7f"
                            "red";
    const std::string session = home + "/.claude/projects/-work-x\x1b[2J/s1.jsonl";
    fx::write(session, claudeSession("s1", hostile));
    const std::string plain = dir.filePath(QStringLiteral("s.jsonl")).toStdString();
    fx::write(plain, claudeSession("s1", hostile));

    const auto text = cl::test::runCli({"sessions", "--home", home, "--no-cache"});
    QCOMPARE(text.code, 0);
    QVERIFY2(!hasTerminalControls(text.out), text.out.c_str());
    QVERIFY2(text.out.find("\\x1b[2J\\x1b]0;pwned\\x07\\u009b31m\\x7fred") != std::string::npos, text.out.c_str());
    QVERIFY2(text.out.find("-work-x\\x1b[2J/s1.jsonl") != std::string::npos, text.out.c_str());
    const auto js = cl::test::runCli({"sessions", "--home", home, "--no-cache", "--json"});
    QVERIFY2(!hasTerminalControls(js.out), js.out.c_str());
    const json doc = json::parse(js.out);
    QCOMPARE(doc["sessions"][0]["title"].get<std::string>(), raw);
    QCOMPARE(doc["sessions"][0]["path"].get<std::string>(), session);

    for (const char *command : {"info", "audit", "analyze", "context", "validate", "cost", "tokens"}) {
        for (const bool asJson : {false, true}) {
            std::vector<std::string> args{command, plain};
            if (asJson)
                args.push_back("--json");
            const auto r = cl::test::runCli(args);
            QVERIFY2(r.code != 2, (std::string(command) + ": " + r.err).c_str());
            QVERIFY2(!hasTerminalControls(r.out), (std::string(command) + ": " + r.out).c_str());
            QVERIFY2(!hasTerminalControls(r.err), (std::string(command) + ": " + r.err).c_str());
            if (asJson)
                QVERIFY2(json::parse(r.out, nullptr, false).is_object(), (std::string(command) + ": " + r.out).c_str());
        }
    }
    // A message naming a hostile path is escaped too.
    const auto missing = cl::test::runCli({"info", dir.filePath(QStringLiteral("no\x1b[2Jfile")).toStdString()});
    QCOMPARE(missing.code, 2);
    QVERIFY2(!hasTerminalControls(missing.err) && missing.err.find("no\\x1b[2Jfile") != std::string::npos, missing.err.c_str());
}

// Finding 15: Claude Code 1.0.x writes lines of the session again when it resumes it, under a new
// sessionId and timestamp: information, `validate` exits 0. Other content under the same uuid stays
// a warning.
void TestRobustScan::resumeRepeatIsInformation()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("resumed.jsonl")).toStdString();
    const std::string user = R"({"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s-1","version":"1.0.95","type":"user","message":{"role":"user","content":"hello"},"uuid":"u1","timestamp":"2025-08-01T09:00:00.000Z"})";
    const std::string answer = R"({"parentUuid":"u1","isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s-1","version":"1.0.95","type":"assistant","message":{"id":"msg_1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":5,"output_tokens":1}},"uuid":"a1","timestamp":"2025-08-01T09:00:01.000Z"})";
    // The repeat: other key order, the resumed run's sessionId, timestamp and version.
    const std::string repeat = R"({"type":"assistant","parentUuid":"u1","isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s-2","version":"1.0.96","message":{"id":"msg_1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":5,"output_tokens":1}},"uuid":"a1","timestamp":"2025-08-02T10:00:00.000Z"})";
    const std::string next = R"({"parentUuid":"a1","isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s-2","version":"1.0.96","type":"user","message":{"role":"user","content":"again"},"uuid":"u2","timestamp":"2025-08-02T10:00:05.000Z"})";
    fx::write(path, {user, answer, repeat, next});
    const auto ok = cl::test::runCli({"validate", path, "--json"});
    QVERIFY2(ok.code == 0, ok.out.c_str());
    const json doc = json::parse(ok.out);
    bool info = false;
    for (const auto &d : doc["diagnostics"])
        info = info || (d["severity"] == "info" && d["message"].get<std::string>().find("repeats line 2") != std::string::npos);
    QVERIFY2(info, ok.out.c_str());

    // The same uuid with other content: a conflict, as before.
    std::string changed = repeat;
    changed.replace(changed.find("\"hi\""), 4, "\"bye\"");
    fx::write(path, {user, answer, changed, next});
    const auto bad = cl::test::runCli({"validate", path});
    QCOMPARE(bad.code, 1);
    QVERIFY2(bad.out.find("duplicate uuid a1") != std::string::npos, bad.out.c_str());
}

// The fuzz run: homes with hostile layouts (FIFOs, links to /dev/zero, garbage and huge JSON, cut
// lines, wrong types, names that are no UTF-8, control characters) and random price tables, scanned
// in process and through the CLI: nothing crashes or hangs, costs are finite, the text output holds
// no control characters and the JSON parses.
void TestRobustScan::fuzzHomesAndPrices()
{
    const unsigned seed = qEnvironmentVariableIsEmpty("CL_FUZZ_SEED") ? 29u : unsigned(qEnvironmentVariableIntValue("CL_FUZZ_SEED"));
    std::mt19937 rng(seed);
    auto pick = [&](std::size_t n) { return std::size_t(rng() % n); };
    auto chance = [&](int percent) { return int(rng() % 100) < percent; };
    const std::vector<std::string> hostileText = {R"(\u001b[2J)", R"(\u001b]0;owned\u0007)", R"(\u009b31m)", R"(\u007f)", "plain",
                                                  R"(\r\roverwrite)", R"(\ud800)", "\xff\xfe", "caf\xc3\xa9"};
    auto randomValue = [&]() -> std::string {
        switch (pick(10)) {
        case 0: return "null";
        case 1: return "-7";
        case 2: return "1e308";
        case 3: return "18446744073709551616";
        case 4: return "\"12\"";
        case 5: return "[1,2]";
        case 6: return "{\"a\":1}";
        case 7: return "true";
        case 8: return std::to_string(pick(100000));
        default: return std::to_string(double(pick(1000)) / 7.0);
        }
    };
    auto randomPrices = [&]() -> std::string {
        switch (pick(8)) {
        case 0: return "{\"models\": 5}";
        case 1: return std::string(pick(3000), '[');
        case 2: return "\xff\xfe garbage";
        default: {
            std::string entries;
            const std::size_t n = 1 + pick(6);
            for (std::size_t i = 0; i < n; ++i) {
                std::string e = "{";
                const char *keys[] = {"match", "provider", "input", "output", "cacheWrite5m", "cacheWrite1h", "cacheRead"};
                for (const char *k : keys) {
                    if (!chance(70))
                        continue;
                    std::string v = randomValue();
                    if (std::string(k) == "match" && chance(70))
                        v = "\"claude-" + std::string(chance(50) ? "sonnet-4-5" : "zz") + hostileText[pick(hostileText.size())] + "\"";
                    e += (e.size() > 1 ? "," : "") + std::string("\"") + k + "\":" + v;
                }
                entries += (i ? "," : "") + (chance(90) ? e + "}" : randomValue());
            }
            return priceTable(entries);
        }
        }
    };
    auto lineFor = [&](const std::string &id) -> std::string {
        switch (pick(8)) {
        case 0: return R"({"type":5,"message":[],"uuid":7})";
        case 1: return R"({"type":"assistant","message":{"id":"m","model":"claude-sonnet-4-5","usage":{"input_tokens":-5,"output_tokens":1e300}}})";
        case 2: return R"({"type":"user","message":{"role":"user","content":")" + hostileText[pick(hostileText.size())] + R"("},"uuid":"x)";
        case 3: return "\xff\xfe\x1b[2J not json";
        case 4: return "{\"type\":\"user\",\"message\":{\"content\":\"" + std::string(pick(200000), 'x') + "\"}}";
        default: return claudeSession(id, hostileText[pick(hostileText.size())] + " request " + hostileText[pick(hostileText.size())])[pick(2)];
        }
    };

    const auto start = std::chrono::steady_clock::now();
    int rounds = 0;
    for (; rounds < 40 && std::chrono::steady_clock::now() - start < std::chrono::seconds(15); ++rounds) {
        QTemporaryDir dir;
        const std::string home = dir.filePath(QStringLiteral("home")).toStdString();
        const std::string config = dir.filePath(QStringLiteral("config")).toStdString();
        const std::string cache = dir.filePath(QStringLiteral("cache.json")).toStdString();
        const std::string targetFifo = dir.filePath(QStringLiteral("target-fifo")).toStdString();
        makeFifo(targetFifo);
        fs::create_directories(home);
        if (chance(40))
            fx::writeHome(home);
        // Claude Code sessions with random lines, names that are no UTF-8, subagent files.
        for (std::size_t s = 0, n = pick(5); s < n; ++s) {
            std::string name = home + "/.claude/projects/-p" + std::to_string(pick(3)) + (chance(20) ? "\xff" : "") + "/s" + std::to_string(s)
                               + (chance(15) ? "\x1b[2J" : "") + ".jsonl";
            std::vector<std::string> lines;
            for (std::size_t l = 0, m = pick(6); l < m; ++l)
                lines.push_back(lineFor("s" + std::to_string(s)));
            std::string bytes;
            for (const auto &l : lines)
                bytes += l + "\n";
            if (chance(30) && !bytes.empty())
                bytes.resize(pick(bytes.size())); // cut anywhere
            fx::writeBytes(name, bytes);
            const std::string subs = name.substr(0, name.size() - 6) + "/subagents/";
            switch (pick(5)) {
            case 0: makeFifo(subs + "agent-f.jsonl"); break;
            case 1: symlinkTo("/dev/zero", subs + "agent-z.jsonl"); break;
            case 2: fx::writeBytes(subs + "agent-g.jsonl", lineFor("s") + "\n" + lineFor("s")); break;
            default: break;
            }
        }
        // The places the scan reads small files from.
        const std::string geminiProject = home + "/.gemini/tmp/p" + std::to_string(pick(2));
        fx::write(geminiProject + "/chats/session-2025-06-03T08-00-aaaa.jsonl", chance(50) ? fx::geminiShopLines() : std::vector<std::string>{lineFor("g")});
        // `device`: what a link points to. Only paths the scan reads link to /dev/zero; a path it
        // writes (the cache) links to a FIFO of this folder, so that a writer following the link
        // could never replace a device of the machine (the test runs as root in CI).
        auto hostileFile = [&](const std::string &path, const std::string &regular, const std::string &device = "/dev/zero") {
            std::error_code ec;
            fs::remove(path, ec);
            switch (pick(5)) {
            case 0: makeFifo(path); break;
            case 1: symlinkTo(device, path); break;
            case 2: fs::create_directories(path); break;
            default: fx::writeBytes(path, regular); break;
            }
        };
        hostileFile(geminiProject + "/.project_root", chance(50) ? "/work/\x1b]0;t\x07x" : std::string(pick(100000), 'p'));
        hostileFile(home + "/.gemini/projects.json",
                    chance(50) ? R"({"projects": {"/w": "p0", "/x": 5, "/y": null}})" : std::string("{\"projects\": [") + std::string(pick(1000), '['));
        hostileFile(home + "/.codex/sessions/2025/06/02/rollout-2025-06-02T10-00-00-x.jsonl", lineFor("c") + "\n" + lineFor("c"));
        hostileFile(config + "/contextlens/prices.json", randomPrices());
        switch (pick(4)) {
        case 0: hostileFile(cache, R"({"version":2,"entries":[{"path":"/x","size":"1"},5,null]})", targetFifo); break;
        case 1: fx::writeBytes(cache, R"({"version":2,"entries":[{"path":")" + home + R"(/.claude/projects/-p0/s0.jsonl","size":1,"mtimeNs":1,"messages":-5}]})"); break;
        default: break;
        }

        // In process: the table and the scan.
        {
            llm::PriceTable table;
            table.merge(randomPrices(), nullptr, "fuzz");
            for (const auto &p : table.prices())
                for (double v : {p.input, p.output, p.cacheWrite5m, p.cacheWrite1h, p.cacheRead})
                    QVERIFY2(std::isfinite(v) && v >= 0 && v <= llm::kMaxPrice, qPrintable(QStringLiteral("seed %1").arg(seed)));
        }
        qputenv("XDG_CONFIG_HOME", QByteArray::fromStdString(config));
        sessions::ScanOptions o;
        o.home = home;
        o.cachePath = cache;
        const sessions::ScanResult r = bounded("scan", [&] { return sessions::scan(o); });
        qunsetenv("XDG_CONFIG_HOME");
        for (const auto &s : r.sessions)
            QVERIFY2(std::isfinite(s.cost) && s.cost >= 0, qPrintable(QStringLiteral("seed %1 round %2: %3").arg(seed).arg(rounds).arg(s.cost)));

        // Through the CLI: text and JSON, `cost` on one of the files.
        const QStringList base{QStringLiteral("sessions"), QStringLiteral("--home"), QString::fromStdString(home), QStringLiteral("--cache"),
                               QString::fromStdString(cache)};
        const Proc text = runProgram(base, QString::fromStdString(config));
        const QString where = QStringLiteral("seed %1 round %2").arg(seed).arg(rounds);
        QVERIFY2(text.finished && !text.crashed && text.code == 0, qPrintable(where + QStringLiteral(": ") + QString::fromStdString(text.err)));
        QVERIFY2(!hasTerminalControls(text.out) && !hasTerminalControls(text.err), qPrintable(where));
        QVERIFY2(text.out.find("$inf") == std::string::npos && text.out.find("$nan") == std::string::npos
                     && text.out.find("$-") == std::string::npos,
                 qPrintable(where));
        const Proc js = runProgram(base + QStringList{QStringLiteral("--json")}, QString::fromStdString(config));
        QVERIFY2(js.finished && !js.crashed && js.code == 0, qPrintable(where + QStringLiteral(": ") + QString::fromStdString(js.err)));
        QVERIFY2(!hasTerminalControls(js.out), qPrintable(where));
        const json doc = json::parse(js.out, nullptr, false);
        QVERIFY2(doc.is_object() && doc["sessions"].is_array(), qPrintable(where));
        for (const auto &s : doc["sessions"])
            QVERIFY2(s["cost"].is_null() || (s["cost"].is_number() && s["cost"].get<double>() >= 0), qPrintable(where));
        if (!r.sessions.empty()) {
            const std::string file = r.sessions[pick(r.sessions.size())].path;
            const Proc cost = runProgram({QStringLiteral("cost"), QString::fromStdString(file)}, QString::fromStdString(config));
            QVERIFY2(cost.finished && !cost.crashed && cost.code >= 0 && cost.code <= 2, qPrintable(where + QString::fromStdString(cost.err)));
            QVERIFY2(!hasTerminalControls(cost.out) && !hasTerminalControls(cost.err), qPrintable(where));
            QVERIFY2(cost.out.find("$inf") == std::string::npos && cost.out.find("$-") == std::string::npos, qPrintable(where));
        }
        // Nothing the scan or the CLI wrote replaced a FIFO or a device behind a link.
        QVERIFY2(fs::is_fifo(targetFifo), qPrintable(where));
        QVERIFY2(fs::is_character_file("/dev/zero"), qPrintable(where));
        std::error_code ec;
        fs::remove_all(dir.path().toStdString(), ec); // QTemporaryDir cannot remove names that are no UTF-8
    }
    qInfo("fuzz: %d rounds, seed %u", rounds, seed);
    QVERIFY(rounds >= 3);
}

QTEST_MAIN(TestRobustScan)
#include "tst_robustscan.moc"
