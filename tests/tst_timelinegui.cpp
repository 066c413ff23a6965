// SPDX-License-Identifier: MIT
// The timeline dock in the real main window, offscreen: built only once shown (View › Timeline,
// Ctrl+Shift+W raises it from behind its tab), it draws a lane per tool with the spans in their
// tool's colour and the context beneath; a click on a span selects its message in the transcript;
// the wheel zooms around the pointer, a drag pans, a double-click shows the whole session; a
// transcript without times says so.
#include "core/generator/generator.h"
#include "widgets/analysis/timelineview.h"
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/models/compositiongeometry.h"
#include "widgets/style/theme.h"

#include "test_support.h"

#include <QDockWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace cl;
using namespace cl::gui;

namespace {

const bool kEnvironment = cl::test::guiEnvironment();

QString writeSession(const QTemporaryDir &dir, std::size_t messages)
{
    gen::Options o;
    o.messages = messages;
    o.seed = 21;
    const QString path = dir.filePath(QStringLiteral("timeline-session.jsonl"));
    test::writeFile(path.toStdString(), gen::generate(o));
    return path;
}

// How many pixels of `image` (in `area`) have colour `c`, give or take a little.
int pixelsOf(const QImage &image, const QRect &area, const QColor &c)
{
    int n = 0;
    for (int y = area.top(); y <= area.bottom(); ++y)
        for (int x = area.left(); x <= area.right(); ++x) {
            const QColor p = image.pixelColor(x, y);
            n += std::abs(p.red() - c.red()) + std::abs(p.green() - c.green()) + std::abs(p.blue() - c.blue()) < 12;
        }
    return n;
}

// The window shown at `size`, `path` opened in it.
bool openInWindow(MainWindow &w, const QString &path, QSize size = {1400, 900})
{
    w.setShowErrorDialogs(false);
    w.resize(size);
    w.show();
    return w.openFileNow(path);
}

void showTimeline(MainWindow &w)
{
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QTest::keyClick(&w, Qt::Key_W, Qt::ControlModifier | Qt::ShiftModifier);
    QVERIFY(QTest::qWaitFor([&] { return !w.timelineView()->visibleRegion().isEmpty() && !w.timelineView()->timeline().empty(); }, 5000));
}

} // namespace

class TestTimelineGui : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void builtOnlyWhenShown();
    void drawsLanesInTheToolsColours();
    void clickSelectsTheMessage();
    void zoomPanAndWhole();
    void noTimesSaysSo();
};

void TestTimelineGui::builtOnlyWhenShown()
{
    QTemporaryDir dir;
    MainWindow w;
    QVERIFY(openInWindow(w, writeSession(dir, 300)));
    QVERIFY(w.timelineView()->visibleRegion().isEmpty()); // a tab behind the usage chart
    QVERIFY(w.timelineView()->timeline().empty());        // hidden: nothing built
    // The shortcut raises the dock from behind the usage chart's tab.
    w.usageDock()->raise();
    showTimeline(w);
    const auto &tl = w.timelineView()->timeline();
    QVERIFY(tl.lanes.size() > 3);
    QCOMPARE(w.timelineView()->range(), paddedRange({tl.startMs, tl.endMs}));
    const std::size_t firstSpans = tl.spans.size();
    // Another file: rebuilt for it, the whole of it shown.
    QTemporaryDir other;
    gen::Options o;
    o.messages = 80;
    o.seed = 3;
    const QString path = other.filePath(QStringLiteral("second.jsonl"));
    test::writeFile(path.toStdString(), gen::generate(o));
    QVERIFY(w.openFileNow(path));
    const auto expected = analysis::buildTimeline(*w.transcript());
    const auto &second = w.timelineView()->timeline();
    QCOMPARE(second.spans.size(), expected.spans.size());
    QVERIFY(second.spans.size() < firstSpans);
    QCOMPARE(w.timelineView()->range(), paddedRange({second.startMs, second.endMs}));
}

void TestTimelineGui::drawsLanesInTheToolsColours()
{
    QTemporaryDir dir;
    for (const auto choice : {theme::Choice::Light, theme::Choice::Dark}) {
        theme::apply(choice);
        MainWindow w;
        QVERIFY(openInWindow(w, writeSession(dir, 300)));
        showTimeline(w);
        TimelineView *view = w.timelineView();
        view->showAll();
        const QImage image = view->grab().toImage();
        const bool dark = choice == theme::Choice::Dark;
        // The model's lane in the response colours, the busiest tool lane in its tool's colour.
        const auto &tl = view->timeline();
        const QRect lanes = view->lanesRect();
        const int laneH = laneHeight(lanes.height(), int(tl.lanes.size()));
        const QRect modelLane(lanes.left(), lanes.top(), lanes.width(), laneH);
        QVERIFY(pixelsOf(image, modelLane, compositionColor("assistant", dark))
                    + pixelsOf(image, modelLane, compositionColor("thinking", dark))
                > 20);
        std::size_t busiest = 1;
        for (std::size_t l = 1; l < tl.lanes.size(); ++l)
            if (tl.lanes[l].kind == analysis::SpanKind::Tool && tl.lanes[l].spans.size() > tl.lanes[busiest].spans.size())
                busiest = l;
        if (int(busiest) * laneH < lanes.height()) {
            const QRect toolLane(lanes.left(), lanes.top() + int(busiest) * laneH, lanes.width(), laneH);
            QVERIFY2(pixelsOf(image, toolLane, compositionColor("result:" + tl.lanes[busiest].name, dark)) > 10,
                     tl.lanes[busiest].name.c_str());
        }
        // The context line beneath, in the highlight colour.
        QVERIFY(!view->contextRect().isEmpty());
        QVERIFY(pixelsOf(image, view->contextRect(), view->palette().color(QPalette::Highlight)) > 20);
    }
    theme::apply(theme::Choice::Light);
}

