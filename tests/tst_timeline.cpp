// SPDX-License-Identifier: MIT
// The session over wall-clock time (core/analysis/timeline.h): a span per model response, per tool
// call (call to result, in its tool's lane) and per subagent run, the measured context at each
// response, history before the last compaction; the thinning that keeps drawing bounded; the view's
// zoom, pan and axis geometry (widgets/models/timelinegeometry.h); durations as text.
#include "core/analysis/timeline.h"
#include "core/generator/generator.h"
#include "core/io/loader.h"
#include "core/util/numbertext.h"
#include "widgets/models/timelinegeometry.h"

#include "test_support.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <set>

using namespace cl;
using namespace cl::analysis;
using cl::gui::TimeRange;

namespace {

std::shared_ptr<Transcript> generated(std::size_t messages, std::uint64_t seed, gen::Stats *stats = nullptr)
{
    gen::Options o;
    o.messages = messages;
    o.seed = seed;
    LoadResult r = loadBytes(gen::generate(o, stats), "generated.jsonl");
    return r.transcript;
}

std::string line(const std::string &body, const std::string &uuid, const std::string &parent, const std::string &time)
{
    return R"({"parentUuid":)" + (parent.empty() ? std::string("null") : "\"" + parent + "\"")
           + R"(,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s-tl","version":"2.1.120",)" + body
           + R"(,"uuid":")" + uuid + R"(","timestamp":"2026-03-02T09:)" + time + R"(.000Z")" + "}\n";
}

std::string assistant(const std::string &id, const std::string &content)
{
    return R"("type":"assistant","message":{"id":")" + id + R"(","type":"message","role":"assistant","model":"claude-x","content":)"
           + content + R"(,"usage":{"input_tokens":10,"cache_read_input_tokens":3000,"output_tokens":20}})";
}

std::string user(const std::string &content)
{
    return R"("type":"user","message":{"role":"user","content":)" + content + "}";
}

qint64 at(int minute, int second)
{
    return parseTimestamp("2026-03-02T09:" + QStringLiteral("%1:%2").arg(minute, 2, 10, QLatin1Char('0')).arg(second, 2, 10, QLatin1Char('0')).toStdString()
                          + ".000Z");
}

} // namespace

class TestTimeline : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void generatedSessionSpans();
    void responsesCallsAndOpenCalls();
    void subagentRunIsOneSpan();
    void overlappingSpansTakeRows();
    void realSessionHistory();
    void thinningIsBoundedAndCovers();
    void zoomKeepsTheAnchor();
    void panAndTicks();
    void durations();
};

void TestTimeline::generatedSessionSpans()
{
    gen::Stats stats;
    const auto t = generated(600, 11, &stats);
    QVERIFY(t);
    const Timeline tl = buildTimeline(*t);
    QVERIFY(!tl.empty());
    QCOMPARE(tl.lanes.front().name, std::string("Model"));
    std::size_t responses = 0, tools = 0;
    for (const TimelineSpan &s : tl.spans) {
        QVERIFY(s.endMs >= s.startMs);
        QVERIFY(s.startMs >= tl.startMs && s.endMs <= tl.endMs);
        const Message &m = t->messages[std::size_t(s.message)];
        QCOMPARE(s.history, m.history);
        if (s.kind == SpanKind::Response) {
            ++responses;
            QCOMPARE(m.role, Role::Assistant);
            QCOMPARE(s.lane, std::uint16_t(0));
            continue;
        }
        QCOMPARE(s.kind, SpanKind::Tool);
        ++tools;
        // From the call to its result, in the lane of its tool.
        const Block &call = m.blocks[std::size_t(s.block)];
        QCOMPARE(call.type, BlockType::ToolUse);
        QCOMPARE(tl.lanes[s.lane].name, call.toolName);
        QCOMPARE(s.startMs, m.timeMs);
        QVERIFY(call.pairMessage >= 0);
        QCOMPARE(s.endMs, t->messages[std::size_t(call.pairMessage)].timeMs);
        QCOMPARE(s.failed, t->messages[std::size_t(call.pairMessage)].blocks[std::size_t(call.pairBlock)].isError);
    }
    QCOMPARE(responses, stats.assistantResponses);
    QCOMPARE(tools, stats.toolCalls);
    std::size_t failed = 0;
    for (const TimelineSpan &s : tl.spans)
        failed += s.failed;
    QCOMPARE(failed, stats.failedToolCalls);
    // Every measured response is a context point, the peak is theirs, compactions are marked.
    std::size_t measured = 0;
    for (const Message &m : t->messages)
        measured += m.isTurn() && m.usage && m.usage->contextTokens() > 0;
    QCOMPARE(tl.context.size(), measured);
    QCOMPARE(tl.compactions.size(), stats.compactions);
    // Each lane lists its spans by start time; its longest span and busy time add up.
    std::size_t listed = 0;
    for (const TimelineLane &lane : tl.lanes) {
        std::int64_t busy = 0, longest = 0;
        for (std::size_t k = 0; k < lane.spans.size(); ++k) {
            const TimelineSpan &s = tl.spans[lane.spans[k]];
            busy += s.durationMs();
            longest = std::max(longest, s.durationMs());
            if (k)
                QVERIFY(tl.spans[lane.spans[k - 1]].startMs <= s.startMs);
        }
        QCOMPARE(lane.busyMs, busy);
        QCOMPARE(lane.longestMs, longest);
        listed += lane.spans.size();
    }
    QCOMPARE(listed, tl.spans.size());
}

