// SPDX-License-Identifier: MIT
#include "core/tokens/contextfigure.h"
#include "core/tokens/contextwalk.h"

#include "core/tokens/counts.h"
#include "core/tokens/fixedpart.h"

#include <algorithm>
#include <cmath>

namespace cl::tokens {

std::string_view estimatorName(Estimator e)
{
    switch (e) {
    case Estimator::Calibrated: return "calibrated";
    case Estimator::Seed: return "seed";
    case Estimator::Exact: return "exact";
    }
    return "calibrated";
}

std::optional<Estimator> parseEstimator(std::string_view name)
{
    for (Estimator e : {Estimator::Calibrated, Estimator::Seed, Estimator::Exact})
        if (name == estimatorName(e))
            return e;
    return std::nullopt;
}

std::string_view basisName(ContextFigure::Basis b)
{
    switch (b) {
    case ContextFigure::Basis::Measured: return "measured";
    case ContextFigure::Basis::Predicted: return "predicted";
    case ContextFigure::Basis::Calibrated: return "calibrated";
    case ContextFigure::Basis::Exact: return "exact";
    case ContextFigure::Basis::Seed: return "seed";
    }
    return "calibrated";
}

double defaultCalibration(std::string_view family)
{
    // Claude: the median of the factors learned on the Claude files with usage here (the real
    // Claude Code session 1.72, the shared samples 1.25 and 1.52; scripts/bench-calibration.sh).
    // OpenAI and Gemini: no unredacted session with usage to learn from yet, so the seed estimate
    // as it is.
    if (family == "claude")
        return 1.5;
    return 1.0;
}

namespace {

using namespace detail;

// Everything the figure at any message needs, computed once per sequence.
class Model
{
public:
    // `file`: the transcript the messages are (an edited version of), for its family and fixed part;
    // `carried`: its calibration when known (a strategy's result is counted like its original).
    Model(const Transcript &file, Sequence seq, Estimator e, const Transcript::TokenCalibration *carried)
        : m_seq(std::move(seq))
        , m_estimator(e)
        , m_hiddenReasoning(resendsHiddenReasoning(file))
        , m_wholeHistory(file.wholeHistory)
        , m_walk(walk(m_seq, m_hiddenReasoning, m_wholeHistory))
        , m_points(points(m_seq, m_walk))
        , m_fp(fixedPart(file))
    {
        if (carried && carried->factor > 0) {
            m_calibration = {carried->factor, carried->pairs, familyOf(file), carried->how};
            m_carriedFixed = carried->fixed;
            m_carriedFixedHow = carried->fixedHow;
            if (carried->measuredAt >= 0)
                m_anchor = carried;
        } else {
            m_calibration = calibrateFrom(familyOf(file), m_walk, m_points, 0, m_points.size());
        }
        if (e == Estimator::Seed)
            m_calibration.factor = 1.0;
        m_firstEdit = m_walk.intact.size();
        for (std::size_t i = 0; i < m_walk.intact.size(); ++i)
            if (!m_walk.intact[i]) {
                m_firstEdit = i;
                break;
            }
        m_fixedByContext = fixedByContext();
    }

