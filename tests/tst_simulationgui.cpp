// SPDX-License-Identifier: MIT
// The Simulate tab: the chart geometry against pixel values computed by hand, the per-turn model
// under QAbstractItemModelTester, and the view offscreen on transcripts the test writes (background
// run, N turns on the chart, a click on a turn emitting its first message, cancel, both palettes),
// plus its place in the main window (tab, menu action, jump to the message).
#include "core/cost/simulationcost.h"
#include "core/generator/generator.h"
#include "core/io/loader.h"
#include "core/strategy/simulation.h"
#include "core/strategy/strategy.h"
#include "core/tokens/estimator.h"
#include "core/strategies/registry.h"
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/models/simulationgeometry.h"
#include "widgets/models/simulationmodel.h"
#include "widgets/strategy/paramform.h"
#include "widgets/strategy/simulationchart.h"
#include "widgets/strategy/simulationview.h"
#include "widgets/style/theme.h"
#include "widgets/transcript/transcriptpanel.h"
#include "widgets/models/transcriptmodel.h"

#include "test_support.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QLabel>
#include <QMenuBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStyleFactory>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

#include <nlohmann/json.hpp>

using namespace cl;
using namespace cl::gui;
using nlohmann::json;

namespace {

const bool kEnvironment = cl::test::guiEnvironment();

sim::TurnPoint point(std::size_t turn, std::int64_t without, std::int64_t before, std::int64_t with, bool changed)
{
    sim::TurnPoint p;
    p.turn = turn;
    p.firstIndex = turn == 1 ? 0 : 1 + 4 * (turn - 1);
    p.lastIndex = 4 + 4 * (turn - 1);
    p.messages = turn == 1 ? 5 : 4;
    p.without = without;
    p.beforeStrategy = before;
    p.with = with;
    // The chart and the table show the live figures; here the same numbers (no fixed part).
    p.liveWithout = without;
    p.liveBefore = before;
    p.liveWith = with;
    p.managedMessages = 3 * turn;
    p.changed = changed;
    p.note = changed ? "snipped" : "below trigger";
    return p;
}

// Five turns in a 1000-token window; the plain total passes it at turn 4, the strategy never.
sim::Simulation handMade()
{
    sim::Simulation s;
    s.strategy = "snip";
    s.window = 1000;
    s.turns = {point(1, 200, 200, 200, false), point(2, 500, 500, 300, true), point(3, 900, 600, 600, false),
               point(4, 1100, 800, 400, true), point(5, 1500, 700, 700, false)};
    s.exceedsWithout = 4;
    s.compactions = 2;
    s.totalTurns = 5;
    return s;
}

// system, then per request: user, assistant tool call, tool result, assistant answer.
std::string chatSession(int requests, int resultChars)
{
    json messages = json::array();
    messages.push_back({{"role", "system"}, {"content", "You are a coding agent."}});
    for (int k = 1; k <= requests; ++k) {
        const std::string id = "call_" + std::to_string(k);
        messages.push_back({{"role", "user"}, {"content", "Request " + std::to_string(k)}});
        // clang-format off
        messages.push_back({{"role", "assistant"}, {"content", nullptr},
            {"tool_calls", json::array({{{"id", id}, {"type", "function"},
                {"function", {{"name", "read_file"}, {"arguments", "{}"}}}}})}});
        // clang-format on
        std::string body;
        for (int line = 0; int(body.size()) < resultChars; ++line)
            body += "line " + std::to_string(line) + " of file " + std::to_string(k) + "\n";
        messages.push_back({{"role", "tool"}, {"tool_call_id", id}, {"content", body}});
        messages.push_back({{"role", "assistant"}, {"content", "Done with " + std::to_string(k) + "."}});
    }
    return json{{"model", "gpt-4o"}, {"messages", messages}}.dump();
}

std::shared_ptr<const Transcript> loadChat(int requests)
{
    LoadOptions o;
    o.format = Format::OpenAIChat;
    return loadBytes(chatSession(requests, 12000), "chat.json", o).transcript;
}

} // namespace

