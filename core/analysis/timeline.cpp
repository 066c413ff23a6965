// SPDX-License-Identifier: MIT
#include "core/analysis/timeline.h"

#include "core/analysis/subagents.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace cl::analysis {

namespace {

constexpr std::uint64_t blockKey(std::int32_t message, std::int32_t block)
{
    return std::uint64_t(std::uint32_t(message)) << 32 | std::uint32_t(block);
}

bool thinks(const Message &m)
{
    return std::any_of(m.blocks.begin(), m.blocks.end(),
                       [](const Block &b) { return b.type == BlockType::Thinking || b.type == BlockType::RedactedThinking; });
}

// The time of the first timed message after each message (kNoTime at the end): where a call with no
// result stops.
std::vector<std::int64_t> nextTimes(const Transcript &t)
{
    std::vector<std::int64_t> next(t.messages.size(), kNoTime);
    std::int64_t after = kNoTime;
    for (std::size_t i = t.messages.size(); i-- > 0;) {
        next[i] = after;
        if (t.messages[i].timeMs != kNoTime)
            after = t.messages[i].timeMs;
    }
    return next;
}

class Builder
{
public:
    explicit Builder(const Transcript &t)
        : m_t(t)
        , m_next(nextTimes(t))
    {
        m_tl.lanes.push_back({"Model", SpanKind::Response, {}, 0, 0});
        m_runs = subagentRuns(t);
        m_tl.subagentNames.resize(t.subagents.size());
        for (const SubagentRun &r : m_runs)
            if (r.subagent < m_tl.subagentNames.size())
                m_tl.subagentNames[r.subagent] = r.description.empty() ? r.agentId : r.description;
        if (!m_runs.empty())
            m_tl.lanes.push_back({"Subagents", SpanKind::Subagent, {}, 0, 0});
        for (std::size_t r = 0; r < m_runs.size(); ++r)
            if (m_runs[r].parentRun < 0 && m_runs[r].message >= 0)
                m_runAt.emplace(blockKey(m_runs[r].message, m_runs[r].block), r);
    }

    Timeline build()
    {
        const std::size_t live = liveStart(m_t);
        for (std::size_t i = 0; i < m_t.messages.size(); ++i) {
            const Message &m = m_t.messages[i];
            if (m.timeMs == kNoTime)
                continue;
            if (m_tl.startMs == kNoTime || m.timeMs < m_tl.startMs)
                m_tl.startMs = m.timeMs;
            m_tl.endMs = std::max(m_tl.endMs, m.timeMs);
            if (i >= live && live > 0 && m_tl.liveStartMs == kNoTime)
                m_tl.liveStartMs = m.timeMs;
            if (m.kind == MessageKind::CompactBoundary)
                m_tl.compactions.push_back(m.timeMs);
            if (!m.isTurn())
                continue;
            if (m.usage && m.usage->contextTokens() > 0) {
                m_tl.context.push_back({m.timeMs, m.usage->contextTokens(), std::int32_t(i), m.history});
                m_tl.peakContext = std::max(m_tl.peakContext, m.usage->contextTokens());
            }
            if (m.role == Role::Assistant)
                addResponse(i);
            else
                m_response = -1;
            m_lastTime = m.timeMs;
        }
        addUnlinkedRuns();
        finishLanes();
        return std::move(m_tl);
    }

private:
    void addResponse(std::size_t i)
    {
        const Message &m = m_t.messages[i];
        // Lines of one response (Claude Code writes a line per block, with one message id) extend it;
        // a response starts after anything that is not the model's.
        const bool same = m_response >= 0
                          && (m.apiMessageId.empty() || m_responseId.empty() || m.apiMessageId == m_responseId);
        if (!same) {
            TimelineSpan s;
            s.startMs = m_lastTime == kNoTime ? m.timeMs : std::min(m_lastTime, m.timeMs);
            s.endMs = m.timeMs;
            s.message = std::int32_t(i);
            s.history = m.history;
            m_response = std::int32_t(m_tl.spans.size());
            m_responseId = m.apiMessageId;
            m_tl.spans.push_back(s);
        }
        TimelineSpan &r = m_tl.spans[std::size_t(m_response)];
        r.endMs = std::max(r.endMs, m.timeMs);
        r.thinking = r.thinking || thinks(m);
        for (std::size_t b = 0; b < m.blocks.size(); ++b)
            if (m.blocks[b].type == BlockType::ToolUse)
                addCall(i, b);
    }

    void addCall(std::size_t i, std::size_t b)
    {
        const Message &m = m_t.messages[i];
        const Block &call = m.blocks[b];
        if (call.serverSide && call.pairMessage == std::int32_t(i))
            return; // the provider ran it inside this response: no time of its own
        TimelineSpan s;
        s.kind = SpanKind::Tool;
        s.startMs = m.timeMs;
        s.message = std::int32_t(i);
        s.block = std::int32_t(b);
        s.history = m.history;
        const Message *result = call.pairMessage >= 0 ? &m_t.messages[std::size_t(call.pairMessage)] : nullptr;
        if (result && result->timeMs != kNoTime) {
            s.endMs = result->timeMs;
            const std::size_t rb = std::size_t(call.pairBlock);
            s.failed = rb < result->blocks.size() && result->blocks[rb].isError;
        } else {
            s.open = true;
            s.endMs = m_next[i] == kNoTime ? m.timeMs : m_next[i];
        }
        if (const auto run = m_runAt.find(blockKey(std::int32_t(i), std::int32_t(b))); run != m_runAt.end()) {
            const SubagentRun &r = m_runs[run->second];
            s.kind = SpanKind::Subagent;
            s.subagent = std::int32_t(r.subagent);
            if (s.open && r.durationMs >= 0) {
                s.endMs = s.startMs + r.durationMs;
                s.open = false;
            }
            s.lane = 1;
        } else {
            s.lane = toolLane(call.toolName.empty() ? std::string("tool") : call.toolName);
        }
        m_tl.spans.push_back(s);
    }

