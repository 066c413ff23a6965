// SPDX-License-Identifier: MIT
// The session script: a sequence of exchanges (user request, tool rounds, final answer), with the
// clock, the context size and the prompt cache moving the way they do in a real agent session.
#include "core/generator/internal.h"

#include <algorithm>
#include <limits>

namespace cl::gen::detail {

namespace {

constexpr std::size_t kUnlimited = std::numeric_limits<std::size_t>::max();

class Script
{
public:
    Script(const Options &o, const SessionLimits &limits, Rng &rng, const Project &p, std::int64_t startMs,
           const std::string &model, Sink &sink, Stats &stats)
        : m_o(o)
        , m_limits(limits)
        , m_rng(rng)
        , m_p(p)
        , m_now(startMs)
        , m_model(model)
        , m_sink(sink)
        , m_stats(stats)
    {
        m_systemTokens = m_rng.range(13000, 19000); // system prompt + tool definitions
        m_context = m_systemTokens;
        m_cached = m_rng.chance(0.7) ? m_systemTokens : 0; // warm cache from an earlier session
    }

    void run()
    {
        while (messagesLeft() >= 2 && bytesLeft() > 0) {
            maybeCompact();
            userPrompt();
            int rounds = 0;
            while (rounds < 14 && (rounds == 0 ? m_rng.chance(0.85) : m_rng.chance(0.7))) {
                if (messagesLeft() < 3 || bytesLeft() < 4000)
                    break;
                maybeCompact();
                toolRound(rounds == 0);
                ++rounds;
            }
            finalAnswer();
        }
    }

private:
    std::size_t messagesLeft() const
    {
        if (!m_limits.messages)
            return kUnlimited;
        return m_limits.messages > m_stats.messages ? m_limits.messages - m_stats.messages : 0;
    }
    std::size_t bytesLeft() const
    {
        if (!m_limits.bytes)
            return kUnlimited;
        return m_limits.bytes > m_sink.bytes() ? m_limits.bytes - m_sink.bytes() : 0;
    }

    void stamp(Message &m)
    {
        m.timeMs = m_now;
        m.timestamp = formatTimestamp(m_now);
    }

    void emit(Event &&e, bool counts)
    {
        if (counts)
            ++m_stats.messages;
        m_sink.add(std::move(e));
    }

    void maybeCompact()
    {
        const auto threshold = std::int64_t(double(m_o.contextWindow) * m_o.compactAt);
        if (m_context < threshold)
            return;
        if (!m_limits.compaction) {
            // Formats without compaction records: the agent silently starts from a fresh context.
            m_context = m_systemTokens;
            m_cached = m_systemTokens;
            return;
        }
        Event boundary;
        boundary.msg.role = Role::System;
        boundary.msg.kind = MessageKind::CompactBoundary;
        boundary.msg.type = "system/compact_boundary";
        boundary.preTokens = m_context;
        m_now += m_rng.range(1000, 4000);
        stamp(boundary.msg);
        emit(std::move(boundary), false);

        Event summary;
        summary.msg.role = Role::User;
        summary.msg.kind = MessageKind::CompactSummary;
        summary.msg.type = "user";
        Block b;
        b.text = summaryText(m_rng, m_p);
        const std::size_t size = b.text.size();
        summary.msg.blocks.push_back(std::move(b));
        m_now += m_rng.range(20000, 90000); // the summary takes a while to write
        stamp(summary.msg);
        emit(std::move(summary), false);
        ++m_stats.compactions;
        m_context = m_systemTokens + approxTokens(size);
        m_cached = m_systemTokens;
    }

    void userPrompt()
    {
        if (m_stats.userPrompts > 0 && m_rng.chance(m_o.gapShare)) {
            m_now += std::int64_t(m_rng.range(6 * 60, 150 * 60)) * 1000; // coffee, meeting, next morning
            ++m_stats.gaps;
        } else {
            m_now += m_rng.range(8000, 240000);
        }
        Event e;
        e.msg.role = Role::User;
        e.msg.type = "user";
        Block b;
        b.text = detail::userPrompt(m_rng, m_p, m_rng.chance(m_o.chineseShare));
        m_context += approxTokens(b.text.size()) + 4;
        e.msg.blocks.push_back(std::move(b));
        stamp(e.msg);
        ++m_stats.userPrompts;
        emit(std::move(e), true);
    }

