// SPDX-License-Identifier: MIT
#pragma once

// Per-message lookups for the transcript model's analysis columns. The analysis reports rounds and
// critical tools as lists; a view asks per row, so setAnalysis flattens them once into vectors
// indexed by transcript message (O(messages + rounds + calls), no per-row allocation).

#include "core/analysis/analysis.h"

#include <QMetaType>

#include <cstdint>
#include <utility>
#include <vector>

namespace cl::gui {

// Where a row sits in a tool round's bracket (drawn by RoundBracketDelegate).
enum class RoundPart : std::uint8_t {
    None,    // not in a round
    Single,  // the call message of a round whose results are not after it (or unanswered)
    Start,   // the call message; results follow
    Result,  // a result message with more results of the round below
    End,     // the round's last result message
    Through, // a row between the call and its last result that is not part of the round
};
// Where a row sits in a chain of two or more rounds without a user request between them.
enum class ChainPart : std::uint8_t {
    None,
    Start,
    Middle,
    End
};

// Value of RoundRole.
struct RoundCell {
    int round = -1; // 1-based round number, -1 none
    int chain = -1; // chain id of the analysis
    RoundPart part = RoundPart::None;
    ChainPart chainPart = ChainPart::None;
    bool failed = false; // the round has a failed call
    bool block = false;  // a block row (drawn without the bracket)
    // Message indices the bracket (call to last result; for a Through row, the round it passes) and
    // the chain line run over. A delegate joins a row to its neighbour in the view only when that
    // neighbour lies inside the same span in file order, so sorted or filtered views do not draw
    // lines between unrelated rows.
    int first = -1, last = -1;
    int chainFirst = -1, chainLast = -1;
};

struct CriticalMark {
    std::int32_t block = -1;    // block index in the message
    std::uint32_t critical = 0; // index into Analysis::critical
    bool result = false;        // the mark is on the call's result, not on the call
};

struct AnalysisRows {
    std::vector<std::int32_t> round;                             // per message: index into Analysis::rounds, -1
    std::vector<RoundPart> roundPart;                            // per message
    std::vector<ChainPart> chainPart;                            // per message
    std::vector<std::int32_t> throughRound;                      // per message: the round a Through row lies in, -1
    std::vector<std::uint32_t> roundLast;                        // per round: its last result after the call (or the call)
    std::vector<std::int32_t> chain;                             // per message: index into chains, -1
    std::vector<std::pair<std::uint32_t, std::uint32_t>> chains; // first and last message of each chain line
    std::vector<std::uint32_t> markBegin;                        // per message + 1: range into marks (CSR)
    std::vector<CriticalMark> marks;
    std::vector<std::uint8_t> criticalRank; // per message: highest category rank, 0 none
    double maxBoundary = 0;

    void build(const Transcript &t, const analysis::Analysis &a);
    void clear() { *this = AnalysisRows(); }
};

// error_context 3 > file_modification 2 > system_change 1 (the order of the Critical sort).
int criticalCategoryRank(const std::string &category);

} // namespace cl::gui

Q_DECLARE_METATYPE(cl::gui::RoundCell)