void TestTimeline::responsesCallsAndOpenCalls()
{
    // One response over three lines (thinking, two parallel calls; the loader makes them one message
    // at its first line's time), the results at 09:00:07 and 09:00:12 (the second failed); a second
    // response whose call never got a result, then the user.
    const std::string bytes = line(user(R"("Run the tests")"), "u1", "", "00:00")
                              + line(assistant("msg_1", R"([{"type":"thinking","thinking":"plan","signature":"x"}])"), "a1", "u1", "00:03")
                              + line(assistant("msg_1", R"([{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"make test"}}])"), "a2", "a1", "00:04")
                              + line(assistant("msg_1", R"([{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"/w/a"}}])"), "a3", "a2", "00:05")
                              + line(user(R"([{"type":"tool_result","tool_use_id":"t1","content":"ok"}])"), "r1", "a3", "00:07")
                              + line(user(R"([{"type":"tool_result","tool_use_id":"t2","content":"missing","is_error":true}])"), "r2", "r1", "00:12")
                              + line(assistant("msg_2", R"([{"type":"tool_use","id":"t3","name":"Bash","input":{"command":"sleep 100"}}])"), "a4", "r2", "00:20")
                              + line(user(R"("Stop, that hangs")"), "u2", "a4", "01:30");
    const LoadResult r = loadBytes(bytes, "calls.jsonl");
    QVERIFY(r.ok());
    const Timeline tl = buildTimeline(*r.transcript);
    QCOMPARE(tl.lanes.size(), std::size_t(3)); // Model, Bash, Read (by first use)
    QCOMPARE(tl.lanes[1].name, std::string("Bash"));
    QCOMPARE(tl.lanes[2].name, std::string("Read"));
    QCOMPARE(tl.lanes[0].spans.size(), std::size_t(2));
    const TimelineSpan &first = tl.spans[tl.lanes[0].spans[0]];
    QCOMPARE(first.startMs, at(0, 0)); // from the request it answers
    QCOMPARE(first.endMs, at(0, 3));   // to its message
    QVERIFY(first.thinking);
    const TimelineSpan &second = tl.spans[tl.lanes[0].spans[1]];
    QCOMPARE(second.startMs, at(0, 12));
    QVERIFY(!second.thinking);
    QCOMPARE(tl.lanes[1].spans.size(), std::size_t(2));
    const TimelineSpan &bash = tl.spans[tl.lanes[1].spans[0]];
    QCOMPARE(bash.startMs, at(0, 3));
    QCOMPARE(bash.endMs, at(0, 7));
    QVERIFY(!bash.failed && !bash.open);
    const TimelineSpan &read = tl.spans[tl.lanes[2].spans[0]];
    QCOMPARE(read.durationMs(), qint64(9000));
    QVERIFY(read.failed);
    const TimelineSpan &hung = tl.spans[tl.lanes[1].spans[1]];
    QVERIFY(hung.open);
    QCOMPARE(hung.startMs, at(0, 20));
    QCOMPARE(hung.endMs, at(1, 30)); // until the next message
    QCOMPARE(tl.startMs, at(0, 0));
    QCOMPARE(tl.endMs, at(1, 30));
    QCOMPARE(tl.context.size(), std::size_t(2)); // one measurement per response
    QCOMPARE(tl.peakContext, std::int64_t(3010));
}

