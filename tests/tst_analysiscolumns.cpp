// SPDX-License-Identifier: MIT
// The transcript view's analysis columns (Priority, Importance, Boundary, Round, Critical): model
// values and tooltips, sorting and filtering in the proxy, the panel's filter bar (delegate pixels:
// tst_analysisdelegates.cpp). The small transcript (analysiscolumns_fixture.h) is an Anthropic
// Messages request; every expectation on it is worked out by hand from the rules in
// core/analysis/analysis.h (comments give the derivation).
#include "widgets/models/analysisrows.h"
#include "widgets/models/roles.h"
#include "widgets/models/transcriptfiltermodel.h"
#include "widgets/models/transcriptmodel.h"
#include "widgets/transcript/transcriptpanel.h"

#include "core/generator/generator.h"
#include "core/io/loader.h"

#include "test_support.h"

#include "tests/analysiscolumns_fixture.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QStyleFactory>
#include <QTreeView>
#include <QtTest>

using namespace cl;
using namespace cl::gui;
using namespace fixture;

namespace {

QStringList rows(const QAbstractItemModel &m)
{
    QStringList out;
    for (int r = 0; r < m.rowCount(); ++r)
        out << m.index(r, TranscriptModel::IndexColumn).data(MessageIndexRole).toString(); // transcript index
    return out;
}

QStringList column(const QAbstractItemModel &m, int col)
{
    QStringList out;
    for (int r = 0; r < m.rowCount(); ++r)
        out << m.index(r, col).data().toString();
    return out;
}

QStringList split(const char *s)
{
    return QString::fromLatin1(s).split(u' ');
}

// "|a|b": the cells "", "a", "b".
QStringList cells(const char *s)
{
    return QString::fromUtf8(s).split(u'|');
}

} // namespace

