// SPDX-License-Identifier: MIT
#include "core/report/reportdata.h"

#include "core/strategies/registry.h"
#include "core/tokens/estimator.h"

#include <algorithm>

namespace cl::report {

namespace {

std::string fileName(const std::string &path)
{
    const std::size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

Figures figuresOf(const Transcript &t, const ReportOptions &o)
{
    Figures f;
    f.title = !o.title.empty() ? o.title : t.path.empty() ? std::string("session")
                                                          : fileName(t.path);
    f.format = std::string(formatName(t.format));
    f.messages = t.messages.size();
    std::int64_t first = kNoTime, last = kNoTime;
    for (const Message &m : t.messages) {
        if (!m.sidechain && m.isTurn()) {
            ++f.conversation;
            f.history += m.history;
        }
        f.compactions += !m.sidechain && m.kind == MessageKind::CompactBoundary;
        for (const Block &b : m.blocks) {
            f.toolCalls += b.type == BlockType::ToolUse;
            f.failedToolCalls += b.type == BlockType::ToolResult && b.isError;
        }
        if (m.timeMs != kNoTime) {
            if (first == kNoTime || m.timeMs < first) {
                first = m.timeMs;
                f.firstTime = m.timestamp;
            }
            if (last == kNoTime || m.timeMs >= last) {
                last = m.timeMs;
                f.lastTime = m.timestamp;
            }
        }
    }
    if (const auto points = tokens::measuredContext(t); !points.empty())
        f.measured = points.back().measured;
    return f;
}

// Whether `item` is one of the ", "-separated items of `list`.
bool listed(const std::string &list, const std::string &item)
{
    for (std::size_t from = 0; from <= list.size();) {
        const std::size_t comma = std::min(list.find(", ", from), list.size());
        if (list.compare(from, comma - from, item) == 0)
            return true;
        from = comma + 2;
    }
    return false;
}

} // namespace

UsageSeries usageSeries(const Transcript &t, std::int64_t window)
{
    UsageSeries u;
    u.messages = t.messages.size();
    u.window = window;
    for (const tokens::MeasuredPoint &p : tokens::measuredContext(t))
        u.measured.push_back({p.message, p.measured, false});
    for (std::size_t i = 0; i < t.messages.size(); ++i) {
        const Message &m = t.messages[i];
        if (m.sidechain || m.kind != MessageKind::CompactBoundary)
            continue;
        CompactionMark mark{i, -1};
        if (m.meta.is_object())
            if (const auto it = m.meta.find("preTokens"); it != m.meta.end() && it->is_number() && it->get<double>() > 0)
                mark.preTokens = std::int64_t(it->get<double>());
        u.compactions.push_back(mark);
    }
    // The composition's own running total, so that each point is compose(t, i).total.
    const composition::Series s = composition::overTime(t);
    std::size_t nextMark = 0;
    bool restart = false;
    for (std::size_t r = 0; r < s.messages.size(); ++r) {
        while (nextMark < u.compactions.size() && u.compactions[nextMark].message < s.messages[r]) {
            restart = r > 0;
            ++nextMark;
        }
        u.estimated.push_back({s.messages[r], s.totals[r], restart});
        restart = false;
    }
    return u;
}

std::vector<MapSegment> contextMap(const Transcript &t, const analysis::Analysis &a)
{
    std::vector<MapSegment> map;
    map.reserve(a.view.size());
    for (const std::size_t i : a.view.index) {
        MapSegment s;
        s.message = i;
        s.tokens = tokens::estimateMessage(t.messages[i]);
        if (i < a.priority.size())
            s.priority = a.priority[i].priority;
        map.push_back(s);
    }
    return map;
}

std::vector<FateRow> fateRows(const Transcript &t, const strategy::Result &r)
{
    std::vector<FateRow> rows;
    for (std::size_t i = 0; i < r.fates.size() && i < t.messages.size(); ++i) {
        const Message &m = t.messages[i];
        if (!m.isConversation() || m.sidechain)
            continue;
        const strategy::MessageFate &f = r.fates[i];
        const std::int64_t n = tokens::estimateMessage(m);
        const std::string role(roleName(m.role));
        if (!rows.empty() && rows.back().fate == f.fate && rows.back().reason == f.reason) {
            FateRow &row = rows.back();
            row.last = i;
            ++row.messages;
            row.tokens += n;
            if (!listed(row.roles, role))
                row.roles += ", " + role;
            continue;
        }
        rows.push_back({i, i, 1, f.fate, role, n, f.reason});
    }
    return rows;
}

ReportData collect(const Transcript &t, const ReportOptions &o)
{
    ReportData d;
    d.figures = figuresOf(t, o);
    composition::Options co;
    co.contextWindow = o.contextWindow;
    co.biggest = o.biggestItems;
    d.composition = composition::compose(t, SIZE_MAX, co);
    if (!t.messages.empty())
        d.suggestions = composition::suggest(t, d.composition);
    d.usage = usageSeries(t, d.composition.window);

    analysis::AnalysisOptions ao;
    ao.contextWindow = o.contextWindow;
    strategy::Input in(t, ao);
    d.map = contextMap(t, in.analysis());
    if (const auto &b = in.analysis().boundary; b && *b < in.analysis().view.size())
        d.mapBoundary = in.analysis().view.index[*b];

    audit::Options auditOptions;
    auditOptions.analysis = ao;
    auditOptions.strategies = o.strategies;
    d.compactions = audit::auditCompactions(t, auditOptions);

    if (!o.strategies || !o.strategies->empty()) {
        strategy::CompareOptions cmp;
        if (o.strategies)
            cmp.names = *o.strategies;
        cmp.progress = o.progress;
        cmp.cancel = o.cancel;
        d.compare = strategy::compare(in, cmp);
    }

    d.previewName = o.previewStrategy;
    if (!o.previewStrategy.empty()) {
        if (const strategy::Strategy *s = strategy::find(o.previewStrategy)) {
            std::string error;
            strategy::Result r = strategy::run(*s, in, o.previewParams, {}, &error);
            if (error.empty())
                d.preview = std::move(r);
            else
                d.previewError = error;
        } else {
            d.previewError = "unknown strategy '" + o.previewStrategy + "'";
        }
    }
    return d;
}

} // namespace cl::report
