// SPDX-License-Identifier: MIT
#pragma once
// What the live context figure (core/tokens/contextfigure.h) is computed from, inside core/tokens:
// the messages a figure covers, a walk over them with the running seed estimate per context, the
// measured usage points with the estimate each response was sent with, and the calibration learned
// from the growth between those points.

#include "core/tokens/contextfigure.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cl::tokens::detail {

std::string factorText(double factor); // "1.234"
std::int64_t scaled(double factor, std::int64_t tokens);
std::string withCommas(std::int64_t v); // digits grouped by threes with spaces
double median(std::vector<double> v);

// The messages a figure is computed over: a transcript's own, or a strategy's result before it is
// materialized (original messages and new ones in slot order). intact[i]: the message is as the file
// was read, and nothing the file had was removed just before it.
struct Sequence {
    std::vector<const Message *> messages;
    std::vector<char> intact;
};
Sequence sequenceOf(const Transcript &t);

// Per message: the seed estimate of the conversation before it within its context, the context
// (compaction boundaries before it), hidden tokens before it.
struct Walk {
    std::vector<char> intact;
    std::vector<std::int64_t> before;
    std::vector<std::int32_t> context;
    std::vector<std::int64_t> hidden;
};

// What the agent sends again that its file does not show, measured: OpenAI-family agents (Codex)
// pass each response's reasoning back as encrypted items, which the rollout records without text;
// their size is the response's reasoning tokens.
bool resendsHiddenReasoning(const Transcript &t);
// wholeHistory: the conversation runs on across compaction boundaries (every message counts).
Walk walk(const Sequence &q, bool hiddenReasoning, bool wholeHistory = false);

// A usage point with the estimate of what its response was sent with: the lines of one response
// that come before its usage line (Claude Code writes a line per block) are not part of it.
struct Point {
    std::size_t message = 0;
    std::size_t responseStart = 0; // first message of the response
    std::int64_t measured = 0;
    std::int64_t estimated = 0; // conversation estimate before the response
    std::int32_t context = 0;
    std::int64_t hidden = 0; // hidden tokens before the response (resendsHiddenReasoning)
    std::int64_t visible() const { return measured - hidden; }
};
// One point per main-chain response with usage, as measuredContext() finds them.
std::vector<Point> points(const Sequence &q, const Walk &w);
// No message in [from, to] was edited or had something removed before it.
bool spanIntact(const Walk &w, std::size_t from, std::size_t to);
// The factor learned from the growth between consecutive points [begin, end) of one context.
Calibration calibrateFrom(const std::string &family, const Walk &w, const std::vector<Point> &pts, std::size_t begin,
                          std::size_t end);
std::string familyOf(const Transcript &t); // the token count family's name

} // namespace cl::tokens::detail
