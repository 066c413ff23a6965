// SPDX-License-Identifier: MIT
// Pixels of the analysis delegates (priority badge, boundary bar, round bracket) painted into an
// image, on the small transcript of analysiscolumns_fixture.h, in the light and dark palettes.
#include "widgets/analysis/analysisdelegates.h"
#include "widgets/models/analysisrows.h"
#include "widgets/models/roles.h"
#include "widgets/models/transcriptmodel.h"
#include "widgets/models/prioritycolors.h"
#include "widgets/style/theme.h"

#include "tests/analysiscolumns_fixture.h"

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <QStyleFactory>
#include <QtTest>

using namespace cl;
using namespace cl::gui;
using namespace fixture;

namespace {

// Paints one cell with the delegate into an image filled with the palette's base colour.
QImage paintCell(const QStyledItemDelegate &d, const QModelIndex &idx, const QPalette &pal, QSize size = {120, 24})
{
    QImage img(size, QImage::Format_ARGB32_Premultiplied);
    img.fill(pal.color(QPalette::Base));
    QStyleOptionViewItem opt;
    opt.rect = QRect(QPoint(0, 0), size);
    opt.palette = pal;
    opt.font = QApplication::font();
    opt.fontMetrics = QFontMetrics(opt.font);
    opt.state = QStyle::State_Enabled;
    QPainter p(&img);
    d.paint(&p, opt, idx);
    p.end();
    return img;
}

QRgb rgb(const QColor &c)
{
    return c.rgb();
}

} // namespace

class TestAnalysisDelegates : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    }

    void delegatesPaint()
    {
        auto t = smallTranscript();
        TranscriptModel model;
        model.setTranscript(t);
        model.setAnalysis(analyse(*t));
        const QPalette light = theme::lightPalette(), dark = theme::darkPalette();
        QVERIFY(!theme::isDark(light));
        QVERIFY(theme::isDark(dark));

        // Priority badge: row 5 is high; the badge starts 3 px in, and its fill is priorityColor.
        PriorityBadgeDelegate badge;
        for (const QPalette &pal : {light, dark}) {
            const QImage img = paintCell(badge, model.index(5, TranscriptModel::PriorityColumn), pal);
            QCOMPARE(img.pixel(6, 12), rgb(priorityColor(an::Priority::High, theme::isDark(pal))));
            QCOMPARE(img.pixel(1, 12), rgb(pal.color(QPalette::Base))); // outside the badge
        }
        QVERIFY(priorityColor(an::Priority::High, false) != priorityColor(an::Priority::High, true));
        QCOMPARE(paintCell(badge, model.index(0, TranscriptModel::PriorityColumn), light).pixel(6, 12),
                 rgb(priorityColor(an::Priority::Sacred, false)));
        // No analysis value (compare with the index of a model without analysis): nothing drawn.
        TranscriptModel bare;
        bare.setTranscript(t);
        QCOMPARE(paintCell(badge, bare.index(5, TranscriptModel::PriorityColumn), light).pixel(6, 12), rgb(light.color(QPalette::Base)));

        // Boundary bar: the best-scoring cut fills the cell; the chosen one is green and outlined.
        BoundaryBarDelegate bar;
        const auto a = model.analysis();
        int chosenRow = int(a->view.index[*a->boundary]);
        int otherRow = -1;
        for (const auto &b : a->boundaries)
            if (int(b.index) != chosenRow && b.score > 0 && (otherRow < 0 || b.score > model.index(otherRow, 0).data(BoundaryScoreRole).toDouble()))
                otherRow = int(b.index);
        QVERIFY(otherRow >= 0);
        const QImage other = paintCell(bar, model.index(otherRow, TranscriptModel::BoundaryColumn), light);
        QCOMPARE(other.pixel(4, 12), rgb(BoundaryBarDelegate::barColor(light, false)));
        const QImage chosen = paintCell(bar, model.index(chosenRow, TranscriptModel::BoundaryColumn), light);
        QCOMPARE(chosen.pixel(5, 12), rgb(BoundaryBarDelegate::barColor(light, true)));
        QCOMPARE(chosen.pixel(1, 12), rgb(BoundaryBarDelegate::chosenOutline(light)));
        QVERIFY(BoundaryBarDelegate::barColor(light, true) != BoundaryBarDelegate::barColor(light, false));
        // Bar length is proportional: half the maximum fills half the padded cell.
        QCOMPARE(BoundaryBarDelegate::barRect(QRect(0, 0, 104, 24), 50, 100), QRect(2, 2, 50, 20));
        QVERIFY(BoundaryBarDelegate::barRect(QRect(0, 0, 104, 24), -30, 100).isEmpty());

        // Round bracket: row 2 starts failed round 1 (bracket from the middle down, red), row 3 ends it;
        // the chain line runs down the left through 3 and 4.
        RoundBracketDelegate round;
        const int bx = RoundBracketDelegate::kBracketX, cx = RoundBracketDelegate::kChainX;
        const QImage start = paintCell(round, model.index(2, TranscriptModel::RoundColumn), light);
        QCOMPARE(start.pixel(bx, 22), rgb(RoundBracketDelegate::bracketColor(light, true)));
        QCOMPARE(start.pixel(bx, 1), rgb(light.color(QPalette::Base)));
        QCOMPARE(start.pixel(cx, 22), rgb(RoundBracketDelegate::chainColor(light)));
        const QImage end = paintCell(round, model.index(3, TranscriptModel::RoundColumn), light);
        QCOMPARE(end.pixel(bx, 1), rgb(RoundBracketDelegate::bracketColor(light, true)));
        QCOMPARE(end.pixel(bx, 22), rgb(light.color(QPalette::Base)));
        const QImage middle = paintCell(round, model.index(4, TranscriptModel::RoundColumn), dark);
        QCOMPARE(middle.pixel(cx, 1), rgb(RoundBracketDelegate::chainColor(dark)));
        QCOMPARE(middle.pixel(cx, 22), rgb(RoundBracketDelegate::chainColor(dark)));
        QCOMPARE(middle.pixel(bx, 22), rgb(RoundBracketDelegate::bracketColor(dark, false)));
        const QImage none = paintCell(round, model.index(7, TranscriptModel::RoundColumn), light);
        QCOMPARE(none.pixel(cx, 12), rgb(light.color(QPalette::Base)));
    }
};

QTEST_MAIN(TestAnalysisDelegates)
#include "tst_analysisdelegates.moc"
