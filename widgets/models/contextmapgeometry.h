// SPDX-License-Identifier: MIT
#pragma once

// Geometry of the context map: the conversation as a horizontal strip, one segment per conversation
// message with a width proportional to its estimated tokens. Plain structs, computed without
// painting, so the token -> pixel mapping is tested on its own.
//
// Two layouts:
// - Segments: when every message can get at least minSegmentWidth pixels, tiny messages are widened
//   to that minimum and the rest share the remaining width in proportion to their tokens.
// - Columns: otherwise (thousands of messages) the widths are purely proportional and the strip is
//   drawn as exactly floor(width) pixel columns, each naming the range of positions it covers, the
//   priority holding most of its pixels and the highest boundary score inside it.

#include "core/analysis/analysis.h"
#include "core/model/transcript.h"

#include <QString>

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace cl::gui {

struct MapSegment {
    int position = 0; // conversation position
    int message = 0;  // transcript index
    std::int64_t tokens = 0;
    double x = 0, width = 0; // in strip pixels, x relative to the widget (left included)
    cl::analysis::Priority priority = cl::analysis::Priority::Excluded;
    std::optional<double> score; // boundary score of cutting before it (none for position 0)
};

struct MapColumn {
    int pixel = 0;                           // x of the column's left edge, relative to the widget
    int firstPosition = 0, lastPosition = 0; // inclusive; neighbours share a position a message spans
    cl::analysis::Priority dominant = cl::analysis::Priority::Excluded;
    std::optional<double> maxScore; // highest boundary score among its positions (position 0 has none)
};

enum class MapZone {
    System,
    Compressible,
    Recent
};

struct ZoneExtent {
    MapZone zone = MapZone::Compressible;
    std::int64_t tokens = 0;
    std::vector<std::pair<double, double>> spans; // [x0, x1) runs of consecutive positions in this zone
    double width() const;                         // sum of the spans
};

struct ContextMapGeometry {
    double left = 0, width = 0;
    double minSegmentWidth = 0;
    bool merged = false; // columns layout
    std::int64_t totalTokens = 0;
    std::vector<MapSegment> segments;    // one per conversation position, always
    std::vector<MapColumn> columns;      // merged layout only: exactly floor(width) entries
    std::optional<int> boundaryPosition; // the chosen boundary (cut before it)
    double boundaryX = 0;
    double scoreMin = 0, scoreMax = 0; // range of the boundary scores (0/0 when there are none)
    std::vector<ZoneExtent> zones;     // system, compressible, recent (empty zones omitted)

    bool empty() const { return segments.empty(); }
    // Conversation position at widget x; -1 outside the strip or when empty.
    int positionAt(double x) const;
    // Transcript index at widget x; -1 outside.
    int messageAt(double x) const;
    // Left edge of a position's segment (where a cut before it falls).
    double xOfPosition(int position) const;
    // Score normalised to 0..1 over [scoreMin, scoreMax] (0.5 when all are equal).
    double scoreFraction(double score) const;
};

// tokens: one entry per conversation position (the estimate of its message).
ContextMapGeometry contextMapGeometry(const std::vector<std::int64_t> &tokens, const cl::analysis::Analysis &a,
                                      double left, double width, double minSegmentWidth = 3);
// Takes the tokens from tokens::estimateMessage for every position of a.view.
ContextMapGeometry contextMapGeometry(const Transcript &t, const cl::analysis::Analysis &a, double left, double width,
                                      double minSegmentWidth = 3);

QString zoneName(MapZone z); // "system", "compressible", "recent"
// What a priority rule id of cl::analysis::priorities means (seed 003 table), for tooltips and the panel.
QString priorityRuleText(std::string_view rule);
QString toQString(std::string_view s);

} // namespace cl::gui
