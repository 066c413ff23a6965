// SPDX-License-Identifier: MIT
// Usage chart and context gauge: geometry maths by hand, the widgets fed a hand-built transcript,
// click -> messageActivated, and real window screenshots of the demo and a compaction sample.
#include "core/analysis/analysis.h"
#include "core/tokens/contextfigure.h"
#include "core/tokens/estimator.h"
#include "widgets/mainwindow/commandline.h"
#include "widgets/transcript/contextgauge.h"
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/models/chartgeometry.h"
#include "widgets/mainwindow/screenshot.h"
#include "widgets/style/theme.h"
#include "widgets/transcript/transcriptpanel.h"
#include "widgets/transcript/usagechart.h"

#include "test_support.h"

#include <QApplication>
#include <QImage>
#include <QLocale>
#include <QSettings>
#include <QStyleFactory>
#include <QTemporaryDir>
#include <QtTest>

using namespace cl;
using namespace cl::gui;

namespace {

const bool kEnvironment = cl::test::guiEnvironment();

Message textMessage(Role role, const std::string &text, MessageKind kind = MessageKind::Conversation)
{
    Message m;
    m.role = role;
    m.kind = kind;
    Block b;
    b.text = text;
    m.blocks.push_back(b);
    return m;
}

Usage usage(qint64 input, qint64 creation, qint64 read, qint64 window = 0)
{
    return Usage{input, 10, creation, read, 0, window};
}

// 0 user, 1 assistant (context 1000), 2 user, 3 compact boundary (preTokens 120000), 4 summary,
// 5 assistant (context 500), 6 event, 7 sidechain assistant (ignored).
Transcript handBuilt(qint64 recordedWindow = 0)
{
    Transcript t;
    t.messages.push_back(textMessage(Role::User, "Please look at the parser and tell me what is wrong with it."));
    t.messages.push_back(textMessage(Role::Assistant, "The parser drops the last line when the file has no newline."));
    t.messages.back().usage = usage(100, 200, 700);
    t.messages.push_back(textMessage(Role::User, "Fix it, and add a test for a file without a trailing newline."));
    t.messages.push_back(textMessage(Role::System, "compacted", MessageKind::CompactBoundary));
    t.messages.back().meta = nlohmann::json{{"trigger", "auto"}, {"preTokens", 120000}};
    t.messages.push_back(textMessage(Role::User, "Summary: parser fix requested, test to add.", MessageKind::CompactSummary));
    t.messages.push_back(textMessage(Role::Assistant, "Done: the last line is kept, and a test covers it."));
    t.messages.back().usage = usage(50, 50, 400, recordedWindow);
    t.messages.push_back(textMessage(Role::System, "hook ran", MessageKind::Event));
    t.messages.push_back(textMessage(Role::Assistant, "side work"));
    t.messages.back().sidechain = true;
    t.messages.back().usage = usage(9000, 0, 0);
    return t;
}

QList<int> messagesOf(const QList<UsagePoint> &series)
{
    QList<int> out;
    std::transform(series.begin(), series.end(), std::back_inserter(out), [](const UsagePoint &p) { return p.message; });
    return out;
}

// Pixels in a column (or row) of the plot whose colour passes `match`.
template <typename Match>
int countPixels(const QImage &img, QPoint from, QPoint step, int n, Match match)
{
    int hits = 0;
    for (int i = 0; i < n; ++i, from += step)
        if (img.rect().contains(from) && match(img.pixelColor(from)))
            ++hits;
    return hits;
}

} // namespace

