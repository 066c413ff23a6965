// SPDX-License-Identifier: MIT
#pragma once

// A session over wall-clock time, like a browser's network panel: each model response (from the
// request it answers to its last line), each tool call (from the call to its result) and each
// subagent run (from the Task call to its result) is a span in a lane (the model, the subagents, one
// lane per tool), beside the context the model measured at each response. Built from the messages'
// timestamps; messages without one are left out.

#include "core/model/transcript.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cl::analysis {

enum class SpanKind : std::uint8_t {
    Response, // a model response: from the message it answers to its last line
    Tool,     // a tool call: from the call to its result
    Subagent, // a subagent run: from the call that started it to its result
};

struct TimelineSpan {
    std::int64_t startMs = 0, endMs = 0;
    std::int32_t message = -1;  // the message to select: the response's first line, the call's message
    std::int32_t block = -1;    // the tool call's block; -1 for a response
    std::int32_t subagent = -1; // Transcript::subagents index of a subagent run
    std::uint16_t lane = 0;
    std::uint8_t row = 0; // within its lane: spans that overlap in time take different rows
    SpanKind kind = SpanKind::Response;
    bool thinking = false; // a response with thinking
    bool failed = false;   // a tool call whose result is an error
    bool open = false;     // no result found: the span ends at the next message
    bool history = false;  // before the last compaction
    std::int64_t durationMs() const { return endMs - startMs; }
};

struct TimelineLane {
    std::string name; // "Model", "Subagents", or the tool's name
    SpanKind kind = SpanKind::Response;
    std::vector<std::uint32_t> spans; // indices into Timeline::spans, by start time
    std::int64_t longestMs = 0;       // the lane's longest span (finding spans that reach into a range)
    std::int64_t busyMs = 0;          // the sum of its spans' durations
    std::uint8_t rows = 1;            // rows its overlapping spans take (at most kTimelineRows)
};

// The most rows a lane stacks overlapping spans in; more at once share the row that frees first.
inline constexpr std::uint8_t kTimelineRows = 4;

struct ContextPoint {
    std::int64_t timeMs = 0;
    std::int64_t tokens = 0; // the context the model measured (input + cache)
    std::int32_t message = -1;
    bool history = false;
};

struct Timeline {
    std::vector<TimelineSpan> spans;
    std::vector<TimelineLane> lanes; // the model, the subagents when there are any, then tools by first use
    std::vector<ContextPoint> context;
    std::vector<std::int64_t> compactions; // times of the compaction boundaries
    std::int64_t startMs = kNoTime, endMs = kNoTime;
    std::int64_t liveStartMs = kNoTime; // the first live message's time; kNoTime when nothing is history
    std::int64_t peakContext = 0;
    std::vector<std::string> subagentNames; // by Transcript::subagents index: the call's description, else the agent id
    bool empty() const { return startMs == kNoTime; }
};

Timeline buildTimeline(const Transcript &t);

// The spans of lane `lane` to draw over [fromMs, toMs] at `msPerPixel`: those that reach into the
// range, thinned row by row so that each pixel column where a span ends is drawn once (a span ending
// inside the columns its row already covers is left out). At most one span per pixel column plus two
// in each row, whatever the session's size.
std::vector<std::uint32_t> visibleSpans(const Timeline &tl, std::size_t lane, std::int64_t fromMs, std::int64_t toMs,
                                        double msPerPixel);

} // namespace cl::analysis
