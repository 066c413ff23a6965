// SPDX-License-Identifier: MIT
// The write path and its inputs, tried as a user would: fields of unexpected types in the lines the
// writers read, file modes of written files, standard input, pipes and FIFOs, errors on standard
// output, "-o -", NUL bytes, UTF-16 and directories, and the validity a command reports being that of
// the bytes it wrote. Most cases run in-process; the ones about real descriptors run the program.
#include "cli/cli.h"
#include "core/generator/generator.h"
#include "core/io/loader.h"
#include "core/io/validity.h"
#include "core/io/writer.h"
#include "widgets/mainwindow/loadcontroller.h"

#include "test_support.h"

#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <fcntl.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace cl;
using nlohmann::json;
using nlohmann::ordered_json;
using test::readFile;
using test::writeFile;

namespace {

test::CliRun runCli(const std::vector<std::string> &args)
{
    return test::runCli(args);
}

const QString kCli = QStringLiteral(CL_BINARY_DIR "/app/contextlens-cli");

mode_t modeOf(const std::string &path)
{
    struct stat st = {};
    return ::stat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : mode_t(0xFFFF);
}

std::string generated(Format f, std::size_t messages, std::uint64_t seed = 5)
{
    gen::Options o;
    o.format = f;
    o.messages = messages;
    o.seed = seed;
    o.maxReadLines = 200;
    return gen::generate(o);
}

// Lines of a JSONL text, each parsed keeping key order.
std::vector<ordered_json> parseLines(const std::string &bytes)
{
    std::vector<ordered_json> out;
    std::size_t at = 0;
    while (at < bytes.size()) {
        const std::size_t end = bytes.find('\n', at);
        const std::string line = bytes.substr(at, end == std::string::npos ? std::string::npos : end - at);
        if (!line.empty())
            out.push_back(ordered_json::parse(line));
        at = end == std::string::npos ? bytes.size() : end + 1;
    }
    return out;
}

std::string joinLines(const std::vector<ordered_json> &lines)
{
    std::string out;
    for (const auto &l : lines)
        out += l.dump() + "\n";
    return out;
}

// `validate FILE --as FORMAT --json`'s verdict.
bool validates(const std::string &file, Format f)
{
    const auto r = runCli({"validate", file, "--as", std::string(formatName(f)), "--json"});
    return json::parse(r.out)["valid"].get<bool>();
}

struct Program {
    int code = -1;
    QByteArray out, err;
};

Program runProgram(const QStringList &args, const QByteArray &input = {}, const QString &stdoutFile = {})
{
    QProcess p;
    if (!stdoutFile.isEmpty())
        p.setStandardOutputFile(stdoutFile);
    p.start(kCli, args);
    p.waitForStarted();
    if (!input.isEmpty())
        p.write(input);
    p.closeWriteChannel();
    p.waitForFinished(60000);
    return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

} // namespace

class TestWritePath : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    std::string path(const std::string &name) const { return m_dir.filePath(QString::fromStdString(name)).toStdString(); }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // `compact -o` of a Claude Code session whose last main-chain line carries an isSidechain that is
    // not a boolean, or a numeric timestamp: the compaction writer reads the tail of the chain.
    void claudeTailOfOddTypes_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        for (const char *v : {"null", "\"no\"", "0", "[]", "{}"})
            QTest::newRow(qPrintable(QStringLiteral("isSidechain=") + QString::fromLatin1(v))) << "isSidechain" << v;
        QTest::newRow("timestamp=number") << "timestamp"
                                          << "1764000000000";
        QTest::newRow("uuid=number") << "uuid"
                                     << "42";
    }
    void claudeTailOfOddTypes()
    {
        QFETCH(QString, key);
        QFETCH(QString, value);
        auto lines = parseLines(generated(Format::ClaudeCode, 60));
        for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
            const std::string type = (*it).value("type", std::string());
            if ((type == "user" || type == "assistant") && !(*it).value("isSidechain", false)) {
                (*it)[key.toStdString()] = ordered_json::parse(value.toStdString());
                break;
            }
        }
        const std::string in = path("tail-" + key.toStdString() + ".jsonl");
        writeFile(in, joinLines(lines));
        for (const std::vector<std::string> &strategy : {std::vector<std::string>{"--strategy", "snip", "--param", "snipMaxChars=100"},
                                                         std::vector<std::string>{"--strategy", "microcompact", "--param", "force=true"}}) {
            const std::string out = path("tail-out.jsonl");
            std::vector<std::string> args{"compact", in, "-o", out, "--force", "--json"};
            args.insert(args.end(), strategy.begin(), strategy.end());
            const auto r = runCli(args);
            QVERIFY2(r.code == 0 || r.code == 1, r.err.c_str());
            const json j = json::parse(r.out);
            QCOMPARE(j["valid"].get<bool>(), validates(out, Format::ClaudeCode));
        }
    }

    // An edited Gemini CLI session whose toolCalls[].id are not strings.
    void geminiCallIdsOfOddTypes()
    {
        auto lines = parseLines(generated(Format::GeminiCli, 80));
        std::size_t changed = 0;
        for (auto &l : lines)
            if (l.contains("toolCalls") && l["toolCalls"].is_array())
                for (auto &c : l["toolCalls"]) {
                    c["id"] = changed % 2 ? ordered_json(7) : ordered_json::array();
                    ++changed;
                }
        QVERIFY(changed > 3);
        const std::string in = path("gemini-ids.jsonl");
        writeFile(in, joinLines(lines));
        for (const std::vector<std::string> &strategy : {std::vector<std::string>{"--strategy", "snip", "--param", "snipMaxChars=100"},
                                                         std::vector<std::string>{"--strategy", "microcompact", "--param", "force=true"}}) {
            std::vector<std::string> args{"compact", in, "-o", path("gemini-out.jsonl"), "--force"};
            args.insert(args.end(), strategy.begin(), strategy.end());
            const auto r = runCli(args);
            QVERIFY2(r.code == 0 || r.code == 1, r.err.c_str());
            QVERIFY(QFileInfo::exists(QString::fromStdString(path("gemini-out.jsonl"))));
        }
    }

    // New files follow the umask; a replaced file keeps its mode.
    void fileModes()
    {
        const std::string in = path("modes-in.jsonl");
        writeFile(in, generated(Format::ClaudeCode, 20));
        const mode_t saved = ::umask(077);
        const std::string secret = path("modes-077.json");
        auto r = runCli({"convert", in, "--to", "anthropic", "-o", secret});
        ::umask(022);
        const std::string open = path("modes-022.json");
        auto r2 = runCli({"convert", in, "--to", "anthropic", "-o", open});
        ::umask(saved);
        QCOMPARE(r.code, 0);
        QCOMPARE(r2.code, 0);
        QCOMPARE(modeOf(secret), mode_t(0600));
        QCOMPARE(modeOf(open), mode_t(0644));
        // Replacing keeps the old file's mode, whatever the umask says.
        QCOMPARE(::chmod(open.c_str(), 0640), 0);
        QCOMPARE(runCli({"convert", in, "--to", "openai-chat", "-o", open, "--force"}).code, 0);
        QCOMPARE(modeOf(open), mode_t(0640));
        QCOMPARE(::chmod(secret.c_str(), 0600), 0);
        QCOMPARE(runCli({"compact", in, "--strategy", "trim-tools", "--to", "anthropic", "-o", secret, "--force"}).code, 0);
        QCOMPARE(modeOf(secret), mode_t(0600));
        // The GUI's and the operations' writer is the same function.
        std::string error;
        QVERIFY(writeFileAtomic(secret, "{}\n", &error));
        QCOMPARE(modeOf(secret), mode_t(0600));
        // A symbolic link is followed: the file it names is replaced, the link stays a link.
        const std::string link = path("modes-link.json");
        QCOMPARE(::symlink(secret.c_str(), link.c_str()), 0);
        QVERIFY(writeFileAtomic(link, "[]\n", &error));
        QCOMPARE(readFile(secret), std::string("[]\n"));
        struct stat st = {};
        QCOMPARE(::lstat(link.c_str(), &st), 0);
        QVERIFY(S_ISLNK(st.st_mode));
    }

    // Standard input ("-" and /dev/stdin) and pipes are read to their end.
    void standardInputAndPipes()
    {
        const std::string bytes = generated(Format::Codex, 40);
        const QByteArray input = QByteArray::fromStdString(bytes);
        const Program dash = runProgram({QStringLiteral("info"), QStringLiteral("-"), QStringLiteral("--json")}, input);
        QVERIFY2(dash.code == 0 || dash.code == 1, dash.err.constData());
        const json j = json::parse(dash.out.toStdString());
        QCOMPARE(j["format"].get<std::string>(), std::string("codex"));
        QCOMPARE(j["bytes"].get<std::size_t>(), bytes.size());
        const Program devStdin = runProgram({QStringLiteral("info"), QStringLiteral("/dev/stdin"), QStringLiteral("--json")}, input);
        QCOMPARE(json::parse(devStdin.out.toStdString())["bytes"].get<std::size_t>(), bytes.size());
        // convert reads standard input too.
        const Program conv = runProgram({QStringLiteral("convert"), QStringLiteral("-"), QStringLiteral("--to"),
                                         QStringLiteral("openai-chat"), QStringLiteral("-o"),
                                         QString::fromStdString(path("from-stdin.json"))},
                                        input);
        QCOMPARE(conv.code, 0);
        QVERIFY(validates(path("from-stdin.json"), Format::OpenAIChat));
    }

    void fifoIsReadToItsEnd()
    {
        const std::string fifo = path("session.fifo");
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        const std::string bytes = generated(Format::ClaudeCode, 40);
        std::thread writer([&] {
            const int fd = ::open(fifo.c_str(), O_WRONLY);
            // In pieces with pauses, as a slow producer would.
            for (std::size_t at = 0; at < bytes.size(); at += 4096) {
                const std::size_t n = std::min<std::size_t>(4096, bytes.size() - at);
                if (::write(fd, bytes.data() + at, n) < 0)
                    break;
                if (at == 0)
                    std::this_thread::sleep_for(std::chrono::milliseconds(150));
            }
            ::close(fd);
        });
        const LoadResult r = loadFile(fifo);
        writer.join();
        QVERIFY(r.ok());
        QCOMPARE(r.transcript->buffer->size(), bytes.size());
        QCOMPARE(r.transcript->format, Format::ClaudeCode);
        ::unlink(fifo.c_str());
    }

    // Nobody writes to the FIFO: the load waits, and a cancel (the GUI's) ends the wait.
    void fifoWithoutWriterCanBeCancelled()
    {
        const std::string fifo = path("idle.fifo");
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        std::atomic_bool cancel{false};
        LoadOptions opts;
        opts.cancel = &cancel;
        std::thread canceller([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            cancel = true;
        });
        const auto start = std::chrono::steady_clock::now();
        const LoadResult r = loadFile(fifo, opts);
        canceller.join();
        QVERIFY(r.cancelled);
        QVERIFY(std::chrono::steady_clock::now() - start < std::chrono::seconds(3));

        // The GUI's load controller: Cancel returns at once and the worker ends.
        gui::LoadController controller;
        QSignalSpy finished(&controller, &gui::LoadController::finished);
        controller.start(QString::fromStdString(fifo));
        QTest::qWait(200);
        QVERIFY(controller.isLoading());
        controller.cancel();
        QVERIFY(!controller.isLoading());
        QTest::qWait(400); // the worker notices within one poll interval and ends quietly
        QCOMPARE(finished.count(), 0);
        ::unlink(fifo.c_str());
    }

    void standardOutputErrors()
    {
        const std::string in = path("full.jsonl");
        writeFile(in, generated(Format::ClaudeCode, 20));
        const Program p = runProgram({QStringLiteral("info"), QString::fromStdString(in), QStringLiteral("--json")}, {},
                                     QStringLiteral("/dev/full"));
        QCOMPARE(p.code, 2);
        QVERIFY2(p.err.contains("standard output"), p.err.constData());
        const Program c = runProgram({QStringLiteral("convert"), QString::fromStdString(in), QStringLiteral("--to"),
                                      QStringLiteral("anthropic"), QStringLiteral("-o"), QStringLiteral("-")},
                                     {},
                                     QStringLiteral("/dev/full"));
        QCOMPARE(c.code, 2);
        QVERIFY2(c.err.contains("standard output"), c.err.constData());
    }

    void outputDash()
    {
        const std::string in = path("dash.jsonl");
        writeFile(in, generated(Format::ClaudeCode, 30));
        const std::string file = path("dash.json");
        QCOMPARE(runCli({"convert", in, "--to", "anthropic", "-o", file}).code, 0);
        // In-process: the transcript lands in out, the report in err; no file named "-".
        const QString cwd = QDir::currentPath();
        QDir::setCurrent(m_dir.path());
        const auto r = runCli({"convert", in, "--to", "anthropic", "-o", "-"});
        QDir::setCurrent(cwd);
        QCOMPARE(r.code, 0);
        QCOMPARE(r.out, readFile(file));
        QVERIFY(r.err.find("valid as anthropic") != std::string::npos);
        QVERIFY(!QFileInfo::exists(m_dir.filePath(QStringLiteral("-"))));
        // As a program: streamed to the descriptor, same bytes.
        const Program p = runProgram({QStringLiteral("convert"), QString::fromStdString(in), QStringLiteral("--to"),
                                      QStringLiteral("anthropic"), QStringLiteral("-o"), QStringLiteral("-")});
        QCOMPARE(p.code, 0);
        QCOMPARE(p.out.toStdString(), readFile(file));
        // compact too.
        const auto c = runCli({"compact", in, "--strategy", "trim-tools", "-o", "-", "--json"});
        QCOMPARE(c.code, 0);
        QCOMPARE(json::parse(c.err)["output"]["path"].get<std::string>(), std::string("-"));
        QVERIFY(c.out.find("\"type\":\"system\"") != std::string::npos); // the appended compact_boundary
        // An empty name says what is wrong.
        const auto e = runCli({"convert", in, "--to", "anthropic", "-o", ""});
        QCOMPARE(e.code, 2);
        QVERIFY2(e.err.find("-o needs a file name") != std::string::npos, e.err.c_str());
        QCOMPARE(runCli({"compact", in, "--strategy", "snip", "-o", ""}).code, 2);
    }

    void nulBytesUtf16AndDirectories()
    {
        const std::string bytes = generated(Format::ClaudeCode, 30);
        const LoadResult plain = loadBytes(bytes, "plain.jsonl");
        QVERIFY(plain.ok());
        // A NUL inside the second line: the format is still detected, the line is named.
        std::string nul = bytes;
        const std::size_t secondLine = nul.find('\n') + 1;
        nul.insert(secondLine + 20, 1, '\0');
        const LoadResult withNul = loadBytes(nul, "nul.jsonl");
        QCOMPARE(withNul.transcript->format, Format::ClaudeCode);
        bool named = false;
        for (const auto &d : withNul.transcript->diagnostics)
            named = named || (d.line == 2 && d.message.find("NUL") != std::string::npos);
        QVERIFY(named);
        // Real binary data says why.
        std::string binary(3000, '\0');
        for (std::size_t i = 0; i < binary.size(); i += 7)
            binary[i] = char(i);
        const LoadResult bin = loadBytes(binary, "data.bin");
        QCOMPARE(bin.transcript->format, Format::Unknown);
        QVERIFY(bin.transcript->diagnostics.front().message.find("first NUL at byte 0") != std::string::npos);
        // UTF-16 in both byte orders, with and without a byte-order mark.
        for (const bool bigEndian : {false, true})
            for (const bool bom : {true, false}) {
                std::string u16;
                if (bom)
                    u16 += bigEndian ? "\xFE\xFF" : "\xFF\xFE";
                const QString text = QString::fromStdString(bytes);
                for (const QChar c : text) {
                    const char hi = char(c.unicode() >> 8), lo = char(c.unicode() & 0xFF);
                    u16 += bigEndian ? std::string{hi, lo} : std::string{lo, hi};
                }
                const LoadResult r = loadBytes(u16, "utf16.jsonl");
                QCOMPARE(r.transcript->format, Format::ClaudeCode);
                QCOMPARE(r.transcript->messages.size(), plain.transcript->messages.size());
                QCOMPARE(*r.transcript->buffer, bytes);
                QVERIFY(r.transcript->diagnostics.front().message.find(bigEndian ? "UTF-16BE" : "UTF-16LE") != std::string::npos);
            }
        // A directory is a directory.
        const LoadResult dir = loadFile(m_dir.path().toStdString());
        QVERIFY(!dir.ok());
        QVERIFY2(dir.error.find("is a directory") != std::string::npos, dir.error.c_str());
        QVERIFY(dir.error.find("4 GiB") == std::string::npos);
    }

    // The validity a command reports is the validity of what it wrote, as `validate` sees it.
    void honestValidity()
    {
        // An OpenAI Responses input whose call ids are numbers: invalid in its own format.
        json doc = json::parse(generated(Format::OpenAIResponses, 30));
        std::size_t n = 0;
        for (auto &item : doc["input"])
            if (item.contains("call_id"))
                item["call_id"] = 100 + n++ / 2;
        QVERIFY(n >= 2);
        const std::string in = path("numeric-ids.json");
        writeFile(in, doc.dump(2));
        const auto v = runCli({"validate", in, "--json"});
        QCOMPARE(v.code, 1);
        QVERIFY(!json::parse(v.out)["valid"].get<bool>());
        QVERIFY(v.out.find("call_id") != std::string::npos);
        // Converting it says so, and the exit code says so.
        const auto c = runCli({"convert", in, "--to", "gemini-cli", "-o", path("numeric.jsonl"), "--json"});
        QCOMPARE(c.code, 1);
        const json cj = json::parse(c.out);
        QCOMPARE(cj["inputValid"].get<bool>(), false);
        QCOMPARE(cj["valid"].get<bool>(), validates(path("numeric.jsonl"), Format::GeminiCli));
        // compact --to: its "valid" is validate's verdict on the file.
        for (const char *to : {"gemini-cli", "anthropic", "openai-chat", "codex", "claude-code"}) {
            const std::string out = path(std::string("numeric-compact.") + to);
            const auto r = runCli({"compact", in, "--strategy", "snip", "--param", "force=true", "--to", to, "-o", out, "--json"});
            QVERIFY2(r.code == 0 || r.code == 1, r.err.c_str());
            const bool written = validates(out, *formatFromName(to));
            QCOMPARE(json::parse(r.out)["valid"].get<bool>(), written);
            QCOMPARE(r.code, written && json::parse(r.out)["resultValid"].get<bool>() ? 0 : 1);
        }
        // Every sample, converted to every format: the report agrees with validate.
        CL_REQUIRE_SAMPLES();
        QDirIterator it(QStringLiteral(CL_SAMPLES_DIR), {QStringLiteral("*.jsonl"), QStringLiteral("*.json")}, QDir::Files,
                        QDirIterator::Subdirectories);
        std::size_t checked = 0;
        while (it.hasNext()) {
            const std::string sample = it.next().toStdString();
            if (sample.find("/schema/") != std::string::npos)
                continue;
            for (Format f : allFormats()) {
                const std::string out = path("sample-out");
                const auto r = runCli({"convert", sample, "--to", std::string(formatName(f)), "-o", out, "--force", "--json"});
                QVERIFY2(r.code == 0 || r.code == 1, (sample + ": " + r.err).c_str());
                QCOMPARE(json::parse(r.out)["valid"].get<bool>(), validates(out, f));
                ++checked;
            }
        }
        QVERIFY(checked >= 7 * 7);
    }
};

QTEST_GUILESS_MAIN(TestWritePath)
#include "tst_writepath.moc"
