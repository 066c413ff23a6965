// SPDX-License-Identifier: MIT
// The write path tolerates wrong field types the way the loaders do: every key of every sample (and of
// the project's own inputs of all seven formats) gets a value of every other JSON type, and each
// mutated transcript is written through every writer and every strategy's export. Nothing may throw,
// and every write must succeed. CTest runs it in three shards (CL_TEST_SHARD).
#include "test_shard.h"
#include "test_support.h"
#include "write_paths.h"
#include "core/strategies/registry.h"

#include <QDirIterator>
#include <QtTest>

using namespace cl;

namespace {

struct Source {
    QString name;
    std::string bytes;
};

std::vector<Source> sources()
{
    std::vector<Source> out;
    for (const QString &dir : {QStringLiteral(CL_SAMPLES_DIR), QStringLiteral(CL_TEST_DATA_DIR)}) {
        QDirIterator it(dir, {QStringLiteral("*.jsonl"), QStringLiteral("*.json")}, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            if (path.contains(QStringLiteral("/schema/")) || path.contains(QStringLiteral("/gui/")))
                continue;
            out.push_back({QDir(dir).relativeFilePath(path), test::readFile(path.toStdString())});
        }
    }
    return out;
}

} // namespace

class TestWriteTypes : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        // Outside CI the project's own inputs suffice; in CI the shared samples must be there too.
        QVERIFY2(!test::inCi() || test::samplesPresent(), "the shared samples (../shared/samples) are missing in CI");
    }

    void everyKeyEveryType_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("bytes");
        for (const auto &s : sources())
            QTest::newRow(qPrintable(s.name)) << s.name << QByteArray::fromStdString(s.bytes);
    }

    void everyKeyEveryType()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, bytes);
        const auto &strategies = strategy::all();
        QVERIFY(strategies.size() >= 25);
        const test::Shard shard = test::shardFromEnvironment();
        std::size_t mutants = 0;
        std::size_t checked = 0;
        std::vector<std::string> failures;
        const std::vector<Format> formats = allFormats();
        test::forEachTypeMutant(bytes.toStdString(), [&](const test::TypeMutant &m) {
            const std::size_t index = mutants++;
            if (!shard.has(index))
                return;
            LoadOptions lo;
            lo.loadSubagents = false;
            lo.threads = 1;
            const LoadResult r = loadBytes(m.bytes, name.toStdString(), lo);
            if (!r.ok())
                return;
            // One strategy per mutant, rotating, so that every strategy's export meets many of them.
            const std::vector<const strategy::Strategy *> some{strategies[index % strategies.size()]};
            const Format other = formats[index % formats.size()];
            for (const auto &f : test::writeEverywhere(*r.transcript, some, other))
                if (failures.size() < 20)
                    failures.push_back(m.label + ": " + f);
            ++checked;
        });
        QVERIFY2(mutants > 20, qPrintable(name + QStringLiteral(": too few mutants")));
        QVERIFY2(checked > 0, qPrintable(name + QStringLiteral(": no mutant loaded")));
        std::string text;
        for (const auto &f : failures)
            text += "\n  " + f;
        QVERIFY2(failures.empty(), qPrintable(name + QStringLiteral(": ") + QString::fromStdString(text)));
        qInfo("%s: %zu of %zu mutants written", qPrintable(name), checked, mutants);
    }
};

QTEST_GUILESS_MAIN(TestWriteTypes)
#include "tst_writetypes.moc"
