// SPDX-License-Identifier: MIT
// Seed 003 tiers over an Editor (see strategies/tiers.h for the readings of the seed).
#include "core/strategies/tiers.h"

#include "core/util/parallel.h"

#include "core/strategy/summary/tooldigest.h"
#include "core/strategy/summary/summary.h"
#include "core/tokens/estimator.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace cl::strategy::tiers {

namespace {

bool continuation(char c)
{
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

constexpr std::uint64_t kHigh = 0x8080808080808080ull;

// Code points starting in the 8 bytes of w: bytes that are not continuation bytes (10xxxxxx).
unsigned leadsIn(std::uint64_t w)
{
    const std::uint64_t cont = w & ~(w << 1) & kHigh; // bit 7 set, bit 6 clear
    return 8 - unsigned((((cont >> 7) * 0x0101010101010101ull) >> 56));
}

// Code points starting in the 64 bytes at p. The cuts below read the original's head and tail
// for the first time (cold, from memory): a coarse step of 64 bytes keeps many loads in flight.
std::size_t leadsIn64(const char *p)
{
#if defined(__SSE2__)
    const __m128i low = _mm_set1_epi8(-64);
    __m128i cont = _mm_setzero_si128(); // per lane, 0..4 continuation bytes (10xxxxxx is -128..-65)
    for (int k = 0; k < 4; ++k)
        cont = _mm_sub_epi8(cont, _mm_cmplt_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p + 16 * k)), low));
    const __m128i sums = _mm_sad_epu8(cont, _mm_setzero_si128());
    return 64 - (std::size_t(_mm_cvtsi128_si32(sums)) + std::size_t(_mm_extract_epi16(sums, 4)));
#else
    std::size_t n = 0;
    for (int k = 0; k < 8; ++k) {
        std::uint64_t w;
        std::memcpy(&w, p + 8 * k, 8);
        n += leadsIn(w);
    }
    return n;
#endif
}

// Byte length of the first k code points of s: the position of the k-th byte after the first
// that is not a continuation byte (the end when there are fewer). Eight bytes at a time until the
// word holding it, the cut was a byte loop over the whole kept head.
std::size_t headBytes(std::string_view s, std::size_t k)
{
    if (k == 0)
        return 0;
    std::size_t i = 1, seen = 0;
    for (; i + 64 <= s.size(); i += 64) {
        const std::size_t leads = leadsIn64(s.data() + i);
        if (seen + leads >= k)
            break;
        seen += leads;
    }
    for (; i + 8 <= s.size(); i += 8) {
        std::uint64_t w;
        std::memcpy(&w, s.data() + i, 8);
        const unsigned leads = leadsIn(w);
        if (seen + leads >= k)
            break;
        seen += leads;
    }
    for (; i < s.size(); ++i)
        if (!continuation(s[i]) && ++seen == k)
            return i;
    return s.size();
}

// Byte offset where the last k code points of s start: the k-th byte from the end (before
// position 0, which always ends the walk) that is not a continuation byte, else 0.
std::size_t tailStart(std::string_view s, std::size_t k)
{
    if (k == 0 || s.empty())
        return s.size();
    std::size_t end = s.size(), seen = 0; // positions [1, end) are still to look at
    for (; end >= 65; end -= 64) {
        const std::size_t leads = leadsIn64(s.data() + end - 64);
        if (seen + leads >= k)
            break;
        seen += leads;
    }
    for (; end >= 9; end -= 8) {
        std::uint64_t w;
        std::memcpy(&w, s.data() + end - 8, 8);
        const unsigned leads = leadsIn(w);
        if (seen + leads >= k)
            break;
        seen += leads;
    }
    for (std::size_t j = end; j-- > 1;)
        if (!continuation(s[j]) && ++seen == k)
            return j;
    return 0;
}