void TestTimeline::subagentRunIsOneSpan()
{
    QTemporaryDir dir;
    const std::string root = dir.path().toStdString();
    const std::string side = R"(,"isSidechain":true,"agentId":"a7f3")";
    auto sub = [&](const std::string &body, const std::string &uuid, const std::string &parent, const std::string &time) {
        std::string l = line(body, uuid, parent, time);
        l.replace(l.find(R"(,"isSidechain":false)"), 20, side);
        return l;
    };
    test::writeFile(root + "/s-tl.jsonl",
                    line(user(R"("Where is the retry limit?")"), "u1", "", "00:00")
                        + line(assistant("msg_1", R"([{"type":"tool_use","id":"toolu_task","name":"Task","input":{"description":"Find the retry config","prompt":"Search.","subagent_type":"Explore"}}])"),
                               "a1", "u1", "00:01")
                        + line(user(R"([{"type":"tool_result","tool_use_id":"toolu_task","content":[{"type":"text","text":"conf/net.toml"}]}])"),
                               "u2", "a1", "00:09")
                        + line(assistant("msg_2", R"([{"type":"text","text":"In conf/net.toml."}])"), "a2", "u2", "00:10"));
    // The result line names the subagent (Claude Code's toolUseResult).
    std::string session = test::readFile(root + "/s-tl.jsonl");
    const std::string marker = R"("uuid":"u2")";
    session.insert(session.find(marker),
                   R"("toolUseResult":{"status":"completed","agentId":"a7f3","totalDurationMs":7400,"totalTokens":5120,"totalToolUseCount":1,"content":[{"type":"text","text":"conf/net.toml"}]},)");
    test::writeFile(root + "/s-tl.jsonl", session);
    QDir().mkpath(QString::fromStdString(root + "/s-tl/subagents"));
    test::writeFile(root + "/s-tl/subagents/agent-a7f3.jsonl",
                    sub(user(R"("Search.")"), "s1", "a1", "00:02")
                        + sub(assistant("msg_s1", R"([{"type":"tool_use","id":"toolu_grep","name":"Grep","input":{"pattern":"retry"}}])"), "s2", "s1", "00:03")
                        + sub(user(R"([{"type":"tool_result","tool_use_id":"toolu_grep","content":"conf/net.toml:12"}])"), "s3", "s2", "00:05")
                        + sub(assistant("msg_s2", R"([{"type":"text","text":"conf/net.toml"}])"), "s4", "s3", "00:08"));
    const LoadResult r = loadFile(root + "/s-tl.jsonl");
    QVERIFY(r.ok());
    QCOMPARE(r.transcript->subagents.size(), std::size_t(1));
    const Timeline tl = buildTimeline(*r.transcript);
    // Model, Subagents; the Task call is the run, not a tool lane; the subagent's Grep is its own.
    QCOMPARE(tl.lanes.size(), std::size_t(2));
    QCOMPARE(tl.lanes[1].name, std::string("Subagents"));
    QCOMPARE(tl.lanes[1].spans.size(), std::size_t(1));
    const TimelineSpan &run = tl.spans[tl.lanes[1].spans[0]];
    QCOMPARE(run.kind, SpanKind::Subagent);
    QCOMPARE(run.subagent, 0);
    QCOMPARE(run.startMs, at(0, 1));
    QCOMPARE(run.endMs, at(0, 9));
    QCOMPARE(run.message, 1);
    QCOMPARE(tl.subagentNames.at(0), std::string("Find the retry config"));
}

