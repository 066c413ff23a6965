// SPDX-License-Identifier: MIT
#include "core/strategies/exchanges.h"

#include "core/strategies/agent_common.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cl::strategy::exchanges {

Exchanges exchanges(const Editor &e)
{
    Exchanges x;
    x.n = e.size();
    x.head = leadingSystem(e).size();
    for (std::size_t p = x.head; p < x.n; ++p)
        if (isSafeCut(e, p))
            x.starts.push_back(p);
    if (!x.starts.empty())
        x.head = x.starts.front();
    else
        x.head = x.n;
    x.tokens.assign(x.starts.size(), 0);
    for (std::size_t k = 0; k < x.starts.size(); ++k)
        for (std::size_t p = x.starts[k]; p < x.end(k); ++p)
            x.tokens[k] += e.tokens(e.at(p));
    return x;
}

Rounds rounds(const Editor &e)
{
    Rounds r;
    const std::size_t n = e.size();
    const auto &scores = e.analysis().boundaries; // element k: the cut before position k + 1
    const Transcript &t = e.transcript();
    // Live positions, and which of them start a round.
    std::vector<std::size_t> live;
    std::vector<char> starts;
    const std::string *lastAssistantId = nullptr;
    std::size_t previous = n; // the last live position before p
    for (std::size_t p = leadingSystem(e).size(); p < n; ++p) {
        const std::size_t i = e.at(p);
        if (e.isRemoved(i))
            continue;
        const Message &m = t.messages[i];
        bool start = false;
        if (m.role == Role::Assistant && previous == p - 1 && p - 1 < scores.size()) {
            const Message &prev = t.messages[e.at(previous)];
            const bool afterResult = agents::isObservation(prev);
            const bool sameResponse = lastAssistantId && !m.apiMessageId.empty() && *lastAssistantId == m.apiMessageId;
            start = afterResult && !scores[p - 1].inToolSequence && !sameResponse;
        }
        if (m.role == Role::Assistant)
            lastAssistantId = &m.apiMessageId;
        if (analysis::isUserRequest(m))
            lastAssistantId = nullptr;
        live.push_back(p);
        starts.push_back(char(start));
        previous = p;
    }
    for (std::size_t k = 0; k < live.size(); ++k) {
        if (!starts[k])
            continue;
        std::size_t j = k + 1;
        while (j < live.size() && !starts[j] && !analysis::isUserRequest(t.messages[e.at(live[j])]))
            ++j;
        if (j >= live.size() || !starts[j])
            continue; // the exchange's last round, or the running one
        std::int64_t tokens = 0;
        for (std::size_t q = k; q < j; ++q)
            tokens += e.tokens(e.at(live[q]));
        r.starts.push_back(live[k]);
        r.ends.push_back(live[j]);
        r.tokens.push_back(tokens);
    }
    return r;
}

namespace {

// Unit numbers [0, m) in the order `mode` removes them.
std::vector<std::size_t> removalOrder(Removal mode, std::size_t m, std::size_t keepFirst, std::size_t keepLast)
{
    const std::size_t tailStart = m > keepLast ? m - keepLast : 0;
    const std::size_t midStart = std::min(keepFirst, tailStart);
    std::vector<std::size_t> order;
    order.reserve(m);
    if (mode == Removal::Oldest) {
        for (std::size_t k = 0; k < tailStart; ++k)
            order.push_back(k);
        return order;
    }
    for (std::size_t k = midStart; k < tailStart; ++k)
        order.push_back(k);
    if (mode == Removal::Middle) {
        // Distance from the region's centre, doubled to stay in integers; older first on ties.
        const std::size_t centre2 = midStart + tailStart - 1;
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            const std::size_t da = 2 * a > centre2 ? 2 * a - centre2 : centre2 - 2 * a;
            const std::size_t db = 2 * b > centre2 ? 2 * b - centre2 : centre2 - 2 * b;
            return da < db;
        });
    } else {
        for (std::size_t k = 0; k < midStart; ++k)
            order.push_back(k);
    }
    return order;
}

} // namespace

std::int64_t conversationTokens(const Editor &e)
{
    std::int64_t total = 0;
    for (std::size_t p = 0; p < e.size(); ++p)
        total += e.tokens(e.at(p));
    return total;
}

double efficiency(std::int64_t tokensBefore, std::int64_t tokensAfter, std::size_t messagesKept,
                  std::size_t messagesBefore)
{
    const double reduction = tokensBefore > 0 ? 1.0 - double(tokensAfter) / double(tokensBefore) : 0.0;
    const double kept = messagesBefore > 0 ? double(messagesKept) / double(messagesBefore) : 1.0;
    return 0.6 * reduction + 0.4 * kept;
}

