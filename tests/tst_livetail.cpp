// SPDX-License-Identifier: MIT
// Live sessions: a transcript grown line by line (core/io/appendlines.h) must be the transcript a
// fresh load of the same bytes gives, cut anywhere in every Claude Code and Codex input; LiveTail reads
// only what was appended, waits for a line's end, and reads a replaced, shrunk or rewritten file again;
// grows the version before in place when its caller let go of it; `watch` never blocks on a FIFO (the
// command and its forecast: tst_watch).
#include "test_support.h"
#include "live_fixture.h"

#include "core/generator/generator.h"
#include "core/io/appendlines.h"
#include "core/io/livetail.h"
#include "core/io/loader.h"
#include "core/workflow/forecast.h"
#include "core/util/json.h"

#include <QDirIterator>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <tuple>

#include <sys/stat.h>
#include <unistd.h>

using namespace cl;

namespace {

LoadOptions options()
{
    LoadOptions o;
    o.loadSubagents = false;
    o.threads = 1;
    return o;
}

std::string blockText(const Block &b)
{
    return std::string(blockTypeName(b.type)) + "|" + b.text + "|" + b.toolId + "|" + b.toolName + "|" + b.input.dump() + "|"
           + std::to_string(b.isError) + std::to_string(b.cleared) + std::to_string(b.repeated) + "|"
           + std::to_string(b.pairMessage) + ":" + std::to_string(b.pairBlock);
}

std::string messageText(const Message &m)
{
    std::string s = std::string(roleName(m.role)) + "|" + std::string(messageKindName(m.kind)) + "|" + m.type + "|" + m.id
                    + "|" + m.parentId + "|" + m.apiMessageId + "|" + m.model + "|" + m.agentId + "|" + m.timestamp + "|"
                    + std::to_string(m.sidechain) + std::to_string(m.isMeta) + std::to_string(m.history) + "|line "
                    + std::to_string(m.line) + "|est " + std::to_string(tokens::estimateMessage(m)) + "|" + m.meta.dump();
    if (m.usage)
        s += "|usage " + std::to_string(m.usage->inputTokens) + "," + std::to_string(m.usage->outputTokens) + ","
             + std::to_string(m.usage->cacheCreationTokens) + "," + std::to_string(m.usage->cacheReadTokens);
    for (const auto r : m.records)
        s += "|r" + std::to_string(r);
    for (const auto &b : m.blocks)
        s += "\n    " + blockText(b);
    return s;
}

// The first difference between two transcripts, empty when they are the same.
std::string difference(const Transcript &a, const Transcript &b)
{
    if (*a.buffer != *b.buffer)
        return "buffer";
    if (a.header != b.header)
        return "header: " + a.header.dump() + " vs " + b.header.dump();
    if (a.offBranchMessages != b.offBranchMessages)
        return "off-branch messages";
    if (a.records.size() != b.records.size())
        return "record count " + std::to_string(a.records.size()) + " vs " + std::to_string(b.records.size());
    for (std::size_t i = 0; i < a.records.size(); ++i) {
        const Record &x = a.records[i], &y = b.records[i];
        if (std::tie(x.offset, x.length, x.line, x.message, x.type, x.parsed) != std::tie(y.offset, y.length, y.line, y.message, y.type, y.parsed))
            return "record " + std::to_string(i);
    }
    if (a.messages.size() != b.messages.size())
        return "message count " + std::to_string(a.messages.size()) + " vs " + std::to_string(b.messages.size());
    for (std::size_t i = 0; i < a.messages.size(); ++i)
        if (const std::string x = messageText(a.messages[i]), y = messageText(b.messages[i]); x != y)
            return "message " + std::to_string(i) + ":\n  " + x + "\nvs\n  " + y;
    auto diags = [](const Transcript &t) {
        std::vector<std::string> out;
        for (const auto &d : t.diagnostics)
            out.push_back(std::to_string(d.line) + " " + std::to_string(int(d.severity)) + " " + d.message);
        std::sort(out.begin(), out.end());
        return out;
    };
    if (diags(a) != diags(b)) {
        std::string s = "diagnostics:";
        for (const auto &d : diags(a))
            s += "\n  A " + d;
        for (const auto &d : diags(b))
            s += "\n  B " + d;
        return s;
    }
    return {};
}

std::vector<QString> lineBasedInputs()
{
    std::vector<QString> out;
    for (const QString &dir : {QStringLiteral(CL_SAMPLES_DIR), QStringLiteral(CL_TEST_DATA_DIR)}) {
        QDirIterator it(dir, {QStringLiteral("*.jsonl")}, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            if (path.contains(QStringLiteral("/schema/")) || path.contains(QStringLiteral("/gui/")))
                continue;
            const std::string bytes = test::readFile(path.toStdString());
            const Format f = detectFormat(bytes, path.toStdString());
            if (f == Format::ClaudeCode || f == Format::Codex)
                out.push_back(path);
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

// A generated session with tool rounds, parallel calls and auto-compactions (a small window).
std::string generated(Format format, std::size_t messages)
{
    gen::Options o;
    o.format = format;
    o.messages = messages;
    o.seed = 21;
    o.contextWindow = 40000;
    return gen::generate(o);
}

void writeFile(const QString &path, const std::string &bytes, bool append)
{
    std::ofstream f(path.toStdString(), append ? std::ios::app | std::ios::binary : std::ios::trunc | std::ios::binary);
    f << bytes;
}

std::uint64_t inodeOf(const QString &path)
{
    struct stat st {};
    return ::stat(path.toStdString().c_str(), &st) == 0 ? std::uint64_t(st.st_ino) : 0;
}

QString cliPath()
{
    return QStringLiteral(CL_BINARY_DIR "/app/contextlens-cli");
}

} // namespace

class TestLiveTail : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(!test::inCi() || test::samplesPresent(), "the shared samples (../shared/samples) are missing in CI");
    }

    // Every input cut after many of its lines (and in the middle of some): the grown transcript is
    // the fresh load's, whichever way it was made; most cuts are parsed incrementally.
    void grownEqualsFresh_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QByteArray>("bytes");
        for (const QString &p : lineBasedInputs())
            QTest::newRow(qPrintable(QDir(QStringLiteral(CL_SOURCE_DIR) + QStringLiteral("/..")).relativeFilePath(p)))
                << p << QByteArray::fromStdString(test::readFile(p.toStdString()));
        QTest::newRow("generated Claude Code") << QStringLiteral("generated.jsonl")
                                               << QByteArray::fromStdString(generated(Format::ClaudeCode, 240));
        QTest::newRow("generated Codex") << QStringLiteral("generated-rollout.jsonl")
                                         << QByteArray::fromStdString(generated(Format::Codex, 240));
    }

