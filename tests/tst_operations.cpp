// SPDX-License-Identifier: MIT
// Seed 004 operations (core/workflow/operations.h): the .compression/ store (config round trip, defaults,
// bad JSON reported and never overwritten), compressNow's "N → M messages (removed K)" against the
// result counted by hand, summaries appended and listed newest first, the seed 001 events in order;
// and the operations dialog driving the same store.
#include "core/generator/generator.h"
#include "core/io/loader.h"
#include "core/workflow/operations.h"
#include "core/strategy/editor.h"
#include "core/tokens/estimator.h"
#include "core/strategies/registry.h"
#include "widgets/strategy/operationsdialog.h"
#include "widgets/strategy/paramform.h"

#include "test_support.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QLabel>
#include <QDoubleSpinBox>
#include <QSpinBox>
#include <QTreeWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace cl;
using nlohmann::json;

namespace {

const bool kEnvironment = [] {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    return true;
}();

std::shared_ptr<const Transcript> generated(std::size_t messages, std::uint64_t seed = 3)
{
    gen::Options o;
    o.messages = messages;
    o.seed = seed;
    o.maxReadLines = 200;
    return loadBytes(gen::generate(o), "session.jsonl").transcript;
}

QByteArray readAll(const std::string &path)
{
    QFile f(QString::fromStdString(path));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void writeRaw(const std::string &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(QString::fromStdString(path)).absolutePath());
    QFile f(QString::fromStdString(path));
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
}

std::size_t conversationCount(const Transcript &t)
{
    std::size_t n = 0;
    for (const Message &m : t.messages)
        n += m.isConversation() && !m.sidechain ? 1 : 0;
    return n;
}

ops::SummaryRecord record(const std::string &content, std::int64_t before, std::int64_t after, std::size_t compacted)
{
    ops::SummaryRecord r;
    r.timestamp = ops::nowIso8601();
    r.content = content;
    r.keyPoints = {"point of " + content};
    r.strategy = "test";
    r.tokensBefore = before;
    r.tokensAfter = after;
    r.messagesCompacted = compacted;
    r.firstIndex = r.firstTurn = 1;
    r.lastIndex = r.lastTurn = std::int64_t(compacted);
    return r;
}

} // namespace