    // The figure with message `at` the last one sent (clamped to the sequence).
    ContextFigure at(std::size_t at, bool describe = true) const
    {
        ContextFigure f;
        f.estimator = m_estimator;
        f.calibration = m_calibration;
        const std::size_t n = m_seq.messages.size();
        if (n == 0) {
            f.fixed = f.total = m_estimator == Estimator::Seed ? m_fp.tokens : fixedFor(0);
            f.how = "no messages: the fixed part alone";
            return f;
        }
        at = std::min(at, n - 1);
        const std::int32_t context = m_walk.context[at];
        const std::int64_t conversation = through(at);
        f.seedConversation = conversation;
        // The last measurement up to `at`, and whether it still describes its context.
        const Point *last = lastPointUpTo(at);
        const Point *current = nullptr;
        if (last) {
            f.lastMeasuredAt = std::int32_t(last->message);
            f.lastMeasured = last->measured;
            const bool isCurrent = last->context == context && last->message < m_firstEdit
                                   && !(m_wholeHistory && context > 0);
            f.lastMeasurementIsHistory = !isCurrent;
            if (isCurrent)
                current = last;
        }
        if (m_estimator == Estimator::Seed) {
            f.basis = ContextFigure::Basis::Seed;
            f.fixed = m_fp.tokens;
            f.conversation = conversation;
            f.total = f.fixed + f.conversation;
            if (describe) {
                f.how = "plain estimate of the conversation + the fixed part (" + std::string(fixedPartSourceName(m_fp.source)) + ")";
                f.fixedHow = std::string(fixedPartSourceName(m_fp.source)) + ": " + m_fp.how;
            }
            return f;
        }
        const double factor = m_calibration.factor;
        f.fixed = fixedFor(context);
        if (describe)
            f.fixedHow = fixedHow(context);
        const std::int64_t hidden = hiddenThrough(at);
        if (current) {
            f.basis = ContextFigure::Basis::Measured;
            f.measuredAt = std::int32_t(current->message);
            f.measured = current->measured;
            f.afterMeasured = scaled(factor, std::max<std::int64_t>(0, conversation - current->estimated))
                              + std::max<std::int64_t>(0, hidden - current->hidden);
            f.total = f.measured + f.afterMeasured;
            f.fixed = std::min(f.fixed, f.total);
            if (describe)
                f.how = "measured at message " + std::to_string(current->message + 1) + " (" + withCommas(current->measured)
                        + ") + " + withCommas(f.afterMeasured) + " estimated after it (" + m_calibration.how + ")";
        } else if (m_anchor && context >= m_anchor->measuredContext) {
            // An edit of a measured transcript (compactions it inserted included): its measurement,
            // moved by what the edit changed in the agent's count. The calibration's error at the
            // measurement (offset) belongs to the conversation measured there, so it shrinks with
            // it: what an edit removes is counted at the measured conversation's own ratio, and a
            // strategy that keeps a tenth of the conversation keeps a tenth of that error, not all
            // of it (the whole offset on a small remainder under-counted exports by up to 17 %).
            f.basis = ContextFigure::Basis::Predicted;
            const std::int64_t base = m_anchor->measured - f.fixed - m_anchor->offset; // calibrated, at the measurement
            const double ratio = base > 0 ? double(base + m_anchor->offset) / double(base) : 1.0;
            const std::int64_t now = scaled(factor, conversation) + hidden;
            f.total = std::max(f.fixed, f.fixed + std::int64_t(std::llround(double(now) * ratio)));
            if (describe)
                f.how = "measured " + withCommas(m_anchor->measured) + " at message " + std::to_string(m_anchor->measuredAt + 1)
                        + " before the edit; now fixed part " + withCommas(f.fixed) + " + conversation (" + m_calibration.how
                        + ") x " + factorText(ratio) + ", the measured conversation's ratio to its estimate there";
        } else {
            f.basis = ContextFigure::Basis::Calibrated;
            f.total = f.fixed + scaled(factor, conversation) + hidden;
            if (describe)
                f.how = "fixed part " + withCommas(f.fixed) + " + conversation: " + m_calibration.how;
            if (describe && f.lastMeasurementIsHistory)
                f.how += "; the last measurement (message " + std::to_string(f.lastMeasuredAt + 1)
                         + ") was taken before a compaction or an edit";
        }
        f.conversation = f.total - f.fixed;
        return f;
    }