class TestCharts : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QCoreApplication::setOrganizationName(QStringLiteral("ContextLensTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_charts"));
        QSettings().clear();
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
        theme::apply(theme::Choice::Light);
        QVERIFY(m_dir.isValid());
    }

    void cleanupTestCase() { QSettings().clear(); }

    void mapping()
    {
        ChartGeometry g{QRectF(10, 20, 100, 50), 0, 10, 1000};
        QCOMPARE(g.xToPixel(0), 10.0);
        QCOMPARE(g.xToPixel(10), 110.0);
        QCOMPARE(g.xToPixel(5), 60.0);
        QCOMPARE(g.yToPixel(0), 70.0);
        QCOMPARE(g.yToPixel(1000), 20.0);
        QCOMPARE(g.yToPixel(500), 45.0);
        QCOMPARE(g.pixelToX(60), 5.0);
        QCOMPARE(g.pixelToX(g.xToPixel(7.5)), 7.5);
        ChartGeometry single{QRectF(0, 0, 100, 10), 3, 3, 10};
        QCOMPARE(single.xToPixel(3), 50.0); // one message sits in the middle
    }

    // The usage chart's lines are thinned to pixel columns and drawn piece by piece.
    void linePieces()
    {
        // Column 1 holds five points: first, lowest, highest and last stay, in their order.
        const QList<QPointF> line{{0.5, 5}, {1.1, 4}, {1.2, 9}, {1.5, 1}, {1.7, 6}, {1.9, 5}, {2.0, 3}};
        QCOMPARE(thinToColumns(line), (QList<QPointF>{{0.5, 5}, {1.1, 4}, {1.2, 9}, {1.5, 1}, {1.9, 5}, {2.0, 3}}));
        QCOMPARE(thinToColumns({}), QList<QPointF>());
        QCOMPARE(thinToColumns({{3, 3}, {3.5, 3}}), (QList<QPointF>{{3, 3}, {3.5, 3}}));
        QCOMPARE(segmentsOf({{0, 0}, {1, 0}, {1, 2}}), (QList<QLineF>{{0, 0, 1, 0}, {1, 0, 1, 2}}));
        QCOMPARE(segmentsOf({{0, 0}}), QList<QLineF>());
        // 6 on, 3 off, running on across the corner at x = 10.
        QCOMPARE(dashesOf({{0, 0}, {10, 0}, {10, 10}}, 6, 3),
                 (QList<QLineF>{{0, 0, 6, 0}, {9, 0, 10, 0}, {10, 0, 10, 5}, {10, 8, 10, 10}}));
    }

    // A series denser than its pixels is painted as the band it covers: a rectangle per column.
    void denseBands()
    {
        // A rise from column 10 into column 11 (crossing x = 11 at y = 50 - 30 * 0.8 / 1.4), and a
        // piece of one point in column 12; a 2 px stroke widens each by a pixel up and down.
        const QList<QRect> r = columnBands({{{10.2, 50}, {11.6, 20}}, {{12.5, 40}}}, 2);
        const double cross = 50 - 30 * 0.8 / 1.4;
        QCOMPARE(r, (QList<QRect>{QRect(10, int(std::floor(cross - 1)), 2, 51 - int(std::floor(cross - 1))),
                                  QRect(11, 19, 2, int(std::ceil(cross + 1)) - 19), QRect(12, 39, 2, 2)}));
        QVERIFY(columnBands({}, 2).isEmpty());
        QCOMPARE(columnBands({{{0.5, 5}}, {{3.5, 5}}}, 1).size(), 2); // no rectangle where no piece passes
        QVERIFY(!isDense(8000, 1, 1000));                             // 8 points a column: still a line
        QVERIFY(isDense(8001, 1, 1000));
        QVERIFY(isDense(10, 200, 1000)); // pieces 5 px apart: no room for a dash
        QVERIFY(!isDense(10, 100, 1000));
        QVERIFY(!isDense(10, 10, 0));
    }

    void niceTicks_data()
    {
        QTest::addColumn<qint64>("max");
        QTest::addColumn<QList<qint64>>("ticks");
        QTest::newRow("200k") << qint64(200000) << QList<qint64>{0, 50000, 100000, 150000, 200000};
        // 120000 / 5 = 24000 -> 2.5 × 10^4
        QTest::newRow("120k") << qint64(120000) << QList<qint64>{0, 25000, 50000, 75000, 100000, 125000};
        QTest::newRow("1M") << qint64(1000000) << QList<qint64>{0, 200000, 400000, 600000, 800000, 1000000};
        QTest::newRow("7") << qint64(7) << QList<qint64>{0, 2, 4, 6, 8};
        QTest::newRow("45") << qint64(45) << QList<qint64>{0, 10, 20, 30, 40, 50};
        QTest::newRow("3") << qint64(3) << QList<qint64>{0, 1, 2, 3};
        QTest::newRow("1") << qint64(1) << QList<qint64>{0, 1};
        QTest::newRow("0") << qint64(0) << QList<qint64>{0, 1};
        QTest::newRow("62412") << qint64(62412) << QList<qint64>{0, 20000, 40000, 60000, 80000};
    }

    void niceTicks()
    {
        QFETCH(qint64, max);
        QFETCH(QList<qint64>, ticks);
        QCOMPARE(cl::gui::niceTicks(max), ticks);
    }

    void bands()
    {
        QCOMPARE(bandForRatio(0.0), Band::None);
        QCOMPARE(bandForRatio(0.39), Band::None);
        QCOMPARE(bandForRatio(0.40), Band::Snip);
        QCOMPARE(bandForRatio(0.5999), Band::Snip);
        QCOMPARE(bandForRatio(0.6), Band::Microcompact);
        QCOMPARE(bandForRatio(0.8), Band::AutoCompact);
        QCOMPARE(bandForRatio(0.95), Band::HardTruncate);
        QCOMPARE(bandForRatio(1.2), Band::HardTruncate);
        QCOMPARE(bandName(Band::AutoCompact), QStringLiteral("auto-compact"));

        GaugeGeometry g{QRectF(0, 0, 200, 10)};
        QCOMPARE(g.xForRatio(0.4), 80.0);
        QCOMPARE(g.xForRatio(1.2), 200.0); // over the window clamps to the end
        QCOMPARE(g.xForRatio(-1), 0.0);
        QCOMPARE(g.bandRect(Band::None), QRectF(0, 0, 80, 10));
        QCOMPARE(g.bandRect(Band::Snip), QRectF(80, 0, 40, 10));
        QCOMPARE(g.bandRect(Band::HardTruncate), QRectF(190, 0, 10, 10));
    }

    void nearest()
    {
        const QList<int> xs{2, 5, 9};
        QCOMPARE(nearestIndex({}, 3), -1);
        QCOMPARE(nearestIndex(xs, 0), 0);
        QCOMPARE(nearestIndex(xs, 3.4), 0);
        QCOMPARE(nearestIndex(xs, 3.5), 0); // a tie goes to the earlier point
        QCOMPARE(nearestIndex(xs, 3.6), 1);
        QCOMPARE(nearestIndex(xs, 5), 1);
        QCOMPARE(nearestIndex(xs, 8), 2);
        QCOMPARE(nearestIndex(xs, 20), 2);
    }

    void labels()
    {
        QCOMPARE(shortTokens(0), QStringLiteral("0"));
        QCOMPARE(shortTokens(500), QStringLiteral("500"));
        QCOMPARE(shortTokens(1500), QStringLiteral("1.5k"));
        QCOMPARE(shortTokens(50000), QStringLiteral("50k"));
        QCOMPARE(shortTokens(125000), QStringLiteral("125k"));
        QCOMPARE(shortTokens(2500000), QStringLiteral("2.5M"));
        UsageData d;
        d.estimateNow = 62412;
        d.lastMeasured = 62000;
        d.measuredAt = 1233;
        d.basis = QStringLiteral("measured");
        QCOMPARE(gaugeLabel(d, 200000), QStringLiteral("62,412 / 200,000 (31 %) \u00B7 measured at message 1,234 + 412"));
        // 39485 / 200000 = 19.7 % -> 20; a measurement before a compaction is named as history.
        d = UsageData{};
        d.estimateNow = 39485;
        d.basis = QStringLiteral("calibrated");
        d.historyMeasured = 76350;
        d.historyMeasuredAt = 99;
        QCOMPARE(gaugeLabel(d, 200000), QStringLiteral("39,485 / 200,000 (20 %) \u00B7 calibrated \u00B7 last measured 76,350 at "
                                                       "message 100, before a compaction or edit"));
    }

    void usageSeries()
    {
        const Transcript t = handBuilt();
        const UsageData d = usageData(t);
        QCOMPARE(d.messageCount, 8);
        QCOMPARE(messagesOf(d.measured), (QList<int>{1, 5}));
        QCOMPARE(d.measured[0].tokens, 1000); // 100 + 200 + 700
        QCOMPARE(d.measured[1].tokens, 500);  // 50 + 50 + 400
        // The figure starts from the last measurement, still current (after the compaction, nothing
        // edited since).
        QCOMPARE(d.lastMeasured, 500);
        QCOMPARE(d.measuredAt, 5);
        QCOMPARE(d.historyMeasuredAt, -1);
        QCOMPARE(d.basis, QStringLiteral("measured"));
        // Every conversation message (summary included), none of boundary / event / sidechain.
        QCOMPARE(messagesOf(d.estimated), (QList<int>{0, 1, 2, 4, 5}));
        const qint64 e0 = tokens::estimateMessage(t.messages[0]), e1 = tokens::estimateMessage(t.messages[1]);
        const qint64 e2 = tokens::estimateMessage(t.messages[2]);
        const qint64 e4 = tokens::estimateMessage(t.messages[4]), e5 = tokens::estimateMessage(t.messages[5]);
        QVERIFY(e0 > 0 && e4 > 0);
        // No model, no format: the "unknown" family, whose stated calibration is 1 (no usage deltas
        // within one context to learn from).
        QCOMPARE(tokens::contextFigure(t).calibration.factor, 1.0);
        // The fixed part comes from the first measurement of the live context: 500 measured where the
        // conversation before it is the summary, e4.
        QCOMPARE(d.fixed, 500 - e4);
        QVERIFY(d.fixedHow.startsWith(QStringLiteral("measured: ")));
        // Before the first measurement, the fixed part of that context + the estimate; from a
        // measurement on, the measurement + the estimate of what followed it.
        QCOMPARE(d.estimated[0].tokens, 1000);
        QCOMPARE(d.estimated[1].tokens, 1000 + e1);
        QCOMPARE(d.estimated[2].tokens, 1000 + e1 + e2);
        QCOMPARE(d.estimated[3].tokens, 500); // restarts after the compaction
        QVERIFY(d.estimated[3].restart);
        QVERIFY(!d.estimated[2].restart && !d.estimated[4].restart);
        QCOMPARE(d.estimated[4].tokens, 500 + e5);
        QCOMPARE(d.estimateNow, 500 + e5);
        QCOMPARE(d.estimateNow, tokens::contextFigure(t).total);
        QCOMPARE(d.compactions.size(), 1);
        QCOMPARE(d.compactions[0].message, 3);
        QCOMPARE(d.compactions[0].preTokens, 120000);
        // The window a file records is the analysis' to report (the gauge and the CLI ask it).
        QCOMPARE(analysis::contextWindowOf(t, {}).window, qint64(200000));
        QCOMPARE(analysis::contextWindowOf(t, {}).source, std::string("default"));
        QCOMPARE(analysis::contextWindowOf(handBuilt(128000), {}).window, qint64(128000));
        QCOMPARE(analysis::contextWindowOf(handBuilt(128000), {}).source, std::string("recorded in the file"));
    }

    void chart()
    {
        const Transcript t = handBuilt();
        UsageChart chart;
        chart.resize(600, 240);
        chart.setTranscript(&t);
        chart.setContextWindow(120000); // ticks 0..125000, so the line sits just below the top
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        QCOMPARE(chart.data().measured.size(), 2);
        QCOMPARE(chart.yTicks().back(), 125000);
        const ChartGeometry g = chart.chartGeometry();
        QCOMPARE(g.xMax, 7.0);
        QCOMPARE(g.xToPixel(3), g.plot.left() + g.plot.width() * 3 / 7);
        QCOMPARE(g.yToPixel(120000), g.plot.bottom() - g.plot.height() * 0.96);

        const QImage img = chart.grab().toImage();
        // Compact marker: an orange vertical line at message 3 (light palette colour 200,115,0).
        const auto orange = [](const QColor &c) { return c.red() > 150 && c.green() > 80 && c.green() < 160 && c.blue() < 80; };
        const int mx = int(std::round(g.xToPixel(3)));
        const int midTop = int(g.plot.center().y()), n = int(g.plot.bottom()) - 2 - midTop;
        QVERIFY(countPixels(img, {mx, midTop}, {0, 1}, n, orange) + countPixels(img, {mx - 1, midTop}, {0, 1}, n, orange) > n / 3);
        QCOMPARE(countPixels(img, {int(g.xToPixel(6)), midTop}, {0, 1}, n, orange), 0);
        // Window line: red pixels along its row.
        const auto red = [](const QColor &c) { return c.red() > 150 && c.green() < 100 && c.blue() < 100; };
        const int wy = int(g.yToPixel(120000));
        const int left = int(g.plot.left()) + 5, w = int(g.plot.width()) / 2;
        QVERIFY(countPixels(img, {left, wy}, {1, 0}, w, red) + countPixels(img, {left, wy - 1}, {1, 0}, w, red)
                    + countPixels(img, {left, wy + 1}, {1, 0}, w, red)
                > w / 3);

        // Hover follows the nearest point (the tooltip shows its numbers).
        QTest::mouseMove(&chart, g.map(1.3, 0).toPoint());
        QTRY_COMPARE(chart.hoveredMessage(), 1);
        QTest::mouseMove(&chart, g.map(6, 0).toPoint());
        QTRY_COMPARE(chart.hoveredMessage(), -1);

        // Clicks pick the nearest point; nothing far from every point.
        QSignalSpy spy(&chart, &UsageChart::messageActivated);
        QTest::mouseClick(&chart, Qt::LeftButton, {}, g.map(5, 500).toPoint());
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.takeFirst().at(0).toInt(), 5);
        QTest::mouseClick(&chart, Qt::LeftButton, {}, g.map(2.2, 60000).toPoint()); // near message 2 (estimate only)
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.takeFirst().at(0).toInt(), 2);
        QCOMPARE(chart.messageAt(g.map(6, 0)), -1); // the event and the sidechain have no point
        QTest::mouseClick(&chart, Qt::LeftButton, {}, QPoint(1, 1));
        QCOMPARE(spy.count(), 0);
    }

    // A compaction label near the window line's label moves off it (it once overlapped "window 200k").
    void labelsDoNotOverlap()
    {
        const Transcript t = handBuilt();
        for (const int width : {260, 320, 600}) {
            UsageChart chart;
            chart.resize(width, 240);
            chart.setTranscript(&t);
            chart.setContextWindow(120000); // the window line just below the top, the label under it
            chart.show();
            QVERIFY(QTest::qWaitForWindowExposed(&chart));
            chart.grab();
            const std::vector<QRectF> &r = chart.labelRects();
            QCOMPARE(r.size(), std::size_t(2)); // the window, the compaction
            QVERIFY2(!r[0].intersects(r[1]), qPrintable(QStringLiteral("width %1").arg(width)));
            const ChartGeometry g = chart.chartGeometry();
            for (const QRectF &q : r)
                QVERIFY(q.left() >= g.plot.left() && q.right() <= g.plot.right() + 1);
        }
    }

    // Hundreds of compactions (a long session): one line per pixel column and only labels that fit in
    // the top three rows, none on another (they once filled the plot, and cost 25-30 ms a paint at 722).
    void manyCompactionsLabelWhereTheyFit()
    {
        Transcript t;
        for (int k = 0; k < 400; ++k) {
            t.messages.push_back(textMessage(Role::User, "Go on with the next file, please."));
            t.messages.push_back(textMessage(Role::Assistant, "Done with that one."));
            t.messages.back().usage = usage(100, 200, 700 + 10 * k);
            t.messages.push_back(textMessage(Role::System, "compacted", MessageKind::CompactBoundary));
            t.messages.back().meta = nlohmann::json{{"trigger", "auto"}, {"preTokens", 150000 + k}};
            t.messages.push_back(textMessage(Role::User, "Summary of the work so far.", MessageKind::CompactSummary));
        }
        for (const int width : {400, 900}) {
            UsageChart chart;
            chart.resize(width, 260);
            chart.setTranscript(&t);
            chart.setContextWindow(200000);
            chart.show();
            QVERIFY(QTest::qWaitForWindowExposed(&chart));
            chart.grab();
            const std::vector<QRectF> &r = chart.labelRects();
            const ChartGeometry g = chart.chartGeometry();
            // Lines 2 px apart: each a faint solid hairline, not the dashed orange of a few (which
            // made a mesh over the data); the series denser than the pixels are painted as bands.
            const QImage img = chart.grab().toImage();
            const auto orange = [](const QColor &c) { return c.red() > 150 && c.green() > 80 && c.green() < 160 && c.blue() < 80; };
            const auto faint = [](const QColor &c) { return c.red() > 200 && c.green() > 150 && c.green() < 200 && c.blue() > 100 && c.blue() < 170; };
            int strong = 0, light = 0;
            const int lowerHalf = int(g.plot.center().y());
            for (int x = int(g.plot.left()) + 2; x < int(g.plot.right()) - 2; ++x) {
                strong += countPixels(img, {x, lowerHalf}, {0, 1}, int(g.plot.bottom()) - lowerHalf - 2, orange);
                light += countPixels(img, {x, lowerHalf}, {0, 1}, int(g.plot.bottom()) - lowerHalf - 2, faint);
            }
            QCOMPARE(strong, 0);
            QVERIFY2(light > g.plot.width(), qPrintable(QStringLiteral("width %1: %2 faint pixels").arg(width).arg(light)));
            QVERIFY(r.size() > 3);       // the window's and some compactions'
            QVERIFY(r.size() < 400 / 2); // not one for each
            const double rowHeight = QFontMetrics(chart.font()).height();
            for (std::size_t i = 0; i < r.size(); ++i) {
                QVERIFY(r[i].left() >= g.plot.left() && r[i].right() <= g.plot.right() + 1);
                QVERIFY(r[i].top() <= g.plot.top() + 2 + 2 * rowHeight + 0.5); // the top three rows: the lines stay readable
                for (std::size_t j = i + 1; j < r.size(); ++j)
                    QVERIFY2(!r[i].intersects(r[j]), qPrintable(QStringLiteral("width %1: labels %2 and %3").arg(width).arg(i).arg(j)));
            }
        }
    }

    void fitToData()
    {
        const Transcript t = handBuilt();
        const UsageData d = usageData(t);
        // The estimates (each with the fixed part) are the largest values now, just above 1000.
        const qint64 top = d.maxTokens();
        QVERIFY(top > 1000 && top < 1100);
        QVERIFY(top >= d.estimateNow);
        QCOMPARE(chartValueMax(d, 200000, false), 200000);
        QCOMPARE(chartValueMax(d, 200000, true), top);
        QCOMPARE(chartValueMax(d, 500, false), top); // the data above the window still fits
        QCOMPARE(chartValueMax(UsageData{}, 0, true), 1);

        UsageChart chart;
        chart.resize(600, 240);
        chart.setTranscript(&t);
        chart.setContextWindow(200000);
        QVERIFY(!chart.fitToData());
        QCOMPARE(chart.yTicks().back(), 200000);
        chart.setFitToData(true);
        // Nice ticks just above the data: the largest value is near the top instead of at 0.5 %.
        QVERIFY(chart.yTicks().back() >= top && chart.yTicks().back() <= 2 * top);
        QCOMPARE(chart.chartGeometry().yMax, double(chart.yTicks().back()));
        const ChartGeometry g = chart.chartGeometry();
        QCOMPARE(g.yToPixel(g.yMax), g.plot.top());
        QVERIFY(g.yToPixel(double(top)) < g.plot.top() + g.plot.height() / 2);
        QVERIFY(QSettings().value(QStringLiteral("view/chartFitToData")).toBool()); // remembered
        QVERIFY(UsageChart().fitToData());
        chart.setFitToData(false);
        QCOMPARE(chart.yTicks().back(), 200000);
        QSettings().remove(QStringLiteral("view/chartFitToData"));
    }

    void gauge()
    {
        const Transcript t = handBuilt();
        const qint64 now = usageData(t).estimateNow;
        ContextGauge gauge;
        QCOMPARE(gauge.contextWindow(), 200000);
        gauge.setTranscript(&t);
        QCOMPARE(gauge.measured(), 500);
        QCOMPARE(gauge.estimated(), now);
        QCOMPARE(gauge.labelText(), QStringLiteral("%1 / 200,000 (0 %) \u00B7 measured at message 6 + %2")
                                        .arg(QLocale().toString(now), QLocale().toString(now - 500)));
        QCOMPARE(gauge.fixedPart(), usageData(t).fixed);

        QSignalSpy spy(&gauge, &ContextGauge::contextWindowChanged);
        gauge.setContextWindow(1000);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(gauge.labelText(), QStringLiteral("%1 / 1,000 (%2 %) \u00B7 measured at message 6 + %3")
                                        .arg(QLocale().toString(now))
                                        .arg(std::lround(double(now) / 10))
                                        .arg(QLocale().toString(now - 500)));
        QVERIFY(!QSettings().contains(QStringLiteral("view/contextWindow"))); // a choice for this file only

        // Each transcript brings its window, the one the CLI reports for it (analysis::contextWindowOf):
        // the window the file records, else the model's from the table, else 200 000.
        const Transcript codexLike = handBuilt(128000);
        gauge.setTranscript(&codexLike);
        QCOMPARE(gauge.contextWindow(), 128000);
        QCOMPARE(gauge.contextWindow(), analysis::analyze(codexLike).usage.window);
        Transcript gemini = handBuilt();
        gemini.messages[5].model = "gemini-2.5-pro";
        gauge.setTranscript(&gemini);
        const auto choice = analysis::contextWindowOf(gemini, {});
        QVERIFY(choice.source.rfind("table: ", 0) == 0);
        QCOMPARE(gauge.contextWindow(), choice.window);
        QCOMPARE(gauge.contextWindow(), analysis::analyze(gemini).usage.window);
        QVERIFY(gauge.contextWindow() > 200000);
        gauge.setTranscript(nullptr);
        QCOMPARE(gauge.contextWindow(), 200000);
        QCOMPARE(gauge.labelText(), QStringLiteral("0 / 200,000 (0 %) \u00B7 estimated"));
    }

    void mainWindowJump()
    {
        const QString path = writeSession();
        MainWindow w;
        w.setShowErrorDialogs(false);
        w.resize(1200, 800);
        w.show();
        QVERIFY(w.openFileNow(path));
        QVERIFY(w.usageChart()->isVisible() && w.contextGauge()->isVisible());
        QCOMPARE(w.usageChart()->data().compactions.size(), 1);
        QCOMPARE(w.usageChart()->data().measured.size(), 2);
        QCOMPARE(w.contextGauge()->measured(), 1200);
        const qint64 now = tokens::contextFigure(*w.transcript()).total;
        QVERIFY(now >= 1200);
        QCOMPARE(w.contextGauge()->estimated(), now);
        QVERIFY2(w.contextGauge()->labelText().startsWith(QStringLiteral("%1 / 200,000 (%2 %) \u00B7 measured at message ")
                                                              .arg(QLocale().toString(now))
                                                              .arg(std::lround(100.0 * double(now) / 200000))),
                 qPrintable(w.contextGauge()->labelText()));
        QCOMPARE(w.usageChart()->contextWindow(), w.contextGauge()->contextWindow());
        w.contextGauge()->setContextWindow(150000);
        QCOMPARE(w.usageChart()->contextWindow(), 150000); // the chart's window line follows the gauge

        const int target = w.usageChart()->data().measured.front().message;
        QSignalSpy spy(w.transcriptPanel(), &TranscriptPanel::rowSelected);
        const ChartGeometry g = w.usageChart()->chartGeometry();
        QTest::mouseClick(w.usageChart(), Qt::LeftButton, {}, g.map(target, 100).toPoint());
        QVERIFY(spy.count() >= 1);
        QCOMPARE(spy.last().at(0).toInt(), target);
        QSettings().remove(QStringLiteral("view/contextWindow"));
    }

    void screenshots_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("themeName");
        const QString demo = QStringLiteral(CL_SOURCE_DIR "/resources/demo/demo-session.jsonl");
        const QString compaction = QStringLiteral(CL_SAMPLES_DIR "/claude-code/fixture-compaction.jsonl");
        for (const QString &themeName : {QStringLiteral("light"), QStringLiteral("dark")}) {
            QTest::newRow(qPrintable(QStringLiteral("demo-") + themeName)) << demo << themeName;
            QTest::newRow(qPrintable(QStringLiteral("compaction-") + themeName)) << compaction << themeName;
        }
    }

    void screenshots()
    {
        QFETCH(QString, file);
        QFETCH(QString, themeName);
        CL_REQUIRE(QFileInfo::exists(file), "sample not present");
        theme::Choice choice;
        QVERIFY(theme::fromName(themeName, &choice));
        theme::apply(choice);
        CommandLine cmd;
        cmd.file = file;
        cmd.screenshot = m_dir.filePath(QFileInfo(file).baseName() + u'-' + themeName + QStringLiteral(".png"));
        QCOMPARE(takeScreenshot(cmd), 0);
        const QImage image(cmd.screenshot);
        QCOMPARE(image.size(), cmd.size);
        if (qEnvironmentVariableIsSet("CL_KEEP_SCREENSHOTS"))
            QFile::copy(cmd.screenshot, QStringLiteral("/tmp/tst_charts-") + QFileInfo(cmd.screenshot).fileName());

        // The same window the screenshot lays out: chart and gauge are shown with real size and data.
        MainWindow w;
        w.setShowErrorDialogs(false);
        w.resize(cmd.size);
        w.show();
        QVERIFY(w.openFileNow(file));
        QApplication::processEvents();
        QVERIFY(w.usageChart()->isVisible() && w.contextGauge()->isVisible());
        QVERIFY2(w.usageChart()->height() >= 150 && !w.usageChart()->visibleRegion().isEmpty(),
                 qPrintable(QStringLiteral("chart height %1").arg(w.usageChart()->height())));
        QVERIFY(!w.usageChart()->data().estimated.isEmpty());
        QVERIFY(!file.contains(QStringLiteral("compaction")) || !w.usageChart()->data().compactions.isEmpty());
        theme::apply(theme::Choice::Light);
    }