    // Subagents whose call is not in the session (started by another subagent, or not found):
    // their own first to last message, stacked beside the run that started them.
    void addUnlinkedRuns()
    {
        for (const SubagentRun &r : m_runs) {
            if ((r.parentRun < 0 && r.message >= 0) || r.subagent >= m_t.subagents.size())
                continue;
            TimelineSpan s;
            s.kind = SpanKind::Subagent;
            s.subagent = std::int32_t(r.subagent);
            s.message = r.sessionMessage; // an inner agent selects the session's call it descends from
            s.block = r.sessionBlock;
            s.lane = 1;
            s.startMs = kNoTime;
            for (const Message &m : m_t.subagents[r.subagent]->messages)
                if (m.timeMs != kNoTime) {
                    if (s.startMs == kNoTime)
                        s.startMs = m.timeMs;
                    s.endMs = std::max(s.endMs, m.timeMs);
                }
            if (s.startMs == kNoTime)
                continue;
            m_tl.startMs = m_tl.startMs == kNoTime ? s.startMs : std::min(m_tl.startMs, s.startMs);
            m_tl.endMs = std::max(m_tl.endMs, s.endMs);
            m_tl.spans.push_back(s);
        }
    }

    std::uint16_t toolLane(const std::string &name)
    {
        auto [it, added] = m_toolLanes.emplace(name, std::uint16_t(m_tl.lanes.size()));
        if (added)
            m_tl.lanes.push_back({name, SpanKind::Tool, {}, 0, 0});
        return it->second;
    }

    void finishLanes()
    {
        for (std::size_t i = 0; i < m_tl.spans.size(); ++i) {
            TimelineSpan &s = m_tl.spans[i];
            s.endMs = std::max(s.endMs, s.startMs); // clocks that went backwards
            m_tl.endMs = std::max(m_tl.endMs, s.endMs);
            TimelineLane &lane = m_tl.lanes[s.lane];
            lane.spans.push_back(std::uint32_t(i));
            lane.longestMs = std::max(lane.longestMs, s.durationMs());
            lane.busyMs += s.durationMs();
        }
        for (TimelineLane &lane : m_tl.lanes) {
            std::stable_sort(lane.spans.begin(), lane.spans.end(),
                             [&](std::uint32_t a, std::uint32_t b) { return m_tl.spans[a].startMs < m_tl.spans[b].startMs; });
            stack(lane);
        }
    }

    // Overlapping spans in rows of their own: each takes the first row free at its start, else the
    // row that frees first.
    void stack(TimelineLane &lane)
    {
        std::array<std::int64_t, kTimelineRows> freeAt;
        freeAt.fill(std::numeric_limits<std::int64_t>::min());
        for (const std::uint32_t i : lane.spans) {
            TimelineSpan &s = m_tl.spans[i];
            std::size_t row = 0;
            while (row < freeAt.size() && freeAt[row] > s.startMs)
                ++row;
            if (row == freeAt.size())
                row = std::size_t(std::min_element(freeAt.begin(), freeAt.end()) - freeAt.begin());
            s.row = std::uint8_t(row);
            freeAt[row] = std::max(freeAt[row], s.endMs);
            lane.rows = std::max<std::uint8_t>(lane.rows, std::uint8_t(row + 1));
        }
    }

    const Transcript &m_t;
    const std::vector<std::int64_t> m_next;
    Timeline m_tl;
    std::vector<SubagentRun> m_runs;
    std::unordered_map<std::uint64_t, std::size_t> m_runAt;
    std::unordered_map<std::string, std::uint16_t> m_toolLanes;
    std::int64_t m_lastTime = kNoTime;
    std::int32_t m_response = -1;
    std::string m_responseId;
};

} // namespace

Timeline buildTimeline(const Transcript &t)
{
    return Builder(t).build();
}

std::vector<std::uint32_t> visibleSpans(const Timeline &tl, std::size_t lane, std::int64_t fromMs, std::int64_t toMs,
                                        double msPerPixel)
{
    std::vector<std::uint32_t> out;
    if (lane >= tl.lanes.size() || toMs < fromMs || msPerPixel <= 0)
        return out;
    const TimelineLane &l = tl.lanes[lane];
    // The first span that can reach into the range starts at most the lane's longest span before it.
    const std::int64_t earliest = fromMs - l.longestMs;
    auto it = std::lower_bound(l.spans.begin(), l.spans.end(), earliest,
                               [&](std::uint32_t s, std::int64_t time) { return tl.spans[s].startMs < time; });
    const double columns = double(toMs - fromMs) / msPerPixel;
    std::array<double, kTimelineRows> lastEnd; // per row: the rightmost column drawn so far
    lastEnd.fill(-2);
    for (; it != l.spans.end() && tl.spans[*it].startMs <= toMs; ++it) {
        const TimelineSpan &s = tl.spans[*it];
        if (s.endMs < fromMs)
            continue;
        const double end = std::min(columns, std::floor(double(s.endMs - fromMs) / msPerPixel));
        if (end <= lastEnd[s.row])
            continue;
        out.push_back(*it);
        lastEnd[s.row] = end;
    }
    return out;
}

} // namespace cl::analysis
