// SPDX-License-Identifier: MIT
// Round brackets in sorted and filtered transcript views: a line joins a row to its neighbour in the
// view only when that neighbour belongs to the same bracket (chain) span in file order; otherwise
// the member draws a self-contained marker (tick + short stub). Pixels of a real QTreeView, offscreen.
#include "widgets/analysis/analysisdelegates.h"
#include "widgets/models/analysisrows.h"
#include "widgets/models/roles.h"
#include "widgets/models/transcriptfiltermodel.h"
#include "widgets/models/transcriptmodel.h"
#include "widgets/style/theme.h"

#include "tests/analysiscolumns_fixture.h"

#include <QApplication>
#include <QHeaderView>
#include <QImage>
#include <QSortFilterProxyModel>
#include <QStyleFactory>
#include <QTreeView>
#include <QtTest>

using namespace cl;
using namespace cl::gui;
using namespace fixture;

namespace {

// Hides the top-level rows of the given messages: a filter that takes a round's call away.
class HideMessages : public QSortFilterProxyModel
{
public:
    explicit HideMessages(std::vector<int> hidden)
        : m_hidden(std::move(hidden))
    {
    }

protected:
    bool filterAcceptsRow(int row, const QModelIndex &parent) const override
    {
        if (parent.isValid())
            return true;
        const int m = sourceModel()->index(row, 0).data(MessageIndexRole).toInt();
        return std::find(m_hidden.begin(), m_hidden.end(), m) == m_hidden.end();
    }

private:
    std::vector<int> m_hidden;
};

struct View {
    QTreeView tree;
    RoundBracketDelegate delegate;
    QImage image;

    explicit View(QAbstractItemModel *model, const QPalette &palette)
    {
        tree.setPalette(palette);
        tree.setAlternatingRowColors(false);
        tree.setUniformRowHeights(true);
        tree.setModel(model);
        tree.setItemDelegateForColumn(TranscriptModel::RoundColumn, &delegate);
        tree.resize(900, 400);
        tree.header()->resizeSection(TranscriptModel::RoundColumn, 80);
        tree.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tree));
        image = tree.viewport()->grab().toImage();
    }
    // The Round cell of the view row showing `message` (top level).
    QRect cell(int message) const
    {
        const QAbstractItemModel *m = tree.model();
        for (int row = 0; row < m->rowCount(); ++row)
            if (m->index(row, 0).data(MessageIndexRole).toInt() == message)
                return tree.visualRect(m->index(row, TranscriptModel::RoundColumn));
        return {};
    }
    QRgb at(int message, int x, int y) const
    {
        const QRect r = cell(message);
        return image.pixel(r.left() + x, r.top() + y);
    }
};

} // namespace