private:
    QString writeSession()
    {
        // Claude Code: user, assistant (context 1000), compact boundary, summary, assistant (context 1200).
        const char *const lines[] = {
            R"({"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2025-09-03T00:47:19.293Z","message":{"role":"user","content":"Show me main.py"}})",
            R"({"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","timestamp":"2025-09-03T00:47:20.000Z","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4","content":[{"type":"text","text":"Here it is."}],"usage":{"input_tokens":5,"cache_creation_input_tokens":95,"cache_read_input_tokens":900,"output_tokens":20}}})",
            R"({"type":"system","subtype":"compact_boundary","uuid":"c1","parentUuid":null,"logicalParentUuid":"a1","sessionId":"s","timestamp":"2025-09-03T00:48:00.000Z","content":"Conversation compacted","compactMetadata":{"trigger":"auto","preTokens":150000}})",
            R"({"type":"user","uuid":"u2","parentUuid":"c1","isCompactSummary":true,"sessionId":"s","timestamp":"2025-09-03T00:48:01.000Z","message":{"role":"user","content":"Summary: the user asked for main.py."}})",
            R"({"type":"assistant","uuid":"a2","parentUuid":"u2","sessionId":"s","timestamp":"2025-09-03T00:48:02.000Z","message":{"id":"msg_2","type":"message","role":"assistant","model":"claude-sonnet-4","content":[{"type":"text","text":"Anything else?"}],"usage":{"input_tokens":10,"cache_creation_input_tokens":190,"cache_read_input_tokens":1000,"output_tokens":8}}})"};
        const QString path = m_dir.filePath(QStringLiteral("session.jsonl"));
        QFile f(path);
        if (f.open(QIODevice::WriteOnly))
            for (const char *line : lines)
                f.write(QByteArray(line) + '\n');
        return path;
    }

    QTemporaryDir m_dir;
};

QTEST_MAIN(TestCharts)
#include "tst_charts.moc"