// The message tokens a summary insertion adds (summary + acknowledgement when the next kept
// message is a user message, mirroring insertSummary()).
std::int64_t summaryTokens(const Editor &e, std::size_t before, const std::string &text)
{
    std::int64_t n = tokens::estimateMessage(makeTextMessage(Role::User, text, MessageKind::CompactSummary));
    const Transcript &t = e.transcript();
    for (std::size_t i = before; i < t.messages.size(); ++i) {
        if (e.isRemoved(i)) // (flags first: the messages before a summary are mostly removed)
            continue;
        const Message &m = t.messages[i];
        if (!m.isConversation() || m.sidechain)
            continue;
        if (m.role == Role::User)
            n += tokens::estimateMessage(
                makeTextMessage(Role::Assistant, "Understood. I have the summary and will continue from it."));
        break;
    }
    return n;
}

// Declared first in every tier: the run's remembered total is dropped when the tier returns.
struct Edits {
    TierRun &run;
    ~Edits() { run.edited(); }
};

std::optional<std::size_t> lastUserRequest(const Editor &e, std::size_t from)
{
    for (std::size_t p = e.size(); p-- > from;) {
        const std::size_t i = e.at(p);
        if (!e.isRemoved(i) && analysis::isUserRequest(e.transcript().messages[i]))
            return p;
    }
    return std::nullopt;
}

} // namespace

SnipStyle seed003Snip()
{
    return {0.3, 0.3, false};
}

SnipStyle seed004Snip()
{
    return {0.5, 0.5, true};
}

std::optional<std::string> snipText(std::string_view text, std::size_t maxChars, const SnipStyle &style,
                                    std::size_t *lengthOut)
{
    if (text.size() <= maxChars) // bytes >= code points: cannot be over the limit
        return std::nullopt;
    const std::size_t length = utf8Length(text);
    if (lengthOut)
        *lengthOut = length;
    return snipTextOfLength(text, length, maxChars, style);
}

std::optional<std::string> snipTextOfLength(std::string_view text, std::size_t length, std::size_t maxChars,
                                            const SnipStyle &style)
{
    std::optional<SnipCut> cut = snipCut(text, length, maxChars, style);
    if (!cut)
        return std::nullopt;
    std::string out;
    cut->write(text, out);
    return out;
}

std::optional<SnipCut> snipCut(std::string_view text, std::size_t length, std::size_t maxChars, const SnipStyle &style)
{
    if (length <= maxChars)
        return std::nullopt;
    const auto head = static_cast<std::size_t>(std::floor(static_cast<double>(maxChars) * style.headShare));
    const auto tail = static_cast<std::size_t>(std::floor(static_cast<double>(maxChars) * style.tailShare));
    const std::size_t removed = length - std::min(length, head + tail);
    const std::string n = std::to_string(removed);
    // A text with as many code points as bytes is ASCII: its cuts are byte counts, found without
    // reading the (usually cold) bytes a second time before they are copied.
    const bool ascii = length == text.size();
    SnipCut cut;
    cut.headBytes = ascii ? std::min(head, text.size()) : headBytes(text, head);
    cut.tailStart = ascii ? text.size() - std::min(tail, text.size()) : tailStart(text, tail);
    const std::string_view open = style.seed004Marker ? "\n\n... [truncated " : "\n\n[... ";
    const std::string_view close = style.seed004Marker ? " characters] ...\n\n" : " characters snipped ...]\n\n";
    cut.middle.reserve(open.size() + n.size() + close.size());
    cut.middle.append(open).append(n).append(close);
    return cut;
}

std::string percent(double ratio)
{
    char buf[32];
    const double v = ratio * 100;
    std::snprintf(buf, sizeof buf, v < 10 ? "%.1f %%" : "%.0f %%", v);
    return buf;
}

