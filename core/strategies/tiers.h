// SPDX-License-Identifier: MIT
#pragma once

// The four tiers of seed 003 (docs/design/mechanisms.md §9.2–9.6) as functions over one Editor, so the
// stand-alone strategies and the progressive manager share one implementation and the manager can
// apply the tiers to the same Editor in sequence, re-measuring after each.
//
// Readings of the seed (its code is TypeScript; the numbers are parameters here):
// - Characters are UTF-8 code points (the seed's content.length counts UTF-16 units; code points
//   are the closest unit that never splits a character). A cut never splits a code point.
// - "Messages" of the tiers are the conversation positions after the leading system messages: the
//   seed passes the system prompt separately (manageContext(messages, systemPrompt, ...)), so it is
//   never snipped, compacted, summarized or truncated, and the microcompact cutoff and the
//   auto-compact total are taken over the rest.
// - Usage (the triggers) = tokens of the whole context, system prompt included, / window, as the
//   seed's manageContext usage(). Tokens are the seed 001 estimate of the current (edited) messages
//   plus the messages a tier inserted.
// - Microcompact and snipped results: a result tier 1 snipped is still a full tool result to tier 2
//   (the seed's isAlreadyCompacted() only recognizes "[Compacted:"), so it is compacted when it lies
//   in the oldest share; its digest is taken from the ORIGINAL result text so the line counts what
//   the tool really returned, not the snipped remainder. A result whose current text already starts
//   with "[Compacted:" is never compacted again. A digest that would not be shorter is skipped.
// - Auto-compact: threshold = autoCompactTrigger x window (the 80 % point in tokens);
//   targetReduction = total - threshold x 0.5 where total counts the messages after the system
//   prompt (the seed's autoCompact gets them without it), i.e. what stays un-summarized is at most
//   half the threshold (40 % of the window), plus the summary. The oldest messages are accumulated
//   until their tokens reach targetReduction (the message that reaches it is included, as the seed's
//   compactUpTo), then the cut moves forward to the next safe cut, but never past the last user
//   request (the current task stays verbatim; seed 003's "critical" class). The summary is skipped
//   when it would not be smaller than what it replaces.
// - Hard truncate: budget = window - systemTokens - safetyMargin; the newest messages are kept while
//   they fit (inserted summaries count as kept), then the kept tail's start moves forward to a safe
//   cut. If not even the newest turn fits, the tail starts at the last user request anyway (the seed
//   would keep nothing, which leaves no valid request).

#include "core/strategy/editor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cl::strategy::tiers {

struct SnipStyle {
    double headShare = 0.3;
    double tailShare = 0.3;
    bool seed004Marker = false; // "... [truncated N characters] ..." instead of "[... N characters snipped ...]"
};
SnipStyle seed003Snip();
SnipStyle seed004Snip();

// The snipped text, or nullopt when text has at most maxChars code points.
// seed 003: head + "\n\n[... N characters snipped ...]\n\n" + tail; seed 004: head +
// "\n\n... [truncated N characters] ...\n\n" + tail; head/tail = floor(maxChars x share) code points,
// N = code points removed.
// *length (when given) receives the text's code points whenever they were counted.
std::optional<std::string> snipText(std::string_view text, std::size_t maxChars, const SnipStyle &style,
                                    std::size_t *length = nullptr);
// The same with the text's code points already known (utf8Length(text) == length): reads only the
// bytes it keeps.
std::optional<std::string> snipTextOfLength(std::string_view text, std::size_t length, std::size_t maxChars,
                                            const SnipStyle &style);
// The same as pieces: the snipped text is text's first headBytes bytes, middle (the marker), and
// text's bytes from tailStart on; the editor records it as such (Editor::setBlockSplice).
using SnipCut = Editor::Splice;
std::optional<SnipCut> snipCut(std::string_view text, std::size_t length, std::size_t maxChars, const SnipStyle &style);

// One run of tiers over an Editor; keeps the tokens of inserted messages so usage can be re-measured.
class TierRun
{
public:
    explicit TierRun(Editor &e);
    Editor &editor;
    std::int64_t insertedTokens = 0;

    // Current context estimate (conversation + inserted), summed over every message once and
    // remembered until a tier edits the editor (each tier calls edited() when it returns): the
    // progressive manager asks before and after every tier.
    std::int64_t tokens() const;
    void edited() { m_tokens.reset(); }
    std::int64_t systemTokens() const; // leading system messages
    std::size_t firstPosition() const; // first conversation position after the leading system messages
    double usage(std::int64_t window) const;

private:
    mutable std::optional<std::int64_t> m_tokens;
};

struct TierOutcome {
    std::size_t changed = 0; // blocks snipped/compacted, or messages summarized/removed
    std::string note;        // one line: what happened or why nothing did
};

// deferTexts: cuts of unchanged results are estimated in a scratch buffer and recorded as splices
// (Editor::setBlockSplice), written out only if they are read or kept; for a run whose later
// tiers replace most of them (the progressive manager). Same result either way.
TierOutcome snip(TierRun &run, std::size_t maxChars, const SnipStyle &style, bool deferTexts = false);
TierOutcome microcompact(TierRun &run, double oldestShare);
TierOutcome autoCompact(TierRun &run, std::int64_t threshold, std::size_t summaryMaxChars);
TierOutcome hardTruncate(TierRun &run, std::int64_t maxTokens, std::int64_t safetyMargin);

// "41 %" style percentage of a ratio, one decimal when below 10 %.
std::string percent(double ratio);

} // namespace cl::strategy::tiers
