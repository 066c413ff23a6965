// SPDX-License-Identifier: MIT
#include "widgets/models/analysisrows.h"

#include <algorithm>

namespace cl::gui {

namespace {
// A result far below its call (an orphan answered much later) would mark every row between as
// "Through"; beyond this many rows the line is not worth a quadratic worst case.
constexpr std::size_t kMaxThroughRows = 2000;
} // namespace

int criticalCategoryRank(const std::string &category)
{
    if (category == "error_context")
        return 3;
    if (category == "file_modification")
        return 2;
    if (category == "system_change")
        return 1;
    return 0;
}

void AnalysisRows::build(const Transcript &t, const analysis::Analysis &a)
{
    const std::size_t n = t.messages.size();
    round.assign(n, -1);
    roundPart.assign(n, RoundPart::None);
    chainPart.assign(n, ChainPart::None);
    throughRound.assign(n, -1);
    roundLast.assign(a.rounds.size(), 0);
    chain.assign(n, -1);
    chains.clear();
    criticalRank.assign(n, 0);
    marks.clear();
    markBegin.assign(n + 1, 0);

    // Call messages first, so that a message which is both a result and a call shows the call.
    for (std::size_t r = 0; r < a.rounds.size(); ++r) {
        const auto &rd = a.rounds[r];
        if (rd.assistant >= n)
            continue;
        round[rd.assistant] = std::int32_t(r);
        const bool after = std::any_of(rd.results.begin(), rd.results.end(), [&](std::size_t i) { return i > rd.assistant && i < n; });
        roundPart[rd.assistant] = after ? RoundPart::Start : RoundPart::Single;
    }
    for (std::size_t r = 0; r < a.rounds.size(); ++r) {
        const auto &rd = a.rounds[r];
        if (rd.assistant >= n)
            continue;
        std::size_t last = rd.assistant;
        for (std::size_t i : rd.results)
            if (i < n && i > last)
                last = i;
        roundLast[r] = std::uint32_t(last);
        for (std::size_t i : rd.results)
            if (i < n && i > rd.assistant && round[i] < 0) {
                round[i] = std::int32_t(r);
                roundPart[i] = i == last ? RoundPart::End : RoundPart::Result;
            }
        if (last - rd.assistant <= kMaxThroughRows)
            for (std::size_t i = rd.assistant + 1; i < last; ++i)
                if (roundPart[i] == RoundPart::None) {
                    roundPart[i] = RoundPart::Through;
                    throughRound[i] = std::int32_t(r);
                }
    }

    // Chains of two or more rounds: one connecting line from the first call to the last result.
    for (std::size_t r = 0; r < a.rounds.size();) {
        std::size_t e = r + 1;
        while (e < a.rounds.size() && a.rounds[e].chain == a.rounds[r].chain)
            ++e;
        if (e - r >= 2) {
            const std::size_t first = a.rounds[r].assistant;
            std::size_t last = a.rounds[e - 1].assistant;
            for (std::size_t i : a.rounds[e - 1].results)
                last = std::max(last, i);
            if (first < n && last < n && first < last) {
                for (std::size_t i = first; i <= last; ++i) {
                    chainPart[i] = i == first ? ChainPart::Start : i == last ? ChainPart::End
                                                                             : ChainPart::Middle;
                    chain[i] = std::int32_t(chains.size());
                }
                chains.emplace_back(std::uint32_t(first), std::uint32_t(last));
            }
        }
        r = e;
    }

    // Critical marks: on the call's block and on the block answering it, grouped by message.
    std::vector<std::pair<std::uint32_t, CriticalMark>> pending;
    pending.reserve(a.critical.size() * 2);
    for (std::size_t c = 0; c < a.critical.size(); ++c) {
        const auto &ct = a.critical[c];
        if (ct.message >= n)
            continue;
        pending.push_back({std::uint32_t(ct.message), {std::int32_t(ct.block), std::uint32_t(c), false}});
        const std::int32_t r = round[ct.message];
        if (r < 0 || a.rounds[std::size_t(r)].assistant != ct.message)
            continue;
        for (const auto &call : a.rounds[std::size_t(r)].calls) {
            if (call.message != ct.message || call.block != ct.block || call.resultMessage < 0
                || std::size_t(call.resultMessage) >= n)
                continue;
            const auto &blocks = t.messages[std::size_t(call.resultMessage)].blocks;
            for (std::size_t b = 0; b < blocks.size(); ++b)
                if (blocks[b].type == BlockType::ToolResult && blocks[b].toolId == call.id) {
                    pending.push_back({std::uint32_t(call.resultMessage), {std::int32_t(b), std::uint32_t(c), true}});
                    break;
                }
            break;
        }
    }
    std::stable_sort(pending.begin(), pending.end(), [](const auto &l, const auto &r) { return l.first < r.first; });
    marks.reserve(pending.size());
    for (const auto &[message, mark] : pending) {
        ++markBegin[message + 1];
        marks.push_back(mark);
        criticalRank[message] = std::uint8_t(std::max(int(criticalRank[message]),
                                                      criticalCategoryRank(a.critical[mark.critical].category)));
    }
    for (std::size_t i = 0; i < n; ++i)
        markBegin[i + 1] += markBegin[i];

    maxBoundary = 0;
    for (const auto &b : a.boundaries)
        maxBoundary = std::max(maxBoundary, b.score);
}

} // namespace cl::gui