class TestSimulationGui : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QCoreApplication::setOrganizationName(QStringLiteral("ContextLensTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_simulationgui"));
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
    }

    void geometryByHand()
    {
        const sim::Simulation s = handMade();
        // Largest value 1500 -> nice step 500 -> ticks 0, 500, 1000, 1500.
        QCOMPARE(simulationValueMax(s), qint64(1500));
        const SimulationChartGeometry g = simulationChartGeometry(s, QRectF(100, 50, 400, 300));
        // x: turn 1 at 100, turn 5 at 500, 100 px per turn; y = 350 - tokens / 5.
        QCOMPARE(g.axes.xForTurn(1), 100.0);
        QCOMPARE(g.axes.xForTurn(3), 300.0);
        QCOMPARE(g.axes.xForTurn(5), 500.0);
        QCOMPARE(g.axes.yForTokens(0), 350.0);
        QCOMPARE(g.axes.yForTokens(1500), 50.0);
        QCOMPARE(g.without, QPolygonF({{100, 310}, {200, 250}, {300, 170}, {400, 130}, {500, 50}}));
        // Sawtooth: a drop at the same x where the strategy changed the context (turns 2 and 4).
        QCOMPARE(g.with, QPolygonF({{100, 310}, {200, 250}, {200, 290}, {300, 230}, {400, 190}, {400, 270}, {500, 210}}));
        QCOMPARE(g.windowY, 150.0);
        QCOMPARE(g.bands.size(), 4);
        QCOMPARE(g.bands[0].y, 270.0); // 400 tokens
        QCOMPARE(g.bands[1].y, 230.0); // 600
        QCOMPARE(g.bands[2].y, 190.0); // 800
        QCOMPARE(g.bands[3].y, 160.0); // 950
        QCOMPARE(g.bands[0].label, QStringLiteral("40 % snip"));
        QCOMPARE(g.bands[3].label, QStringLiteral("95 % hard truncate"));
        QCOMPARE(g.changed.size(), 2);
        QCOMPARE(g.changed[0].turn, 2);
        QCOMPARE(g.changed[0].at, QPointF(200, 290));
        QCOMPARE(g.changed[1].at, QPointF(400, 270));
        QCOMPARE(g.overWithout.turn, 4);
        QCOMPARE(g.overWithout.at, QPointF(400, 130));
        QCOMPARE(g.overWith.turn, 0);
        QCOMPARE(g.yTicks.size(), 4);
        QCOMPARE(g.yTicks[0].pos, 350.0);
        QCOMPARE(g.yTicks[2].pos, 150.0);
        QCOMPARE(g.yTicks[2].label, QStringLiteral("1k"));
        QCOMPARE(g.yTicks[3].label, QStringLiteral("1.5k"));
        QCOMPARE(g.xTicks.size(), 5);
        QCOMPARE(g.xTicks[1].pos, 200.0);
        QCOMPARE(g.xTicks[4].label, QStringLiteral("5"));
        // Picking: nearest turn; half a step (50 px) of slack outside the plot.
        QCOMPARE(g.axes.turnAt(240), 2);
        QCOMPARE(g.axes.turnAt(260), 3);
        QCOMPARE(g.axes.turnAt(60), 1);
        QCOMPARE(g.axes.turnAt(40), 0);
        QCOMPARE(g.axes.turnAt(549), 5);
        QCOMPARE(g.axes.turnAt(551), 0);

        // A window above every value still sets the top; the lines then sit low.
        sim::Simulation big = s;
        big.window = 4000;
        QCOMPARE(simulationValueMax(big), qint64(4000));
        QCOMPARE(simulationChartGeometry(big, QRectF(0, 0, 100, 100)).windowY, 0.0);
        // One turn sits in the middle; no turns, no lines.
        sim::Simulation one = s;
        one.turns.resize(1);
        QCOMPARE(simulationChartGeometry(one, QRectF(0, 0, 100, 100)).without.front().x(), 50.0);
        QVERIFY(simulationChartGeometry(sim::Simulation{}, QRectF(0, 0, 100, 100)).isEmpty());
        // Turn ticks: 1, then round steps.
        QCOMPARE(turnTicks(100), QList<qint64>({1, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100}));
        QCOMPARE(turnTicks(1), QList<qint64>({1}));
        QVERIFY(turnTicks(0).isEmpty());
    }

    void model()
    {
        SimulationModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(m.rowCount(), 0);
        m.setSimulation(std::make_shared<sim::Simulation>(handMade()));
        QCOMPARE(m.rowCount(), 5);
        QCOMPARE(m.columnCount(), int(SimulationModel::ColumnCount));
        QCOMPARE(m.index(1, SimulationModel::WithColumn).data().toString(), QStringLiteral("300"));
        QCOMPARE(m.index(4, SimulationModel::WithoutColumn).data().toString(), QStringLiteral("1,500"));
        QCOMPARE(m.index(3, SimulationModel::ShareColumn).data().toString(), QStringLiteral("40.0 %"));
        QCOMPARE(m.index(3, SimulationModel::ShareColumn).data(ValueRole).toDouble(), 0.4);
        QCOMPARE(m.index(2, 0).data(TurnFirstIndexRole).toInt(), 9);
        QCOMPARE(m.index(1, 0).data(ChangedRole).toBool(), true);
        QVERIFY(m.index(1, SimulationModel::NoteColumn).data().toString().contains(QLatin1String("snipped")));
        QVERIFY(m.index(1, SimulationModel::NoteColumn).data(Qt::ToolTipRole).toString().contains(QLatin1String("500")));
        QCOMPARE(m.rowOfTurn(5), 4);
        QCOMPARE(m.rowOfTurn(6), -1);
        QCOMPARE(m.rowOfTurn(0), -1);
        // No cost given: the column says so.
        QCOMPARE(m.index(0, SimulationModel::CostColumn).data().toString(), QStringLiteral("?"));
        QVERIFY(!m.index(0, SimulationModel::CostColumn).data(ValueRole).isValid());
        // Priced turns: the turn's dollars with the strategy, the tooltip with and without.
        auto c = std::make_shared<cost::SimulationCost>();
        c->model = "acme";
        c->price = llm::Price{};
        c->turns.resize(5);
        c->turns[1].requests = 2;
        c->turns[1].with.dollars = 0.01234;
        c->turns[1].without.dollars = 0.02;
        m.setSimulation(std::make_shared<sim::Simulation>(handMade()), c);
        QCOMPARE(m.index(1, SimulationModel::CostColumn).data().toString(), QStringLiteral("$0.0123"));
        QCOMPARE(m.index(1, SimulationModel::CostColumn).data(ValueRole).toDouble(), 0.01234);
        const QString tip = m.index(1, SimulationModel::CostColumn).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QLatin1String("2 requests")) && tip.contains(QLatin1String("$0.0200")), qPrintable(tip));
        QCOMPARE(m.headerData(SimulationModel::CostColumn, Qt::Horizontal).toString(), QStringLiteral("Cost"));
        // A cost of another simulation (other turn count) is not shown.
        c = std::make_shared<cost::SimulationCost>(*c);
        c->turns.resize(2);
        m.setSimulation(std::make_shared<sim::Simulation>(handMade()), c);
        QCOMPARE(m.index(1, SimulationModel::CostColumn).data().toString(), QStringLiteral("?"));
        m.clear();
        QCOMPARE(m.rowCount(), 0);
    }

    // By request, the default: each response is a step (the tool call's and the answer's of each
    // user request), the table and the status say requests, and the numbers are simulate()'s.
    void viewStepsByRequest()
    {
        const auto t = loadChat(10);
        QVERIFY(t);
        SimulationView view;
        view.setInput(t);
        QVERIFY(view.statusLabel()->text().startsWith(QLatin1String("20 requests, 10 user turns")));
        QVERIFY(view.setCurrentStrategy(QStringLiteral("snip")));
        view.windowSpin()->setValue(15000);
        QSignalSpy finished(&view, &SimulationView::finished);
        view.run();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        const auto s = view.simulation();
        QVERIFY(s && s->error.empty());
        QCOMPARE(s->step, sim::Step::Request);
        QCOMPARE(s->turns.size(), std::size_t(20));
        QCOMPARE(view.model()->headerData(0, Qt::Horizontal).toString(), QStringLiteral("Request"));
        QVERIFY2(view.statusLabel()->text().startsWith(QLatin1String("20 requests")), qPrintable(view.statusLabel()->text()));
        sim::SimulationOptions so;
        so.analysis.contextWindow = 15000;
        const sim::Simulation direct = sim::simulate(*t, *strategy::find("snip"), json::object(), so);
        QCOMPARE(view.model()->index(19, SimulationModel::WithColumn).data(ValueRole).toLongLong(), qint64(direct.turns.back().liveWith));
        QCOMPARE(view.model()->index(19, SimulationModel::WithoutColumn).data(ValueRole).toLongLong(),
                 qint64(direct.turns.back().liveWithout));
    }

    void viewRunsAndClicks()
    {
        const auto t = loadChat(10);
        QVERIFY(t);
        SimulationView view;
        view.resize(1200, 800);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCOMPARE(view.currentStrategy(), QStringLiteral("progressive"));
        QVERIFY(!view.runButton()->isEnabled()); // nothing to simulate yet
        view.setInput(t);
        QVERIFY(view.runButton()->isEnabled());
        QVERIFY(view.setCurrentStrategy(QStringLiteral("snip")));
        QVERIFY(view.paramForm()->editor(QStringLiteral("snipMaxChars")));
        view.windowSpin()->setValue(15000);
        QCOMPARE(view.stepCombo()->currentData().toString(), QStringLiteral("request")); // the default
        view.stepCombo()->setCurrentIndex(view.stepCombo()->findData(QStringLiteral("turn")));
        QSignalSpy finished(&view, &SimulationView::finished);
        QSignalSpy progress(&view, &SimulationView::progress);
        view.run();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        const auto s = view.simulation();
        QVERIFY(s && s->error.empty());
        QCOMPARE(s->turns.size(), std::size_t(10));
        QCOMPARE(s->window, std::int64_t(15000));
        QVERIFY(s->compactions > 0); // every 12,000-character result is over snip's 10,000
        QVERIFY(progress.count() >= 1);
        // Same numbers as a direct call.
        sim::SimulationOptions so;
        so.step = sim::Step::Turn;
        so.analysis.contextWindow = 15000;
        const sim::Simulation direct = sim::simulate(*t, *strategy::find("snip"), json::object(), so);
        QCOMPARE(s->turns.back().with, direct.turns.back().with);
        QCOMPARE(s->turns.back().liveWith, direct.turns.back().liveWith);
        QCOMPARE(s->exceedsWithout, direct.exceedsWithout);
        // Chart and table show the 10 turns.
        QCOMPARE(view.chart()->simulation(), s.get());
        QCOMPARE(view.chart()->geometry().without.size(), 10);
        QCOMPARE(view.model()->rowCount(), 10);
        // Priced as the session's model (gpt-4o, in the shipped table): the same as a direct call.
        QVERIFY(view.cost() && view.cost()->price);
        llm::PriceTable prices;
        std::string error;
        llm::PriceTable::load(prices, {}, &error);
        const cost::SimulationCost priced = cost::simulationCost(*t, direct, prices);
        QCOMPARE(view.cost()->requests, std::size_t(20)); // the tool call and the answer of each request
        QCOMPARE(view.cost()->with.dollars, priced.with.dollars);
        QCOMPARE(view.model()->index(9, SimulationModel::CostColumn).data(ValueRole).toDouble(), priced.turns[9].with.dollars);
        QVERIFY2(view.statusLabel()->text().contains(QLatin1String("20 requests: $")), qPrintable(view.statusLabel()->text()));

        // A click on turn 3 emits its first message (1 + 4 * 2 = 9) and selects its row.
        QSignalSpy activated(&view, &SimulationView::messageActivated);
        const SimulationChartGeometry g = view.chart()->geometry();
        const QPoint at(int(std::lround(g.axes.xForTurn(3))), int(g.axes.plot.center().y()));
        QTest::mouseClick(view.chart(), Qt::LeftButton, {}, at);
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.front().front().toInt(), 9);
        QCOMPARE(view.table()->currentIndex().row(), 2);
        QCOMPARE(view.chart()->selectedTurn(), 3);
        QVERIFY(view.chart()->tooltipFor(3).contains(QLatin1String("Turn 3")));
        // Outside the plot: nothing.
        QTest::mouseClick(view.chart(), Qt::LeftButton, {}, QPoint(2, 2));
        QCOMPARE(activated.count(), 1);

        // Both palettes paint their own background (no hard-coded white or black).
        for (const QPalette &pal : {theme::lightPalette(), theme::darkPalette()}) {
            view.chart()->setPalette(pal);
            const QImage img = view.chart()->grab().toImage();
            QCOMPARE(QColor(img.pixel(2, img.height() - 2)), pal.color(QPalette::Base));
        }
        // The same input again keeps the result; a new one clears it.
        view.setInput(t);
        QVERIFY(view.hasResult());
        view.setInput(loadChat(3));
        QVERIFY(!view.hasResult());
        QCOMPARE(view.model()->rowCount(), 0);
    }

    void cancelStops()
    {
        gen::Options o;
        o.format = Format::ClaudeCode;
        o.messages = 3000;
        o.seed = 5;
        o.compactAt = 100; // no compaction: the whole session is live context
        o.maxReadLines = 60;
        auto t = loadBytes(gen::generate(o), "long.jsonl", LoadOptions{}).transcript;
        QVERIFY(t);
        const std::size_t turns = sim::countTurns(*t);
        QVERIFY(turns > 50);
        SimulationView view;
        view.setInput(t);
        view.strideSpin()->setValue(1); // every turn: long enough to cancel in the middle
        QSignalSpy finished(&view, &SimulationView::finished);
        connect(&view, &SimulationView::progress, &view, [&view](int done) {
            if (done >= 2)
                view.cancel();
        });
        view.run();
        QVERIFY(view.isRunning());
        QVERIFY(view.cancelButton()->isEnabled());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
        const auto s = view.simulation();
        QVERIFY(s);
        QVERIFY(s->cancelled);
        QVERIFY(s->turns.size() >= 2);
        QVERIFY(s->turns.size() < turns);
        QVERIFY(view.statusLabel()->text().startsWith(QLatin1String("Cancelled")));
        QVERIFY(!view.cancelButton()->isEnabled());
        QVERIFY(view.runButton()->isEnabled());
        QCOMPARE(view.model()->rowCount(), int(s->turns.size()));
    }

    void mainWindowTab()
    {
        gen::Options o;
        o.format = Format::ClaudeCode;
        o.messages = 120;
        o.seed = 8;
        o.maxReadLines = 40;
        const QString path = m_dir.filePath(QStringLiteral("session.jsonl"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            const std::string bytes = gen::generate(o);
            f.write(bytes.data(), qint64(bytes.size()));
        }
        MainWindow w;
        w.setShowErrorDialogs(false);
        w.resize(1400, 900);
        w.show();
        QVERIFY(w.openFileNow(path));
        SimulationView *view = w.simulationView();
        QVERIFY(view);
        QCOMPARE(view->transcript(), w.transcript());
        QCOMPARE(w.centralTabs()->tabText(w.centralTabs()->indexOf(view)), QStringLiteral("Simulate"));
        QAction *simulate = nullptr;
        for (QAction *top : w.menuBar()->actions())
            if (top->text() == QLatin1String("&Strategies"))
                for (QAction *a : top->menu()->actions())
                    if (a->text().startsWith(QLatin1String("&Simulate")))
                        simulate = a;
        QVERIFY(simulate);
        QCOMPARE(simulate->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));
        QSignalSpy finished(view, &SimulationView::finished);
        simulate->trigger(); // shows the tab and runs the default strategy
        QCOMPARE(w.centralTabs()->currentWidget(), static_cast<QWidget *>(view));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QVERIFY(view->simulation() && view->simulation()->turns.size() == sim::countTurns(*w.transcript()));
        // Jumping: the view's signal brings back the transcript tab with that message selected.
        const int target = int(view->simulation()->turns.back().firstIndex);
        Q_EMIT view->messageActivated(target);
        QCOMPARE(w.centralTabs()->currentIndex(), 0);
        const QModelIndex current = w.transcriptPanel()->view()->currentIndex();
        QVERIFY(current.isValid());

        // A pin from the Edit menu reaches the simulation: hard-truncate in a small window drops the
        // first request without it and keeps it with it (the pin drops the result made without it).
        std::size_t request = 0;
        while (request < w.transcript()->messages.size()
               && !(w.transcript()->messages[request].role == Role::User && !w.transcript()->messages[request].hasToolResult()))
            ++request;
        QVERIFY(request < w.transcript()->messages.size());
        QVERIFY(view->setCurrentStrategy(QStringLiteral("hard-truncate")));
        view->windowSpin()->setValue(int(tokens::totalEstimate(*w.transcript()) / 4));
        view->runNow();
        auto has = [](const sim::Simulation &s, std::size_t i) {
            return std::find(s.kept.begin(), s.kept.end(), std::int64_t(i)) != s.kept.end();
        };
        QVERIFY(view->simulation() && view->simulation()->compactions > 0);
        QVERIFY(!has(*view->simulation(), request));
        w.transcriptPanel()->selectSourceIndex(w.transcriptPanel()->model()->indexForMessage(int(request)));
        QAction *pin = nullptr;
        for (QAction *top : w.menuBar()->actions())
            if (top->text() == QLatin1String("&Edit"))
                for (QAction *a : top->menu()->actions())
                    if (a->text().remove(QLatin1Char('&')).startsWith(QLatin1String("Pin")))
                        pin = a;
        QVERIFY(pin);
        pin->trigger();
        QCOMPARE(w.pinned(), std::vector<std::size_t>{request});
        QVERIFY(!view->hasResult());
        view->runNow();
        QVERIFY(view->simulation() && has(*view->simulation(), request));
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestSimulationGui)
#include "tst_simulationgui.moc"
