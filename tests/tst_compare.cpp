// SPDX-License-Identifier: MIT
// Compare view: the table model and its sorting proxy over real compare() rows on a generated
// Claude Code session (QAbstractItemModelTester), the chart geometry by hand, the chart's hit
// testing and clicks, and the view's background run (finish, cancel, selection sync, preview).
#include "core/cost/nextturns.h"
#include "core/workflow/compare.h"
#include "core/generator/generator.h"
#include "core/io/loader.h"
#include "core/strategies/registry.h"
#include "widgets/strategy/comparechart.h"
#include "widgets/strategy/compareview.h"
#include "widgets/models/comparechartgeometry.h"
#include "widgets/models/comparemodel.h"
#include "widgets/style/theme.h"

#include "test_support.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QLabel>
#include <QLocale>
#include <QSpinBox>
#include <QProgressBar>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QtTest>

using namespace cl;
using namespace cl::gui;

namespace {

const bool kEnvironment = cl::test::guiEnvironment();

std::shared_ptr<const Transcript> generated(std::size_t messages, std::uint64_t seed = 7)
{
    gen::Options o;
    o.format = Format::ClaudeCode;
    o.messages = messages;
    o.seed = seed;
    o.maxReadLines = 200;
    o.compactAt = 100; // no compaction: every message is live context
    std::string error;
    std::string bytes = gen::generate(o, nullptr, &error);
    auto loaded = loadBytes(std::move(bytes), "generated.jsonl");
    return loaded.transcript;
}

strategy::CompareRow handRow(const char *name, qint64 before, qint64 after, double facts, double cache, double ms)
{
    strategy::CompareRow r;
    r.strategy = name;
    r.title = std::string("Title of ") + name;
    r.result.changed = after < before;
    r.result.stats.tokensBefore = before;
    r.result.stats.tokensAfter = after;
    r.result.stats.reduction = 1.0 - double(after) / double(before);
    // The table and chart show the live context (fixed part included): here the same figures.
    r.result.stats.liveBefore = before;
    r.result.stats.liveAfter = after;
    r.result.stats.liveReduction = r.result.stats.reduction;
    r.result.stats.factRetention = facts;
    r.result.stats.cachePrefixShare = cache;
    r.result.stats.millis = ms;
    return r;
}

} // namespace

