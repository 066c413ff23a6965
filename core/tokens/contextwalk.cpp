// SPDX-License-Identifier: MIT
#include "core/tokens/contextwalk.h"

#include "core/tokens/counts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cl::tokens::detail {

std::string factorText(double factor)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", factor);
    return buf;
}

std::int64_t scaled(double factor, std::int64_t tokens)
{
    return std::llround(factor * double(tokens));
}

Sequence sequenceOf(const Transcript &t)
{
    Sequence q;
    const std::size_t n = t.messages.size();
    q.messages.reserve(n);
    q.intact.assign(n, 1);
    // Records decoded into a message that no message holds any more: removed by an edit.
    std::vector<char> owned(t.records.size(), 0);
    for (const Message &m : t.messages)
        for (const std::uint32_t r : m.records)
            if (r < owned.size())
                owned[r] = 1;
    std::size_t nextRecord = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const Message &m = t.messages[i];
        q.messages.push_back(&m);
        if (m.edited)
            q.intact[i] = 0;
        if (!m.records.empty()) {
            const std::size_t first = m.records.front();
            for (; nextRecord < first && nextRecord < t.records.size(); ++nextRecord)
                if (t.records[nextRecord].message >= 0 && !owned[nextRecord])
                    q.intact[i] = 0;
            nextRecord = std::max<std::size_t>(nextRecord, m.records.back() + 1);
        }
    }
    if (const std::int64_t p = t.tokenCalibration.unchangedPrefix; p >= 0)
        for (std::size_t i = std::size_t(p); i < n; ++i)
            q.intact[i] = 0;
    return q;
}

bool resendsHiddenReasoning(const Transcript &t)
{
    return tokencount::detectFamily(t) == tokencount::Family::OpenAI;
}

Walk walk(const Sequence &q, bool hiddenReasoning, bool wholeHistory)
{
    Walk w;
    const std::size_t n = q.messages.size();
    w.intact = q.intact;
    w.before.assign(n, 0);
    w.context.assign(n, 0);
    w.hidden.assign(n, 0);
    std::int64_t cumulative = 0, hidden = 0;
    std::int32_t context = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const Message &m = *q.messages[i];
        if (!m.sidechain && m.kind == MessageKind::CompactBoundary) {
            if (!wholeHistory) {
                cumulative = 0;
                hidden = 0;
            }
            ++context;
        }
        w.before[i] = cumulative;
        w.context[i] = context;
        w.hidden[i] = hidden;
        if (m.sidechain)
            continue;
        if (m.isTurn())
            cumulative += estimateMessage(m);
        if (hiddenReasoning && m.usage && m.usage->reasoningTokens > 0)
            hidden += m.usage->reasoningTokens;
    }
    return w;
}

std::vector<Point> points(const Sequence &q, const Walk &w)
{
    std::vector<Point> out;
    for (std::size_t i = 0; i < q.messages.size(); ++i) {
        const Message &m = *q.messages[i];
        if (m.sidechain || m.kind == MessageKind::CompactBoundary || !m.usage || m.usage->contextTokens() <= 0)
            continue;
        std::size_t start = i;
        const std::string &id = m.apiMessageId;
        while (!id.empty() && start > 0 && q.messages[start - 1]->apiMessageId == id && !q.messages[start - 1]->sidechain)
            --start;
        out.push_back({i, start, m.usage->contextTokens(), w.before[start], w.context[i], w.hidden[start]});
    }
    return out;
}

bool spanIntact(const Walk &w, std::size_t from, std::size_t to)
{
    for (std::size_t i = from; i <= to && i < w.intact.size(); ++i)
        if (!w.intact[i])
            return false;
    return true;
}

Calibration calibrateFrom(const std::string &family, const Walk &w, const std::vector<Point> &pts, std::size_t begin,
                          std::size_t end)
{
    Calibration c;
    c.family = family;
    double grown = 0, estimated = 0;
    for (std::size_t k = begin + 1; k < end && k < pts.size(); ++k) {
        const Point &a = pts[k - 1], &b = pts[k];
        if (a.context != b.context || b.visible() <= a.visible() || b.estimated <= a.estimated)
            continue;
        if (!spanIntact(w, a.responseStart, b.message))
            continue; // an edit between them: the estimate no longer describes what was measured
        grown += double(b.visible() - a.visible());
        estimated += double(b.estimated - a.estimated);
        ++c.pairs;
    }
    if (c.pairs == 0 || estimated <= 0) {
        c.pairs = 0;
        c.factor = defaultCalibration(c.family);
        c.how = "plain estimate x " + factorText(c.factor) + ", the stated default for the " + c.family
                + " family (no usage deltas in the file)";
        return c;
    }
    c.factor = std::clamp(grown / estimated, kMinCalibration, kMaxCalibration);
    c.how = "plain estimate x " + factorText(c.factor) + ", learned from " + std::to_string(c.pairs) + " usage deltas";
    return c;
}

std::string familyOf(const Transcript &t)
{
    return std::string(tokencount::familyName(tokencount::detectFamily(t)));
}

std::string withCommas(std::int64_t v)
{
    std::string s = std::to_string(v < 0 ? -v : v);
    for (int i = int(s.size()) - 3; i > 0; i -= 3)
        s.insert(std::size_t(i), 1, ' ');
    if (v < 0)
        s.insert(s.begin(), '-');
    return s;
}

double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const std::size_t mid = v.size() / 2;
    return v.size() % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

} // namespace cl::tokens::detail
