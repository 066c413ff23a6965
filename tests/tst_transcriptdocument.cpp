// SPDX-License-Identifier: MIT
// The working document behind the GUI: applies that stack and undo exactly, and exports in every
// format it offers, never over the input unasked, with a clear error when the target cannot be
// written and a replaced file's mode kept.
#include "core/generator/generator.h"
#include "core/io/loader.h"
#include "core/strategy/strategy.h"
#include "core/tokens/estimator.h"
#include "widgets/transcript/transcriptdocument.h"

#include "test_support.h"
#include "trim_fixture.h"

#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <algorithm>
#include <cstring>
#include <sys/stat.h>

using namespace cl;
using namespace cl::gui;
using cl::test::runTrim;

namespace {

// Everything a message says, so two transcripts compare message by message.
std::vector<std::string> texts(const Transcript &t)
{
    std::vector<std::string> out;
    for (const Message &m : t.messages) {
        std::string s = std::string(roleName(m.role)) + "|" + std::string(messageKindName(m.kind));
        for (const Block &b : m.blocks)
            s += "|" + std::string(blockTypeName(b.type)) + ":" + b.text + b.input.dump();
        out.push_back(std::move(s));
    }
    return out;
}

std::size_t conversationCount(const Transcript &t)
{
    return static_cast<std::size_t>(std::count_if(t.messages.begin(), t.messages.end(),
                                                  [](const Message &m) { return m.isConversation() && !m.sidechain; }));
}

} // namespace