    Event assistantStart(double thinkingShare)
    {
        Event e;
        e.msg.role = Role::Assistant;
        e.msg.type = "assistant";
        e.msg.model = m_model;
        e.msg.apiMessageId = "msg_01" + base62(m_rng, 22);
        e.msg.id = e.msg.apiMessageId;
        m_now += m_rng.range(1500, 20000);
        stamp(e.msg);
        if (m_rng.chance(thinkingShare)) {
            Block t;
            t.type = BlockType::Thinking;
            t.text = thinkingText(m_rng, m_p);
            e.msg.blocks.push_back(std::move(t));
            ++m_stats.thinkingBlocks;
        }
        return e;
    }

    void finishResponse(Event &e, std::size_t outputBytes)
    {
        Usage u;
        u.inputTokens = m_rng.range(1, 12);
        u.cacheReadTokens = std::min(m_cached, m_context - u.inputTokens);
        u.cacheCreationTokens = std::max<std::int64_t>(0, m_context - u.inputTokens - u.cacheReadTokens);
        u.outputTokens = std::max<std::int64_t>(1, approxTokens(outputBytes));
        m_stats.lastContextTokens = u.contextTokens();
        e.msg.usage = u;
        m_cached = m_context;
        m_context += u.outputTokens;
        ++m_stats.assistantResponses;
    }

    void toolRound(bool exploring)
    {
        Event a = assistantStart(0.25);
        std::size_t outBytes = 0;
        if (m_rng.chance(0.5)) {
            Block t;
            t.text = shortIntent(m_rng, m_p);
            outBytes += t.text.size();
            a.msg.blocks.push_back(std::move(t));
        }
        const int calls = m_rng.chance(m_o.parallelShare) ? m_rng.range(2, 4) : 1;
        const std::size_t left = bytesLeft();
        const std::size_t perCall = left == kUnlimited ? kUnlimited : std::max<std::size_t>(2000, left / std::size_t(calls * 2));
        std::vector<ToolCall> results;
        Event r;
        r.msg.role = Role::User;
        r.msg.type = "user";
        for (int i = 0; i < calls; ++i) {
            ToolCall c = makeToolCall(m_rng, m_p, m_o, perCall, exploring);
            Block u;
            u.type = BlockType::ToolUse;
            u.toolId = "toolu_01" + base62(m_rng, 22);
            u.toolName = c.name;
            outBytes += c.input.dump().size() + 40;
            Block res;
            res.type = BlockType::ToolResult;
            res.toolId = u.toolId;
            res.toolName = c.name;
            res.isError = c.isError;
            res.text = std::move(c.result);
            m_stats.failedToolCalls += c.isError;
            a.msg.blocks.push_back(std::move(u));
            a.inputs.push_back(std::move(c.input));
            r.msg.blocks.push_back(std::move(res));
            r.toolUseResults.push_back(std::move(c.toolUseResult));
        }
        for (const auto &b : a.msg.blocks)
            if (b.type == BlockType::Thinking)
                outBytes += b.text.size();
        m_stats.toolCalls += std::size_t(calls);
        ++m_stats.toolRounds;
        m_stats.parallelRounds += calls > 1;
        m_stats.assistantLines += a.msg.blocks.size();
        finishResponse(a, outBytes);
        emit(std::move(a), true);

        std::size_t resultBytes = 0;
        for (const auto &b : r.msg.blocks)
            resultBytes += b.text.size() + 20;
        m_now += m_rng.range(50, 4000) + std::int64_t(resultBytes / 2000); // tools take a moment
        if (m_rng.chance(0.05))
            m_now += m_rng.range(20000, 200000); // a long build or a permission prompt
        stamp(r.msg);
        m_context += approxTokens(resultBytes);
        m_stats.toolResults += std::size_t(calls);
        emit(std::move(r), true);
    }

    void finalAnswer()
    {
        Event a = assistantStart(0.35);
        Block t;
        t.text = answer(m_rng, m_p);
        std::size_t outBytes = t.text.size();
        for (const auto &b : a.msg.blocks)
            outBytes += b.text.size();
        a.msg.blocks.push_back(std::move(t));
        m_stats.assistantLines += a.msg.blocks.size();
        finishResponse(a, outBytes);
        emit(std::move(a), true);
    }

    const Options &m_o;
    const SessionLimits &m_limits;
    Rng &m_rng;
    const Project &m_p;
    std::int64_t m_now;
    std::string m_model;
    Sink &m_sink;
    Stats &m_stats;
    std::int64_t m_systemTokens = 0;
    std::int64_t m_context = 0; // tokens the next request would send
    std::int64_t m_cached = 0;  // prefix already in the prompt cache
};

} // namespace

void runSession(const Options &o, const SessionLimits &limits, Rng &rng, const Project &p, std::int64_t startMs,
                const std::string &model, Sink &sink, Stats &stats)
{
    Script(o, limits, rng, p, startMs, model, sink, stats).run();
}

} // namespace cl::gen::detail
