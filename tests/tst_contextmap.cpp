// SPDX-License-Identifier: MIT
// Context map geometry without painting: proportional widths with a minimum, merged pixel columns
// over 100 000 generated messages, the boundary curve's maxima, the seed 002 zone extents and
// hit-testing x -> message.
#include "core/analysis/analysis.h"
#include "core/generator/generator.h"
#include "core/tokens/estimator.h"
#include "widgets/models/contextmapgeometry.h"

#include <QtTest>

#include <algorithm>
#include <map>

using namespace cl;
using namespace cl::gui;
namespace an = cl::analysis;

namespace {

Message textMessage(Role role, const std::string &text)
{
    Message m;
    m.role = role;
    Block b;
    b.text = text;
    m.blocks.push_back(b);
    return m;
}

// system, then alternating user / assistant prose of growing length, with an event (not
// conversation) in the middle: 1 + 20 conversation messages.
Transcript handMade()
{
    Transcript t;
    t.messages.push_back(textMessage(Role::System, "You are a careful coding assistant. Keep answers short."));
    for (int k = 0; k < 20; ++k) {
        std::string text = k % 2 ? "Answer " : "Question ";
        for (int w = 0; w < 5 * (k + 1); ++w)
            text += "word" + std::to_string(w) + ' ';
        t.messages.push_back(textMessage(k % 2 ? Role::Assistant : Role::User, text));
        if (k == 9) {
            t.messages.push_back(textMessage(Role::System, "hook ran"));
            t.messages.back().kind = MessageKind::Event;
        }
    }
    return t;
}

constexpr double kEps = 1e-6;

} // namespace