void TestTimelineGui::clickSelectsTheMessage()
{
    QTemporaryDir dir;
    MainWindow w;
    QVERIFY(openInWindow(w, writeSession(dir, 300)));
    showTimeline(w);
    TimelineView *view = w.timelineView();
    const auto &tl = view->timeline();
    // Zoomed to one tool call in the middle of the session, then clicked.
    std::size_t pick = tl.spans.size();
    for (std::size_t i = tl.spans.size() / 2; i < tl.spans.size(); ++i)
        if (tl.spans[i].kind == analysis::SpanKind::Tool && tl.spans[i].durationMs() > 0) {
            pick = i;
            break;
        }
    QVERIFY(pick < tl.spans.size());
    const analysis::TimelineSpan &span = tl.spans[pick];
    view->setRange({span.startMs - span.durationMs(), span.endMs + span.durationMs()});
    if (view->timeline().lanes.size() > 0 && !view->lanesRect().contains(*view->pointOfSpan(int(pick)))) {
        // Its lane scrolled out of sight: the lanes scroll with Shift+wheel.
        QWheelEvent wheel(QPointF(200, 100), view->mapToGlobal(QPointF(200, 100)), {}, {0, -120 * 20}, Qt::NoButton, Qt::ShiftModifier,
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(view, &wheel);
    }
    const std::optional<QPoint> at = view->pointOfSpan(int(pick));
    QVERIFY(at);
    QCOMPARE(view->spanAt(*at), int(pick));
    QVERIFY(view->describeSpan(int(pick)).contains(QString::fromStdString(tl.lanes[span.lane].name)));
    QTest::mouseClick(view, Qt::LeftButton, {}, *at);
    QCOMPARE(w.selectedMessages(), QList<int>{span.message});
}

void TestTimelineGui::zoomPanAndWhole()
{
    QTemporaryDir dir;
    MainWindow w;
    QVERIFY(openInWindow(w, writeSession(dir, 300)));
    showTimeline(w);
    TimelineView *view = w.timelineView();
    const TimeRange whole = view->range();
    const QRect lanes = view->lanesRect();
    // Three notches in at a quarter of the width: narrower, the time under the pointer kept.
    const QPoint pointer(lanes.left() + lanes.width() / 4, lanes.center().y());
    const double before = double(whole.from) + 0.25 * double(whole.span());
    QWheelEvent wheel(pointer, view->mapToGlobal(pointer), {}, {0, 360}, Qt::NoButton, {}, Qt::NoScrollPhase, false);
    QApplication::sendEvent(view, &wheel);
    const TimeRange zoomed = view->range();
    QVERIFY(zoomed.span() < whole.span() * 6 / 10);
    const double after = double(zoomed.from) + double(pointer.x() - lanes.left()) / lanes.width() * double(zoomed.span());
    QVERIFY(std::abs(after - before) < double(whole.span()) / 500);
    // A drag to the left moves later times into view by the dragged width, and selects nothing.
    const QList<int> selected = w.selectedMessages();
    QTest::mousePress(view, Qt::LeftButton, {}, pointer);
    QTest::mouseMove(view, pointer - QPoint(100, 0));
    QTest::mouseRelease(view, Qt::LeftButton, {}, pointer - QPoint(100, 0));
    const TimeRange panned = view->range();
    QCOMPARE(panned.span(), zoomed.span());
    QVERIFY(std::abs(double(panned.from - zoomed.from) - 100.0 * zoomed.span() / lanes.width()) < double(zoomed.span()) / 100);
    QCOMPARE(w.selectedMessages(), selected);
    // A double-click shows the whole session again.
    QTest::mouseDClick(view, Qt::LeftButton, {}, pointer);
    QCOMPARE(view->range(), whole);
    QTest::keyClick(view, Qt::Key_Plus);
    QVERIFY(std::abs(view->range().span() - whole.span() / 2) <= 1);
    QTest::keyClick(view, Qt::Key_0);
    QCOMPARE(view->range(), whole);
}

void TestTimelineGui::noTimesSaysSo()
{
    // An OpenAI chat history records no times: the view says there is nothing to place.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("chat.json"));
    test::writeFile(path.toStdString(),
                    R"({"model":"gpt-4o","messages":[{"role":"user","content":"Hello"},{"role":"assistant","content":"Hi there"}]})");
    MainWindow w;
    QVERIFY(openInWindow(w, path, {1200, 800}));
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QTest::keyClick(&w, Qt::Key_W, Qt::ControlModifier | Qt::ShiftModifier);
    QVERIFY(QTest::qWaitFor([&] { return !w.timelineView()->visibleRegion().isEmpty(); }, 5000));
    w.timelineView()->refreshNow();
    QVERIFY(w.timelineView()->timeline().empty());
    QVERIFY(w.timelineView()->timeline().spans.empty());
    // Clicks and wheel on an empty timeline do nothing and do not crash.
    QTest::mouseClick(w.timelineView(), Qt::LeftButton, {}, QPoint(300, 60));
    QCOMPARE(w.timelineView()->spanAt(QPoint(300, 60)), -1);
}

QTEST_MAIN(TestTimelineGui)
#include "tst_timelinegui.moc"