class TestAnalysisColumns : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        auto t = smallTranscript();
        QVERIFY(t);
        QCOMPARE(t->messages.size(), std::size_t(9));
        QCOMPARE(t->messages[0].role, Role::System);
        QCOMPARE(t->messages[3].blocks[0].isError, true);
    }

    void testersAcrossSwaps()
    {
        auto t = smallTranscript();
        TranscriptModel model;
        TranscriptFilterModel filter;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester filterTester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
        filter.setSourceModel(&model);
        model.setTranscript(t);
        QCOMPARE(model.columnCount(), int(TranscriptModel::ColumnCount));
        QVERIFY(!model.index(1, TranscriptModel::PriorityColumn).data().isValid()); // empty without analysis
        QSignalSpy changed(&model, &TranscriptModel::analysisChanged);

        filter.sort(TranscriptModel::ImportanceColumn, Qt::DescendingOrder);
        filter.setPriorityFilter(int(an::Priority::Low));
        QCOMPARE(filter.rowCount(), 9); // no analysis: the analysis filters do not apply
        model.setAnalysis(analyse(*t));
        QVERIFY(model.hasAnalysis());
        QCOMPARE(filter.rowCount(), 3);
        // Another analysis of the same transcript (another context window), then none.
        model.setAnalysis(analyse(*t, 3));
        QCOMPARE(filter.rowCount(), 3);
        model.setAnalysis(nullptr);
        QVERIFY(!model.analysis());
        QCOMPARE(filter.rowCount(), 9);
        QVERIFY(!model.index(1, TranscriptModel::PriorityColumn).data().isValid());
        QCOMPARE(changed.count(), 3);

        // Stale: an analysis of another transcript is ignored.
        auto other = std::make_shared<Transcript>(*t);
        other->messages.pop_back();
        model.setAnalysis(analyse(*other));
        QVERIFY(!model.analysis());
        // A new transcript drops the analysis of the old one.
        model.setAnalysis(analyse(*t));
        QVERIFY(model.analysis());
        model.setTranscript(t);
        QVERIFY(!model.analysis());
    }

    void priorityColumn()
    {
        auto t = smallTranscript();
        TranscriptModel model;
        model.setTranscript(t);
        model.setAnalysis(analyse(*t));
        // Seed 003, first match: system -> sacred; requests 1 and 7 are among the last 3 requests ->
        // critical; 8 is the last assistant message -> critical; 3 failed -> medium (before "recent");
        // 5 is one of the last 5 results -> high; older assistant messages 2, 4, 6 -> low.
        QCOMPARE(column(model, TranscriptModel::PriorityColumn),
                 split("sacred critical low medium low high low critical critical"));
        QCOMPARE(model.index(3, 0).data(PriorityRole).toInt(), int(an::Priority::Medium));
        // Blocks: the failed result block is medium by error_result; the call blocks take their message's class.
        const QModelIndex failed = model.index(0, TranscriptModel::PriorityColumn, model.index(3, 0));
        QCOMPARE(failed.data().toString(), QStringLiteral("medium"));
        QVERIFY(failed.data(Qt::ToolTipRole).toString().contains(QStringLiteral("error_result")));
        QCOMPARE(model.index(1, TranscriptModel::PriorityColumn, model.index(2, 0)).data().toString(), QStringLiteral("low"));
        QVERIFY(model.index(0, TranscriptModel::PriorityColumn).data(Qt::ToolTipRole).toString().contains(QStringLiteral("system_prompt")));
    }

    void importanceAndBoundary()
    {
        auto t = smallTranscript();
        auto a = analyse(*t);
        TranscriptModel model;
        model.setTranscript(t);
        model.setAnalysis(a);
        // Row 1: 0.5 + 0.2 (user request) + 0.2 ("fix"/"bug") = 0.9; points 30 (request; no timestamps,
        // so no recency). Important, so bold.
        const QModelIndex imp = model.index(1, TranscriptModel::ImportanceColumn);
        QCOMPARE(imp.data().toString(), QStringLiteral("0.90 · 30 pts"));
        QCOMPARE(imp.data(ImportanceRole).toDouble(), 0.9);
        QVERIFY(imp.data(Qt::FontRole).value<QFont>().bold());
        QVERIFY(imp.data(Qt::ToolTipRole).toString().contains(QStringLiteral("keyword")));
        // Row 5: 0.5 - 0.2 (tool result) - 0.1 ("File written" is shorter than 20) = 0.2: not important.
        QCOMPARE(model.index(5, TranscriptModel::ImportanceColumn).data().toString().left(4), QStringLiteral("0.20"));
        QVERIFY(!model.index(5, 0).data(ImportantRole).toBool());
        QVERIFY(!model.index(5, TranscriptModel::ImportanceColumn).data(Qt::FontRole).value<QFont>().bold());
        // Blocks have no importance.
        QVERIFY(!model.index(0, TranscriptModel::ImportanceColumn, model.index(1, 0)).data().isValid());

        // No cut before the first message; the cut before 3 separates call 2 from its result.
        QVERIFY(!model.index(0, TranscriptModel::BoundaryColumn).data().isValid());
        QVERIFY(!model.index(0, 0).data(BoundaryScoreRole).isValid());
        const QModelIndex b3 = model.index(3, TranscriptModel::BoundaryColumn);
        QCOMPARE(b3.data(BoundaryScoreRole).toDouble(), a->boundaries[2].score);
        QVERIFY(b3.data(Qt::ToolTipRole).toString().contains(QStringLiteral("tool_sequence_call_result")));
        // A cut that separates a call from its result scores below the cut right after that result.
        QVERIFY(b3.data(BoundaryScoreRole).toDouble() < model.index(4, 0).data(BoundaryScoreRole).toDouble());
        QVERIFY(a->boundary);
        int chosen = 0;
        for (int r = 0; r < model.rowCount(); ++r)
            if (model.index(r, 0).data(ChosenBoundaryRole).toBool()) {
                ++chosen;
                QCOMPARE(std::size_t(r), a->view.index[*a->boundary]);
                QVERIFY(model.index(r, TranscriptModel::BoundaryColumn).data().toString().startsWith(u'✂'));
            }
        QCOMPARE(chosen, 1);
    }

    void roundAndCritical()
    {
        auto t = smallTranscript();
        TranscriptModel model;
        model.setTranscript(t);
        model.setAnalysis(analyse(*t));
        auto cell = [&](int r) { return model.index(r, TranscriptModel::RoundColumn).data(RoundRole).value<RoundCell>(); };
        QVERIFY(!model.index(1, TranscriptModel::RoundColumn).data(RoundRole).isValid());
        QCOMPARE(cell(2).round, 1);
        QCOMPARE(cell(2).part, RoundPart::Start);
        QVERIFY(cell(2).failed);
        QCOMPARE(cell(3).part, RoundPart::End);
        QCOMPARE(cell(4).round, 2);
        QCOMPARE(cell(4).part, RoundPart::Start);
        QCOMPARE(cell(5).part, RoundPart::End);
        // The two rounds form one chain from the first call (2) to the last result (5).
        QCOMPARE(cell(2).chainPart, ChainPart::Start);
        QCOMPARE(cell(3).chainPart, ChainPart::Middle);
        QCOMPARE(cell(4).chainPart, ChainPart::Middle);
        QCOMPARE(cell(5).chainPart, ChainPart::End);
        QCOMPARE(cell(2).chain, cell(5).chain);
        QCOMPARE(column(model, TranscriptModel::RoundColumn), cells("||1|1|2|2|||"));
        QVERIFY(model.index(4, TranscriptModel::RoundColumn).data(Qt::ToolTipRole).toString().contains(QStringLiteral("chained rounds 1–2")));

        // Bash failed -> error_context on the call and its result; Write -> file_modification.
        QCOMPARE(column(model, TranscriptModel::CriticalColumn),
                 cells("||⚠ error_context|↳ error_context|⚠ file_modification|↳ file_modification|||"));
        QCOMPARE(model.index(4, 0).data(CriticalRole).toString(), QStringLiteral("file_modification"));
        // Only the tool_use block carries the mark, not the text before it.
        QVERIFY(!model.index(0, TranscriptModel::CriticalColumn, model.index(4, 0)).data().isValid());
        QCOMPARE(model.index(1, TranscriptModel::CriticalColumn, model.index(4, 0)).data().toString(), QStringLiteral("⚠ file_modification"));
        QVERIFY(model.index(2, TranscriptModel::CriticalColumn).data(Qt::ToolTipRole).toString().contains(QStringLiteral("Bash failed")));
    }

    void sorting()
    {
        auto t = smallTranscript();
        TranscriptModel model;
        TranscriptFilterModel filter;
        QAbstractItemModelTester filterTester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
        filter.setSourceModel(&model);
        model.setTranscript(t);
        model.setAnalysis(analyse(*t));
        // Importance descending: row 1 (0.90) is the only one above 0.7.
        filter.sort(TranscriptModel::ImportanceColumn, Qt::DescendingOrder);
        QCOMPARE(rows(filter).first(), QStringLiteral("1"));
        // Priority ascending: sacred, critical (1, 7, 8 in file order), high, medium, low (2, 4, 6).
        filter.sort(TranscriptModel::PriorityColumn, Qt::AscendingOrder);
        QCOMPARE(rows(filter), split("0 1 7 8 5 3 2 4 6"));
        filter.sort(TranscriptModel::PriorityColumn, Qt::DescendingOrder);
        QCOMPARE(rows(filter), split("2 4 6 3 5 1 7 8 0"));
        // Blocks stay in block order in either direction.
        const QModelIndex two = filter.index(0, 0);
        QCOMPARE(filter.index(0, TranscriptModel::RoleColumn, two).data().toString(), QStringLiteral("text"));
        QCOMPARE(filter.index(1, TranscriptModel::RoleColumn, two).data().toString(), QStringLiteral("tool_use"));
        // Critical descending: error_context (2, 3), file_modification (4, 5); rows without a mark last.
        filter.sort(TranscriptModel::CriticalColumn, Qt::DescendingOrder);
        QCOMPARE(rows(filter), split("2 3 4 5 0 1 6 7 8"));
        filter.sort(TranscriptModel::CriticalColumn, Qt::AscendingOrder);
        QCOMPARE(rows(filter), split("4 5 2 3 0 1 6 7 8"));
        // Round: calls before results, unrelated rows last.
        filter.sort(TranscriptModel::RoundColumn, Qt::AscendingOrder);
        QCOMPARE(rows(filter), split("2 3 4 5 0 1 6 7 8"));
        // # restores the file order.
        filter.sort(TranscriptModel::IndexColumn, Qt::AscendingOrder);
        QCOMPARE(rows(filter), split("0 1 2 3 4 5 6 7 8"));
        filter.sort(TranscriptModel::IndexColumn, Qt::DescendingOrder);
        QCOMPARE(rows(filter), split("8 7 6 5 4 3 2 1 0"));
        // Sorted by importance, a new analysis re-sorts (a layout change of the source).
        filter.sort(TranscriptModel::ImportanceColumn, Qt::DescendingOrder);
        model.setAnalysis(nullptr);
        QCOMPARE(rows(filter), split("0 1 2 3 4 5 6 7 8"));
        model.setAnalysis(analyse(*t));
        QCOMPARE(rows(filter).first(), QStringLiteral("1"));
    }

    void filtering()
    {
        auto t = smallTranscript();
        auto a = analyse(*t);
        TranscriptModel model;
        TranscriptFilterModel filter;
        QAbstractItemModelTester filterTester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
        filter.setSourceModel(&model);
        model.setTranscript(t);
        model.setAnalysis(a);
        filter.setPriorityFilter(int(an::Priority::Low));
        QCOMPARE(rows(filter), split("2 4 6"));
        filter.setPriorityFilter(int(an::Priority::High));
        QCOMPARE(rows(filter), split("5"));
        filter.setPriorityFilter(int(an::Priority::Sacred));
        QCOMPARE(rows(filter), split("0"));
        filter.setPriorityFilter(-1);
        QCOMPARE(filter.rowCount(), 9);

        filter.setCriticalOnly(true);
        QCOMPARE(rows(filter), split("2 3 4 5"));
        // Of the Write message only the marked tool_use block stays.
        QCOMPARE(filter.rowCount(filter.index(2, 0)), 1);
        QCOMPARE(filter.index(0, TranscriptModel::RoleColumn, filter.index(2, 0)).data().toString(), QStringLiteral("tool_use"));
        // With the text filter: both must hold.
        filter.setPattern(QStringLiteral("pytest"), false);
        QCOMPARE(rows(filter), split("2"));
        filter.setPattern({}, false);
        filter.setCriticalOnly(false);

        filter.setImportantOnly(true);
        QStringList important;
        for (std::size_t p = 0; p < a->view.size(); ++p)
            if (a->importance[p].important)
                important << QString::number(a->view.index[p]);
        QCOMPARE(rows(filter), important);
        QVERIFY(important.contains(QStringLiteral("1")));
        QVERIFY(!important.contains(QStringLiteral("5"))); // 0.2, below the 0.3 threshold
        filter.setImportantOnly(false);

        // Minimum boundary score: exactly the rows whose cut scores at least that much.
        double maxScore = 0;
        for (const auto &b : a->boundaries)
            maxScore = std::max(maxScore, b.score);
        QVERIFY(maxScore > 0);
        filter.setMinBoundaryScore(maxScore);
        QStringList best;
        for (const auto &b : a->boundaries)
            if (b.score >= maxScore)
                best << QString::number(b.index);
        QCOMPARE(rows(filter), best);
        QVERIFY(!best.contains(QStringLiteral("3")));
        filter.setMinBoundaryScore(0);
        QCOMPARE(filter.rowCount(), 9);
    }

    void panelFilterBar()
    {
        auto t = smallTranscript();
        TranscriptPanel panel;
        panel.resize(1600, 400); // every column on screen, for the header click below
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.setTranscript(t);
        QVERIFY(!panel.priorityCombo()->isEnabled());
        QVERIFY(panel.view()->isSortingEnabled());
        QCOMPARE(panel.view()->header()->count(), int(TranscriptModel::ColumnCount));
        QCOMPARE(rows(*panel.view()->model()), split("0 1 2 3 4 5 6 7 8"));
        panel.setAnalysis(analyse(*t));
        QVERIFY(panel.priorityCombo()->isEnabled());
        QVERIFY(panel.criticalOnlyBox()->isEnabled());
        panel.priorityCombo()->setCurrentIndex(panel.priorityCombo()->findText(QStringLiteral("low")));
        QCOMPARE(rows(*panel.view()->model()), split("2 4 6"));
        panel.priorityCombo()->setCurrentIndex(0);
        panel.criticalOnlyBox()->setChecked(true);
        QCOMPARE(rows(*panel.view()->model()), split("2 3 4 5"));
        panel.criticalOnlyBox()->setChecked(false);
        panel.importantOnlyBox()->setChecked(true);
        QVERIFY(!rows(*panel.view()->model()).contains(QStringLiteral("5")));
        panel.importantOnlyBox()->setChecked(false);
        // Clicking the Importance header sorts highest first (InitialSortOrderRole).
        panel.view()->header()->setSortIndicator(0, Qt::AscendingOrder);
        QTest::mouseClick(panel.view()->header()->viewport(), Qt::LeftButton, {},
                          QPoint(panel.view()->header()->sectionViewportPosition(TranscriptModel::ImportanceColumn) + 10, 5));
        QCOMPARE(panel.view()->header()->sortIndicatorOrder(), Qt::DescendingOrder);
        QCOMPARE(rows(*panel.view()->model()).first(), QStringLiteral("1"));
        panel.setAnalysis(nullptr);
        QVERIFY(!panel.minBoundarySpin()->isEnabled());
        QCOMPARE(panel.view()->model()->rowCount(), 9);
    }

    void realSample()
    {
        const QString dir = QStringLiteral(CL_SAMPLES_DIR "/claude-code/");
        bool found = false;
        for (const char *name : {"viewer-sample-small.jsonl", "viewer-sample-edits.jsonl", "fixture-compaction.jsonl"}) {
            const QString path = dir + QString::fromLatin1(name);
            if (!QFile::exists(path))
                continue;
            LoadResult r = loadFile(path.toStdString());
            QVERIFY(r.ok());
            auto a = std::make_shared<const an::Analysis>(an::analyze(*r.transcript));
            TranscriptModel model;
            TranscriptFilterModel filter;
            QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
            QAbstractItemModelTester filterTester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
            filter.setSourceModel(&model);
            model.setTranscript(r.transcript);
            model.setAnalysis(a);
            QVERIFY(model.hasAnalysis());
            // Every conversation row has a priority, the others none.
            for (int row = 0; row < model.rowCount(); ++row) {
                const bool conversation = a->view.position[std::size_t(row)] >= 0;
                QCOMPARE(!model.index(row, TranscriptModel::PriorityColumn).data().toString().isEmpty(), conversation);
                QCOMPARE(model.index(row, TranscriptModel::ImportanceColumn).data().isValid(), conversation);
            }
            // The critical filter shows exactly the messages of the critical calls and their results.
            filter.setCriticalOnly(true);
            QSet<int> expected;
            for (const auto &c : a->critical)
                expected.insert(int(c.message));
            for (int row = 0; row < filter.rowCount(); ++row)
                expected.remove(filter.index(row, 0).data(MessageIndexRole).toInt());
            QVERIFY(expected.isEmpty());
            filter.setCriticalOnly(false);
            filter.sort(TranscriptModel::BoundaryColumn, Qt::DescendingOrder);
            if (!a->boundary)
                continue;
            const int chosenRow = int(a->view.index[*a->boundary]);
            QVERIFY(model.index(chosenRow, 0).data(ChosenBoundaryRole).toBool());
            QVERIFY(model.index(chosenRow, TranscriptModel::BoundaryColumn).data().toString().startsWith(u'✂'));
            // Sorted by boundary score, the first row scores as high as the chosen one (it is the
            // best in its search range, which need not be global).
            QVERIFY(filter.index(0, 0).data(BoundaryScoreRole).toDouble() >= model.index(chosenRow, 0).data(BoundaryScoreRole).toDouble());
            found = true;
        }
        CL_REQUIRE(found, "no sample with a compaction boundary present");
    }

    void largeTranscriptStaysResponsive()
    {
        gen::Options o;
        o.messages = 4000;
        o.format = Format::ClaudeCode;
        LoadResult r = loadBytes(gen::generate(o), "big.jsonl");
        QVERIFY(r.ok());
        auto a = std::make_shared<const an::Analysis>(an::analyze(*r.transcript));
        TranscriptModel model;
        TranscriptFilterModel filter;
        filter.setSourceModel(&model);
        model.setTranscript(r.transcript);
        QElapsedTimer timer;
        timer.start();
        model.setAnalysis(a);
        const qint64 setMs = timer.elapsed();
        timer.restart();
        filter.sort(TranscriptModel::ImportanceColumn, Qt::DescendingOrder);
        QVERIFY(filter.rowCount() == model.rowCount());
        const qint64 sortMs = timer.elapsed();
        qInfo("%d rows: setAnalysis %lld ms, sort by importance %lld ms", model.rowCount(), setMs, sortMs);
        // Generous for a debug build on a shared machine; the point is no per-row work that scales badly.
        QVERIFY(setMs < 1000);
        QVERIFY(sortMs < 5000);
    }
};

QTEST_MAIN(TestAnalysisColumns)
#include "tst_analysiscolumns.moc"
