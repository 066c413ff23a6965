// SPDX-License-Identifier: MIT
#include "core/strategy/simulation.h"

#include "core/tokens/contextfigure.h"
#include "core/tokens/estimator.h"

#include <algorithm>
#include <cmath>

namespace cl::sim {

namespace {

bool startsTurn(const Message &m)
{
    return m.kind == MessageKind::Conversation && !m.isMeta && analysis::isUserRequest(m);
}

// Turn starts, as positions in the view. The first turn starts at 0: what precedes the first request
// (a system or developer prompt) belongs to that request's turn, not to a turn of its own, so there
// is one turn per user request.
std::vector<std::size_t> turnStarts(const Transcript &t, const analysis::ConversationView &view)
{
    std::vector<std::size_t> starts;
    if (view.size() == 0)
        return starts;
    starts.push_back(0);
    bool seenRequest = startsTurn(t.messages[view.index[0]]);
    for (std::size_t p = 1; p < view.size(); ++p) {
        if (!startsTurn(t.messages[view.index[p]]))
            continue;
        if (seenRequest)
            starts.push_back(p);
        seenRequest = true;
    }
    return starts;
}

// Request starts: a step ends with each response of the model, the consecutive assistant lines
// of one response (Claude Code writes a line per block) together; what follows it (tool results,
// the next user message) is the next request's.
std::vector<std::size_t> requestStarts(const Transcript &t, const analysis::ConversationView &view)
{
    std::vector<std::size_t> starts;
    if (view.size() == 0)
        return starts;
    starts.push_back(0);
    for (std::size_t p = 1; p < view.size(); ++p)
        if (t.messages[view.index[p - 1]].role == Role::Assistant && t.messages[view.index[p]].role != Role::Assistant)
            starts.push_back(p);
    return starts;
}

std::vector<std::size_t> stepStarts(const Transcript &t, const analysis::ConversationView &view, Step step)
{
    return step == Step::Turn ? turnStarts(t, view) : requestStarts(t, view);
}

} // namespace

std::string_view stepName(Step s)
{
    return s == Step::Turn ? "turn" : "request";
}

std::size_t countTurns(const Transcript &t, Step step)
{
    return stepStarts(t, analysis::conversationView(t), step).size();
}

std::size_t suggestedStride(std::size_t turns, std::size_t budget)
{
    if (budget == 0 || turns <= budget)
        return 1;
    return (turns + budget - 1) / budget;
}

Simulation simulate(const Transcript &t, const strategy::Strategy &s, const nlohmann::json &params,
                    const SimulationOptions &options)
{
    Simulation out;
    out.strategy = std::string(s.name());
    strategy::Params check;
    if (!strategy::resolveParams(s.params(), params, check, out.error))
        return out;

    const analysis::ConversationView view = analysis::conversationView(t);
    const std::vector<std::size_t> starts = stepStarts(t, view, options.step);
    out.step = options.step;
    out.totalTurns = starts.size();
    out.stride = std::max<std::size_t>(1, options.stride);
    const std::size_t total = options.maxTurns ? std::min(options.maxTurns, starts.size()) : starts.size();
    out.turns.reserve(total);
    // The live figure at the end of each step, from one pass; a step's conversation with the
    // strategy counts at the same ratio to its seed estimate as without it.
    std::vector<std::uint32_t> ends;
    ends.reserve(total);
    for (std::size_t k = 0; k < total; ++k)
        ends.push_back(std::uint32_t(view.index[(k + 1 < starts.size() ? starts[k + 1] : view.size()) - 1]));
    const std::vector<tokens::FigureParts> live = tokens::contextSeries(t, ends, options.analysis.estimator);

    Transcript managed;
    managed.format = t.format;
    managed.header = t.header;
    strategy::RunOptions run;
    run.validate = false;
    run.metrics = false;
    std::int64_t without = 0;
    out.window = 0;
    // Per managed message, the transcript index it came from (-1: inserted by a strategy run), so
    // that the pins, which are transcript indices, follow their messages through the compactions.
    std::vector<std::int64_t> origin;
    std::vector<char> pinnedIndex(t.messages.size(), 0);
    for (const std::size_t i : options.pinned)
        if (i < pinnedIndex.size())
            pinnedIndex[i] = 1;
    for (std::size_t k = 0; k < total; ++k) {
        const std::size_t from = starts[k], to = k + 1 < starts.size() ? starts[k + 1] : view.size();
        TurnPoint point;
        point.turn = k + 1;
        point.firstIndex = view.index[from];
        point.lastIndex = view.index[to - 1];
        point.messages = to - from;
        for (std::size_t p = from; p < to; ++p) {
            Message m = t.messages[view.index[p]];
            without += tokens::estimateMessage(m);
            m.records.clear();
            managed.messages.push_back(std::move(m));
            origin.push_back(static_cast<std::int64_t>(view.index[p]));
        }
        for (auto &m : managed.messages)
            for (auto &b : m.blocks)
                b.pairMessage = b.pairBlock = -1;
        linkToolPairs(managed);
        managed.diagnostics.clear();
        point.without = without;
        point.beforeStrategy = tokens::totalEstimate(managed);

        strategy::Input in(managed, options.analysis);
        in.exemptTools = options.exemptTools;
        for (std::size_t j = 0; j < origin.size(); ++j)
            if (origin[j] >= 0 && pinnedIndex[static_cast<std::size_t>(origin[j])])
                in.pinned.push_back(j);
        if (out.window == 0)
            out.window = in.contextWindow();
        // Skipped turns still count tokens; the strategy sees their messages at its next run.
        const bool runs = (k + 1) % out.stride == 0 || k + 1 == total;
        const strategy::Result r = runs ? strategy::run(s, in, params, run) : strategy::Result{};
        point.changed = r.changed;
        point.cachePrefix = r.changed ? r.stats.cachePrefixTokens : 0;
        point.note = runs ? r.note : std::string("(not run: every ") + std::to_string(out.stride) + " turns)";
        if (r.changed) {
            std::vector<Message> next;
            std::vector<std::int64_t> nextOrigin;
            next.reserve(r.slots.size());
            nextOrigin.reserve(r.slots.size());
            for (std::size_t j = 0; j < r.slots.size(); ++j) {
                next.push_back(r.message(managed, j));
                const std::int32_t from = r.slots[j].origin;
                nextOrigin.push_back(from >= 0 ? origin[static_cast<std::size_t>(from)] : -1);
            }
            managed.messages = std::move(next);
            origin = std::move(nextOrigin);
            ++out.compactions;
        }
        point.with = tokens::totalEstimate(managed);
        point.managedMessages = managed.messages.size();
        const tokens::FigureParts &figure = live[k];
        const double ratio = without > 0 ? double(figure.total - figure.fixed) / double(without) : 1.0;
        // A managed context's seed estimate in the live count (the step's own figure when unchanged).
        const auto inLiveCount = [&](std::int64_t seed) {
            return seed == point.without ? figure.total : figure.fixed + std::int64_t(std::llround(ratio * double(seed)));
        };
        point.liveWithout = figure.total;
        point.liveBefore = inLiveCount(point.beforeStrategy);
        point.liveWith = inLiveCount(point.with);
        if (out.exceedsWithout < 0 && point.liveWithout > out.window)
            out.exceedsWithout = static_cast<std::int32_t>(point.turn);
        if (out.exceedsWith < 0 && point.liveWith > out.window)
            out.exceedsWith = static_cast<std::int32_t>(point.turn);
        out.turns.push_back(std::move(point));
        if (options.progress && !options.progress(k + 1, total)) {
            out.cancelled = k + 1 < total;
            break;
        }
    }
    out.kept = std::move(origin);
    if (out.window == 0) // no turn ran: still report the window the turns would have been held against
        out.window = strategy::Input(t, options.analysis).contextWindow();
    return out;
}

} // namespace cl::sim
