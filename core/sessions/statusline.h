// SPDX-License-Identifier: MIT
#pragma once

// What a status line inside the agent shows (Claude Code's statusLine command): the live context as
// the one figure counts it (tokens/contextfigure.h) and its share of the window, the turns before the
// agent's auto-compaction (workflow/forecast.h), and what the session has cost (cost/sessioncost.h,
// subagent files included). Claude Code runs the command after every message, so a call must cost
// what changed, not the whole file: what the first call learns is kept in a small state file per
// session (docs/design/inside-agents.md):
//   - the byte offset of the last compaction boundary; what comes before it is history, its cost
//     summed once;
//   - the calibration and fixed part learned from the whole file, carried to the live part;
//   - each subagent file's cost, by its size and modification time.
// A later call reads only the live part (the boundary to the end). A new compaction, a file replaced
// or rewritten, or a live part whose figure did not equal the whole file's, reads the whole file again.

#include "core/cost/sessioncost.h"
#include "core/llm/pricing.h"
#include "core/tokens/contextfigure.h"
#include "core/workflow/forecast.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cl::statusline {

// What the agent hands its status line command on standard input.
struct Input {
    std::string transcriptPath;
    std::string sessionId;
    std::string model;                  // model.id
    std::int64_t window = 0;            // context_window.context_window_size; 0: not given
    std::optional<double> agentCostUsd; // cost.total_cost_usd: the agent's own figure for this run
};
// Claude Code's statusLine JSON; false with why when it is no JSON object or names no transcript.
bool parseInput(std::string_view text, Input &out, std::string &error);

struct Options {
    std::string stateDir;                    // where the per-session state files go; empty: none kept (every call cold)
    const llm::PriceTable *prices = nullptr; // null: the shipped table and the user's file
    tokens::Estimator estimator = tokens::Estimator::Calibrated;
};

struct Figures {
    tokens::ContextFigure context;
    std::int64_t window = 0;
    std::string windowSource;
    forecast::Compaction compaction;
    double dollars = 0;              // main file + subagent files, priced models
    std::int64_t unpricedTokens = 0; // tokens of models without a price
    std::size_t subagentFiles = 0;
    bool warm = false;            // only the live part was read (the state file was current)
    std::string why;              // cold: why the whole file was read
    std::uint64_t bytesRead = 0;  // of the session file
    std::uint64_t liveOffset = 0; // where the live part starts in the file
};

// False with why when the transcript cannot be read.
bool compute(const Input &in, const Options &opts, Figures &out, std::string &error);

// One line: "84,210 of 200,000 tokens (42 %) · auto-compact in ~6 turns · $3.12". `color`: ANSI
// colours by how near the agent's compaction is.
std::string render(const Figures &f, bool color);

// $XDG_CACHE_HOME/contextlens/statusline, else $HOME/.cache/...; empty when neither is set.
std::string defaultStateDir();

} // namespace cl::statusline
