// SPDX-License-Identifier: MIT
// Item models and proxies of the GUI: structure (QAbstractItemModelTester), a printed tree compared
// with tests/data/gui/transcript-tree.txt, filtering, and the token bar's geometry.
//
// Regenerate the golden file after an intended change (then READ the diff):
//   CL_REGENERATE_GOLDEN=1 ./build-xxx/tests/tst_models
#include "widgets/models/diagnosticsmodel.h"
#include "widgets/models/roles.h"
#include "widgets/models/tokenbargeometry.h"
#include "widgets/models/transcriptfiltermodel.h"
#include "widgets/models/transcriptmodel.h"

#include "core/io/loader.h"
#include "core/tokens/estimator.h"

#include "test_support.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QFont>
#include <QStyleFactory>
#include <QtTest>

using namespace cl;
using namespace cl::gui;

namespace {

// Before QApplication exists: headless platform, and UTC so the Time column is the same everywhere.
const bool kEnvironment = [] {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    qputenv("TZ", "UTC");
    QCoreApplication::setAttribute(Qt::AA_Use96Dpi);
    return true;
}();

void addMessage(Transcript &t, std::string &buffer, Message m, const std::string &line)
{
    Record r;
    r.offset = std::uint32_t(buffer.size());
    buffer += line + '\n';
    r.length = std::uint32_t(line.size() + 1);
    r.line = std::uint32_t(t.records.size() + 1);
    r.message = std::int32_t(t.messages.size());
    r.parsed = true;
    m.records = {std::uint32_t(t.records.size())};
    m.line = r.line;
    t.records.push_back(r);
    t.messages.push_back(std::move(m));
}

Block textBlock(BlockType type, std::string text)
{
    Block b;
    b.type = type;
    b.text = std::move(text);
    return b;
}

// Seven messages covering every row style: plain turns, a tool pair, a compact boundary, a meta
// line, a sidechain turn and an event.
std::shared_ptr<Transcript> handBuilt()
{
    auto t = std::make_shared<Transcript>();
    t->format = Format::ClaudeCode;
    t->path = "hand-built.jsonl";
    std::string buffer;

    Message user;
    user.role = Role::User;
    user.type = "user";
    user.timestamp = "2025-09-03T00:47:19.293Z";
    user.timeMs = parseTimestamp(user.timestamp);
    user.blocks.push_back(textBlock(BlockType::Text, "Hello\n\n  world, list the files"));
    addMessage(*t, buffer, user, R"({"type":"user","message":{"role":"user","content":"Hello"}})");

    Message assistant;
    assistant.role = Role::Assistant;
    assistant.type = "assistant";
    assistant.timestamp = "2025-09-03T00:47:21.000Z";
    assistant.timeMs = parseTimestamp(assistant.timestamp);
    assistant.usage = Usage{10, 20, 300, 4000, 0, 0};
    assistant.blocks.push_back(textBlock(BlockType::Thinking, "The user wants a listing."));
    Block use;
    use.type = BlockType::ToolUse;
    use.toolId = "toolu_1";
    use.toolName = "Bash";
    use.input = nlohmann::json{{"command", "ls -la"}, {"description", "List files"}};
    assistant.blocks.push_back(use);
    addMessage(*t, buffer, assistant, R"({"type":"assistant","message":{"role":"assistant","content":[]}})");

    Message result;
    result.role = Role::User;
    result.type = "user";
    result.timestamp = "2025-09-03T00:47:22.500Z";
    result.timeMs = parseTimestamp(result.timestamp);
    Block res = textBlock(BlockType::ToolResult, "total 8\nfile_a.txt\nfile_b.txt");
    res.toolId = "toolu_1";
    result.blocks.push_back(res);
    addMessage(*t, buffer, result, R"({"type":"user","toolUseResult":{}})");

    Message boundary;
    boundary.role = Role::System;
    boundary.kind = MessageKind::CompactBoundary;
    boundary.type = "system/compact_boundary";
    boundary.meta = nlohmann::json{{"trigger", "auto"}, {"preTokens", 1234}};
    addMessage(*t, buffer, boundary, R"({"type":"system","subtype":"compact_boundary"})");

    Message meta;
    meta.kind = MessageKind::Meta;
    meta.type = "summary";
    meta.blocks.push_back(textBlock(BlockType::Text, "Listing files in a.b"));
    addMessage(*t, buffer, meta, R"({"type":"summary","summary":"Listing files in a.b","leafUuid":"x"})");

    Message side;
    side.role = Role::Assistant;
    side.type = "assistant";
    side.sidechain = true;
    side.agentId = "agent-7";
    side.blocks.push_back(textBlock(BlockType::Text, "Subagent report: axb"));
    addMessage(*t, buffer, side, R"({"type":"assistant","isSidechain":true})");

    Message event;
    event.role = Role::System;
    event.kind = MessageKind::Event;
    event.type = "system/turn_duration";
    event.meta = nlohmann::json{{"durationMs", 2500}};
    addMessage(*t, buffer, event, R"({"type":"system","subtype":"turn_duration","durationMs":2500})");

    t->buffer = std::make_shared<const std::string>(std::move(buffer));
    linkToolPairs(*t);
    tokens::estimateAll(*t, 1);
    return t;
}

// One line a row: indent, the display columns (tokens excluded: the estimator has its own tests)
// and markers for the styling roles.
void printRows(const QAbstractItemModel &model, const QModelIndex &parent, int depth, QString &out)
{
    for (int row = 0; row < model.rowCount(parent); ++row) {
        const QModelIndex idx = model.index(row, 0, parent);
        QStringList cols;
        for (int c : {TranscriptModel::IndexColumn, TranscriptModel::TimeColumn, TranscriptModel::RoleColumn, TranscriptModel::PreviewColumn})
            cols << model.index(row, c, parent).data().toString();
        QString line = QString(depth * 2, u' ') + cols.join(QStringLiteral(" | "));
        if (idx.data(IsSecondaryRole).toBool())
            line += QStringLiteral("  [grey]");
        if (idx.data(IsBoundaryRole).toBool())
            line += QStringLiteral("  [boundary bold=%1 bg=%2]")
                        .arg(idx.data(Qt::FontRole).value<QFont>().bold())
                        .arg(idx.data(Qt::BackgroundRole).isValid());
        const QString tool = idx.data(ToolNameRole).toString();
        if (!tool.isEmpty())
            line += QStringLiteral("  [tool=%1]").arg(tool);
        out += line + u'\n';
        printRows(model, idx, depth + 1, out);
    }
}

QString printTree(const QAbstractItemModel &model)
{
    QString out;
    printRows(model, {}, 0, out);
    return out;
}

QStringList topLevelPreviews(const QAbstractItemModel &model)
{
    QStringList rows;
    for (int r = 0; r < model.rowCount(); ++r)
        rows << model.index(r, TranscriptModel::IndexColumn).data(MessageIndexRole).toString(); // transcript index
    return rows;
}

} // namespace