// The estimate of a snipped text (cut written out as `text`). When the original's lines are all
// different, only the lines meeting the marker can repeat one: they are compared, no line is hashed.
std::int64_t estimateCut(std::string_view text, const SnipCut &cut, bool distinct)
{
    return distinct ? tokens::estimateTextDistinctOutside(text, cut.headBytes, cut.headBytes + cut.middle.size())
                    : tokens::estimateText(text);
}

// ---- TierRun -----------------------------------------------------------------------------------------

TierRun::TierRun(Editor &e)
    : editor(e)
{
}

std::int64_t TierRun::tokens() const
{
    if (m_tokens)
        return *m_tokens + insertedTokens;
    std::int64_t total = 0;
    editor.prepareTokens();
    for (std::size_t p = 0; p < editor.size(); ++p)
        total += editor.tokens(editor.at(p));
    m_tokens = total;
    return total + insertedTokens;
}

std::int64_t TierRun::systemTokens() const
{
    std::int64_t total = 0;
    for (const std::size_t i : leadingSystem(editor))
        total += editor.tokens(i);
    return total;
}

std::size_t TierRun::firstPosition() const
{
    return leadingSystem(editor).size();
}

double TierRun::usage(std::int64_t window) const
{
    return window > 0 ? static_cast<double>(tokens()) / static_cast<double>(window) : 0.0;
}

// ---- Tier 1: snip ------------------------------------------------------------------------------------

TierOutcome snip(TierRun &run, std::size_t maxChars, const SnipStyle &style, bool deferTexts)
{
    const Edits tierEdits{run};
    Editor &e = run.editor;
    TierOutcome out;
    std::size_t refused = 0;
    // The part of every reason that does not depend on the result, built once.
    const std::string kept = " characters > " + std::to_string(maxChars) + ": kept the first "
                             + std::to_string(static_cast<std::size_t>(std::floor(maxChars * style.headShare)))
                             + " and the last "
                             + std::to_string(static_cast<std::size_t>(std::floor(maxChars * style.tailShare)));
    // One pass over the messages on two threads: each long result is cut, its cut text estimated
    // (a forced snip of 100 000 messages writes ~100 MB, estimated while still in cache) and
    // applied to its message on the thread that owns it. Deferred, a cut of an unchanged result is
    // written into a scratch buffer per thread, estimated there, and recorded as a splice of the
    // original (Editor::setBlockSplice): only the results the run keeps are ever written out.
    struct alignas(64) Tally { // one per thread, on its own cache line
        std::size_t changed = 0, refused = 0;
    } tally[2];
    e.forEachMessage(run.firstPosition(), e.size(), [&](std::size_t thread, std::size_t, std::size_t i) {
        if (e.isRemoved(i))
            return;
        const Message &m = e.transcript().messages[i]; // block types; texts are currentText()'s
        for (std::size_t b = 0; b < m.blocks.size(); ++b) {
            if (m.blocks[b].type != BlockType::ToolResult)
                continue;
            const std::string &text = e.currentText(i, b);
            if (text.size() <= maxChars)
                continue;
            // An unchanged block's count is the input's (no scan of the megabytes between head and tail).
            std::size_t chars = 0;
            const bool original = &text == &m.blocks[b].text;
            bool applied = false;
            if (original) {
                std::optional<SnipCut> cut = snipCut(text, chars = e.textLength(i, b), maxChars, style);
                if (!cut || cut->size(text.size()) >= text.size())
                    continue; // nothing to gain
                thread_local std::string scratch;
                std::string written;
                std::string &out = deferTexts ? scratch : written;
                cut->write(text, out);
                const std::int64_t estimate = tokens::kToolResultOverhead + estimateCut(out, *cut, e.linesDistinct(i, b));
                std::string reason = "tool result of " + std::to_string(chars) + kept;
                if (deferTexts) {
                    if (scratch.capacity() > (std::size_t(1) << 20))
                        std::string().swap(scratch); // a huge cut's buffer is not kept by the thread
                    applied = e.setBlockSplice(i, b, std::move(*cut), Fate::Snipped, std::move(reason), estimate);
                } else {
                    applied = e.setBlockText(i, b, std::move(written), Fate::Snipped, std::move(reason), estimate);
                }
            } else {
                std::optional<std::string> cut = snipText(text, maxChars, style, &chars);
                if (!cut || cut->size() >= text.size())
                    continue; // nothing to gain
                const std::int64_t estimate = tokens::kToolResultOverhead + tokens::estimateText(*cut);
                applied = e.setBlockText(i, b, std::move(*cut), Fate::Snipped, "tool result of " + std::to_string(chars) + kept,
                                         estimate);
            }
            ++(applied ? tally[thread].changed : tally[thread].refused);
        }
    });
    out.changed = tally[0].changed + tally[1].changed;
    refused = tally[0].refused + tally[1].refused;
    out.note = out.changed ? "snipped " + std::to_string(out.changed) + " tool result(s) over " + std::to_string(maxChars)
                                 + " characters"
                           : "no tool result over " + std::to_string(maxChars) + " characters";
    if (refused)
        out.note += " (" + std::to_string(refused) + " protected)";
    e.log("snip: " + out.note);
    return out;
}