class TestTranscriptDocument : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_input;
    std::shared_ptr<const Transcript> m_t;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        gen::Options o;
        o.messages = 60;
        o.maxReadLines = 40;
        gen::Stats stats;
        std::string error;
        std::string bytes = gen::generate(o, &stats, &error);
        QVERIFY2(!bytes.empty(), error.c_str());
        m_input = m_dir.filePath(QStringLiteral("session.jsonl"));
        QFile f(m_input);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes.data(), static_cast<qint64>(bytes.size()));
        f.close();
        LoadResult r = loadBytes(std::move(bytes), m_input.toStdString());
        QVERIFY2(r.ok(), r.error.c_str());
        m_t = r.transcript;
        QVERIFY(stats.toolRounds >= 3); // trim-tools needs rounds to remove
    }

    void documentAppliesAndUndoes()
    {
        TranscriptDocument doc;
        QSignalSpy changed(&doc, &TranscriptDocument::transcriptChanged);
        doc.setSource(m_t);
        QCOMPARE(doc.path(), m_input);
        QVERIFY(!doc.isModified());
        const auto original = texts(*m_t);

        const strategy::Result r1 = runTrim(*doc.current(), 2);
        QVERIFY(r1.changed);
        QString error;
        QVERIFY2(doc.apply(r1, QStringLiteral("first"), &error), qPrintable(error));
        QVERIFY(doc.isModified());
        const auto after1 = texts(*doc.current());
        QCOMPARE(after1.size(), r1.slots.size());
        QVERIFY(after1 != original);

        // A result for the older version is refused.
        QVERIFY(!doc.apply(r1, {}, &error));
        QVERIFY(!error.isEmpty());

        const strategy::Result r2 = runTrim(*doc.current(), 0);
        QVERIFY(r2.changed);
        QVERIFY(doc.apply(r2, QStringLiteral("second")));
        const auto after2 = texts(*doc.current());
        QVERIFY(after2.size() < after1.size());
        QCOMPARE(doc.undoStack()->count(), 2);
        QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("second"));

        doc.undoStack()->undo();
        QCOMPARE(texts(*doc.current()), after1);
        doc.undoStack()->undo();
        QCOMPARE(texts(*doc.current()), original);
        QCOMPARE(doc.current(), m_t);
        QVERIFY(!doc.isModified());
        doc.undoStack()->redo();
        QCOMPARE(texts(*doc.current()), after1);
        doc.undoStack()->redo();
        QCOMPARE(texts(*doc.current()), after2);
        QCOMPARE(changed.count(), 1 + 2 + 4);

        QVERIFY(!doc.apply(strategy::unchanged(*doc.current()))); // nothing to apply
    }

    void documentExports()
    {
        TranscriptDocument doc;
        doc.setSource(m_t);
        QCOMPARE(doc.exportFormats(), (std::vector<Format>{Format::ClaudeCode, Format::OpenAIChat, Format::OpenAIResponses,
                                                           Format::Anthropic, Format::Gemini}));
        QVERIFY(doc.apply(runTrim(*doc.current(), 1)));
        const std::size_t expected = conversationCount(*doc.current());

        const QString out = m_dir.filePath(QStringLiteral("trimmed.jsonl"));
        QString error;
        QVERIFY2(doc.exportTo(out, Format::ClaudeCode, &error), qPrintable(error));
        LoadResult back = loadFile(out.toStdString());
        QVERIFY2(back.ok(), back.error.c_str());
        QCOMPARE(back.transcript->format, Format::ClaudeCode);
        // Written as Claude Code writes a compaction: the old lines stay, then a compact_boundary
        // and the new context, which is what the agent resumes from.
        const auto &msgs = back.transcript->messages;
        std::size_t boundary = msgs.size();
        for (std::size_t i = 0; i < msgs.size(); ++i)
            if (msgs[i].kind == MessageKind::CompactBoundary)
                boundary = i;
        QVERIFY(boundary < msgs.size());
        std::size_t afterBoundary = 0;
        for (std::size_t i = boundary + 1; i < msgs.size(); ++i)
            afterBoundary += msgs[i].isConversation() && !msgs[i].sidechain ? 1 : 0;
        QCOMPARE(afterBoundary, expected);

        for (Format f : doc.exportFormats()) {
            const QString path = m_dir.filePath(QStringLiteral("out-%1.json").arg(QString::fromUtf8(formatName(f).data())));
            QVERIFY2(doc.exportTo(path, f, &error), qPrintable(error));
            LoadOptions lo;
            lo.format = f;
            LoadResult r = loadFile(path.toStdString(), lo);
            QVERIFY2(r.ok(), r.error.c_str());
            QVERIFY(conversationCount(*r.transcript) > 0);
        }

        // The input file is never overwritten without the caller's confirmation.
        QFile in(m_input);
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray before = in.readAll();
        in.close();
        QVERIFY(doc.isInputPath(m_input));
        QVERIFY(!doc.exportTo(m_input, Format::ClaudeCode, &error));
        QVERIFY(error.contains(QStringLiteral("input")));
        QVERIFY(!doc.exportTo(QDir(m_dir.path()).filePath(QStringLiteral("./session.jsonl")), Format::ClaudeCode));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QCOMPARE(in.readAll(), before);
        in.close();
        QVERIFY(doc.exportTo(m_input, Format::ClaudeCode, &error, true));
        LoadResult over = loadFile(m_input.toStdString());
        QVERIFY(over.ok());
        QVERIFY(over.transcript->buffer->size() > std::size_t(before.size())); // appended, never shrunk
        QVERIFY(std::string_view(*over.transcript->buffer).substr(0, std::size_t(before.size()))
                == std::string_view(before.constData(), std::size_t(before.size())));
        // Put the original back for the other tests (they read m_t, not the file, but keep it honest).
        QVERIFY(in.open(QIODevice::WriteOnly));
        in.write(before);
        in.close();
    }

    // A session whose last main-chain line has odd field types (the compaction writer reads that
    // line): Export writes it; a failing export reports why instead of taking the window down;
    // replacing a private file keeps it private.
    void documentExportsOddFieldsAndFailures()
    {
        gen::Options g;
        g.messages = 40;
        g.seed = 9;
        std::string bytes = gen::generate(g);
        const std::size_t last = bytes.rfind("\"isSidechain\":false");
        QVERIFY(last != std::string::npos);
        bytes.replace(last, std::strlen("\"isSidechain\":false"), "\"isSidechain\":{\"no\":1}");
        LoadOptions lo;
        lo.loadSubagents = false;
        const LoadResult loaded = loadBytes(bytes, m_dir.filePath(QStringLiteral("odd.jsonl")).toStdString(), lo);
        QVERIFY(loaded.ok());
        TranscriptDocument doc;
        doc.setSource(loaded.transcript, QString::fromStdString(loaded.transcript->path));
        QVERIFY(doc.apply(runTrim(*doc.current(), 0)));
        const QString out = m_dir.filePath(QStringLiteral("odd-export.jsonl"));
        QString error;
        QVERIFY2(doc.exportTo(out, Format::ClaudeCode, &error), qPrintable(error));
        LoadOptions back;
        back.format = Format::ClaudeCode;
        QVERIFY(loadFile(out.toStdString(), back).ok());

        const QString nowhere = m_dir.filePath(QStringLiteral("missing-dir/out.jsonl"));
        QVERIFY(!doc.exportTo(nowhere, Format::ClaudeCode, &error));
        QVERIFY2(error.contains(QStringLiteral("missing-dir")), qPrintable(error));

        QVERIFY(QFile::setPermissions(out, QFileDevice::ReadOwner | QFileDevice::WriteOwner));
        QVERIFY(doc.exportTo(out, Format::Anthropic, &error, true));
        struct stat st = {};
        QCOMPARE(::stat(out.toLocal8Bit().constData(), &st), 0);
        QCOMPARE(st.st_mode & 07777, mode_t(0600));
    }
};

QTEST_GUILESS_MAIN(TestTranscriptDocument)
#include "tst_transcriptdocument.moc"