void TestTimeline::overlappingSpansTakeRows()
{
    // Two subagents started together (the bundled fixture): the same lane, two rows.
    const LoadResult r = loadFile(CL_TEST_DATA_DIR "/claudecode/subagents-session.jsonl");
    QVERIFY(r.ok());
    const Timeline tl = buildTimeline(*r.transcript);
    QCOMPARE(tl.lanes.at(1).name, std::string("Subagents"));
    QCOMPARE(tl.lanes[1].spans.size(), std::size_t(2));
    QCOMPARE(tl.lanes[1].rows, std::uint8_t(2));
    QCOMPARE(tl.spans[tl.lanes[1].spans[0]].row, std::uint8_t(0));
    QCOMPARE(tl.spans[tl.lanes[1].spans[1]].row, std::uint8_t(1));
    // In a generated session: spans of one row never overlap; more than the rows share the one
    // that frees first.
    const auto t = generated(1500, 9);
    const Timeline big = buildTimeline(*t);
    bool stacked = false;
    for (const TimelineLane &lane : big.lanes) {
        QVERIFY(lane.rows >= 1 && lane.rows <= kTimelineRows);
        stacked = stacked || lane.rows > 1;
        std::array<std::int64_t, kTimelineRows> end;
        end.fill(std::numeric_limits<std::int64_t>::min());
        for (const std::uint32_t i : lane.spans) {
            const TimelineSpan &s = big.spans[i];
            QVERIFY(s.row < lane.rows);
            if (std::all_of(end.begin(), end.end(), [&](std::int64_t e) { return e > s.startMs; }))
                QCOMPARE(end[s.row], *std::min_element(end.begin(), end.end()));
            else
                QVERIFY2(end[s.row] <= s.startMs, lane.name.c_str());
            end[s.row] = std::max(end[s.row], s.endMs);
        }
    }
    QVERIFY(stacked); // parallel calls of one tool overlap
}

void TestTimeline::realSessionHistory()
{
    const std::string path = CL_SAMPLES_DIR "/../real-sessions/claude-code-2.1.39-compacted.jsonl";
    CL_REQUIRE(QFile::exists(QString::fromStdString(path)), "the real sessions (../shared/real-sessions)");
    const LoadResult r = loadFile(path);
    QVERIFY(r.ok());
    const Transcript &t = *r.transcript;
    const Timeline tl = buildTimeline(t);
    QVERIFY(!tl.compactions.empty());
    QVERIFY(tl.liveStartMs != kNoTime);
    QCOMPARE(tl.liveStartMs, [&] {
        for (std::size_t i = liveStart(t); i < t.messages.size(); ++i)
            if (t.messages[i].timeMs != kNoTime)
                return t.messages[i].timeMs;
        return kNoTime;
    }());
    std::size_t history = 0, live = 0, calls = 0;
    for (const TimelineSpan &s : tl.spans) {
        (s.history ? history : live)++;
        calls += s.kind != SpanKind::Response;
        QCOMPARE(s.history, t.messages[std::size_t(s.message)].history);
    }
    QVERIFY(history > 0 && live > 0);
    std::size_t timedCalls = 0;
    for (const Message &m : t.messages)
        if (m.timeMs != kNoTime && m.role == Role::Assistant && m.isTurn())
            for (const Block &b : m.blocks)
                timedCalls += b.type == BlockType::ToolUse && !(b.serverSide && b.pairMessage >= 0);
    QCOMPARE(calls, timedCalls);
}

void TestTimeline::thinningIsBoundedAndCovers()
{
    const auto t = generated(3000, 5);
    QVERIFY(t);
    const Timeline tl = buildTimeline(*t);
    const TimeRange whole{tl.startMs, tl.endMs};
    for (const int pixels : {50, 400}) {
        const double mpp = double(whole.span()) / pixels;
        for (std::size_t lane = 0; lane < tl.lanes.size(); ++lane) {
            const auto shown = visibleSpans(tl, lane, whole.from, whole.to, mpp);
            QVERIFY2(shown.size() <= std::size_t(tl.lanes[lane].rows) * std::size_t(pixels + 2), tl.lanes[lane].name.c_str());
            // Every span of the lane lies within a drawn one of its row, in pixel columns.
            const auto column = [&](std::int64_t ms) { return std::floor(double(ms - whole.from) / mpp); };
            for (const std::uint32_t s : tl.lanes[lane].spans) {
                const TimelineSpan &span = tl.spans[s];
                const bool covered = std::any_of(shown.begin(), shown.end(), [&](std::uint32_t d) {
                    return tl.spans[d].row == span.row && column(tl.spans[d].startMs) <= column(span.startMs)
                           && column(tl.spans[d].endMs) >= column(span.endMs);
                });
                QVERIFY2(covered, tl.lanes[lane].name.c_str());
            }
        }
        QVERIFY(visibleSpans(tl, 0, whole.from, whole.to, mpp).size() < tl.lanes[0].spans.size());
    }
    // Zoomed into a minute at one millisecond per pixel: every span reaching into it, none else.
    const TimelineSpan &middle = tl.spans[tl.lanes[0].spans[tl.lanes[0].spans.size() / 2]];
    const std::int64_t from = middle.startMs - 30'000, to = middle.startMs + 30'000;
    const auto shown = visibleSpans(tl, 0, from, to, 1.0);
    std::set<std::uint32_t> expected;
    for (const std::uint32_t s : tl.lanes[0].spans)
        if (tl.spans[s].endMs >= from && tl.spans[s].startMs <= to)
            expected.insert(s);
    QCOMPARE(std::set<std::uint32_t>(shown.begin(), shown.end()), expected);
}