class TestModels : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    }

    void printedTreeMatchesGolden()
    {
        TranscriptModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTranscript(handBuilt());
        const QString printed = printTree(model);
        const QString goldenPath = QStringLiteral(CL_TEST_DATA_DIR "/gui/transcript-tree.txt");
        if (qEnvironmentVariableIntValue("CL_REGENERATE_GOLDEN")) {
            QFile f(goldenPath);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(printed.toUtf8());
            QSKIP("golden file regenerated; review the diff");
        }
        QFile f(goldenPath);
        QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(goldenPath));
        QCOMPARE(printed, QString::fromUtf8(f.readAll()));
    }

    void rolesAndTokens()
    {
        TranscriptModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        auto t = handBuilt();
        model.setTranscript(t);
        QCOMPARE(model.rowCount(), 7);
        QCOMPARE(model.columnCount(), int(TranscriptModel::ColumnCount));
        qint64 max = 0;
        for (int r = 0; r < model.rowCount(); ++r) {
            const QModelIndex idx = model.index(r, TranscriptModel::TokensColumn);
            QCOMPARE(idx.data(TokensRole).toLongLong(), tokens::estimateMessage(t->messages[std::size_t(r)]));
            QCOMPARE(idx.data().toLongLong(), idx.data(TokensRole).toLongLong());
            max = std::max(max, idx.data(TokensRole).toLongLong());
            QCOMPARE(idx.data(MessageIndexRole).toInt(), r);
            QCOMPARE(idx.data(BlockIndexRole).toInt(), -1);
        }
        QVERIFY(max > 0);
        QCOMPARE(model.index(0, 0).data(MaxTokensRole).toLongLong(), max);
        const QModelIndex use = model.index(1, 0, model.index(1, 0));
        QCOMPARE(use.data(KindRole).toString(), QStringLiteral("tool_use"));
        QCOMPARE(use.data(TokensRole).toLongLong(), tokens::estimateBlock(t->messages[1].blocks[1]));
        QCOMPARE(use.data(BlockIndexRole).toInt(), 1);
        QCOMPARE(use.data(MessageIndexRole).toInt(), 1);
        // The result got its tool name from linkToolPairs, and is the row the screenshot selects.
        const QModelIndex rep = model.representativeIndex();
        QCOMPARE(rep, model.index(0, 0, model.index(2, 0)));
        QCOMPARE(rep.data(ToolNameRole).toString(), QStringLiteral("Bash"));
        // Raw JSON is the source record, pretty-printed.
        QCOMPARE(model.index(3, 0).data(RawJsonRole).toString(),
                 QStringLiteral("{\n  \"subtype\": \"compact_boundary\",\n  \"type\": \"system\"\n}\n"));
        QCOMPARE(model.indexForSourceLine(5), model.index(4, 0));
        QVERIFY(!model.indexForSourceLine(99).isValid());
        QVERIFY(!model.index(0, 0).data(Qt::ToolTipRole).toString().isEmpty());
    }

    void flattenPreview()
    {
        QCOMPARE(TranscriptModel::flattenPreview("a\n\n  b\tc  "), QStringLiteral("a b c"));
        QCOMPARE(TranscriptModel::flattenPreview("abcdef", 3), QStringLiteral("abc…"));
        QCOMPARE(TranscriptModel::flattenPreview(""), QString());
    }

    void sampleFile()
    {
        const QString path = QStringLiteral(CL_SAMPLES_DIR "/claude-code/viewer-sample-small.jsonl");
        CL_REQUIRE(QFile::exists(path), "sample transcripts not present");
        LoadResult r = loadFile(path.toStdString());
        QVERIFY(r.ok());
        TranscriptModel model;
        TranscriptFilterModel filter;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester filterTester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
        filter.setSourceModel(&model);
        model.setTranscript(r.transcript);
        const auto &msgs = r.transcript->messages;
        QVERIFY(!msgs.empty());
        QCOMPARE(model.rowCount(), int(msgs.size()));
        for (int i = 0; i < model.rowCount(); ++i)
            QCOMPARE(model.rowCount(model.index(i, 0)), int(msgs[std::size_t(i)].blocks.size()));
        // The sample analyses a codebase with tools: there is a result to show.
        QCOMPARE(model.representativeIndex().data(KindRole).toString(), QStringLiteral("tool_result"));
        filter.setPattern(QStringLiteral("CLAUDE.md"), false);
        QVERIFY(filter.rowCount() > 0);
        QVERIFY(filter.rowCount() < model.rowCount());
    }

    void filterPlainRegexRecursive()
    {
        TranscriptModel model;
        TranscriptFilterModel filter;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester filterTester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
        filter.setSourceModel(&model);
        model.setTranscript(handBuilt());
        QCOMPARE(filter.rowCount(), 7);
        // hasChildren asks the source while no filter can drop a block; it agrees with rowCount.
        const auto childrenAgree = [&filter] {
            for (int r = 0; r < filter.rowCount(); ++r)
                if (filter.hasChildren(filter.index(r, 0)) != (filter.rowCount(filter.index(r, 0)) > 0))
                    return false;
            return true;
        };
        QVERIFY(childrenAgree());

        // Plain text is literal: "a.b" is in the meta line only, not in "axb".
        filter.setPattern(QStringLiteral("a.b"), false);
        QCOMPARE(topLevelPreviews(filter), QStringList{QStringLiteral("4")});
        // As a regex the dot matches the x of the sidechain message too.
        filter.setPattern(QStringLiteral("a.b"), true);
        QCOMPARE(topLevelPreviews(filter), (QStringList{QStringLiteral("4"), QStringLiteral("5")}));
        // Case-insensitive.
        filter.setPattern(QStringLiteral("SUBAGENT"), false);
        QCOMPARE(topLevelPreviews(filter), QStringList{QStringLiteral("5")});

        // Recursive: only the tool_result block mentions file_b; its message stays as the parent.
        filter.setPattern(QStringLiteral("file_b"), false);
        QCOMPARE(topLevelPreviews(filter), QStringList{QStringLiteral("2")});
        const QModelIndex parent = filter.index(0, 0);
        QCOMPARE(filter.rowCount(parent), 1);
        QCOMPARE(filter.index(0, 0, parent).data(KindRole).toString(), QStringLiteral("tool_result"));
        // A tool_use matches by its tool name and input; the thinking sibling is filtered out.
        filter.setPattern(QStringLiteral("ls -la"), false);
        QCOMPARE(topLevelPreviews(filter), QStringList{QStringLiteral("1")});
        QCOMPARE(filter.rowCount(filter.index(0, 0)), 1);
        QVERIFY(childrenAgree());

        // An invalid regex shows nothing and says so.
        filter.setPattern(QStringLiteral("(unclosed"), true);
        QVERIFY(!filter.isPatternValid());
        QCOMPARE(filter.rowCount(), 0);

        // Hiding metadata/events removes the summary line and the turn_duration event, even when
        // the filter text matches them.
        filter.setPattern({}, false);
        filter.setHideMetaEvents(true);
        QCOMPARE(topLevelPreviews(filter), (QStringList{QStringLiteral("0"), QStringLiteral("1"), QStringLiteral("2"),
                                                        QStringLiteral("3"), QStringLiteral("5")}));
        QVERIFY(childrenAgree());
        filter.setPattern(QStringLiteral("a.b"), false);
        QCOMPARE(filter.rowCount(), 0);
        filter.setHideMetaEvents(false);
        QCOMPARE(filter.rowCount(), 1);
    }

    void filterDebounce()
    {
        TranscriptModel model;
        TranscriptFilterModel filter;
        QAbstractItemModelTester filterTester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
        filter.setSourceModel(&model);
        model.setTranscript(handBuilt());
        QElapsedTimer timer;
        timer.start();
        // A burst of keystrokes: only the last one filters, and not before the debounce interval.
        filter.setPatternDebounced(QStringLiteral("s"), false);
        filter.setPatternDebounced(QStringLiteral("su"), false);
        filter.setPatternDebounced(QStringLiteral("subagent"), false);
        QVERIFY(filter.isPending());
        QCOMPARE(filter.rowCount(), 7);
        QSignalSpy applied(&filter, &TranscriptFilterModel::patternApplied);
        QTRY_COMPARE(filter.rowCount(), 1);
        QVERIFY(timer.elapsed() >= TranscriptFilterModel::kDebounceMs - 20);
        QCOMPARE(applied.count(), 1);
        QCOMPARE(filter.patternText(), QStringLiteral("subagent"));
    }

    void barGeometry()
    {
        const TokenBarGeometry g;
        QCOMPARE(g.barWidth(50, 100, 200), 100);
        QCOMPARE(g.barWidth(100, 100, 200), 200);
        QCOMPARE(g.barWidth(1, 3, 100), 33);      // 33.3 rounds down
        QCOMPARE(g.barWidth(2, 3, 100), 67);      // 66.7 rounds up
        QCOMPARE(g.barWidth(1, 1000000, 200), 1); // tiny but non-zero stays visible
        QCOMPARE(g.barWidth(0, 100, 200), 0);
        QCOMPARE(g.barWidth(500, 100, 200), 200);                     // clamped to the cell
        QCOMPARE(g.barWidth(10, 0, 200), 0);                          // no scale, no bar
        QCOMPARE(g.barWidth(5000000000LL, 10000000000LL, 1000), 500); // no overflow
        QCOMPARE(g.barRect(QRect(10, 20, 104, 20), 50, 100), QRect(12, 22, 50, 16));
        QVERIFY(g.barRect(QRect(0, 0, 3, 20), 50, 100).isEmpty());
        QVERIFY(g.barRect(QRect(0, 0, 100, 20), 0, 100).isEmpty());
    }

    void diagnosticsModel()
    {
        DiagnosticsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        Diagnostic a{Diagnostic::Severity::Error, "/tmp/x/session.jsonl", 12, "invalid JSON"};
        Diagnostic b{Diagnostic::Severity::Warning, "/tmp/x/session.jsonl", 0, "orphan tool_result"};
        model.setDiagnostics({a, b});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.errorCount(), 1);
        QCOMPARE(model.index(0, DiagnosticsModel::SeverityColumn).data().toString(), QStringLiteral("error"));
        QCOMPARE(model.index(0, DiagnosticsModel::LocationColumn).data().toString(), QStringLiteral("session.jsonl:12"));
        QCOMPARE(model.index(1, DiagnosticsModel::LocationColumn).data().toString(), QStringLiteral("session.jsonl"));
        QCOMPARE(model.index(0, DiagnosticsModel::MessageColumn).data().toString(), QStringLiteral("invalid JSON"));
        QCOMPARE(model.index(0, 0).data(SourceLineRole).toInt(), 12);
        model.setDiagnostics({});
        QCOMPARE(model.rowCount(), 0);
    }
};

QTEST_MAIN(TestModels)
#include "tst_models.moc"