    // What a strategy's result carries: the calibration, the fixed part, the measurement it edits.
    Transcript::TokenCalibration carried() const
    {
        const ContextFigure f = at(SIZE_MAX);
        Transcript::TokenCalibration c{f.calibration.factor, f.calibration.pairs, f.fixed, f.calibration.how, f.fixedHow};
        if (f.basis == ContextFigure::Basis::Measured) {
            const std::size_t end = m_seq.messages.size() - 1;
            c.measuredAt = f.measuredAt;
            c.measuredContext = m_walk.context[end];
            c.measured = f.measured;
            c.offset = f.total - (f.fixed + scaled(f.calibration.factor, through(end)) + hiddenThrough(end));
        }
        return c;
    }

private:
    // Conversation estimate with `at` the last message sent, within its context.
    std::int64_t through(std::size_t at) const
    {
        const Message &m = *m_seq.messages[at];
        return m_walk.before[at] + (!m.sidechain && m.isTurn() ? estimateMessage(m) : 0);
    }
    std::int64_t hiddenThrough(std::size_t at) const
    {
        const Message &m = *m_seq.messages[at];
        const bool counts = m_hiddenReasoning && !m.sidechain && m.usage && m.usage->reasoningTokens > 0;
        return m_walk.hidden[at] + (counts ? m.usage->reasoningTokens : 0);
    }
    const Point *lastPointUpTo(std::size_t at) const
    {
        auto it = std::upper_bound(m_points.begin(), m_points.end(), at,
                                   [](std::size_t i, const Point &p) { return i < p.message; });
        return it == m_points.begin() ? nullptr : &*std::prev(it);
    }
    // The fixed part in the calibrated count. A measured one is re-derived with the factor from the
    // first measurement of the context (what the agent sends besides the conversation can change at a
    // compaction: Claude Code attaches the files it had read), else of the file: that measurement
    // minus the scaled conversation before it. A recorded one is text the seed estimator counted, so
    // it is scaled; a stated default is already in the agent's tokens. Carried: the original's.
    std::vector<std::int64_t> fixedByContext() const
    {
        std::vector<std::int64_t> out;
        if (m_fp.source != FixedPart::Source::Measured)
            return out;
        for (const Point &p : m_points) {
            const std::size_t c = std::size_t(p.context);
            if (c >= out.size())
                out.resize(c + 1, -1);
            const std::int64_t rest = p.visible() - scaled(m_calibration.factor, p.estimated);
            if (out[c] < 0 && p.message < m_firstEdit && rest > 0)
                out[c] = rest;
        }
        return out;
    }
    std::int32_t fixedContext(std::int32_t context) const
    {
        if (std::size_t(context) < m_fixedByContext.size() && m_fixedByContext[std::size_t(context)] >= 0)
            return context;
        for (std::size_t c = m_fixedByContext.size(); c-- > 0;)
            if (m_fixedByContext[c] >= 0)
                return std::int32_t(c);
        return -1;
    }
    std::int64_t fixedFor(std::int32_t context) const
    {
        if (m_carriedFixed >= 0)
            return m_carriedFixed;
        if (m_fp.source == FixedPart::Source::Recorded)
            return scaled(m_calibration.factor, m_fp.tokens);
        const std::int32_t from = m_fp.source == FixedPart::Source::Measured ? fixedContext(context) : -1;
        return from >= 0 ? m_fixedByContext[std::size_t(from)] : m_fp.tokens;
    }
    std::string fixedHow(std::int32_t context) const
    {
        if (m_carriedFixed >= 0)
            return m_carriedFixedHow;
        const std::string source = std::string(fixedPartSourceName(m_fp.source)) + ": ";
        if (m_fp.source == FixedPart::Source::Recorded)
            return source + m_fp.how + ", x " + factorText(m_calibration.factor);
        const std::int32_t from = m_fp.source == FixedPart::Source::Measured ? fixedContext(context) : -1;
        if (from < 0)
            return source + m_fp.how;
        for (const Point &p : m_points)
            if (p.context == from && p.message < m_firstEdit && p.visible() > scaled(m_calibration.factor, p.estimated))
                return source + "the first measured usage " + (from == context ? "of this context" : "of an earlier context")
                       + " (message " + std::to_string(p.message + 1) + ": " + withCommas(p.measured)
                       + ") minus the calibrated conversation before it";
        return source + m_fp.how;
    }

