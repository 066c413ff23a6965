// SPDX-License-Identifier: MIT
#include "core/simulation.h"

#include "core/tokens.h"

namespace cl::sim {

namespace {

bool startsTurn(const Message &m)
{
    return m.kind == MessageKind::Conversation && !m.isMeta && analysis::isUserRequest(m);
}

} // namespace

Simulation simulate(const Transcript &t, const strategy::Strategy &s, const nlohmann::json &params,
                    const SimulationOptions &options)
{
    Simulation out;
    out.strategy = std::string(s.name());
    strategy::Params check;
    if (!strategy::resolveParams(s.params(), params, check, out.error))
        return out;

    const analysis::ConversationView view = analysis::conversationView(t);
    // Turn starts, as positions in the view.
    std::vector<std::size_t> starts;
    for (std::size_t p = 0; p < view.size(); ++p)
        if (startsTurn(t.messages[view.index[p]]) && p > 0)
            starts.push_back(p);
    starts.insert(starts.begin(), 0);
    if (view.size() == 0)
        starts.clear();

    Transcript managed;
    managed.format = t.format;
    managed.header = t.header;
    strategy::RunOptions run;
    run.validate = false;
    run.metrics = false;
    std::int64_t without = 0;
    out.window = 0;
    for (std::size_t k = 0; k < starts.size(); ++k) {
        if (options.maxTurns && k >= options.maxTurns)
            break;
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
        }
        for (auto &m : managed.messages)
            for (auto &b : m.blocks)
                b.pairMessage = b.pairBlock = -1;
        linkToolPairs(managed);
        managed.diagnostics.clear();
        point.without = without;
        point.beforeStrategy = tokens::totalEstimate(managed);

        strategy::Input in(managed, options.analysis);
        if (out.window == 0)
            out.window = in.contextWindow();
        const strategy::Result r = strategy::run(s, in, params, run);
        point.changed = r.changed;
        point.note = r.note;
        if (r.changed) {
            std::vector<Message> next;
            next.reserve(r.slots.size());
            for (std::size_t j = 0; j < r.slots.size(); ++j)
                next.push_back(r.message(managed, j));
            managed.messages = std::move(next);
            ++out.compactions;
        }
        point.with = tokens::totalEstimate(managed);
        point.managedMessages = managed.messages.size();
        if (out.exceedsWithout < 0 && point.without > out.window)
            out.exceedsWithout = static_cast<std::int32_t>(point.turn);
        if (out.exceedsWith < 0 && point.with > out.window)
            out.exceedsWith = static_cast<std::int32_t>(point.turn);
        out.turns.push_back(std::move(point));
    }
    return out;
}

} // namespace cl::sim