// ---- Tier 2: microcompact ----------------------------------------------------------------------------

TierOutcome microcompact(TierRun &run, double oldestShare)
{
    const Edits tierEdits{run};
    Editor &e = run.editor;
    const Transcript &t = e.transcript();
    TierOutcome out;
    const std::size_t first = run.firstPosition();
    const std::size_t count = e.size() - first;
    const auto cutoff = static_cast<std::size_t>(std::floor(static_cast<double>(count) * oldestShare));
    // The parts of every reason that do not depend on the position, built once.
    const std::string prefix = "tool result in the oldest " + percent(oldestShare) + " of messages (position ";
    const std::string suffix = " of " + std::to_string(count) + ", cutoff " + std::to_string(cutoff) + ")";
    // The digest of a result depends only on the original call and result: the input's digest
    // table makes each once per transcript (Read digests scan whole files). One pass over the
    // oldest messages on two threads, each message on the thread that owns it: checked, its
    // digest fetched (or made) and applied while its data is in cache.
    const std::shared_ptr<const CompactDigests> digests = e.input().digests();
    struct alignas(64) Tally { // one per thread, on its own cache line
        std::size_t changed = 0, already = 0, notSmaller = 0, refused = 0;
    } tally[2];
    e.forEachMessage(first, first + cutoff, [&](std::size_t thread, std::size_t p, std::size_t i) {
        if (e.isRemoved(i))
            return;
        Tally &n = tally[thread];
        const Message &orig = t.messages[i];
        // An edited copy has the original's blocks until finish(): the current text is block by
        // block, so that compacting never copies the rest of a message.
        for (std::size_t b = 0; b < orig.blocks.size(); ++b) {
            if (orig.blocks[b].type != BlockType::ToolResult)
                continue;
            // A look at the text's start only: a snipped result is not written out for it.
            constexpr std::size_t kLook = 256;
            const std::string_view start = e.currentHead(i, b, kLook);
            const std::size_t lead = start.find_first_not_of(" \t\r\n");
            const bool decided = start.size() < kLook || (lead != std::string_view::npos && lead + 11 <= start.size());
            if (tooldigest::isCompacted(decided ? start : std::string_view(e.currentText(i, b)))) {
                ++n.already;
                continue;
            }
            CompactDigest d = digests->get(i, b);
            if (d.line.size() >= e.currentSize(i, b)) {
                ++n.notSmaller; // already shorter than its digest
                continue;
            }
            std::string reason = prefix + std::to_string(p - first + 1);
            reason += suffix;
            const bool applied = e.setBlockText(i, b, std::move(d.line), Fate::Microcompacted, std::move(reason), d.tokens);
            ++(applied ? n.changed : n.refused);
        }
    });
    out.changed = tally[0].changed + tally[1].changed;
    const std::size_t already = tally[0].already + tally[1].already;
    const std::size_t notSmaller = tally[0].notSmaller + tally[1].notSmaller;
    const std::size_t refused = tally[0].refused + tally[1].refused;
    out.note = "compacted " + std::to_string(out.changed) + " tool result(s) in the oldest " + std::to_string(cutoff)
               + " of " + std::to_string(count) + " messages";
    if (already)
        out.note += ", " + std::to_string(already) + " already compacted";
    if (notSmaller)
        out.note += ", " + std::to_string(notSmaller) + " already shorter than their digest";
    if (refused)
        out.note += ", " + std::to_string(refused) + " protected";
    e.log("microcompact: " + out.note);
    return out;
}

