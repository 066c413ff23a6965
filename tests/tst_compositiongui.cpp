// SPDX-License-Identifier: MIT
// The composition panel (widgets/analysis/compositionpanel.h) on real samples: the grid's cells follow
// the categories' shares, the stacked areas add up to the series' totals, the table shows the
// composition with its largest items, and in the main window the panel follows the selected message,
// a category filters the transcript, the chart selects a message and a suggestion opens a preview
// whose saving is the one the suggestion states.
#include "core/generator/generator.h"
#include "core/io/loader.h"
#include "core/strategy/strategy.h"
#include "core/tokens/contextfigure.h"
#include "core/workflow/composition.h"
#include "widgets/analysis/compositionchart.h"
#include "widgets/analysis/compositiongrid.h"
#include "widgets/analysis/compositionpanel.h"
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/models/compositiongeometry.h"
#include "widgets/models/compositionmodel.h"
#include "widgets/models/transcriptfiltermodel.h"
#include "widgets/strategy/strategypanel.h"
#include "widgets/transcript/contextgauge.h"
#include "widgets/transcript/transcriptpanel.h"

#include "test_support.h"

#include <QDockWidget>
#include <QTreeView>
#include <QTableView>
#include <QToolButton>
#include <QTreeWidget>
#include <QtTest>

#include <map>

using namespace cl;
using namespace cl::gui;
namespace cp = cl::composition;

namespace {
const bool kEnvironment = cl::test::guiEnvironment();
const QString kEdits = QStringLiteral(CL_SAMPLES_DIR "/claude-code/viewer-sample-edits.jsonl");
const QString kCompaction = QStringLiteral(CL_SAMPLES_DIR "/claude-code/fixture-compaction.jsonl");

std::shared_ptr<const Transcript> load(const QString &path)
{
    LoadResult r = loadFile(path.toStdString());
    return r.transcript;
}

// Waits until the panel has both parts (it computes in the background).
bool waitForPanel(CompositionPanel *panel)
{
    return QTest::qWaitFor([&] { return !panel->isBusy() && panel->composition() && panel->chart()->series(); }, 60000);
}

// A generated Claude Code session its agent compacted in the middle (history, then the live context).
std::shared_ptr<const Transcript> compactedSession()
{
    gen::Options o;
    o.format = Format::ClaudeCode;
    o.messages = 120;
    o.seed = 5;
    o.maxReadLines = 600;
    gen::Stats stats;
    std::shared_ptr<const Transcript> t = loadBytes(gen::generate(o, &stats), "generated.jsonl").transcript;
    return stats.compactions > 0 ? t : nullptr;
}

bool showSample(MainWindow &w)
{
    w.setShowErrorDialogs(false);
    w.resize(1400, 900);
    w.show();
    return w.openFileNow(kEdits);
}

QPoint cellCentre(const QRectF &r)
{
    return r.center().toPoint();
}

} // namespace

