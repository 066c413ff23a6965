// SPDX-License-Identifier: MIT
// countTranscript(): exact (OpenAI), measured + learned factor (Claude, Gemini) or estimated.
#include "core/tokens/counts.h"

#include "core/tokens/estimator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cl::tokencount {

namespace {

bool inContext(const Message &m) { return m.isConversation() && !m.sidechain; }

std::int64_t scaled(std::int64_t n, double factor) { return std::int64_t(std::llround(double(n) * factor)); }

std::string fmtFactor(double f)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", f);
    return buf;
}

// Index of the first message of the current context: after the last compaction boundary.
std::size_t contextStart(const Transcript &t)
{
    for (std::size_t i = t.messages.size(); i-- > 0;)
        if (!t.messages[i].sidechain && t.messages[i].kind == MessageKind::CompactBoundary)
            return i + 1;
    return 0;
}

struct Raw {
    std::vector<std::int64_t> counts; // per message, 0 when not sent
    std::vector<bool> approximate;
    bool exact = false; // BPE counts (true) or seed estimates (false)
};

void countOpenAI(const Transcript &t, const Raw &raw, TranscriptCount &r)
{
    const std::size_t start = contextStart(t);
    std::int64_t total = kReplyPriming;
    bool allExact = raw.exact;
    for (std::size_t i = 0; i < t.messages.size(); ++i) {
        Count &c = r.messages[i];
        if (!t.messages[i].isConversation())
            continue;
        c.tokens = raw.counts[i];
        if (raw.exact && !raw.approximate[i]) {
            c.source = Count::Exact;
            c.how = r.encoding + " count + " + std::to_string(kMessageFraming) + " framing";
        } else {
            c.source = Count::Estimated;
            c.how = raw.exact ? r.encoding + " count + framing; images / documents estimated" : "plain estimator";
        }
        if (inContext(t.messages[i]) && i >= start) {
            total += c.tokens;
            allExact = allExact && c.source == Count::Exact;
        }
    }
    r.total.tokens = total;
    r.total.source = allExact ? Count::Exact : Count::Estimated;
    r.total.how = allExact ? r.encoding + " counts + message framing + reply priming (exact)"
                           : (raw.exact ? r.encoding + " counts; some blocks estimated" : "plain estimator");
    (allExact ? r.measuredPart : r.estimatedPart) = total;
}

struct Point {
    std::size_t message;
    std::int64_t context;
};

// Shares `amount` among messages [from, to) in proportion to their counts; the cumulative rounding
// makes the shares add up to `amount` exactly.
void share(const Transcript &t, const Raw &raw, std::size_t from, std::size_t to, std::int64_t amount,
           const std::string &how, TranscriptCount &r)
{
    std::int64_t sum = 0;
    for (std::size_t i = from; i < to; ++i)
        if (inContext(t.messages[i]))
            sum += raw.counts[i];
    if (sum <= 0)
        return;
    std::int64_t cum = 0, given = 0;
    for (std::size_t i = from; i < to; ++i) {
        if (!inContext(t.messages[i]))
            continue;
        cum += raw.counts[i];
        const auto upto = std::int64_t(std::llround(double(amount) * double(cum) / double(sum)));
        r.messages[i] = {upto - given, Count::Measured, how};
        given = upto;
    }
}