// ---- Tier 3: auto-compact ----------------------------------------------------------------------------

TierOutcome autoCompact(TierRun &run, std::int64_t threshold, std::size_t summaryMaxChars)
{
    const Edits tierEdits{run};
    Editor &e = run.editor;
    const Transcript &t = e.transcript();
    TierOutcome out;
    const std::size_t first = run.firstPosition();
    const std::int64_t total = run.tokens() - run.systemTokens();
    const std::int64_t target = total - threshold / 2;
    auto finish = [&](std::string note) {
        out.note = std::move(note);
        e.log("auto-compact: " + out.note);
        return out;
    };
    if (target <= 0)
        return finish("nothing to do: " + std::to_string(total) + " tokens after the system prompt <= half the threshold ("
                      + std::to_string(threshold / 2) + ")");
    std::int64_t accumulated = 0;
    std::size_t cut = e.size();
    for (std::size_t p = first; p < e.size(); ++p) {
        accumulated += e.tokens(e.at(p));
        if (accumulated >= target) {
            cut = p + 1;
            break;
        }
    }
    const std::size_t wanted = cut;
    const auto limit = lastUserRequest(e, first);
    if (!limit)
        return finish("no user request to keep after a summary");
    std::optional<std::size_t> safe = safeCutAtOrAfter(e, cut);
    if (!safe || *safe > *limit)
        safe = safeCutAtOrBefore(e, *limit);
    if (!safe || *safe <= first)
        return finish("no safe cut before the current request (wanted position " + std::to_string(wanted) + ")");
    cut = *safe;

    std::vector<std::size_t> summarized;
    std::int64_t replaced = 0;
    for (std::size_t p = first; p < cut; ++p) {
        const std::size_t i = e.at(p);
        if (e.isRemoved(i) || e.isProtected(i))
            continue;
        summarized.push_back(i);
        replaced += e.tokens(i);
    }
    if (summarized.empty())
        return finish("every message before the cut is protected");
    SummaryRequest req;
    req.transcript = &t;
    req.messages = summarized;
    req.style = "seed003";
    req.maxChars = summaryMaxChars;
    req.tokensBefore = replaced;
    req.analysis = &e.analysis();
    std::string text = e.input().summary().summarize(req).text;
    // An LLM summarizer returns the body only; the seed's markers frame it either way.
    if (text.rfind("[Conversation History Summary]", 0) != 0)
        text = "[Conversation History Summary]\n" + text + "\n[End Summary — recent messages follow]";
    // The summary opens the compacted range (the seed returns [summary, ...recent]); protected
    // messages the range keeps follow it, so the conversation still starts with a user turn.
    const std::size_t before = e.at(first);
    std::int64_t added = summaryTokens(e, before, text); // upper bound: counts an acknowledgement
    if (added >= replaced)
        return finish("summary (" + std::to_string(added) + " tokens) would not be smaller than the "
                      + std::to_string(summarized.size()) + " messages it replaces (" + std::to_string(replaced) + ")");
    const std::string why = "auto-compact: oldest messages up to position " + std::to_string(cut) + " (target reduction "
                            + std::to_string(target) + " tokens = " + std::to_string(total) + " - "
                            + std::to_string(threshold) + " x 0.5)";
    for (const std::size_t i : summarized)
        out.changed += e.remove(i, why, Fate::Summarized) ? 1 : 0;
    insertSummary(e, before, text, "summary of " + std::to_string(out.changed) + " messages");
    // Exact now that the range is removed (the acknowledgement depends on the next kept message).
    added = summaryTokens(e, before, text);
    run.insertedTokens += added;
    e.extra()["summary"] = {{"messages", out.changed}, {"cut", cut}, {"wantedCut", wanted}, {"targetReduction", target}, {"replacedTokens", replaced}, {"summaryTokens", added}};
    return finish("summarized " + std::to_string(out.changed) + " messages (" + std::to_string(replaced) + " tokens) into "
                  + std::to_string(added) + " tokens; cut at position " + std::to_string(cut)
                  + (cut != wanted ? " (moved from " + std::to_string(wanted) + " to a safe cut)" : std::string()));
}