void TestTimeline::zoomKeepsTheAnchor()
{
    const TimeRange whole{1'000'000, 4'600'000}; // an hour
    const TimeRange all = gui::paddedRange(whole);
    QVERIFY(all.from < whole.from && all.to > whole.to);
    // In by half at a quarter: the time under the pointer stays under it.
    const TimeRange in = gui::zoomRange(all, 0.25, 0.5, whole);
    QCOMPARE(in.span(), all.span() / 2);
    QVERIFY(std::abs(double(in.from) + 0.25 * double(in.span()) - (double(all.from) + 0.25 * double(all.span()))) <= 1.0);
    // Never narrower than the deepest zoom, never wider than the session.
    TimeRange deep = in;
    for (int i = 0; i < 60; ++i)
        deep = gui::zoomRange(deep, 0.7, 0.5, whole);
    QCOMPARE(deep.span(), gui::kShortestRangeMs);
    QVERIFY(deep.from >= all.from && deep.to <= all.to);
    QCOMPARE(gui::zoomRange(in, 0.5, 100.0, whole), all);
    // Zooming out at the edge keeps the range inside the session.
    const TimeRange edge = gui::zoomRange(gui::zoomRange(all, 0.0, 0.1, whole), 0.0, 3.0, whole);
    QCOMPARE(edge.from, all.from);
}

void TestTimeline::panAndTicks()
{
    const TimeRange whole{0, 3'600'000};
    const TimeRange view{600'000, 1'200'000};
    QCOMPARE(gui::panRange(view, 60'000, whole), (TimeRange{660'000, 1'260'000}));
    const TimeRange all = gui::paddedRange(whole);
    QCOMPARE(gui::panRange(view, -10'000'000, whole), (TimeRange{all.from, all.from + view.span()}));
    QCOMPARE(gui::panRange(view, 10'000'000, whole), (TimeRange{all.to - view.span(), all.to}));
    // Round steps at least 90 px apart, ticks on their multiples inside the range.
    for (const int pixels : {200, 800, 1600}) {
        const qint64 step = gui::tickStep(view, pixels);
        QVERIFY(double(step) * pixels / double(view.span()) >= 90);
        const auto ticks = gui::ticks(view, step);
        QVERIFY(!ticks.empty());
        for (const qint64 t : ticks)
            QVERIFY(t % step == 0 && t >= view.from && t <= view.to);
    }
    QCOMPARE(gui::tickStep(view, 800), qint64(120'000)); // 10 min over 800 px: 2 min
    QCOMPARE(gui::laneHeight(300, 5), 30);
    QCOMPARE(gui::laneHeight(300, 15), 20);
    QCOMPARE(gui::laneHeight(300, 40), 16);
}

void TestTimeline::durations()
{
    QCOMPARE(util::durationText(-1), std::string());
    QCOMPARE(util::durationText(850), std::string("850 ms"));
    QCOMPARE(util::durationText(7400), std::string("7.4 s"));
    QCOMPARE(util::durationText(59'960), std::string("59.9 s"));
    QCOMPARE(util::durationText(184'000), std::string("3 min 4 s"));
    QCOMPARE(util::durationText(7'500'000), std::string("2 h 5 min"));
}

QTEST_GUILESS_MAIN(TestTimeline)
#include "tst_timeline.moc"