class TestOperations : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void defaultsWhenFolderMissing()
    {
        QTemporaryDir dir;
        const ops::Store store(QString(dir.path() + QStringLiteral("/no/such/project")).toStdString());
        ops::Config c;
        std::string error;
        QVERIFY(store.loadConfig(c, &error));
        QCOMPARE(c.maxTurns, 50);
        QCOMPARE(c.keepRecent, 10);
        QCOMPARE(c.maxToolOutput, 3000);
        QCOMPARE(c.summaryMaxChars, 500);
        QCOMPARE(c.autoCompress, true);
        QCOMPARE(c.importanceThreshold, 0.3);
        QVERIFY(c.strategy.empty());
        const std::string expected = strategy::find("sliding-window") ? std::string("sliding-window")
                                                                      : std::string(strategy::all().front()->name());
        QCOMPARE(ops::effectiveStrategy(c), expected);
        std::vector<ops::SummaryRecord> list;
        QVERIFY(store.summaries(5, list, &error));
        QVERIFY(list.empty());

        const auto t = generated(60);
        const ops::Status s = ops::status(*t, store);
        QVERIFY(s.errors.empty());
        QCOMPARE(s.totalMessages, conversationCount(*t));
        QCOMPARE(s.compactedMessages, std::size_t(0));
        QCOMPARE(s.tokensSaved, std::int64_t(0));
        QCOMPARE(s.autoCompressDue, conversationCount(*t) > 20);
        // Reading creates nothing.
        QVERIFY(!QFileInfo::exists(QString::fromStdString(store.dir())));
    }

    void configRoundTrip()
    {
        QTemporaryDir dir;
        const ops::Store store(dir.path().toStdString());
        ops::Config c;
        c.maxTurns = 40;
        c.keepRecent = 6;
        c.maxToolOutput = 1200;
        c.summaryMaxChars = 300;
        c.autoCompress = false;
        c.importanceThreshold = 0.45;
        c.strategy = "trim-tools";
        c.params = json{{"keepLastToolRounds", 3}};
        std::string error;
        QVERIFY2(store.saveConfig(c, &error), error.c_str());
        ops::Config back;
        QVERIFY(store.loadConfig(back, &error));
        QVERIFY(back == c);
        // The file holds the documented keys.
        json j = json::parse(readAll(store.configPath()).toStdString());
        QCOMPARE(j["maxTurns"].get<int>(), 40);
        QCOMPARE(j["strategy"].get<std::string>(), std::string("trim-tools"));
        QCOMPARE(j["params"]["keepLastToolRounds"].get<int>(), 3);
        QCOMPARE(j["autoCompress"].get<bool>(), false);

        // Update merges; the rest stays.
        ops::Config updated;
        QVERIFY2(store.updateConfig(json{{"maxTurns", 20}}, &updated, &error), error.c_str());
        QCOMPARE(updated.maxTurns, 20);
        QCOMPARE(updated.keepRecent, 6);
        QVERIFY(store.loadConfig(back, &error));
        QCOMPARE(back.maxTurns, 20);
        QCOMPARE(back.params["keepLastToolRounds"].get<int>(), 3);

        // Invalid updates are refused and leave the file alone.
        const QByteArray before = readAll(store.configPath());
        QVERIFY(!store.updateConfig(json{{"params", {{"keepLastToolRounds", -1}}}}, nullptr, &error));
        QVERIFY2(error.find("keepLastToolRounds") != std::string::npos, error.c_str());
        QVERIFY(!store.updateConfig(json{{"params", {{"noSuchParam", 1}}}}, nullptr, &error));
        QVERIFY(!store.updateConfig(json{{"strategy", "no-such-strategy"}}, nullptr, &error));
        QVERIFY(error.find("no-such-strategy") != std::string::npos);
        QVERIFY(!store.updateConfig(json{{"maxTurns", "many"}}, nullptr, &error));
        QVERIFY(error.find("maxTurns") != std::string::npos);
        QVERIFY(!store.updateConfig(json{{"importanceThreshold", 1.5}}, nullptr, &error));
        QVERIFY(!store.updateConfig(json{{"bogus", 1}}, nullptr, &error));
        QCOMPARE(readAll(store.configPath()), before);
    }

    void badJsonReportedNeverOverwritten()
    {
        QTemporaryDir dir;
        const ops::Store store(dir.path().toStdString());
        const QByteArray badConfig = "{\"maxTurns\": 12,,}";
        const QByteArray badSummaries = "[{\"content\": \"x\"}";
        writeRaw(store.configPath(), badConfig);
        writeRaw(store.summariesPath(), badSummaries);

        ops::Config c;
        std::string error;
        QVERIFY(!store.loadConfig(c, &error));
        QVERIFY2(error.find("config.json") != std::string::npos, error.c_str());
        QVERIFY2(error.find("invalid JSON") != std::string::npos, error.c_str());
        QVERIFY(!store.saveConfig(ops::Config{}, &error));
        QVERIFY(error.find("config.json") != std::string::npos);
        QVERIFY(!store.updateConfig(json{{"maxTurns", 5}}, nullptr, &error));

        std::vector<ops::SummaryRecord> list;
        QVERIFY(!store.summaries(3, list, &error));
        QVERIFY2(error.find("summaries.json") != std::string::npos, error.c_str());
        QVERIFY(!store.appendSummary(record("a", 10, 5, 2), &error));
        QVERIFY(error.find("summaries.json") != std::string::npos);

        const auto t = generated(40);
        const ops::Status s = ops::status(*t, store);
        QCOMPARE(s.errors.size(), std::size_t(2));
        QVERIFY(s.errors[0].find("config.json") != std::string::npos);
        QVERIFY(s.errors[1].find("summaries.json") != std::string::npos);
        const ops::CompressOutcome out = ops::compressNow(*t, store);
        QVERIFY(!out.ok);
        QVERIFY(out.error.find("config.json") != std::string::npos);
        QVERIFY(!out.result);

        // Valid JSON of the wrong shape is reported too.
        writeRaw(store.summariesPath(), "{\"content\": \"x\"}");
        QVERIFY(!store.appendSummary(record("a", 10, 5, 2), &error));
        QVERIFY(error.find("summaries.json") != std::string::npos);
        writeRaw(store.configPath(), "{\"maxTurns\": -4}");
        QVERIFY(!store.loadConfig(c, &error));
        QVERIFY(error.find("maxTurns") != std::string::npos);

        QCOMPARE(readAll(store.configPath()), QByteArray("{\"maxTurns\": -4}"));
        QCOMPARE(readAll(store.summariesPath()), QByteArray("{\"content\": \"x\"}"));
        writeRaw(store.summariesPath(), badSummaries);
        QCOMPARE(readAll(store.summariesPath()), badSummaries);
    }

    void summariesNewestFirst()
    {
        QTemporaryDir dir;
        const ops::Store store(dir.path().toStdString());
        std::string error;
        QVERIFY(store.appendSummary(record("first", 1000, 400, 5), &error));
        QVERIFY(store.appendSummary(record("second", 900, 500, 3), &error));
        QVERIFY(store.appendSummary(record("third", 800, 700, 1), &error));
        std::vector<ops::SummaryRecord> list;
        QVERIFY(store.summaries(2, list, &error));
        QCOMPARE(list.size(), std::size_t(2));
        QCOMPARE(list[0].content, std::string("third"));
        QCOMPARE(list[1].content, std::string("second"));
        QVERIFY(store.summaries(0, list, &error));
        QCOMPARE(list.size(), std::size_t(3));
        QCOMPARE(list[2].content, std::string("first"));
        QCOMPARE(list[2].keyPoints, std::vector<std::string>{"point of first"});
        QCOMPARE(list[2].lastIndex, std::int64_t(5));
        // The file: oldest first, the documented fields.
        const json j = json::parse(readAll(store.summariesPath()).toStdString());
        QCOMPARE(j.size(), std::size_t(3));
        for (const char *key : {"timestamp", "turnRange", "content", "keyPoints", "strategy", "tokensBefore", "tokensAfter"})
            QVERIFY2(j[0].contains(key), key);
        QCOMPARE(j[0]["content"].get<std::string>(), std::string("first"));

        const auto t = generated(40);
        const ops::Status s = ops::status(*t, store);
        QCOMPARE(s.summaryCount, std::size_t(3));
        QCOMPARE(s.compactedMessages, std::size_t(5 + 3 + 1));
        QCOMPARE(s.tokensSaved, std::int64_t(600 + 400 + 100));
    }

    void compressNowTextAndEvents()
    {
        QTemporaryDir dir;
        const ops::Store store(dir.path().toStdString());
        std::string error;
        QVERIFY(store.updateConfig(json{{"strategy", "trim-tools"}}, nullptr, &error));
        const auto t = generated(200);
        std::vector<std::string> events;
        ops::Counts before, after;
        ops::CompressOptions o;
        o.analysis.threshold = 1000; // needsCompaction: tokens over it and at least 10 messages
        o.events.onNeeded = [&](const analysis::NeedsCompaction &n) {
            events.push_back("needed");
            QVERIFY(n.needed && !n.reasons.empty());
        };
        o.events.onStart = [&](const std::string &name) { events.push_back("start:" + name); };
        o.events.onComplete = [&](const ops::Counts &b, const ops::Counts &a) {
            events.push_back("complete");
            before = b;
            after = a;
        };
        const ops::CompressOutcome out = ops::compressNow(*t, store, o);
        QVERIFY2(out.ok, out.error.c_str());
        QVERIFY(out.result);
        QVERIFY(out.result->changed);
        QCOMPARE(events, (std::vector<std::string>{"needed", "start:trim-tools", "complete"}));

        // N, M, K counted from the result by hand.
        const strategy::Result &r = *out.result;
        const std::size_t n = conversationCount(*t);
        std::size_t m = 0, removed = 0;
        std::int64_t tokensAfter = 0, tokensBefore = 0;
        for (std::size_t s = 0; s < r.slots.size(); ++s) {
            const Message &msg = r.message(*t, s);
            if (msg.isConversation() && !msg.sidechain) {
                ++m;
                tokensAfter += tokens::estimateMessage(msg);
            }
        }
        for (std::size_t i = 0; i < t->messages.size(); ++i)
            if (t->messages[i].isConversation() && !t->messages[i].sidechain) {
                tokensBefore += tokens::estimateMessage(t->messages[i]);
                if (r.fates[i].slot < 0)
                    ++removed;
            }
        QVERIFY(removed > 0);
        QCOMPARE(out.text, std::to_string(n) + " \u2192 " + std::to_string(m) + " messages (removed "
                               + std::to_string(removed) + ")");
        QCOMPARE(before.messages, n);
        QCOMPARE(after.messages, m);
        QCOMPARE(before.tokens, tokensBefore);
        QCOMPARE(after.tokens, tokensAfter);
        // trim-tools inserts no summary: nothing recorded.
        QVERIFY(!out.summaryAppended);
        QVERIFY(!QFileInfo::exists(QString::fromStdString(store.summariesPath())));

        // Below the seed 001 trigger: no "needed".
        events.clear();
        o.analysis.threshold = 100000000;
        QVERIFY(ops::compressNow(*t, store, o).ok);
        QCOMPARE(events, (std::vector<std::string>{"start:trim-tools", "complete"}));
    }

    void summaryOfHandBuiltResult()
    {
        const auto t = generated(60);
        strategy::Input in(*t);
        strategy::Editor e(in);
        // Summarize the conversation from position 1 up to the first safe cut after position 10.
        const auto cut = strategy::safeCutAtOrAfter(e, 10);
        QVERIFY(cut && *cut < e.size());
        std::size_t compacted = 0;
        for (std::size_t p = 1; p < *cut; ++p)
            compacted += e.remove(e.at(p), "test", strategy::Fate::Summarized) ? 1 : 0;
        strategy::insertSummary(e, e.at(1), "Summary of the start\n- first point\n- second point", "test");
        strategy::Result r = e.finish();
        r.strategy = "hand";
        strategy::computeStats(in, r, false);
        ops::SummaryRecord rec;
        QVERIFY(ops::summaryOf(*t, r, rec));
        QCOMPARE(rec.content, std::string("Summary of the start\n- first point\n- second point"));
        QCOMPARE(rec.keyPoints, (std::vector<std::string>{"first point", "second point"}));
        QCOMPARE(rec.firstIndex, std::int64_t(e.at(1)));
        QCOMPARE(rec.lastIndex, std::int64_t(e.at(*cut - 1)));
        QCOMPARE(rec.messagesCompacted, compacted);
        QCOMPARE(rec.tokensBefore, r.stats.tokensBefore);
        QVERIFY(!ops::summaryOf(*t, strategy::unchanged(*t), rec));
    }

    void compressNowAppendsSummary()
    {
        const strategy::Strategy *s = strategy::find("sliding-window");
        CL_REQUIRE(s, "sliding-window is not registered");
        QTemporaryDir dir;
        const ops::Store store(dir.path().toStdString());
        std::string error;
        // A high threshold: seed 004 importance starts at 0.5, so the default 0.3 keeps most old messages.
        QVERIFY2(store.updateConfig(json{{"keepRecent", 4}, {"importanceThreshold", 0.95}}, nullptr, &error),
                 error.c_str());
        const auto t = generated(200);
        const ops::CompressOutcome first = ops::compressNow(*t, store);
        QVERIFY2(first.ok, first.error.c_str());
        QVERIFY(first.result->changed);
        QCOMPARE(first.result->params.integer("keepRecent"), std::int64_t(4)); // the seed field reached the strategy
        QCOMPARE(first.result->params.number("importanceThreshold"), 0.95);
        const bool inserted = std::any_of(first.result->slots.begin(), first.result->slots.end(), [](const auto &slot) {
            return slot.origin < 0 && slot.message && slot.message->kind == MessageKind::CompactSummary;
        });
        QVERIFY2(inserted, first.result->note.c_str());
        QVERIFY2(first.summaryAppended, first.summaryError.c_str());
        const ops::CompressOutcome second = ops::compressNow(*t, store);
        QVERIFY(second.summaryAppended);
        std::vector<ops::SummaryRecord> list;
        QVERIFY(store.summaries(10, list, &error));
        QCOMPARE(list.size(), std::size_t(2));
        QCOMPARE(list[0].strategy, std::string("sliding-window"));
        QCOMPARE(list[0].tokensBefore, second.result->stats.tokensBefore);
        QCOMPARE(list[0].tokensAfter, second.result->stats.tokensAfter);
        QVERIFY(!list[0].content.empty());
        QVERIFY(list[0].messagesCompacted > 0);
        QVERIFY(list[0].timestamp >= list[1].timestamp);
    }

    void dialogDrivesStore()
    {
        QTemporaryDir dir;
        const auto t = generated(120);
        gui::OperationsDialog dialog;
        const QString transcriptPath = dir.filePath(QStringLiteral("session.jsonl"));
        dialog.setTranscript(t, transcriptPath, {}, {}, {});
        QCOMPARE(dialog.currentStatus().totalMessages, conversationCount(*t));
        // The store lives under the app's data folder, not beside the transcript.
        const QString data = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
        QVERIFY2(QString::fromStdString(dialog.store().dir()).startsWith(data), dialog.store().dir().c_str());
        QVERIFY(!dialog.besideTranscript()->isChecked());
        // Edit a seed field and the strategy's own parameter, save, read the file back.
        auto *maxTurns = dialog.findChildren<QSpinBox *>().value(0);
        QVERIFY(maxTurns);
        maxTurns->setValue(33);
        auto *importance = dialog.findChild<QDoubleSpinBox *>();
        QVERIFY(importance);
        importance->setValue(0.95); // so that sliding-window folds old turns into a summary
        ops::Config c = dialog.formConfig();
        QCOMPARE(c.maxTurns, 33);
        QVERIFY(dialog.saveConfig());
        ops::Config back;
        QVERIFY(dialog.store().loadConfig(back));
        QCOMPARE(back.maxTurns, 33);
        QCOMPARE(back.strategy, ops::defaultStrategyName());
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral(".compression"))));
        // Another transcript in the same folder has a store of its own.
        gui::OperationsDialog other;
        other.setTranscript(t, dir.filePath(QStringLiteral("other.jsonl")), {}, {}, {});
        QVERIFY(other.store().dir() != dialog.store().dir());
        // Beside the transcript when the user says so (remembered); an existing .compression/ is
        // always used.
        other.besideTranscript()->setChecked(true);
        QCOMPARE(QString::fromStdString(other.store().dir()), dir.filePath(QStringLiteral(".compression")));
        other.besideTranscript()->setChecked(false);
        QVERIFY(QString::fromStdString(other.store().dir()).startsWith(data));
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral(".compression")));
        gui::OperationsDialog third;
        third.setTranscript(t, dir.filePath(QStringLiteral("third.jsonl")), {}, {}, {});
        QCOMPARE(QString::fromStdString(third.store().dir()), dir.filePath(QStringLiteral(".compression")));
        QVERIFY(QDir(dir.path()).rmdir(QStringLiteral(".compression")));

        QSignalSpy compressed(&dialog, &gui::OperationsDialog::compressed);
        QSignalSpy started(&dialog, &gui::OperationsDialog::compactionStarted);
        QSignalSpy completed(&dialog, &gui::OperationsDialog::compactionCompleted);
        dialog.compressNow();
        QCOMPARE(compressed.size(), 1);
        QCOMPARE(started.size(), 1);
        QCOMPARE(completed.size(), 1);
        const auto result = compressed.at(0).at(0).value<std::shared_ptr<const strategy::Result>>();
        QVERIFY(result);
        QVERIFY(dialog.lastCompressText().startsWith(QString::fromStdString(ops::compressText(*result))));
        QCOMPARE(completed.at(0).at(0).toLongLong(), qint64(result->stats.messagesBefore));
        QCOMPARE(completed.at(0).at(1).toLongLong(), qint64(result->stats.messagesAfter));
        if (strategy::find("sliding-window")) {
            auto *list = dialog.findChild<QTreeWidget *>(QStringLiteral("summaryList"));
            QVERIFY(list);
            QCOMPARE(list->topLevelItemCount(), 1);
            QCOMPARE(dialog.currentStatus().summaryCount, std::size_t(1));
        }
        dialog.resize(1100, 700);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QVERIFY(dialog.grab().save(QStringLiteral(CL_BINARY_DIR "/operations-dialog.png")));
    }
};

QTEST_MAIN(TestOperations)
#include "tst_operations.moc"