    Sequence m_seq;
    Estimator m_estimator;
    bool m_hiddenReasoning = false;
    bool m_wholeHistory = false; // no measurement saw the whole history: never current
    Walk m_walk;
    std::vector<Point> m_points;
    FixedPart m_fp;
    Calibration m_calibration;
    std::int64_t m_carriedFixed = -1;
    std::string m_carriedFixedHow;
    std::size_t m_firstEdit = 0;
    std::vector<std::int64_t> m_fixedByContext;
    const Transcript::TokenCalibration *m_anchor = nullptr; // carried, with a measurement
};

const Transcript::TokenCalibration *carriedOf(const Transcript &t)
{
    return t.tokenCalibration.factor > 0 ? &t.tokenCalibration : nullptr;
}

} // namespace

Calibration calibrate(const Transcript &t)
{
    const Sequence q = sequenceOf(t);
    const Walk w = walk(q, resendsHiddenReasoning(t));
    const std::vector<Point> pts = points(q, w);
    return calibrateFrom(familyOf(t), w, pts, 0, pts.size());
}

bool measurementIsCurrent(const Transcript &t, std::size_t index)
{
    if (index >= t.messages.size() || t.messages[index].history || t.messages[index].sidechain)
        return false;
    const Sequence q = sequenceOf(t);
    for (std::size_t i = 0; i <= index; ++i)
        if (!q.intact[i])
            return false;
    return true;
}

Transcript::TokenCalibration carriedCalibration(const Transcript &t)
{
    if (t.tokenCalibration.factor > 0)
        return t.tokenCalibration;
    return Model(t, sequenceOf(t), Estimator::Calibrated, nullptr).carried();
}

std::vector<char> intactOf(const Transcript &original, const std::vector<std::int32_t> &origins, const std::vector<char> &edited)
{
    const Sequence q = sequenceOf(original);
    std::vector<char> out(origins.size(), 0);
    std::int32_t expected = 0;
    for (std::size_t k = 0; k < origins.size(); ++k) {
        const std::int32_t o = origins[k];
        out[k] = char(o >= 0 && o == expected && !(k < edited.size() && edited[k]) && std::size_t(o) < q.intact.size()
                      && q.intact[std::size_t(o)]);
        if (o >= 0)
            expected = o + 1;
    }
    return out;
}

ContextFigure contextFigure(const Transcript &t, Estimator e, std::size_t at)
{
    if (e == Estimator::Exact && at >= t.messages.size()) {
        const ContextFigure calibrated = Model(t, sequenceOf(t), Estimator::Calibrated, carriedOf(t)).at(at);
        const tokencount::TranscriptCount c = tokencount::countTranscript(t);
        const bool usable = !c.encoding.empty()
                            && (c.lastUsageMessage < 0 || measurementIsCurrent(t, std::size_t(c.lastUsageMessage)));
        ContextFigure f = calibrated;
        f.estimator = e;
        if (!usable) {
            f.how = (c.encoding.empty() ? "no vocabulary for exact counts: " : "exact counts need a current measurement here: ")
                    + f.how;
            return f;
        }
        f.basis = ContextFigure::Basis::Exact;
        f.total = c.total.tokens;
        if (c.lastUsageMessage >= 0) {
            f.fixed = std::min(c.overhead, f.total);
            f.measuredAt = c.lastUsageMessage;
            f.fixedHow = "measured: the first usage's context that no message accounts for (exact counts)";
        } else {
            // OpenAI-family counts are the conversation alone: the calibrated fixed part is added.
            f.total += f.fixed;
        }
        f.conversation = f.total - f.fixed;
        f.how = c.total.how + (c.lastUsageMessage >= 0 ? "" : " + fixed part " + withCommas(f.fixed));
        return f;
    }
    return Model(t, sequenceOf(t), e == Estimator::Exact ? Estimator::Calibrated : e, carriedOf(t)).at(at);
}

ContextFigure contextFigureOf(const Transcript &original, std::vector<const Message *> messages, std::vector<char> intact,
                              const Transcript::TokenCalibration &carried, Estimator e)
{
    Sequence q{std::move(messages), std::move(intact)};
    q.intact.resize(q.messages.size(), 0);
    return Model(original, std::move(q), e == Estimator::Exact ? Estimator::Calibrated : e, &carried).at(SIZE_MAX);
}

std::vector<FigureParts> contextSeries(const Transcript &t, const std::vector<std::uint32_t> &messages, Estimator e)
{
    const Model model(t, sequenceOf(t), e == Estimator::Exact ? Estimator::Calibrated : e, carriedOf(t));
    std::vector<FigureParts> out;
    out.reserve(messages.size());
    for (const std::uint32_t i : messages) {
        const ContextFigure f = model.at(i, false);
        out.push_back({f.total, f.fixed});
    }
    return out;
}

std::optional<CalibrationCheck> checkCalibration(const Transcript &t)
{
    const Sequence q = sequenceOf(t);
    const Walk w = walk(q, resendsHiddenReasoning(t));
    const std::vector<Point> pts = points(q, w);
    // Only points whose estimate describes what was measured (nothing before them edited).
    std::vector<Point> usable;
    for (const Point &p : pts)
        if (spanIntact(w, 0, p.message))
            usable.push_back(p);
    if (usable.size() < 4)
        return std::nullopt;
    const std::size_t half = usable.size() / 2;
    const Calibration c = calibrateFrom(familyOf(t), w, usable, 0, half);
    const FixedPart fp = fixedPart(t);
    // The fixed part of each context as its first measurement shows it (the live figure's own rule,
    // fixedFor); that point is learned from, not predicted.
    std::vector<double> offset;
    std::vector<char> first(usable.size(), 0);
    for (std::size_t k = 0; k < usable.size(); ++k) {
        const std::size_t ctx = std::size_t(usable[k].context);
        if (ctx >= offset.size())
            offset.resize(ctx + 1, -1.0);
        if (offset[ctx] < 0) {
            offset[ctx] = std::max(0.0, double(usable[k].visible()) - c.factor * double(usable[k].estimated));
            first[k] = 1;
        }
    }
    CalibrationCheck out;
    out.learnedFrom = half;
    out.factor = c.factor;
    std::vector<double> live, estimate, seed;
    double liveSigned = 0, estimateSigned = 0;
    for (std::size_t k = half; k < usable.size(); ++k) {
        const Point &p = usable[k], &prev = usable[k - 1];
        if (p.measured <= 0 || first[k])
            continue;
        const double measuredValue = double(p.measured);
        const double alone = offset[std::size_t(p.context)] + c.factor * double(p.estimated) + double(p.hidden);
        const bool anchored = prev.context == p.context && p.estimated >= prev.estimated
                              && spanIntact(w, prev.responseStart, p.message);
        const double fromPrevious = anchored ? double(prev.measured) + c.factor * double(p.estimated - prev.estimated)
                                                   + double(p.hidden - prev.hidden)
                                             : alone;
        const double liveError = (fromPrevious - measuredValue) / measuredValue * 100.0;
        const double aloneError = (alone - measuredValue) / measuredValue * 100.0;
        live.push_back(std::abs(liveError));
        liveSigned += liveError;
        estimate.push_back(std::abs(aloneError));
        estimateSigned += aloneError;
        seed.push_back(std::abs(double(fp.tokens + p.estimated) - measuredValue) / measuredValue * 100.0);
    }
    out.predicted = live.size();
    if (live.empty())
        return std::nullopt;
    out.liveMedianErrorPercent = median(live);
    out.liveMeanSignedPercent = liveSigned / double(live.size());
    out.estimateMedianErrorPercent = median(estimate);
    out.estimateMeanSignedPercent = estimateSigned / double(live.size());
    out.seedMedianErrorPercent = median(seed);
    return out;
}

} // namespace cl::tokens