void countMeasured(const Transcript &t, const Raw &raw, TranscriptCount &r)
{
    const std::string unit = raw.exact ? r.encoding : std::string("seed-001 estimate");
    // Usage points of the main chain, and the factor from consecutive pairs in the same context.
    std::vector<Point> points;
    std::int64_t growth = 0, counted = 0;
    bool boundarySincePoint = true;
    for (std::size_t i = 0; i < t.messages.size(); ++i) {
        const Message &m = t.messages[i];
        if (m.sidechain)
            continue;
        if (m.kind == MessageKind::CompactBoundary) {
            boundarySincePoint = true;
            continue;
        }
        if (!m.usage || m.usage->contextTokens() <= 0)
            continue;
        const Point p{i, m.usage->contextTokens()};
        if (!boundarySincePoint && !points.empty()) {
            const Point &prev = points.back();
            std::int64_t sum = 0;
            for (std::size_t j = prev.message; j < i; ++j)
                if (inContext(t.messages[j]))
                    sum += raw.counts[j];
            if (p.context > prev.context && sum > 0) {
                growth += p.context - prev.context;
                counted += sum;
                ++r.factorPairs;
            }
        }
        points.push_back(p);
        boundarySincePoint = false;
    }
    r.rawFactor = counted > 0 ? double(growth) / double(counted) : 1.0;
    r.factor = std::clamp(r.rawFactor, kMinFactor, kMaxFactor);
    const std::string scaledHow = unit + " count x " + fmtFactor(r.factor)
                                  + (r.factorPairs ? " (factor learned from " + std::to_string(r.factorPairs) + " usage deltas)" : " (default factor)");

    // Default: every sent message scaled and Estimated; the measured intervals overwrite theirs.
    for (std::size_t i = 0; i < t.messages.size(); ++i)
        if (t.messages[i].isConversation())
            r.messages[i] = {scaled(raw.counts[i], r.factor), Count::Estimated, scaledHow};

    // Intervals between usage points, per context (a compaction starts a new one).
    std::size_t segStart = 0;
    const Point *prev = nullptr;
    std::int64_t overhead = 0;
    for (std::size_t k = 0, b = 0; k < points.size(); ++k) {
        const Point &p = points[k];
        // Find the last boundary before p: it starts p's segment.
        for (; b < p.message; ++b)
            if (!t.messages[b].sidechain && t.messages[b].kind == MessageKind::CompactBoundary) {
                segStart = b + 1;
                prev = nullptr;
            }
        if (!prev) {
            std::int64_t sum = 0;
            for (std::size_t j = segStart; j < p.message; ++j)
                if (inContext(t.messages[j]))
                    sum += scaled(raw.counts[j], r.factor);
            overhead = std::max<std::int64_t>(0, p.context - sum);
            share(t, raw, segStart, p.message, p.context - overhead,
                  "share of the measured context at message " + std::to_string(p.message), r);
        } else if (p.context >= prev->context) {
            share(t, raw, prev->message, p.message, p.context - prev->context,
                  "share of the measured context growth between messages " + std::to_string(prev->message) + " and "
                      + std::to_string(p.message),
                  r);
        } // a shrinking context (stripped thinking, cache accounting) keeps the scaled estimates
        prev = &p;
    }

    // The total: the current context.
    const std::size_t start = contextStart(t);
    const Point *last = nullptr;
    for (const auto &p : points)
        if (p.message >= start)
            last = &p;
    std::int64_t tail = 0;
    for (std::size_t i = last ? last->message : start; i < t.messages.size(); ++i)
        if (inContext(t.messages[i]))
            tail += r.messages[i].tokens;
    if (last) {
        r.lastUsageMessage = std::int32_t(last->message);
        r.overhead = overhead;
        r.measuredPart = last->context;
        r.estimatedPart = tail;
        r.total.tokens = last->context + tail;
        r.total.source = tail ? Count::Estimated : Count::Measured;
        r.total.how = "measured " + std::to_string(last->context) + " (usage at message " + std::to_string(last->message)
                      + ", incl. " + std::to_string(overhead) + " system prompt / tools)"
                      + (tail ? " + estimated " + std::to_string(tail) + " after it (" + scaledHow + ")" : std::string());
    } else {
        r.estimatedPart = tail;
        r.total = {tail, Count::Estimated, "no usage data in the current context: " + scaledHow};
    }
}

} // namespace

TranscriptCount countTranscript(const Transcript &t, const CountOptions &opts)
{
    TranscriptCount r;
    r.family = detectFamily(t);
    r.messages.assign(t.messages.size(), Count{0, Count::Exact, "not sent to the model"});

    // Pick the encoding and load it.
    bpe::Encoding enc = bpe::Encoding::O200kBase;
    if (r.family == Family::OpenAI)
        for (const auto &m : t.messages)
            if (m.role == Role::Assistant && !m.model.empty()) {
                enc = encodingForModel(m.model);
                break;
            }
    std::shared_ptr<const bpe::Tokenizer> tok;
    if (!opts.noVocab) {
        tok = enc == bpe::Encoding::O200kBase ? opts.o200k : opts.cl100k;
        std::string error;
        if (!tok)
            tok = bpe::Tokenizer::load(enc, &error);
        if (!tok)
            r.note = "no " + std::string(bpe::encodingName(enc)) + " vocabulary (" + error + "): plain estimator";
    } else {
        r.note = "vocabulary not used: plain estimator";
    }

    Raw raw;
    raw.exact = tok != nullptr;
    raw.counts.assign(t.messages.size(), 0);
    raw.approximate.assign(t.messages.size(), false);
    if (tok) {
        r.encoding = std::string(bpe::encodingName(enc));
        CountCache local;
        CountCache &cache = opts.cache ? *opts.cache : local;
        cache.fill(*tok, t, opts.threads);
        for (std::size_t i = 0; i < t.messages.size(); ++i) {
            if (!t.messages[i].isConversation())
                continue;
            bool approx = false;
            raw.counts[i] = cache.get(*tok, t, i, &approx);
            raw.approximate[i] = approx;
        }
    } else {
        tokens::estimateAll(t, opts.threads);
        for (std::size_t i = 0; i < t.messages.size(); ++i)
            if (t.messages[i].isConversation())
                raw.counts[i] = tokens::estimateMessage(t.messages[i]);
    }

    if (r.family == Family::Claude || r.family == Family::Gemini)
        countMeasured(t, raw, r);
    else
        countOpenAI(t, raw, r);
    if (r.family == Family::Unknown && r.total.source == Count::Exact) {
        r.total.source = Count::Estimated; // exact for OpenAI models only
        r.total.how = "unknown model family: " + r.total.how;
    }
    return r;
}

} // namespace cl::tokencount