class TestRoundSorted : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    }

    // The fixture's round cells carry the file-order spans the delegate checks neighbours against.
    void spans()
    {
        auto t = smallTranscript();
        TranscriptModel model;
        model.setTranscript(t);
        model.setAnalysis(analyse(*t));
        const auto cell = [&](int row) { return model.index(row, TranscriptModel::RoundColumn).data(RoundRole).value<RoundCell>(); };
        // Round 1: call 2, result 3; round 2: call 4, result 5; one chain 2..5 (no request between).
        QCOMPARE(cell(2).part, RoundPart::Start);
        QCOMPARE(cell(2).first, 2);
        QCOMPARE(cell(2).last, 3);
        QCOMPARE(cell(3).part, RoundPart::End);
        QCOMPARE(cell(3).first, 2);
        QCOMPARE(cell(5).first, 4);
        QCOMPARE(cell(5).last, 5);
        for (int row = 2; row <= 5; ++row) {
            QCOMPARE(cell(row).chainFirst, 2);
            QCOMPARE(cell(row).chainLast, 5);
        }
        QVERIFY(!model.index(7, TranscriptModel::RoundColumn).data(RoundRole).isValid());
    }

    void fileOrderJoins_data() { palettes(); }
    void fileOrderJoins()
    {
        QFETCH(QPalette, palette);
        auto t = smallTranscript();
        TranscriptModel model;
        model.setTranscript(t);
        model.setAnalysis(analyse(*t));
        TranscriptFilterModel proxy;
        proxy.setSourceModel(&model);
        View v(&proxy, palette);
        const int bx = RoundBracketDelegate::kBracketX, cx = RoundBracketDelegate::kChainX;
        const QRgb failed = RoundBracketDelegate::bracketColor(palette, true).rgb();
        const QRgb ok = RoundBracketDelegate::bracketColor(palette, false).rgb();
        const QRgb chain = RoundBracketDelegate::chainColor(palette).rgb();
        const int h = v.cell(2).height();
        QVERIFY(h >= 14);
        // The call's bracket reaches the bottom edge and the result's the top edge: one line.
        QCOMPARE(v.at(2, bx, h - 1), failed);
        QCOMPARE(v.at(3, bx, 0), failed);
        QCOMPARE(v.at(4, bx, h - 1), ok);
        QCOMPARE(v.at(5, bx, 0), ok);
        // The chain line runs through all four rows.
        QCOMPARE(v.at(3, cx, 0), chain);
        QCOMPARE(v.at(3, cx, h - 1), chain);
        QCOMPARE(v.at(4, cx, 0), chain);
        QCOMPARE(v.at(5, cx, 0), chain);
    }

    // Reversed file order: no neighbour is on its file-order side, so every member is a marker: the
    // tick and a stub that stays inside the row, no chain line.
    void reversedMarkers_data() { palettes(); }
    void reversedMarkers()
    {
        QFETCH(QPalette, palette);
        auto t = smallTranscript();
        TranscriptModel model;
        model.setTranscript(t);
        model.setAnalysis(analyse(*t));
        TranscriptFilterModel proxy;
        proxy.setSourceModel(&model);
        proxy.sort(TranscriptModel::IndexColumn, Qt::DescendingOrder);
        QCOMPARE(proxy.index(0, 0).data(MessageIndexRole).toInt(), int(t->messages.size()) - 1);
        View v(&proxy, palette);
        const int bx = RoundBracketDelegate::kBracketX, cx = RoundBracketDelegate::kChainX;
        const QRgb failed = RoundBracketDelegate::bracketColor(palette, true).rgb();
        const QRgb ok = RoundBracketDelegate::bracketColor(palette, false).rgb();
        const QRgb chain = RoundBracketDelegate::chainColor(palette).rgb();
        const int h = v.cell(2).height(), mid = v.cell(2).center().y() - v.cell(2).top();
        // Call (┌): tick and a stub below the middle, not reaching the bottom edge.
        QCOMPARE(v.at(2, bx + 3, mid), failed);
        QCOMPARE(v.at(2, bx, mid + 2), failed);
        QVERIFY(v.at(2, bx, h - 1) != failed);
        // Result (└): stub above the middle, not reaching the top edge.
        QCOMPARE(v.at(3, bx + 3, mid), failed);
        QCOMPARE(v.at(3, bx, mid - 2), failed);
        QVERIFY(v.at(3, bx, 0) != failed);
        QCOMPARE(v.at(5, bx, mid - 2), ok);
        QVERIFY(v.at(5, bx, 0) != ok);
        QVERIFY(v.at(4, bx, h - 1) != ok);
        for (int m = 2; m <= 5; ++m)
            for (int y : {0, mid, h - 1})
                QVERIFY2(v.at(m, cx, y) != chain, qPrintable(QStringLiteral("chain pixel at message %1 y %2").arg(m).arg(y)));
        // The round number is still there beside the marker (text pixels right of kTextX).
        const QRect c2 = v.cell(2);
        bool text = false;
        for (int x = RoundBracketDelegate::kTextX; x < RoundBracketDelegate::kTextX + 10; ++x)
            for (int y = 2; y < h - 2; ++y)
                text = text || v.image.pixel(c2.left() + x, c2.top() + y) == palette.color(QPalette::Text).rgb()
                       || qGray(v.image.pixel(c2.left() + x, c2.top() + y)) != qGray(palette.color(QPalette::Base).rgb());
        QVERIFY(text);
    }

    // Sorted by Round: the members come first, still in file order and adjacent, so the brackets
    // and the chain stay joined although the view is sorted.
    void sortedAdjacentStillJoin()
    {
        const QPalette palette = theme::lightPalette();
        auto t = smallTranscript();
        TranscriptModel model;
        model.setTranscript(t);
        model.setAnalysis(analyse(*t));
        TranscriptFilterModel proxy;
        proxy.setSourceModel(&model);
        proxy.sort(TranscriptModel::RoundColumn, Qt::AscendingOrder);
        for (int row = 0; row < 4; ++row)
            QCOMPARE(proxy.index(row, 0).data(MessageIndexRole).toInt(), row + 2);
        View v(&proxy, palette);
        const int bx = RoundBracketDelegate::kBracketX, cx = RoundBracketDelegate::kChainX;
        const int h = v.cell(2).height();
        QCOMPARE(v.at(2, bx, h - 1), RoundBracketDelegate::bracketColor(palette, true).rgb());
        QCOMPARE(v.at(3, bx, 0), RoundBracketDelegate::bracketColor(palette, true).rgb());
        QCOMPARE(v.at(5, bx, 0), RoundBracketDelegate::bracketColor(palette, false).rgb());
        QCOMPARE(v.at(4, cx, 0), RoundBracketDelegate::chainColor(palette).rgb());
        QCOMPARE(v.at(5, cx, 0), RoundBracketDelegate::chainColor(palette).rgb());
    }

    // Filtered: round 2's call is hidden. Its result (now below round 1's result) cannot join upward
    // and shows a stub; round 1 and the chain (whose span still covers both rows) stay joined.
    void filteredPartial()
    {
        const QPalette palette = theme::darkPalette();
        auto t = smallTranscript();
        TranscriptModel model;
        model.setTranscript(t);
        model.setAnalysis(analyse(*t));
        HideMessages proxy({4});
        proxy.setSourceModel(&model);
        View v(&proxy, palette);
        const int bx = RoundBracketDelegate::kBracketX, cx = RoundBracketDelegate::kChainX;
        const int h = v.cell(5).height(), mid = v.cell(5).center().y() - v.cell(5).top();
        const QRgb ok = RoundBracketDelegate::bracketColor(palette, false).rgb();
        const QRgb failed = RoundBracketDelegate::bracketColor(palette, true).rgb();
        const QRgb chain = RoundBracketDelegate::chainColor(palette).rgb();
        QVERIFY(v.cell(5).top() == v.cell(3).bottom() + 1); // neighbours in the view
        QVERIFY(v.at(5, bx, 0) != ok);
        QCOMPARE(v.at(5, bx, mid - 2), ok);
        QCOMPARE(v.at(2, bx, h - 1), failed);
        QCOMPARE(v.at(3, bx, 0), failed);
        QCOMPARE(v.at(3, cx, h - 1), chain);
        QCOMPARE(v.at(5, cx, 0), chain);
    }

    // The join rule on its own: a neighbour joins only inside the span and on its file-order side.
    void joinsRule()
    {
        auto t = smallTranscript();
        TranscriptModel model;
        model.setTranscript(t);
        model.setAnalysis(analyse(*t));
        TranscriptFilterModel proxy;
        proxy.setSourceModel(&model);
        const QModelIndex r3 = proxy.index(3, TranscriptModel::RoundColumn);
        QCOMPARE(RoundBracketDelegate::neighbourMessage(r3, -1), 2);
        QCOMPARE(RoundBracketDelegate::neighbourMessage(r3, 1), 4);
        QCOMPARE(RoundBracketDelegate::neighbourMessage(proxy.index(0, 0), -1), -1);
        QVERIFY(RoundBracketDelegate::joins(r3, 2, 3, -1));
        QVERIFY(!RoundBracketDelegate::joins(r3, 2, 3, 1));  // 4 is past the span's end
        QVERIFY(!RoundBracketDelegate::joins(r3, 3, 5, -1)); // 2 is before the span
        QVERIFY(RoundBracketDelegate::joins(r3, 3, 5, 1));
        proxy.sort(TranscriptModel::IndexColumn, Qt::DescendingOrder);
        const QModelIndex d3 = proxy.match(proxy.index(0, 0), MessageIndexRole, 3, 1, Qt::MatchExactly).value(0).siblingAtColumn(TranscriptModel::RoundColumn);
        QVERIFY(d3.isValid());
        QVERIFY(!RoundBracketDelegate::joins(d3, 2, 3, -1)); // above is 4: wrong side
        QVERIFY(!RoundBracketDelegate::joins(d3, 2, 3, 1));  // below is 2: wrong side
    }

private:
    void palettes()
    {
        QTest::addColumn<QPalette>("palette");
        QTest::newRow("light") << theme::lightPalette();
        QTest::newRow("dark") << theme::darkPalette();
    }
};

QTEST_MAIN(TestRoundSorted)
#include "tst_roundsorted.moc"
