// SPDX-License-Identifier: MIT
#pragma once

#include <Qt>

namespace cl::gui {

// Custom item roles shared by all models and delegates.
enum Roles {
    TokensRole = Qt::UserRole + 1, // qint64 estimated tokens of the row
    MaxTokensRole,                 // qint64 largest row token count, for bar scaling
    MessageIndexRole,              // int index into Transcript::messages
    BlockIndexRole,                // int block index, -1 for message rows
    RoleNameRole,                  // QString role
    KindRole,                      // QString message kind / block type
    RawJsonRole,                   // QString source record(s) of the row
    FilterTextRole,                // QString everything the filter matches against
    ToolNameRole,                  // QString tool name of a tool_use / tool_result block, "" otherwise
    SourceLineRole,                // int 1-based source line (0 = none / whole file)
    IsSecondaryRole,               // bool sidechain, meta or event row (drawn greyed)
    IsBoundaryRole,                // bool compact / microcompact boundary row
    IsMetaOrEventRole,             // bool the row is (or belongs to) a Meta / Event message
    IsHistoryRole,                 // bool the row is (or belongs to) history before the last compaction
    FoldedEventsRole,              // int events folded into this message row (TranscriptFilterModel)
    SubagentRole,                  // int the subagent run of a subagent message row, -1 otherwise (TranscriptModel)
    SubagentMessageRole,           // int that message's index in the subagent's transcript, -1 otherwise
    SeverityRole,                  // int cl::Diagnostic::Severity (diagnostics model)
    // Analysis columns of the transcript model (all invalid when no analysis is set or the row is
    // not a conversation message; block rows answer PriorityRole, RoundRole and CriticalRole).
    PriorityRole,       // int cl::analysis::Priority of the message / block
    ImportanceRole,     // double seed 004 score 0..1 (message rows)
    ImportantRole,      // bool seed 004 important flag (message rows)
    PointsRole,         // int seed 001 points (message rows)
    BoundaryScoreRole,  // double score of cutting before this message (position >= 1)
    BoundaryMaxRole,    // double largest boundary score, for bar scaling
    ChosenBoundaryRole, // bool this message is the chosen compaction boundary
    RoundRole,          // cl::gui::RoundCell (analysisrows.h): round, part, chain
    CriticalRole,       // QString critical categories, comma-separated
    SortRole,           // double numeric sort key of the cell's column; invalid = no value

    // Compare table (CompareModel).
    CompareSortRole,  // double / QString per column; invalid for rows without a result
    StrategyNameRole, // QString registry name of the row's strategy (also the strategy panel's list)
    HasResultRole,    // bool the strategy has run on this transcript
    // Preview sides (ResultModel); MessageIndexRole, TokensRole and RoleNameRole are used too.
    FateRole,       // int cl::strategy::Fate of the row
    ReasonRole,     // QString why (empty when kept untouched)
    SlotRole,       // int slot index in Result::slots, -1 when removed
    PartnerRowRole, // int row of the same message on the other side, -1 if none
    FullTextRole,   // QString the message's text (capped), for a detail pane
    // Simulation table (SimulationModel).
    TurnFirstIndexRole, // int transcript index of the turn's first message
    TurnRole,           // int 1-based turn
    ChangedRole,        // bool the strategy changed something at this turn
    ValueRole,          // qint64 / double raw number of the cell (sorting, tests)
    // Operations dialog.
    DetailHtmlRole, // QString the HTML the detail pane shows for the item
    // Session browser (SessionModel): SortRole is used too.
    SessionPathRole, // QString the session file ("" for a project row)
    ProjectRole,     // QString the row's project
};

} // namespace cl::gui
