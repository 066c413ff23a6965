// SPDX-License-Identifier: MIT
#pragma once

// Seed 001 token estimator, exactly as specified (see docs/design/mechanisms.md §2), plus measured context
// from real usage data and the estimator's error against it.
//
// Repetition factor (the seed leaves it open): the share of the text's non-blank lines (trimmed,
// at least 8 characters long) that already appeared earlier in the same text. Text without such
// lines falls back to 8-byte shingles sampled every 8 bytes. 0 = no repetition, 1 = all repeated.

#include "core/model/transcript.h"
#include "core/util/parallel.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace cl::tokens {

constexpr int kRoleTokens = 3;
constexpr int kStructureTokens = 4;
constexpr int kCodeBlockTokens = 50;
constexpr int kUrlDiscount = 10;
constexpr int kImageTokens = 765;
constexpr int kDocumentPageTokens = 1000;
constexpr int kDocumentPageBytes = 50000;
constexpr int kUnknownBlockTokens = 10;
constexpr int kToolUseOverhead = 10;
constexpr int kToolResultOverhead = 5;

double repetition(std::string_view text);

// The pass the estimator makes over each text: "avx2" (32 bytes at a time, where the processor has
// AVX2), "sse2" (16 bytes) or "portable" (8-byte words). The results are identical. setWideScan(false)
// forces the narrower pass, setWideScan(true) restores the wide one where available (tests run both);
// returns whether the wide one was in use.
std::string_view scanName();
bool setWideScan(bool wide);

std::int64_t estimateText(std::string_view text);
// True when the text has at least two lines that count for repetition and no two of them are
// equal (its repetition factor is 0 and comes from lines, not shingles).
bool linesAreDistinct(std::string_view text);
// estimateText(text) for a text whose lines lying whole before byte `from` or whole after byte
// `to` are known to be pairwise different (they are lines of one text for which linesAreDistinct
// holds, e.g. the kept head and tail of a snipped result, with the marker between from and to):
// the lines are listed, not hashed, and only those meeting [from, to] are compared with the others.
// Wrong (not just slower) when that premise does not hold.
std::int64_t estimateTextDistinctOutside(std::string_view text, std::size_t from, std::size_t to);
std::int64_t estimateBlock(const Block &b);
// Cached in Message::tokenEstimate (the cache key is the message itself; edit clears it).
std::int64_t estimateMessage(const Message &m);
// Computes every message's estimate, in parallel on `threads` threads.
void estimateAll(const Transcript &t, int threads = util::defaultThreads());
std::int64_t totalEstimate(const Transcript &t); // conversation messages only

// One point per assistant response that reported usage.
struct MeasuredPoint {
    std::size_t message = 0;    // index of the message carrying the usage
    std::int64_t measured = 0;  // context the model saw (input + cache creation + cache read)
    std::int64_t estimated = 0; // estimator's total of the conversation sent with it (since the compaction before it)
    std::int64_t output = 0;
};
std::vector<MeasuredPoint> measuredContext(const Transcript &t);

struct ErrorReport {
    std::size_t points = 0;
    double meanAbsPercent = 0; // mean |estimated - measured| / measured * 100
    double meanSignedPercent = 0;
    std::int64_t lastMeasured = 0;
    std::int64_t lastEstimated = 0; // conversation estimate + fixed part
    std::int64_t fixed = 0;         // the fixed part added to every estimate
};
// Like with like: each measured context against the estimate of the conversation sent with it plus
// the fixed part of the request (tokens/fixedpart.h; the caller passes fixedPart(t).tokens).
ErrorReport estimatorError(const Transcript &t, std::int64_t fixedTokens);

} // namespace cl::tokens