    void grownEqualsFresh()
    {
        QFETCH(QString, path);
        QFETCH(QByteArray, bytes);
        const std::string text = bytes.toStdString();
        const auto spans = json::splitLines(text);
        if (spans.size() < 2) {
            qInfo("one line: nothing to cut");
            return;
        }
        const LoadResult whole = loadBytes(text, path.toStdString(), options());
        QVERIFY(whole.ok());
        std::vector<std::size_t> cuts; // bytes in the first part
        const std::size_t step = std::max<std::size_t>(1, spans.size() / 100);
        for (std::size_t k = 1; k < spans.size(); k += step)
            cuts.push_back(spans[k].offset);
        for (std::size_t k = spans.size() > 6 ? spans.size() - 6 : 1; k < spans.size(); ++k)
            cuts.push_back(spans[k].offset);
        for (std::size_t k = 2; k < spans.size(); k += std::max<std::size_t>(3, spans.size() / 8))
            cuts.push_back(spans[k].offset + spans[k].contentLength / 2); // a line written half
        std::sort(cuts.begin(), cuts.end());
        cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
        std::size_t incremental = 0, tried = 0;
        QStringList declined;
        for (const std::size_t cut : cuts) {
            if (cut == 0 || cut >= text.size())
                continue;
            const LoadResult first = loadBytes(text.substr(0, cut), path.toStdString(), options());
            QVERIFY(first.ok());
            ++tried;
            const AppendResult grown = appendLines(*first.transcript, std::string_view(text).substr(cut), options());
            if (!grown.transcript) {
                declined << QString::fromStdString(grown.reason);
                continue;
            }
            ++incremental;
            const std::string diff = difference(*grown.transcript, *whole.transcript);
            QVERIFY2(diff.empty(), qPrintable(QStringLiteral("cut at byte %1: %2").arg(cut).arg(QString::fromStdString(diff))));
        }
        declined.removeDuplicates();
        qInfo("%zu of %zu cuts incremental; declined: %s", incremental, tried, qPrintable(declined.join(QStringLiteral("; "))));
        QVERIFY(tried > 0);
        // Generated sessions (many turns): nearly every cut grows incrementally.
        if (path.startsWith(QStringLiteral("generated")))
            QVERIFY2(incremental * 10 >= tried * 9, qPrintable(QStringLiteral("%1 of %2").arg(incremental).arg(tried)));
    }

