// SPDX-License-Identifier: MIT
#include "core/workflow/forecast.h"

#include "core/strategies/qwen_code.h"
#include "core/strategies/registry.h"
#include "core/tokens/estimator.h"
#include "core/util/numbertext.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace cl::forecast {

namespace {

double defaultOf(std::string_view strategyName, std::string_view param, double fallback)
{
    if (const strategy::Strategy *s = strategy::find(strategyName))
        for (const auto &spec : s->params())
            if (spec.name == param && spec.defaultValue.is_number())
                return spec.defaultValue.get<double>();
    return fallback;
}

std::string percent(double share)
{
    return std::to_string(int(std::lround(share * 100))) + " %";
}

void setTrigger(Compaction &c, Format format)
{
    switch (format) {
    case Format::ClaudeCode: {
        const auto buffer = std::int64_t(defaultOf("claude-code-compact", "bufferTokens", 13000));
        c.agent = "Claude Code";
        c.rule = "window − " + util::grouped(buffer) + " tokens";
        c.trigger = std::max<std::int64_t>(0, c.window - buffer); // a window smaller than the buffer: at once
        return;
    }
    case Format::Codex: {
        const double share = defaultOf("codex", "autoCompactRatio", 0.9);
        c.agent = "Codex CLI";
        c.rule = percent(share) + " of the window";
        c.trigger = std::int64_t(share * double(c.window));
        return;
    }
    case Format::GeminiCli: {
        const double share = defaultOf("gemini-cli", "threshold", 0.5);
        c.agent = "Gemini CLI";
        c.rule = percent(share) + " of the model's limit";
        c.trigger = std::int64_t(share * double(c.window));
        return;
    }
    case Format::QwenCode: {
        const double share = defaultOf("qwen-code", "threshold", 0.85);
        const auto reserve = std::int64_t(defaultOf("qwen-code", "summaryReserve", 20000) + defaultOf("qwen-code", "bufferTokens", 13000));
        c.agent = "Qwen Code";
        c.rule = "min(" + percent(share) + " of the window, window − " + util::grouped(reserve) + " tokens)";
        c.trigger = strategy::qwenCodeCompressAt(c.window, share, reserve, 0);
        return;
    }
    case Format::CopilotCli: {
        // Background compaction from this share of the prompt limit; the session blocks on it at 95 %.
        const double share = defaultOf("copilot-cli", "threshold", 0.8);
        c.agent = "Copilot CLI";
        c.rule = percent(share) + " of the prompt limit";
        c.trigger = std::int64_t(share * double(c.window));
        return;
    }
    default:
        c.rule = "the window is full";
        c.trigger = c.window;
        return;
    }
}

bool startsTurn(const Message &m)
{
    if (m.sidechain || m.history || m.isMeta || m.role != Role::User || m.kind != MessageKind::Conversation)
        return false;
    return std::any_of(m.blocks.begin(), m.blocks.end(), [](const Block &b) { return b.type != BlockType::ToolResult; });
}

} // namespace

Compaction compaction(const Transcript &t, std::int64_t window, std::int64_t estimated)
{
    Compaction c;
    c.window = window;
    setTrigger(c, t.format);
    // The context after each live turn: measured where the responses record usage (their input and
    // output, which the next request carries), else the estimate of what was sent so far.
    // Only the live part is read: following a session of 70 000 messages, the whole file's
    // measurements cost 6 ms of every new line on the GUI thread.
    const std::size_t start = liveStart(t);
    const auto measuredAt = [&t](std::size_t i) -> std::int64_t { // as tokens::measuredContext finds them
        const Message &m = t.messages[i];
        if (m.sidechain || m.kind == MessageKind::CompactBoundary || !m.usage || m.usage->contextTokens() <= 0)
            return -1;
        return m.usage->contextTokens() + m.usage->outputTokens;
    };
    std::vector<std::int64_t> afterTurn; // context at the end of each turn, oldest first
    // Measured: a turn counts once one of its responses recorded usage (the running turn may not yet).
    std::vector<char> turnMeasured;
    std::int64_t lastMeasured = -1, running = 0;
    bool anyMeasured = false;
    for (std::size_t i = start; i < t.messages.size(); ++i) {
        const Message &m = t.messages[i];
        if (startsTurn(m)) {
            afterTurn.push_back(running);
            turnMeasured.push_back(0);
        }
        if (m.isConversation() && !m.sidechain)
            running += tokens::estimateMessage(m);
        const std::int64_t measured = measuredAt(i);
        if (measured >= 0) {
            lastMeasured = measured;
            anyMeasured = true;
        }
        if (!afterTurn.empty()) {
            afterTurn.back() = measured >= 0 ? measured : (turnMeasured.back() ? afterTurn.back() : running);
            turnMeasured.back() = char(turnMeasured.back() || measured >= 0);
        }
    }
    if (anyMeasured) {
        std::vector<std::int64_t> kept;
        for (std::size_t k = 0; k < afterTurn.size(); ++k)
            if (turnMeasured[k])
                kept.push_back(afterTurn[k]);
        afterTurn = std::move(kept);
    }
    c.measured = anyMeasured;
    c.current = anyMeasured ? lastMeasured : estimated;
    const std::size_t n = afterTurn.size();
    if (n >= 2) {
        const std::size_t from = n - 1 - std::min<std::size_t>(n - 1, kGrowthTurns);
        c.turnsSampled = int(n - 1 - from);
        c.growthPerTurn = double(afterTurn[n - 1] - afterTurn[from]) / double(c.turnsSampled);
    }
    if (c.due())
        c.turnsLeft = 0;
    else if (c.growthPerTurn > 0 && c.window > 0) // saturated: a huge window never overflows the count
        c.turnsLeft = int(std::min(std::ceil(double(c.trigger - c.current) / c.growthPerTurn), double(std::numeric_limits<int>::max())));
    return c;
}

std::string describe(const Compaction &c)
{
    std::string out;
    if (c.due())
        out = "due now: ";
    else if (c.turnsLeft)
        out = std::to_string(*c.turnsLeft) + (*c.turnsLeft == 1 ? " turn to " : " turns to ");
    else
        out = c.turnsSampled == 0 ? "too few turns to tell: " : "not growing: ";
    out += c.agent.empty() ? std::string("the window is full") : c.agent + "'s auto-compact";
    out += " (at ";
    out += util::grouped(c.trigger);
    out += " of ";
    out += util::grouped(c.window);
    out += " tokens)";
    return out;
}

} // namespace cl::forecast