// ---- Tier 4: hard truncate ---------------------------------------------------------------------------

TierOutcome hardTruncate(TierRun &run, std::int64_t maxTokens, std::int64_t safetyMargin)
{
    const Edits tierEdits{run};
    Editor &e = run.editor;
    TierOutcome out;
    const std::size_t first = run.firstPosition();
    const std::int64_t system = run.systemTokens();
    const std::int64_t budget = maxTokens - system - safetyMargin;
    std::int64_t used = run.insertedTokens;
    std::size_t start = e.size();
    for (std::size_t p = e.size(); p-- > first;) {
        const std::int64_t n = e.tokens(e.at(p));
        if (used + n > budget)
            break;
        used += n;
        start = p;
    }
    const std::size_t fits = start;
    std::optional<std::size_t> safe = safeCutAtOrAfter(e, start);
    std::string extraNote;
    if (!safe || *safe >= e.size()) {
        const auto last = lastUserRequest(e, first);
        safe = last ? safeCutAtOrBefore(e, *last) : std::nullopt;
        extraNote = "; not even the newest turn fits the budget, kept from the last user request";
    }
    if (!safe || *safe <= first) {
        out.note = "everything fits the budget of " + std::to_string(budget) + " tokens" + extraNote;
        e.log("hard-truncate: " + out.note);
        return out;
    }
    start = *safe;
    const std::string why = "hard truncate: older than the newest messages that fit the budget " + std::to_string(budget)
                            + " = " + std::to_string(maxTokens) + " - " + std::to_string(system) + " (system) - "
                            + std::to_string(safetyMargin);
    std::optional<std::size_t> survivor; // a protected message the range keeps
    for (std::size_t p = first; p < start; ++p) {
        const bool removed = e.remove(e.at(p), why);
        out.changed += removed ? 1 : 0;
        if (!removed && !survivor)
            survivor = e.at(p);
    }
    // A kept message that is not a user request would open the conversation (or follow the system
    // prompt); Anthropic and Gemini require a user turn first, so a one-line user marker precedes it.
    if (survivor && !analysis::isUserRequest(e.transcript().messages[*survivor])) {
        Message marker = makeTextMessage(Role::User, "[Earlier conversation truncated to fit the context window.]");
        run.insertedTokens += tokens::estimateMessage(marker);
        e.insertBefore(e.at(first), std::move(marker), "opens the conversation before a protected message the truncation kept");
    }
    e.extra()["truncate"] = {{"budget", budget}, {"keptFrom", start}, {"fitsFrom", fits}, {"removed", out.changed}};
    out.note = "removed " + std::to_string(out.changed) + " oldest messages; kept from position " + std::to_string(start)
               + " within the budget of " + std::to_string(budget) + " tokens" + extraNote;
    e.log("hard-truncate: " + out.note);
    return out;
}

} // namespace cl::strategy::tiers