    // Finding 14: `cp other.jsonl watched.jsonl` rewrites the same inode with another, longer file.
    // Reading only the bytes past the old size would mix the two files; the first bytes and the ones
    // before the old end tell the rewrite, and the file is read again.
    void rewriteInPlaceIsReadAgain()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("watched.jsonl"));
        const std::string first = generated(Format::ClaudeCode, 60);
        gen::Options o;
        o.format = Format::ClaudeCode;
        o.messages = 240;
        o.seed = 99;
        const std::string other = gen::generate(o);
        QVERIFY(other.size() > first.size());
        writeFile(path, first, false);
        const LoadResult loaded = loadFile(path.toStdString(), options());
        QVERIFY(loaded.ok());
        LiveTail tail(path.toStdString(), loaded.transcript, options());
        const std::uint64_t inode = inodeOf(path);
        writeFile(path, other, false); // truncate and write: the same inode
        QCOMPARE(inodeOf(path), inode);
        const LiveTail::Update u = tail.poll();
        QCOMPARE(int(u.kind), int(LiveTail::Update::Kind::Reloaded));
        QVERIFY2(u.note.find("rewritten") != std::string::npos, u.note.c_str());
        const LoadResult fresh = loadFile(path.toStdString(), options());
        const std::string diff = difference(*tail.current(), *fresh.transcript);
        QVERIFY2(diff.empty(), diff.c_str());
        QCOMPARE(int(tail.poll().kind), int(LiveTail::Update::Kind::Unchanged));
        // Rewritten with the same size: read again too.
        std::string same = other;
        same[10] = same[10] == 'a' ? 'b' : 'a';
        const auto at = same.find("\"uuid\":\"");
        QVERIFY(at != std::string::npos);
        same[at + 8] = same[at + 8] == '0' ? '1' : '0';
        writeFile(path, same, false);
        QCOMPARE(int(tail.poll().kind), int(LiveTail::Update::Kind::Reloaded));
    }

    // Finding 8: a FIFO put at the path is refused at once (a plain open() would wait for a writer
    // for ever), by LiveTail and by `watch`.
    void fifoNeverBlocks()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("watched.jsonl"));
        writeFile(path, test::growingSession(2), false);
        const LoadResult loaded = loadFile(path.toStdString(), options());
        QVERIFY(loaded.ok());
        LiveTail tail(path.toStdString(), loaded.transcript, options());
        QVERIFY(QFile::remove(path));
        QCOMPARE(::mkfifo(path.toStdString().c_str(), 0600), 0);
        const LiveTail::Update u = tail.poll(); // before the fix: blocked here for ever
        QCOMPARE(int(u.kind), int(LiveTail::Update::Kind::Failed));
        QVERIFY(!u.missing);
        QVERIFY2(u.note.find("not a regular file") != std::string::npos, u.note.c_str());
        QVERIFY(tail.current() != nullptr);

        QProcess cli;
        cli.start(cliPath(), {QStringLiteral("watch"), path, QStringLiteral("--seconds"), QStringLiteral("3")});
        QVERIFY(cli.waitForFinished(20000));
        QCOMPARE(cli.exitCode(), 2);
        QVERIFY(cli.readAllStandardError().contains("not a regular file"));
    }

    // The fuzz harness for `watch` (bounded): a watched file grows (whole and half lines), is cut,
    // rewritten in place with another session, replaced, deleted and made again, at random between
    // polls; after each poll the transcript is the fresh load of the file as it is then.
    void fuzzWatchedFile()
    {
        const unsigned seed = qEnvironmentVariableIsSet("CL_FUZZ_SEED") ? unsigned(qEnvironmentVariableIntValue("CL_FUZZ_SEED")) : 2911u;
        qInfo("seed %u (CL_FUZZ_SEED)", seed);
        std::mt19937 rng(seed);
        gen::Options o;
        o.format = Format::ClaudeCode;
        o.messages = 160;
        o.contextWindow = 40000;
        std::vector<std::string> sources;
        for (const std::uint64_t s : {1, 2}) {
            o.seed = s;
            sources.push_back(gen::generate(o));
        }
        o.format = Format::Codex;
        o.seed = 3;
        sources.push_back(gen::generate(o));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("watched.jsonl"));
        const QString spare = dir.filePath(QStringLiteral("spare.jsonl"));
        auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
        std::size_t source = 0, length = sources[0].size() / 4;
        writeFile(path, sources[source].substr(0, length), false);
        const LoadResult loaded = loadFile(path.toStdString(), options());
        QVERIFY(loaded.ok());
        LiveTail tail(path.toStdString(), loaded.transcript, options());
        bool present = true;
        int compared = 0;
        std::map<std::string, int> ops;
        for (int step = 0; step < 400; ++step) {
            const std::string &text = sources[source];
            std::string op;
            switch (pick(8)) {
            case 0:
            case 1:
            case 2: { // grow by up to three lines, maybe ending half way through one
                op = "grow";
                std::size_t to = length;
                for (std::size_t k = 1 + pick(3); k > 0 && to < text.size(); --k)
                    to = text.find('\n', to) == std::string::npos ? text.size() : text.find('\n', to) + 1;
                if (pick(3) == 0 && to < text.size())
                    to += pick(std::min<std::size_t>(200, text.size() - to));
                if (present)
                    writeFile(path, text.substr(length, to - length), true);
                else
                    writeFile(path, text.substr(0, to), false);
                length = to;
                present = true;
                break;
            }
            case 3: // cut to an earlier line end (same inode)
                op = "truncate";
                length = text.rfind('\n', pick(std::max<std::size_t>(1, length)));
                length = length == std::string::npos ? text.find('\n') + 1 : length + 1; // never empty
                writeFile(path, text.substr(0, length), false);
                present = true;
                break;
            case 4: // rewritten in place with another session (cp other watched)
                op = "rewrite";
                source = pick(sources.size());
                length = sources[source].find('\n', pick(sources[source].size())) + 1;
                writeFile(path, sources[source].substr(0, length), false);
                present = true;
                break;
            case 5: // replaced by a new file (another inode)
                op = "replace";
                source = pick(sources.size());
                length = sources[source].find('\n', pick(sources[source].size())) + 1;
                writeFile(spare, sources[source].substr(0, length), false);
                QCOMPARE(std::rename(spare.toStdString().c_str(), path.toStdString().c_str()), 0);
                present = true;
                break;
            case 6: // deleted
                op = "delete";
                QFile::remove(path);
                present = false;
                break;
            default: // nothing
                op = "idle";
                break;
            }
            ++ops[op];
            const LiveTail::Update u = tail.poll();
            if (!present) {
                QCOMPARE(int(u.kind), int(LiveTail::Update::Kind::Failed));
                QVERIFY(u.missing);
                continue;
            }
            QVERIFY2(u.kind != LiveTail::Update::Kind::Failed, u.note.c_str());
            const std::string now = test::readFile(path.toStdString());
            if (!now.empty() && now.back() != '\n')
                continue; // a line still being written waits for its end
            const LoadResult fresh = loadFile(path.toStdString(), options());
            QVERIFY(fresh.ok() || now.empty());
            if (!fresh.ok())
                continue;
            const std::string diff = difference(*tail.current(), *fresh.transcript);
            QVERIFY2(diff.empty(), qPrintable(QStringLiteral("step %1 (%2): %3").arg(step).arg(QString::fromStdString(op), QString::fromStdString(diff))));
            ++compared;
        }
        QVERIFY(compared > 100);
        QVERIFY(tail.stats().inPlace > 0); // grown in place between reloads, and still the fresh load
        for (const auto &[op, n] : ops)
            qInfo("%s: %d", op.c_str(), n);
    }

    // A session written line by line, each line polled, the caller keeping only the newest version
    // (as the window does): after the first appends each grows the version before in place, and is
    // still what a fresh load of the same bytes gives. A version the caller keeps is never touched.
    void growsInPlaceLineByLine_data()
    {
        QTest::addColumn<int>("format");
        QTest::newRow("Claude Code") << int(Format::ClaudeCode);
        QTest::newRow("Codex") << int(Format::Codex);
    }

    void growsInPlaceLineByLine()
    {
        QFETCH(int, format);
        const std::string text = generated(Format(format), 160);
        const auto spans = json::splitLines(text);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("growing.jsonl"));
        const std::size_t start = spans[spans.size() / 3].offset;
        writeFile(path, text.substr(0, start), false);
        LoadResult loaded = loadFile(path.toStdString(), options());
        QVERIFY(loaded.ok());
        LiveTail tail(path.toStdString(), std::move(loaded.transcript), options());
        std::shared_ptr<const Transcript> kept; // held from half way, as an undo step would be
        std::string keptBuffer, keptText;
        std::size_t polls = 0;
        for (std::size_t at = start; at < text.size();) {
            const std::size_t end = text.find('\n', at) + 1;
            writeFile(path, text.substr(at, end - at), true);
            at = end;
            const LiveTail::Update u = tail.poll();
            QVERIFY2(u.kind == LiveTail::Update::Kind::Appended || u.kind == LiveTail::Update::Kind::Reparsed, u.note.c_str());
            ++polls;
            const LoadResult fresh = loadBytes(text.substr(0, at), path.toStdString(), options());
            QVERIFY(fresh.ok());
            const std::string diff = difference(*tail.current(), *fresh.transcript);
            QVERIFY2(diff.empty(), qPrintable(QStringLiteral("after byte %1: %2").arg(at).arg(QString::fromStdString(diff))));
            if (!kept && at * 2 >= text.size()) {
                kept = tail.current();
                keptBuffer = *kept->buffer;
                for (const Message &m : kept->messages)
                    keptText += messageText(m) + "\n";
            }
        }
        QVERIFY(kept);
        QCOMPARE(*kept->buffer, keptBuffer);
        std::string keptNow;
        for (const Message &m : kept->messages)
            keptNow += messageText(m) + "\n";
        QCOMPARE(keptNow, keptText);
        const LiveTail::Stats &stats = tail.stats();
        qInfo("%zu polls: %llu appended, %llu of them in place, %llu parsed again", polls,
              static_cast<unsigned long long>(stats.appends), static_cast<unsigned long long>(stats.inPlace),
              static_cast<unsigned long long>(stats.reparses));
        QVERIFY2(stats.inPlace * 10 >= stats.appends * 8, "most appends grow the version before");
    }

    // A UTF-16 file (no agent writes one, a user's conversion might) is read whole on each change.
    void utf16ReadWhole()
    {
        auto utf16 = [](const std::string &text) {
            const QString s = QString::fromStdString(text);
            return std::string(reinterpret_cast<const char *>(s.utf16()), std::size_t(s.size()) * 2);
        };
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("utf16.jsonl"));
        const std::string two = test::growingSession(2), three = test::growingSession(3);
        writeFile(path, std::string("\xff\xfe") + utf16(two), false);
        const LoadResult loaded = loadFile(path.toStdString(), options());
        QVERIFY(loaded.ok());
        QCOMPARE(loaded.transcript->messages.size(), std::size_t(4));
        LiveTail tail(path.toStdString(), loaded.transcript, options());
        QCOMPARE(int(tail.poll().kind), int(LiveTail::Update::Kind::Unchanged));
        writeFile(path, utf16(three.substr(two.size())), true);
        const LiveTail::Update u = tail.poll();
        QCOMPARE(int(u.kind), int(LiveTail::Update::Kind::Reloaded));
        QCOMPARE(u.newMessages, std::int64_t(2));
        QCOMPARE(tail.current()->messages.size(), std::size_t(6));
        QCOMPARE(int(tail.poll().kind), int(LiveTail::Update::Kind::Unchanged));
    }

    // LiveTail on a file written as an agent writes it: it reads only the appended bytes, keeps a line
    // still being written for later, and ends where a fresh load of the finished file ends.
    void followsAFileBeingWritten()
    {
        const std::string bytes = generated(Format::ClaudeCode, 300);
        const auto spans = json::splitLines(bytes);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("session.jsonl"));
        const std::size_t start = spans[spans.size() / 3].offset;
        writeFile(path, bytes.substr(0, start), false);
        const LoadResult loaded = loadFile(path.toStdString(), options());
        QVERIFY(loaded.ok());
        LiveTail tail(path.toStdString(), loaded.transcript, options());
        QCOMPARE(int(tail.poll().kind), int(LiveTail::Update::Kind::Unchanged));
        std::uint64_t appendedBytes = 0;
        std::size_t at = start;
        std::size_t k = spans.size() / 3;
        while (at < bytes.size()) {
            // Two lines and a half at a time.
            const std::size_t next = std::min(bytes.size(), (k + 2 < spans.size() ? spans[k + 2].offset : bytes.size())
                                                                + (k + 2 < spans.size() ? spans[k + 2].contentLength / 2 : 0));
            writeFile(path, bytes.substr(at, next - at), true);
            appendedBytes += next - at;
            const LiveTail::Update u = tail.poll();
            QVERIFY2(u.kind != LiveTail::Update::Kind::Failed && u.kind != LiveTail::Update::Kind::Reloaded, u.note.c_str());
            QCOMPARE(u.bytesRead, std::uint64_t(next - at));
            at = next;
            while (k < spans.size() && spans[k].offset < at)
                ++k;
            --k;
        }
        QCOMPARE(tail.stats().bytesRead, appendedBytes);
        QCOMPARE(tail.stats().reloads, std::uint64_t(0));
        QVERIFY(tail.stats().appends > 0);
        const LoadResult fresh = loadFile(path.toStdString(), options());
        const std::string diff = difference(*tail.current(), *fresh.transcript);
        QVERIFY2(diff.empty(), diff.c_str());

        // Rewritten shorter: read again in full.
        writeFile(path, bytes.substr(0, start), false);
        LiveTail::Update u = tail.poll();
        QCOMPARE(int(u.kind), int(LiveTail::Update::Kind::Reloaded));
        QCOMPARE(tail.current()->buffer->size(), start);
        QVERIFY(u.newMessages < 0);
        // Replaced by another file (a new inode) of the same size: read again too.
        const QString other = dir.filePath(QStringLiteral("other.jsonl"));
        writeFile(other, bytes.substr(0, start), false);
        QVERIFY(QFile::remove(path));
        QVERIFY(QFile::rename(other, path));
        u = tail.poll();
        QCOMPARE(int(u.kind), int(LiveTail::Update::Kind::Reloaded));
        // Gone: the update says so and the transcript stays.
        QVERIFY(QFile::remove(path));
        u = tail.poll();
        QCOMPARE(int(u.kind), int(LiveTail::Update::Kind::Failed));
        QVERIFY(tail.current() != nullptr);
    }
};

QTEST_GUILESS_MAIN(TestLiveTail)
#include "tst_livetail.moc"