class TestCompositionGui : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void gridCellsFollowTheShares()
    {
        CL_REQUIRE_SAMPLES();
        const auto t = load(kEdits);
        QVERIFY(t);
        const cp::Composition c = cp::compose(*t);
        const QRectF area(0, 0, 400, 100);
        const QList<GridCell> cells = compositionGrid(c, area, 20, 5);
        QCOMPARE(cells.size(), 100);
        std::int64_t span = 0;
        for (const auto &cat : c.categories)
            span += cat.tokens;
        span = std::max(span, c.window);
        // Cells per category: the rounding of its cumulative share, so the last category ends at 100.
        std::int64_t cumulative = 0;
        int before = 0;
        for (int k = 0; k < int(c.categories.size()); ++k) {
            cumulative += c.categories[std::size_t(k)].tokens;
            const int upTo = int(std::llround(double(cumulative) * 100 / double(span)));
            const auto n = std::count_if(cells.begin(), cells.end(), [&](const GridCell &g) { return g.category == k; });
            QCOMPARE(int(n), upTo - before);
            before = upTo;
        }
        // The fixed part (73 % of the live context, 9 % of the window here) fills the first cells.
        QCOMPARE(cells.front().category, 0);
        QCOMPARE(c.categories.front().group, cp::Group::Fixed);
        // Cells lie inside the area, row by row.
        for (const auto &g : cells)
            QVERIFY(area.adjusted(-0.01, -0.01, 0.01, 0.01).contains(g.rect));
        QVERIFY(cells[20].rect.top() > cells[19].rect.top());
    }

    void gridCoversAnOverfullContext()
    {
        cp::Composition c;
        c.window = 1000;
        c.total = 1500;
        cp::Category a;
        a.key = "user";
        a.tokens = 1500;
        cp::Category r;
        r.key = "reserved";
        r.group = cp::Group::Space;
        r.tokens = 500;
        c.categories = {a, r};
        const QList<GridCell> cells = compositionGrid(c, QRectF(0, 0, 100, 50), 10, 4);
        QCOMPARE(cells.size(), 40);
        QCOMPARE(std::count_if(cells.begin(), cells.end(), [](const GridCell &g) { return g.category == 0; }), 30);
        QCOMPARE(std::count_if(cells.begin(), cells.end(), [](const GridCell &g) { return g.category == 1; }), 10);
    }

    void bandsStackUpToTheTotals()
    {
        CL_REQUIRE_SAMPLES();
        const auto t = load(kCompaction);
        QVERIFY(t);
        const cp::Series s = cp::overTime(*t);
        QVERIFY(s.messages.size() > 3);
        ChartGeometry g;
        g.plot = QRectF(10, 10, 500, 200);
        g.xMin = s.messages.front();
        g.xMax = s.messages.back();
        g.yMax = double(*std::max_element(s.totals.begin(), s.totals.end()));
        const QList<int> rows = sampledRows(s, 500);
        QCOMPARE(rows.size(), int(s.messages.size())); // they fit: every row
        const QList<QPolygonF> bands = stackedBands(s, rows, g);
        QCOMPARE(bands.size(), int(s.keys.size()));
        for (int i = 0; i < rows.size(); ++i) {
            const auto r = std::size_t(rows[i]);
            // The bottom band starts on the axis; the top band's upper edge is the row's total.
            QCOMPARE(bands.front()[bands.front().size() - 1 - i].y(), g.yToPixel(0));
            QVERIFY(qAbs(bands.back()[i].y() - g.yToPixel(double(s.totals[r]))) < 1e-6);
            QCOMPARE(bands.back()[i].x(), g.xToPixel(s.messages[r]));
        }
    }

    void samplingKeepsPeaksAndDrops()
    {
        // 1 000 rows rising to a compaction at row 600, then rising again: 50 pixels.
        cp::Series s;
        s.keys = {"user"};
        s.labels = {"User text"};
        for (std::uint32_t i = 0; i < 1000; ++i) {
            const std::int64_t v = i < 600 ? 100 + i * 10 : 50 + (i - 600) * 10;
            s.messages.push_back(i);
            s.values.push_back({v});
            s.totals.push_back(v);
        }
        const QList<int> rows = sampledRows(s, 50);
        QVERIFY(rows.size() <= 50);
        QVERIFY(rows.contains(599)); // the peak before the compaction survives
        std::int64_t after = -1;
        for (int r : rows)
            if (r >= 600) {
                after = s.totals[std::size_t(r)];
                break;
            }
        QVERIFY(after >= 0 && after < s.totals[599] / 2); // and the drop shows in the next column
        QCOMPARE(nearestRow(s, 599.4), 599);
        QCOMPARE(nearestRow(s, -5), 0);
        QCOMPARE(nearestRow(s, 5000), 999);
    }

    void modelShowsTheCategoriesAndTheirLargestItems()
    {
        CL_REQUIRE_SAMPLES();
        const auto t = load(kEdits);
        auto c = std::make_shared<const cp::Composition>(cp::compose(*t));
        CompositionModel model;
        model.setComposition(c);
        QCOMPARE(model.rowCount(), int(c->categories.size()));
        std::int64_t sum = 0;
        for (int row = 0; row < model.rowCount(); ++row) {
            const cp::Category &cat = c->categories[std::size_t(row)];
            QCOMPARE(model.index(row, 0).data(CompositionModel::CategoryKeyRole).toString().toStdString(), cat.key);
            QCOMPARE(model.index(row, CompositionModel::TokensColumn).data(Qt::UserRole).toLongLong(), cat.tokens);
            QCOMPARE(model.index(row, 0).data(Qt::DecorationRole).value<QColor>(), compositionColor(cat.key, false));
            if (cat.group != cp::Group::Space)
                sum += cat.tokens;
            // Hover: the category's largest items, largest first, at most five.
            QVERIFY(cat.top.size() <= 5);
            for (std::size_t k = 1; k < cat.top.size(); ++k)
                QVERIFY(cat.top[k - 1].tokens >= cat.top[k].tokens);
            const QString tip = model.index(row, 0).data(Qt::ToolTipRole).toString();
            for (const auto &it : cat.top)
                QVERIFY2(tip.contains(QString::fromStdString(it.label).left(90).toHtmlEscaped()), qPrintable(tip));
        }
        QCOMPARE(sum, c->total);
        // The Read results' largest item is the largest Read result block of the live context.
        const cp::Category *read = c->find("result:Read");
        QVERIFY(read && !read->top.empty());
        // One Read in this session: its item is its category (both scaled to the live figure, the item
        // rounded on its own, the category by the remainders of its group: at most one apart).
        QVERIFY(std::abs(read->top.front().tokens - read->tokens) <= 1);
        QCOMPARE(model.index(0, CompositionModel::ShareColumn).data().toString().endsWith(QStringLiteral(" %")), true);
    }

    void mainWindowPanelFollowsTheSelection()
    {
        CL_REQUIRE_SAMPLES();
        MainWindow w;
        QVERIFY(showSample(w));
        CompositionPanel *panel = w.compositionPanel();
        // Behind the analysis tab, the panel computes nothing.
        QVERIFY(!panel->isActive());
        QVERIFY(!panel->composition());
        w.compositionDock()->raise();
        QVERIFY(QTest::qWaitFor([&] { return panel->isActive(); }, 5000));
        QVERIFY(waitForPanel(panel));
        const Transcript &t = *w.transcript();
        // At the selected row's message (the end of the session when none is), in the gauge's window.
        const QModelIndex current = w.transcriptPanel()->view()->currentIndex();
        QModelIndex source = w.transcriptPanel()->filterModel()->mapToSource(current);
        while (source.parent().isValid())
            source = source.parent();
        QCOMPARE(panel->composition()->at, current.isValid() ? std::size_t(source.row()) : t.messages.size() - 1);
        cp::Options o;
        o.contextWindow = w.contextGauge()->contextWindow();
        QCOMPARE(panel->composition()->window, o.contextWindow);
        QCOMPARE(panel->composition()->total, cp::compose(t, panel->composition()->at, o).total);

        // Selecting a message recomposes at it.
        w.selectMessage(10);
        QVERIFY(QTest::qWaitFor([&] { return !panel->isBusy() && panel->composition() && panel->composition()->at == 10; }, 10000));
        QCOMPARE(panel->composition()->total, cp::compose(t, 10, o).total);
        QCOMPARE(panel->model()->rowCount(), int(cp::compose(t, 10, o).categories.size()));

        // A click on a category shows only its messages in the transcript; the chip undoes it.
        w.selectMessage(int(t.messages.size()) - 1);
        QVERIFY(QTest::qWaitFor([&] { return !panel->isBusy() && panel->composition()->at == t.messages.size() - 1; }, 10000));
        // At the end of the session the panel, the gauge and the status bar show one figure.
        QCOMPARE(panel->composition()->total, tokens::contextFigure(t).total);
        QCOMPARE(qint64(panel->composition()->total), w.contextGauge()->estimated());
        int row = -1;
        for (int r = 0; r < panel->model()->rowCount(); ++r)
            if (panel->model()->category(r)->key == "tool_calls")
                row = r;
        QVERIFY(row >= 0);
        const cp::Category *calls = panel->model()->category(row);
        const QRect cell = panel->table()->visualRect(panel->model()->index(row, 0));
        QTest::mouseClick(panel->table()->viewport(), Qt::LeftButton, {}, cell.center());
        TranscriptFilterModel *filter = w.transcriptPanel()->filterModel();
        QVERIFY(filter->hasMessageSet());
        QCOMPARE(filter->rowCount(), int(calls->messages.size()));
        for (int r = 0; r < filter->rowCount(); ++r) {
            const int m = filter->mapToSource(filter->index(r, 0)).row();
            QVERIFY(std::find(calls->messages.begin(), calls->messages.end(), std::uint32_t(m)) != calls->messages.end());
            bool hasCall = false;
            for (const Block &b : t.messages[std::size_t(m)].blocks)
                hasCall = hasCall || b.type == BlockType::ToolUse;
            QVERIFY(hasCall);
        }
        QToolButton *chip = w.transcriptPanel()->messageFilterChip();
        QVERIFY(chip->isVisible());
        QVERIFY(chip->text().contains(QStringLiteral("Tool calls")));
        QTest::mouseClick(chip, Qt::LeftButton);
        QVERIFY(!filter->hasMessageSet());
        QCOMPARE(filter->rowCount(), int(t.messages.size()));
        QVERIFY(!chip->isVisible());

        // A click in the chart selects the message under it.
        CompositionChart *chart = panel->chart();
        const ChartGeometry g = chart->chartGeometry();
        const auto &s = *chart->series();
        const std::uint32_t target = s.messages[s.messages.size() / 2];
        QTest::mouseClick(chart, Qt::LeftButton, {}, QPointF(g.xToPixel(target), g.plot.center().y()).toPoint());
        QVERIFY(QTest::qWaitFor([&] { return panel->composition() && panel->composition()->at == target; }, 10000));
        QVERIFY(chart->tooltipFor(int(s.messages.size() / 2)).contains(QStringLiteral("Message %1").arg(target + 1)));

        // The grid: a click on the first cell names the first category (the fixed part).
        CompositionGrid *grid = panel->grid();
        const QList<GridCell> cells = compositionGrid(*panel->composition(), grid->gridArea(), CompositionGrid::kColumns,
                                                      CompositionGrid::kRows);
        QCOMPARE(grid->categoryAt(cells.front().rect.center()), 0);
        // The painted panel holds the colours it computes: the fixed part's cell and the chart's bottom band.
        const QImage image = panel->grab().toImage();
        const QPoint gridOrigin = grid->mapTo(panel, QPoint(0, 0));
        const QColor fixedColour = compositionColor(panel->composition()->categories.front().key, false);
        QCOMPARE(image.pixelColor(gridOrigin + cellCentre(cells.front().rect)), fixedColour);
        const QPoint chartOrigin = chart->mapTo(panel, QPoint(0, 0));
        const double bottomY = g.yToPixel(double(s.values.back().front()) / 2);
        QCOMPARE(image.pixelColor(chartOrigin + QPointF(g.plot.right() - 3, bottomY).toPoint()),
                 compositionColor(s.keys.front(), false));
    }

    void suggestionOpensItsPreview()
    {
        CL_REQUIRE_SAMPLES();
        MainWindow w;
        QVERIFY(showSample(w));
        CompositionPanel *panel = w.compositionPanel();
        w.compositionDock()->raise();
        QVERIFY(waitForPanel(panel));
        QTreeWidget *list = panel->suggestions();
        QCOMPARE(list->topLevelItemCount(), int(panel->suggestionList().size()));
        int pick = -1;
        for (int i = 0; i < list->topLevelItemCount(); ++i)
            if (!panel->suggestionList()[std::size_t(i)].strategy.empty() && panel->suggestionList()[std::size_t(i)].frees > 0) {
                pick = i;
                break;
            }
        QVERIFY2(pick >= 0, "the sample has a suggestion that frees tokens");
        const cp::Suggestion &s = panel->suggestionList()[std::size_t(pick)];
        QSignalSpy ready(w.strategyPanel(), &StrategyPanel::previewReady);
        const QRect r = list->visualItemRect(list->topLevelItem(pick));
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, r.center());
        QCOMPARE(w.strategyPanel()->currentStrategy().toStdString(), s.strategy);
        QVERIFY(ready.wait(60000) || ready.count() > 0);
        const auto result = w.strategyPanel()->preview();
        QVERIFY(result);
        // The preview frees what the suggestion said.
        QCOMPARE(result->stats.liveBefore - result->stats.liveAfter, s.frees);
        // Enter on the current suggestion does the same.
        QVERIFY(w.strategyPanel()->setCurrentStrategy(QStringLiteral("snip")));
        list->setCurrentItem(list->topLevelItem(pick));
        QTest::keyClick(list, Qt::Key_Return);
        QCOMPARE(w.strategyPanel()->currentStrategy().toStdString(), s.strategy);
    }

    void gridAndChartPaintInTheDarkTheme()
    {
        const auto t = compactedSession();
        QVERIFY2(t, "the generated session holds a compaction");
        CompositionChart chart;
        chart.resize(500, 220);
        QPalette dark = chart.palette();
        dark.setColor(QPalette::Base, QColor(30, 30, 30));
        dark.setColor(QPalette::Text, QColor(230, 230, 230));
        chart.setPalette(dark);
        auto s = std::make_shared<const cp::Series>(cp::overTime(*t));
        QList<int> compactions;
        for (std::size_t i = 0; i < t->messages.size(); ++i)
            if (t->messages[i].kind == MessageKind::CompactBoundary)
                compactions.push_back(int(i));
        QVERIFY(!compactions.isEmpty());
        chart.setSeries(s, compactions, 200000);
        const QImage image = chart.grab().toImage();
        const ChartGeometry g = chart.chartGeometry();
        const double y = g.yToPixel(double(s->values.front().front()) / 2);
        QCOMPARE(image.pixelColor(QPointF(g.xToPixel(s->messages.front()) + 2, y).toPoint()), compositionColor(s->keys.front(), true));
        // The compaction marker is drawn where the boundary is.
        const QColor marker(255, 180, 60);
        bool found = false;
        const int x = int(std::round(g.xToPixel(compactions.front())));
        for (int dx = -1; dx <= 1 && !found; ++dx)
            for (int yy = int(g.plot.top()) + 2; yy < int(g.plot.top()) + 12 && !found; ++yy)
                found = image.pixelColor(x + dx, yy) == marker;
        QVERIFY(found);
    }
};

QTEST_MAIN(TestCompositionGui)
#include "tst_compositiongui.moc"