class TestCompare : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        m_transcript = generated(240);
        QVERIFY(m_transcript);
        QVERIFY(analysis::conversationView(*m_transcript).size() > 100);
        QVERIFY2(strategy::all().size() >= 1, "no strategy registered");
        strategy::Input in(*m_transcript);
        strategy::CompareOptions o;
        o.threads = 2;
        m_rows = strategy::compare(in, o);
        QCOMPARE(m_rows.size(), strategy::all().size());
    }

    void modelPassesTester()
    {
        CompareModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSortFilterProxyModel proxy;
        proxy.setSortRole(CompareSortRole);
        proxy.setSourceModel(&model);
        QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), int(strategy::all().size()));
        // Before a run: every strategy listed, no numbers.
        QCOMPARE(model.index(0, CompareModel::TokensColumn).data().toString(), QString());
        QVERIFY(!model.index(0, 0).data(HasResultRole).toBool());
        model.setRows(m_rows);
        for (int c = 0; c < CompareModel::ColumnCount; ++c) {
            proxy.sort(c, Qt::AscendingOrder);
            proxy.sort(c, Qt::DescendingOrder);
        }
        QCOMPARE(model.rowCount(), int(m_rows.size()));
        const QLocale loc;
        for (int r = 0; r < model.rowCount(); ++r) {
            const QString name = model.index(r, 0).data(StrategyNameRole).toString();
            const strategy::CompareRow *row = model.rowFor(name);
            QVERIFY(row);
            const auto &s = row->result.stats;
            QCOMPARE(model.index(r, CompareModel::TokensColumn).data().toString(),
                     loc.toString(s.liveBefore) + QStringLiteral(" \u2192 ") + loc.toString(s.liveAfter));
            QCOMPARE(model.index(r, CompareModel::StrategyColumn).data().toString(),
                     QString::fromStdString(row->title) + QStringLiteral(" (") + name + u')');
            QCOMPARE(model.index(r, CompareModel::ValidityColumn).data().toString(),
                     row->result.violations.empty() ? QStringLiteral("\u2713")
                                                    : (row->result.violations.size() == 1
                                                           ? QStringLiteral("1 violation")
                                                           : QStringLiteral("%1 violations").arg(row->result.violations.size())));
            QCOMPARE(model.index(r, CompareModel::MessagesColumn).data(CompareSortRole).toDouble(),
                     double(s.messagesAfter));
        }
        // Check states drive the subset.
        const QString first = model.nameAt(0);
        QVERIFY(model.checkedNames().contains(first));
        QVERIFY(model.setData(model.index(0, 0), Qt::Unchecked, Qt::CheckStateRole));
        QVERIFY(!model.checkedNames().contains(first));
        QCOMPARE(model.checkedNames().size(), model.rowCount() - 1);
        model.clearResults();
        QVERIFY(model.rows().empty());
    }

    void sortingByReductionFollowsStats()
    {
        CompareModel model;
        model.setRows(m_rows);
        QSortFilterProxyModel proxy;
        proxy.setSortRole(CompareSortRole);
        proxy.setSourceModel(&model);
        proxy.sort(CompareModel::ReductionColumn, Qt::DescendingOrder);
        std::vector<double> seen;
        for (int r = 0; r < proxy.rowCount(); ++r) {
            const QString name = proxy.index(r, 0).data(StrategyNameRole).toString();
            const strategy::CompareRow *row = model.rowFor(name);
            QVERIFY(row);
            seen.push_back(row->result.stats.liveReduction);
        }
        QVERIFY(std::is_sorted(seen.rbegin(), seen.rend()));
        std::vector<double> expected;
        for (const auto &row : m_rows)
            expected.push_back(row.result.stats.liveReduction);
        std::sort(expected.rbegin(), expected.rend());
        QCOMPARE(seen, expected);
        // Time sorts numerically too ("10.0 ms" after "9.00 ms").
        proxy.sort(CompareModel::TimeColumn, Qt::AscendingOrder);
        double last = -1;
        for (int r = 0; r < proxy.rowCount(); ++r) {
            const double ms = proxy.index(r, CompareModel::TimeColumn).data(CompareSortRole).toDouble();
            QVERIFY(ms >= last);
            last = ms;
        }
    }

    void chartGeometryByHand()
    {
        std::vector<strategy::CompareRow> rows{handRow("a", 1000, 250, 1.0, 0.2, 4), handRow("b", 800, 400, 0.5, 0.8, 8)};
        const QList<CompareBar> bars = compareBars(rows);
        QCOMPARE(bars.size(), 2);
        QCOMPARE(bars[1].reduction, 0.5);
        const auto g = CompareChartGeometry::layout(QRectF(0, 0, 800, 200), bars, 100, 20, 40, 14, 26);
        QCOMPARE(g.rows, 2);
        QCOMPARE(g.rowHeight, 26.0); // 176 / 2 = 88 clamped to the maximum
        // Five columns share 800 - 100 - 4 gaps of 14 = 644 px: 128.8 each, of which 40 hold the value.
        const double column = 644.0 / 5, bar = column - 40;
        QCOMPARE(g.columnRect(0).left(), 100.0);
        QCOMPARE(g.columnRect(2).left(), 100.0 + 2 * (column + 14));
        QCOMPARE(g.barMaxLength(0), bar);
        // Tokens: axis = largest before (1000).
        QCOMPARE(g.barRect(0, CompareMetric::TokensAfter, bars[0]).width(), bar * 250 / 1000);
        QCOMPARE(g.ghostRect(0, bars[0]).width(), bar);
        QCOMPARE(g.ghostRect(1, bars[1]).width(), bar * 800 / 1000);
        QCOMPARE(g.barRect(1, CompareMetric::TokensAfter, bars[1]).width(), bar * 400 / 1000);
        // Reduction: axis = largest reduction (0.75): 0.5 is two thirds of it.
        QCOMPARE(g.barRect(0, CompareMetric::Reduction, bars[0]).width(), bar);
        QCOMPARE(g.barRect(1, CompareMetric::Reduction, bars[1]).width(), bar * 0.5 / 0.75);
        // Shares on 0..100 %.
        QCOMPARE(g.barRect(1, CompareMetric::FactRetention, bars[1]).width(), bar * 0.5);
        QCOMPARE(g.barRect(0, CompareMetric::CachePrefix, bars[0]).width(), bar * 0.2);
        // Time: axis = slowest.
        QCOMPARE(g.barRect(0, CompareMetric::Time, bars[0]).width(), bar * 0.5);
        // Bars sit inside their row band.
        const QRectF b = g.barRect(1, CompareMetric::Time, bars[1]);
        QVERIFY(g.rowRect(1).contains(b));
        QCOMPARE(g.rowRect(1).top(), 20.0 + 26);

        // Hit testing: a bar's centre, a label, the header, below the rows.
        auto hit = g.hitTest(g.barRect(1, CompareMetric::FactRetention, bars[1]).center());
        QCOMPARE(hit.row, 1);
        QCOMPARE(hit.metric, int(CompareMetric::FactRetention));
        hit = g.hitTest(QPointF(10, 20 + 5));
        QCOMPARE(hit.row, 0);
        QCOMPARE(hit.metric, -1);
        QCOMPARE(g.hitTest(QPointF(300, 10)).row, -1);
        QCOMPARE(g.hitTest(QPointF(300, 20 + 2 * 26 + 1)).row, -1);
        QCOMPARE(compareValueLabel(bars[0], CompareMetric::Reduction), QStringLiteral("75 %"));
    }

    void chartWidgetClicks()
    {
        CompareChart chart;
        chart.resize(900, 300);
        chart.setRows(m_rows);
        QCOMPARE(chart.bars().size(), qsizetype(m_rows.size()));
        const auto g = chart.chartGeometry();
        const int last = int(m_rows.size()) - 1;
        const QPointF inRow = g.rowRect(last).center();
        QCOMPARE(chart.strategyAt(inRow), QString::fromStdString(m_rows.back().strategy));
        QSignalSpy clicked(&chart, &CompareChart::strategyClicked);
        QTest::mouseClick(&chart, Qt::LeftButton, {}, inRow.toPoint());
        QCOMPARE(clicked.size(), 1);
        QCOMPARE(clicked.at(0).at(0).toString(), QString::fromStdString(m_rows.back().strategy));
        QCOMPARE(chart.selectedStrategy(), QString::fromStdString(m_rows.back().strategy));
        QVERIFY(chart.tooltipFor(last).contains(QString::fromStdString(m_rows.back().strategy)));
        QTest::mouseClick(&chart, Qt::LeftButton, {}, QPoint(5, 2)); // header: nothing
        QCOMPARE(clicked.size(), 1);
    }

    void viewRunsAllAndSyncs()
    {
        CompareView view;
        view.resize(1400, 900);
        view.setInput(m_transcript);
        QSignalSpy finished(&view, &CompareView::finished);
        QSignalSpy progress(&view, &CompareView::progress);
        view.runAll();
        QVERIFY(view.isRunning() || finished.size() == 1);
        QVERIFY(finished.wait(120000) || finished.size() == 1);
        QCOMPARE(view.rows().size(), strategy::all().size());
        QVERIFY(!progress.isEmpty());
        QCOMPARE(progress.last().at(0).toInt(), int(strategy::all().size()));
        QCOMPARE(view.chart()->bars().size(), qsizetype(strategy::all().size()));
        for (std::size_t k = 0; k < view.rows().size(); ++k)
            QCOMPARE(view.rows()[k].strategy, std::string(strategy::all()[k]->name()));

        // Table -> chart.
        const QString pick = QString::fromStdString(view.rows().back().strategy);
        QSignalSpy selected(&view, &CompareView::strategySelected);
        view.selectStrategy(pick);
        QCOMPARE(view.selectedStrategy(), pick);
        QCOMPARE(view.chart()->selectedStrategy(), pick);
        QCOMPARE(selected.size(), 1);
        // Chart -> table.
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const auto g = view.chart()->chartGeometry();
        QTest::mouseClick(view.chart(), Qt::LeftButton, {}, g.rowRect(0).center().toPoint());
        QCOMPARE(view.selectedStrategy(), QString::fromStdString(view.rows().front().strategy));
        QCOMPARE(selected.size(), 2);
        // Enter on a row asks for its preview.
        QSignalSpy preview(&view, &CompareView::previewRequested);
        view.table()->setFocus();
        QTest::keyClick(view.table(), Qt::Key_Return);
        QCOMPARE(preview.size(), 1);
        QCOMPARE(preview.at(0).at(0).toString(), QString::fromStdString(view.rows().front().strategy));
        // Double-click too.
        const QRect second = view.table()->visualRect(view.proxy()->index(1, CompareModel::SourceColumn));
        // QTest's double click on a widget sends no press first; item views need the press of a real
        // double click (pressedIndex), so send the whole sequence.
        QTest::mouseClick(view.table()->viewport(), Qt::LeftButton, {}, second.center());
        QTest::mouseDClick(view.table()->viewport(), Qt::LeftButton, {}, second.center());
        QCOMPARE(preview.size(), 2);
        QCOMPARE(preview.at(1).at(0).toString(), view.proxy()->index(1, 0).data(StrategyNameRole).toString());

        // Sorted by reduction for the screenshot, the most useful order to read.
        view.table()->sortByColumn(CompareModel::ReductionColumn, Qt::DescendingOrder);
        QApplication::processEvents();
        // The chart follows the table's order.
        for (int r = 0; r < view.proxy()->rowCount(); ++r)
            QCOMPARE(view.chart()->bars().at(r).name, view.proxy()->index(r, 0).data(StrategyNameRole).toString());
        QVERIFY(view.chart()->bars().front().reduction >= view.chart()->bars().back().reduction);
        const QString png = QStringLiteral(CL_BINARY_DIR "/compare-view.png");
        QVERIFY(view.grab().save(png));
        // Small and dark: the chart scrolls instead of squeezing its rows.
        view.setPalette(theme::darkPalette());
        view.resize(1000, 640);
        QApplication::processEvents();
        QVERIFY(view.chart()->height() >= view.chart()->minimumHeight());
        QVERIFY(view.grab().save(QStringLiteral(CL_BINARY_DIR "/compare-view-dark.png")));
    }

    // Cost over N turns: every row's next-turn and next-N dollars are the cost engine's, beside the
    // no-compaction figures in the status line.
    void viewShowsTheCostOfTheNextTurns()
    {
        CompareView view;
        view.setInput(m_transcript);
        view.costTurns()->setValue(12);
        view.model()->setAllChecked(false);
        view.model()->setChecked(QStringLiteral("snip"), true);
        view.model()->setChecked(QStringLiteral("claude-code-compact"), true);
        view.forceTriggers()->setChecked(true);
        QSignalSpy finished(&view, &CompareView::finished);
        view.runChecked();
        QVERIFY(finished.wait(60000) || finished.size() == 1);
        llm::PriceTable prices;
        QVERIFY(llm::PriceTable::load(prices, {}, nullptr));
        const cost::SessionUsage usage = cost::readUsage(*m_transcript);
        const std::string model = cost::sessionModel(*m_transcript, usage.responses);
        const auto price = prices.find(model);
        QVERIFY2(price, model.c_str());
        const cost::Growth growth = cost::measureGrowth(*m_transcript, usage);
        QCOMPARE(view.rows().size(), std::size_t(2));
        for (const auto &row : view.rows()) {
            const cost::NextTurns n = cost::nextTurns(growth, row.result, *price, 12);
            const auto &j = row.result.extra["nextTurns"];
            QCOMPARE(j["first"].get<double>(), n.strategy.firstTurn());
            QCOMPARE(j["total"].get<double>(), n.strategy.total());
            QCOMPARE(j["breakEven"].get<int>(), n.breakEven);
            const int r = view.model()->rowOf(QString::fromStdString(row.strategy));
            QCOMPARE(view.model()->index(r, CompareModel::NextTurnsColumn).data().toString(),
                     QStringLiteral("$%1").arg(QLocale().toString(n.strategy.total(), 'f', 4)));
        }
        const QString status = view.findChild<QLabel *>(QStringLiteral("compareStatus"))->text();
        QVERIFY2(status.contains(QStringLiteral("no compaction")) && status.contains(QStringLiteral("over 12 turns")), qPrintable(status));
        // Off: no cost computed.
        view.costTurns()->setValue(0);
        view.runChecked();
        QVERIFY(finished.wait(60000) || finished.size() == 3);
        QVERIFY(!view.rows().front().result.extra.contains("nextTurns"));
    }

    void viewRunsCheckedSubset()
    {
        CompareView view;
        view.setInput(m_transcript);
        view.model()->setAllChecked(false);
        const QString a = view.model()->nameAt(0), b = view.model()->nameAt(1);
        view.model()->setChecked(a, true);
        view.model()->setChecked(b, true);
        QSignalSpy finished(&view, &CompareView::finished);
        view.runChecked();
        QVERIFY(finished.wait(60000) || finished.size() == 1);
        QCOMPARE(view.rows().size(), std::size_t(2));
        QCOMPARE(QString::fromStdString(view.rows()[0].strategy), a);
        QCOMPARE(QString::fromStdString(view.rows()[1].strategy), b);
    }

    void cancelStopsEarly()
    {
        // A bigger session so the shared analysis alone outlasts the click on Cancel.
        auto big = generated(3000, 11);
        CompareView view;
        view.setThreads(1);
        view.setInput(big);
        QSignalSpy finished(&view, &CompareView::finished);
        view.runAll();
        view.cancel();
        QVERIFY(finished.wait(120000) || finished.size() == 1);
        QVERIFY2(view.rows().size() < strategy::all().size(), "cancel did not stop the run");
        QVERIFY(!view.isRunning());
    }

    void newInputDropsStaleRun()
    {
        CompareView view;
        view.setInput(m_transcript);
        QSignalSpy finished(&view, &CompareView::finished);
        view.runAll();
        view.setInput(m_transcript); // the running comparison is for the old input
        QTest::qWait(200);
        QTRY_VERIFY_WITH_TIMEOUT(!view.isRunning(), 60000);
        QApplication::processEvents();
        QCOMPARE(finished.size(), 0);
        QVERIFY(view.rows().empty());
    }

private:
    std::shared_ptr<const Transcript> m_transcript;
    std::vector<strategy::CompareRow> m_rows;
};

QTEST_MAIN(TestCompare)
#include "tst_compare.moc"