class TestContextMap : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void proportionalWidths()
    {
        const Transcript t = handMade();
        const an::Analysis a = an::analyze(t);
        QCOMPARE(a.view.size(), std::size_t(21)); // the event is left out
        // Hand-picked tokens: widths are exactly proportional when no minimum is needed.
        std::vector<std::int64_t> tokens(21, 0);
        for (std::size_t p = 0; p < tokens.size(); ++p)
            tokens[p] = std::int64_t(10 * (p + 1)); // total 10 * 231 = 2310
        const ContextMapGeometry g = contextMapGeometry(tokens, a, 5, 2310, 3);
        QVERIFY(!g.merged);
        QCOMPARE(g.totalTokens, 2310);
        QCOMPARE(g.segments.size(), std::size_t(21));
        double x = 5;
        for (std::size_t p = 0; p < 21; ++p) {
            QCOMPARE(g.segments[p].position, int(p));
            QCOMPARE(g.segments[p].message, int(a.view.index[p]));
            QVERIFY(std::abs(g.segments[p].x - x) < kEps);
            QVERIFY(std::abs(g.segments[p].width - 10.0 * double(p + 1)) < kEps); // 1 px per token
            x += g.segments[p].width;
        }
        QVERIFY(std::abs(x - (5 + 2310)) < kEps);
        QCOMPARE(g.segments[12].message, 13); // past the event: position 12 is transcript index 13

        // With the transcript's own estimates: width ratio = token ratio.
        const ContextMapGeometry e = contextMapGeometry(t, a, 0, 5000, 0);
        for (std::size_t p = 1; p < 21; ++p) {
            const double want = double(tokens::estimateMessage(t.messages[a.view.index[p]]))
                                / double(tokens::estimateMessage(t.messages[a.view.index[0]]));
            QVERIFY(std::abs(e.segments[p].width / e.segments[0].width - want) < 1e-9);
        }
    }

    void minimumWidth()
    {
        const Transcript t = handMade();
        const an::Analysis a = an::analyze(t);
        // 21 messages in 200 px: position 0 has 1 token, 1..20 have 1000 each (20 001 tokens).
        std::vector<std::int64_t> tokens(21, 1000);
        tokens[0] = 1;
        const ContextMapGeometry g = contextMapGeometry(tokens, a, 0, 200, 3);
        QVERIFY(!g.merged);
        // 1 token alone would be 0.01 px: it gets the 3 px minimum, the others share 197 px.
        QCOMPARE(g.segments[0].width, 3.0);
        for (std::size_t p = 1; p < 21; ++p)
            QVERIFY(std::abs(g.segments[p].width - 197.0 / 20) < kEps);
        // Two pinned: 0 and 1 tiny, the rest large.
        tokens[1] = 2;
        const ContextMapGeometry h = contextMapGeometry(tokens, a, 0, 200, 3);
        QCOMPARE(h.segments[0].width, 3.0);
        QCOMPARE(h.segments[1].width, 3.0);
        QVERIFY(std::abs(h.segments[2].width - 194.0 / 19) < kEps);
        // 21 x 3 px do not fit in 50 px: no minimum, purely proportional, merged into 50 columns.
        const ContextMapGeometry m = contextMapGeometry(tokens, a, 0, 50, 3);
        QVERIFY(m.merged);
        QCOMPARE(m.columns.size(), std::size_t(50));
        QVERIFY(std::abs(m.segments[2].width - 1000.0 * 50 / 19003) < kEps);
        QVERIFY(m.segments[0].width < 0.01);
    }

    void hitTesting()
    {
        const Transcript t = handMade();
        const an::Analysis a = an::analyze(t);
        std::vector<std::int64_t> tokens(21, 0);
        for (std::size_t p = 0; p < tokens.size(); ++p)
            tokens[p] = std::int64_t(10 * (p + 1));
        const ContextMapGeometry g = contextMapGeometry(tokens, a, 5, 2310, 3);
        QCOMPARE(g.positionAt(4.9), -1);
        QCOMPARE(g.positionAt(5), 0);
        QCOMPARE(g.positionAt(5 + 9.9), 0);
        QCOMPARE(g.positionAt(5 + 10), 1); // position 1 spans [15, 35)
        QCOMPARE(g.positionAt(5 + 29.9), 1);
        QCOMPARE(g.positionAt(5 + 30), 2);
        QCOMPARE(g.positionAt(5 + 2309.9), 20);
        QCOMPARE(g.positionAt(5 + 2311), -1);
        QCOMPARE(g.messageAt(5 + 10 * 78 + 1), int(a.view.index[12])); // 10+20+...+120 = 780 starts position 12
        QCOMPARE(g.messageAt(5 + 10 * 78 + 1), 13);
        QCOMPARE(g.xOfPosition(2), 35.0);
        // The boundary line sits at the left edge of the chosen position.
        QVERIFY(a.boundary.has_value());
        QCOMPARE(*g.boundaryPosition, int(*a.boundary));
        QCOMPARE(g.boundaryX, g.segments[*a.boundary].x);
        QCOMPARE(g.positionAt(g.boundaryX + 0.5), int(*a.boundary));
        // Scores: position 0 has none; position p has boundaries[p-1].
        QVERIFY(!g.segments[0].score);
        QCOMPARE(*g.segments[7].score, a.boundaries[6].score);
    }

    void zonesHandMade()
    {
        const Transcript t = handMade();
        const an::Analysis a = an::analyze(t);
        const ContextMapGeometry g = contextMapGeometry(t, a, 0, 1000, 0);
        QCOMPARE(g.zones.size(), std::size_t(3));
        QCOMPARE(g.zones[0].zone, MapZone::System);
        QCOMPARE(g.zones[1].zone, MapZone::Compressible);
        QCOMPARE(g.zones[2].zone, MapZone::Recent);
        // System: position 0; recent: the last 3 (seed 002 K = 3); compressible: the 17 between, one run each.
        QCOMPARE(g.zones[0].spans.size(), std::size_t(1));
        QCOMPARE(g.zones[0].spans[0].first, 0.0);
        QCOMPARE(g.zones[0].spans[0].second, g.segments[1].x);
        QCOMPARE(g.zones[1].spans.size(), std::size_t(1));
        QCOMPARE(g.zones[1].spans[0].second, g.segments[18].x);
        QVERIFY(std::abs(g.zones[2].spans[0].second - 1000) < kEps);
        QCOMPARE(g.zones[2].tokens, a.zones.recentTokens);
        for (const ZoneExtent &z : g.zones) // purely proportional: extent share = token share
            QVERIFY(std::abs(z.width() / 1000 - double(z.tokens) / double(a.zones.totalTokens)) < 1e-9);
        QCOMPARE(g.totalTokens, a.zones.totalTokens);
    }

    void hundredThousandMessages()
    {
        gen::Options o;
        o.messages = 100000;
        const Transcript t = gen::generateTranscript(o);
        const an::Analysis a = an::analyze(t);
        const std::size_t n = a.view.size();
        QVERIFY(n >= 99990);
        const int width = 1400;
        const ContextMapGeometry g = contextMapGeometry(t, a, 8, width, 3);
        QVERIFY(g.merged);
        QCOMPARE(g.segments.size(), n);
        QCOMPARE(g.columns.size(), std::size_t(width));

        // Columns cover every message, in order, without gaps; neighbours share at most the message
        // that crosses their common edge.
        QCOMPARE(g.columns.front().firstPosition, 0);
        QCOMPARE(g.columns.back().lastPosition, int(n) - 1);
        for (int c = 0; c < width; ++c) {
            const MapColumn &col = g.columns[std::size_t(c)];
            QCOMPARE(col.pixel, 8 + c);
            QVERIFY(col.firstPosition <= col.lastPosition);
            if (c > 0) {
                const int prevLast = g.columns[std::size_t(c) - 1].lastPosition;
                QVERIFY2(col.firstPosition == prevLast || col.firstPosition == prevLast + 1, qPrintable(QString::number(c)));
            }
            // Every message in the range really touches the column.
            const MapSegment &a0 = g.segments[std::size_t(col.firstPosition)];
            const MapSegment &a1 = g.segments[std::size_t(col.lastPosition)];
            QVERIFY(a0.x < col.pixel + 1 + kEps && a0.x + a0.width > col.pixel - kEps);
            QVERIFY(a1.x < col.pixel + 1 + kEps);
        }

        // Curve: each column's maximum is the largest boundary score among its positions; the
        // highest column equals the highest score of the whole session.
        double globalMax = -1e300, columnMax = -1e300;
        for (const an::BoundaryScore &b : a.boundaries)
            globalMax = std::max(globalMax, b.score);
        for (const MapColumn &col : g.columns) {
            double want = -1e300;
            for (int p = std::max(1, col.firstPosition); p <= col.lastPosition; ++p)
                want = std::max(want, a.boundaries[std::size_t(p) - 1].score);
            if (col.lastPosition >= 1) {
                QVERIFY(col.maxScore.has_value());
                QCOMPARE(*col.maxScore, want);
                columnMax = std::max(columnMax, *col.maxScore);
            }
        }
        QCOMPARE(columnMax, globalMax);
        QCOMPARE(g.scoreMax, globalMax);

        // Dominant priority of a few columns, recomputed from token overlap by hand.
        for (int c : {0, 1, 700, width - 1}) {
            const MapColumn &col = g.columns[std::size_t(c)];
            std::map<int, double> weight;
            for (int p = col.firstPosition; p <= col.lastPosition; ++p) {
                const MapSegment &s = g.segments[std::size_t(p)];
                const double lo = std::max(s.x, double(col.pixel)), hi = std::min(s.x + s.width, double(col.pixel + 1));
                weight[int(s.priority)] += std::max(0.0, hi - lo);
            }
            const auto best = std::max_element(weight.begin(), weight.end(),
                                               [](const auto &l, const auto &r) { return l.second < r.second; });
            QCOMPARE(int(col.dominant), best->first);
        }

        // Zones: purely proportional, so each zone's extent is its share of the tokens.
        QVERIFY(g.zones.size() >= 2);
        for (const ZoneExtent &z : g.zones) {
            const double share = double(z.tokens) / double(a.zones.totalTokens);
            QVERIFY2(std::abs(z.width() / width - share) < 1e-9, qPrintable(zoneName(z.zone)));
        }
        // The recent zone is the last three messages: it ends at the strip's right edge.
        QCOMPARE(g.zones.back().zone, MapZone::Recent);
        QVERIFY(std::abs(g.zones.back().spans.back().second - (8 + width)) < 1e-6);

        // Hit-testing across the merged strip agrees with the segments.
        for (double x : {8.0, 8.5, 300.25, 1000.0, 8 + width - 0.01}) {
            const int p = g.positionAt(x);
            QVERIFY(p >= 0);
            const MapSegment &s = g.segments[std::size_t(p)];
            QVERIFY(s.x <= x + kEps && x < s.x + s.width + kEps);
            QCOMPARE(g.messageAt(x), int(a.view.index[std::size_t(p)]));
        }
        QVERIFY(a.boundary.has_value());
        QCOMPARE(g.positionAt(g.boundaryX + g.segments[*a.boundary].width / 2), int(*a.boundary));
    }

    void empty()
    {
        const Transcript t;
        const an::Analysis a = an::analyze(t);
        const ContextMapGeometry g = contextMapGeometry(t, a, 0, 500);
        QVERIFY(g.empty());
        QCOMPARE(g.positionAt(10), -1);
        QVERIFY(g.columns.empty() && g.zones.empty());
    }
};

QTEST_GUILESS_MAIN(TestContextMap)
#include "tst_contextmap.moc"