std::string_view removalName(Removal r)
{
    switch (r) {
    case Removal::Middle: return "middle";
    case Removal::Oldest: return "oldest";
    case Removal::Hybrid: return "hybrid";
    }
    return "middle";
}

std::string percent(double share)
{
    return std::to_string(std::lround(share * 100.0)) + " %";
}

std::string fixed(double v, int decimals)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

RemovalOutcome removeExchanges(Editor &e, Removal mode, std::int64_t target, std::size_t keepFirst, std::size_t keepLast,
                               bool withRounds)
{
    const Exchanges x = exchanges(e);
    RemovalOutcome o;
    o.target = target;
    o.messagesBefore = x.n;
    o.exchanges = x.size();
    o.tokensBefore = conversationTokens(e);
    const std::size_t m = x.size();
    const std::vector<std::size_t> order = removalOrder(mode, m, keepFirst, keepLast);
    e.log(std::string(removalName(mode)) + " removal: " + std::to_string(m) + " exchange(s), " + std::to_string(order.size())
          + " removable (keepFirst " + std::to_string(keepFirst) + ", keepLast " + std::to_string(keepLast) + "), "
          + std::to_string(o.tokensBefore) + " tokens, target " + std::to_string(target));

    std::int64_t total = o.tokensBefore;
    std::size_t removedMessages = 0;
    for (const std::size_t k : order) {
        if (total <= target)
            break;
        bool blocked = false;
        for (std::size_t p = x.starts[k]; p < x.end(k) && !blocked; ++p)
            blocked = e.isProtected(e.at(p));
        if (blocked) {
            e.log("exchange " + std::to_string(k + 1) + " kept: it holds a pinned or exempt-tool message");
            continue;
        }
        const std::string why = std::string(removalName(mode)) + " removal: exchange " + std::to_string(k + 1) + " of "
                                + std::to_string(m) + " (" + std::to_string(x.tokens[k]) + " tokens); "
                                + std::to_string(total) + " > target " + std::to_string(target);
        for (std::size_t p = x.starts[k]; p < x.end(k); ++p)
            e.remove(e.at(p), why);
        removedMessages += x.end(k) - x.starts[k];
        total -= x.tokens[k];
        ++o.exchangesRemoved;
        e.log("removed exchange " + std::to_string(k + 1) + " (positions " + std::to_string(x.starts[k]) + "-"
              + std::to_string(x.end(k) - 1) + ", " + std::to_string(x.tokens[k]) + " tokens) -> " + std::to_string(total));
    }
    if (withRounds && total > target) {
        const Rounds r = rounds(e);
        o.rounds = r.size();
        e.log("tool rounds: " + std::to_string(r.size()) + " removable inside the exchanges left");
        for (const std::size_t k : removalOrder(mode, r.size(), keepFirst, keepLast)) {
            if (total <= target)
                break;
            bool blocked = false;
            for (std::size_t p = r.starts[k]; p < r.ends[k] && !blocked; ++p)
                blocked = !e.isRemoved(e.at(p)) && e.isProtected(e.at(p));
            if (blocked) {
                e.log("tool round " + std::to_string(k + 1) + " kept: it holds a pinned or exempt-tool message");
                continue;
            }
            const std::string why = std::string(removalName(mode)) + " removal: tool round " + std::to_string(k + 1) + " of "
                                    + std::to_string(r.size()) + " (" + std::to_string(r.tokens[k]) + " tokens); "
                                    + std::to_string(total) + " > target " + std::to_string(target);
            for (std::size_t p = r.starts[k]; p < r.ends[k]; ++p)
                if (!e.isRemoved(e.at(p)) && e.remove(e.at(p), why))
                    ++removedMessages;
            total -= r.tokens[k];
            ++o.roundsRemoved;
        }
    }
    o.tokensAfter = total;
    o.messagesKept = x.n - removedMessages;
    o.reached = total <= target;
    o.efficiency = efficiency(o.tokensBefore, o.tokensAfter, o.messagesKept, o.messagesBefore);
    if (!o.reached)
        e.log("target not reached: " + std::to_string(total) + " > " + std::to_string(target)
              + (withRounds ? " (no removable exchange or tool round left)" : " (no removable exchange left)"));
    return o;
}

std::int64_t removalTarget(const Editor &e, std::int64_t param, bool force, std::int64_t total, std::string &why)
{
    std::int64_t target = param;
    why = "targetTokens parameter";
    if (target <= 0) {
        target = e.analysis().features.targetTokens;
        why = e.input().options.targetTokens > 0 ? "targetTokens option" : "context window x targetWindowShare";
    }
    if (target <= 0) {
        target = e.input().contextWindow() / 2;
        why = "context window / 2";
    }
    if (force && total <= target) {
        target = total / 2;
        why = "forced preview: half of the current tokens";
    }
    return target;
}

} // namespace cl::strategy::exchanges
