// SPDX-License-Identifier: MIT
#pragma once

// The one figure for the live context (docs/design/tokens.md, "The context figure"): what the next
// request sends, fixed part + conversation after the last compaction, in the agent's own tokens,
// with how it was obtained. Every surface that shows how full the context is, or what a strategy
// frees, takes it from here.
//
// In the agent's count:
//   measured    the last usage the agent recorded is still current (after the last compaction, no
//               message at or before it changed): that measurement plus the calibrated estimate of
//               what came after it;
//   predicted   an edited transcript (a strategy's result) of a measured one, compactions it inserted included:
//               the calibrated estimate plus the original's difference between its measurement and
//               its calibrated estimate, so that what an edit frees is the calibrated estimate of
//               what it removed;
//   calibrated  no current measurement: fixed part + the conversation's seed 001 estimate times the
//               session's factor (learned from its own usage, else the family's stated default);
//   exact       (Estimator::Exact, vocabulary present) BPE counts as tokens/counts.h makes them;
//   seed        (Estimator::Seed) the seed 001 estimator as specified, fixed part added, no factor.
//
// The calibration: consecutive usage points within one context (no compaction between them) whose
// measured context grew; the factor is the sum of those growths over the sum of the seed estimates
// of the messages that caused them, clamped to [kMinCalibration, kMaxCalibration].

#include "core/model/transcript.h"
#include "core/tokens/estimator.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cl::tokens {

enum class Estimator : std::uint8_t {
    Calibrated, // the default: closest to the agent's own count
    Seed,
    Exact
};
std::string_view estimatorName(Estimator e); // "calibrated", "seed", "exact"
std::optional<Estimator> parseEstimator(std::string_view name);

constexpr double kMinCalibration = 0.5;
constexpr double kMaxCalibration = 3.0;

// Agent tokens per seed-estimate token of conversation.
struct Calibration {
    double factor = 1.0;
    std::size_t pairs = 0; // usage deltas it was learned from; 0: the family's stated default
    std::string family;    // "claude", "openai", "gemini", "unknown"
    std::string how;       // one line for humans
};
// The stated factor of a family for files without usage (docs/design/tokens.md lists how each was
// measured).
double defaultCalibration(std::string_view family);
// Learned from the transcript's own usage (the family default when it holds no pair).
Calibration calibrate(const Transcript &t);
// What a strategy's result carries (Transcript::tokenCalibration): the transcript's own when it
// carries one, else its learned factor and the fixed part of its live context.
Transcript::TokenCalibration carriedCalibration(const Transcript &t);

struct ContextFigure {
    enum class Basis : std::uint8_t {
        Measured,
        Predicted,
        Calibrated,
        Exact,
        Seed
    };
    Basis basis = Basis::Calibrated;
    Estimator estimator = Estimator::Calibrated;
    std::int64_t total = 0;            // what the next request sends: fixed + conversation
    std::int64_t fixed = 0;            // system prompt, tools, environment, in the same count
    std::string fixedHow;              // where that figure comes from
    std::int64_t conversation = 0;     // total - fixed
    std::int64_t seedConversation = 0; // the conversation by the seed 001 estimator (strategies' unit)
    // The measurement the total starts from (basis Measured): its message and value.
    std::int32_t measuredAt = -1;
    std::int64_t measured = 0;
    std::int64_t afterMeasured = 0; // estimate of the messages from the measured response on
    // The file's last measurement, current or not; history when it was taken before the last
    // compaction (the agent's or an applied strategy) or before a message that has since changed.
    std::int32_t lastMeasuredAt = -1;
    std::int64_t lastMeasured = -1;
    bool lastMeasurementIsHistory = false;
    Calibration calibration;
    std::string how; // one line: how the total was obtained
};
std::string_view basisName(ContextFigure::Basis b); // "measured", "predicted", "calibrated", "exact", "seed"

// The figure with message `at` the last one sent (default: the end of the transcript). Exact counts
// exist for the end only; elsewhere Estimator::Exact gives the calibrated figure.
ContextFigure contextFigure(const Transcript &t, Estimator e = Estimator::Calibrated, std::size_t at = SIZE_MAX);
// The figure's total and fixed part at each of `messages`, from one pass over the transcript (the
// context over time).
struct FigureParts {
    std::int64_t total = 0;
    std::int64_t fixed = 0;
};
std::vector<FigureParts> contextSeries(const Transcript &t, const std::vector<std::uint32_t> &messages,
                                       Estimator e = Estimator::Calibrated);
// The figure at the end of `messages`, an edited version of `original` (a strategy's result before it
// is materialized: originals and new messages in order), counted with `carried`
// (carriedCalibration(original)). intact[i]: message i is an original, unchanged, and nothing was
// removed just before it. Equal to contextFigure() of the materialized result.
ContextFigure contextFigureOf(const Transcript &original, std::vector<const Message *> messages, std::vector<char> intact,
                              const Transcript::TokenCalibration &carried, Estimator e = Estimator::Calibrated);
// Which messages of an edited sequence count as intact for contextFigureOf: origins[k] the original
// index of message k (-1: new), edited[k] its content changed.
std::vector<char> intactOf(const Transcript &original, const std::vector<std::int32_t> &origins,
                           const std::vector<char> &edited);
// Whether the usage at message `index` still describes the context before it: not history, and no
// message up to it edited, inserted or removed since the file was read.
bool measurementIsCurrent(const Transcript &t, std::size_t index);

// Out-of-sample check of the calibration (bench/, tests): the factor and fixed part learned from the
// first half of a file's measured points, each point of the second half predicted two ways and
// compared with what was measured:
//   live       as the figure is between two measurements: the previous measurement (same context,
//              nothing edited between) + the factor x the estimate of what was added since; without
//              one, from the estimate alone;
//   estimate   from the estimate alone: fixed part + factor x conversation estimate (what a
//              strategy's result is counted with).
struct CalibrationCheck {
    std::size_t learnedFrom = 0; // points
    std::size_t predicted = 0;   // points
    double factor = 1.0;
    double liveMedianErrorPercent = 0; // of |predicted - measured| / measured
    double liveMeanSignedPercent = 0;
    double estimateMedianErrorPercent = 0;
    double estimateMeanSignedPercent = 0;
    double seedMedianErrorPercent = 0; // from the seed estimator + the seed fixed part
};
std::optional<CalibrationCheck> checkCalibration(const Transcript &t);

} // namespace cl::tokens
