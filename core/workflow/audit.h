// SPDX-License-Identifier: MIT
#pragma once

// The compaction audit: for every compaction an agent made in a session (Claude Code
// compact_boundary and its isCompactSummary message, Codex `compacted` and its replacement history,
// Gemini CLI compression), what it replaced, what it wrote instead, which facts of the replaced
// history the summary kept and which it dropped, and what the project's strategies would have kept
// from the same history. It answers "what did my agent forget".
//
// The replaced history of a compaction is the conversation between the previous compaction (or the
// start) and its boundary: the live context just before it. The audit works on a transcript loaded
// either way (history marked or LoadOptions::wholeHistory): the loader keeps every message, and
// each compaction gets a transcript of its own where that history is the live context.
//
// Facts are the strategy engine's (strategy::collectFacts); a fact is kept when the text the agent
// sent after the compaction (its summary, plus the messages it kept: Claude Code preservedMessages,
// Codex's kept user requests, the turns a Gemini CLI compression keeps) mentions it, by the rule of
// llm::retention and of the strategy metrics (strategy/factmatch.h: a path also as written relative
// to the session's working directory or by its unique basename, a command without its `cd`).
// Strategy rows are strategy::run's own stats on the same transcript, so they count the same fact
// list.

#include "core/analysis/analysis.h"
#include "core/formats/recording/compactioncall.h"
#include "core/workflow/compactionhook.h"
#include "core/model/transcript.h"
#include "core/strategy/strategy.h"
#include "core/util/parallel.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cl::audit {

// What one strategy would have kept from the replaced history (forced where it has `force`).
struct StrategyRow {
    std::string strategy; // registry name
    std::string title;
    bool changed = false;
    std::string note;
    std::string error;             // parameter or name error; the figures are then zero
    std::int64_t tokensBefore = 0; // conversation estimate of the replaced history
    std::int64_t tokensAfter = 0;  // conversation estimate of the strategy's result
    std::size_t factsKept = 0, factsTotal = 0;
    double factRetention = 1;
};

// The compaction as it went over the wire, from a recording of the agent (recording/compactioncall.h):
// the call whose summary the session's summary holds. Gemini CLI's check of its snapshot is a second
// call: `call` is the last one, `firstRequest` the first.
struct WireCompaction {
    recording::CompactionCall call;
    std::size_t firstRequest = 0;
    int calls = 1;
    // Facts the summary dropped that the request did not even send: the agent had removed them from
    // its history before it asked (cleared tool results, a context it had already trimmed). The
    // others were in front of the model and left out of its summary.
    std::vector<strategy::Fact> notSent;
};

// The snapshot the agent's compaction hook took just before it (workflow/compactionhook.h): the exact
// state the agent summarised, also where the agent rewrote its file since.
struct HookSnapshot {
    compactionhook::Record before;               // PreCompact / PreCompress
    std::optional<compactionhook::Record> after; // PostCompact, when the agent runs it
    bool readable = false;                       // the copy is still kept and loads
    std::size_t factsKept = 0;                   // facts of the snapshot the summary kept
    std::vector<strategy::Fact> dropped;         // and dropped (sources: the snapshot's message indices)
    // Dropped facts the session file's history no longer holds: only the snapshot shows them.
    std::vector<strategy::Fact> onlyInSnapshot;
};
struct Compaction {
    std::size_t boundary = 0;              // transcript index of the boundary message
    std::size_t from = 0;                  // replaced range: transcript indices [from, boundary)
    std::size_t replacedMessages = 0;      // turns the model saw in it (not sidechain)
    std::string trigger;                   // "auto" / "manual" where the agent records it, else ""
    std::string timestamp;                 // the boundary's, as written
    std::int64_t timeMs = kNoTime;         // parsed
    std::int32_t summaryMessage = -1;      // transcript index of the summary message, -1 when none
    std::string summary;                   // the summary's text ("" when the agent wrote none)
    std::vector<std::size_t> keptMessages; // transcript indices of what the agent sent besides it
    // Tokens of the context before: compactMetadata.preTokens where recorded (> 0), else
    // estimatedBefore. estimatedBefore = fixed part + conversation estimate of the replaced history
    // (what `context` reports at the message before the boundary).
    std::int64_t tokensBefore = 0;
    bool beforeRecorded = false;
    std::int64_t estimatedBefore = 0;
    std::int64_t fixedTokens = 0;        // the fixed part in estimatedBefore (tokens/fixedpart.h)
    std::int64_t tokensAfter = 0;        // estimate of the summary and the kept messages (no fixed part)
    std::int64_t recordedAfter = 0;      // compactMetadata.postTokens where recorded, else 0
    std::vector<strategy::Fact> kept;    // facts of the replaced history the agent kept
    std::vector<strategy::Fact> dropped; // and dropped; sources are transcript indices
    // Pending work: the last user request of the replaced history (a fact of kind request).
    std::optional<strategy::Fact> pending;
    bool pendingKept = false;
    std::vector<StrategyRow> strategies;  // in the order asked for; none when nothing was replaced
    std::optional<WireCompaction> wire;   // when a recording was given and one of its calls wrote the summary
    std::optional<HookSnapshot> snapshot; // when the compaction hook took one (Options::hooks)

    std::size_t factsTotal() const { return kept.size() + dropped.size(); }
    double factRetention() const { return factsTotal() ? double(kept.size()) / double(factsTotal()) : 1.0; }
};

struct Options {
    // Strategies to run on each replaced history; nullopt: defaultStrategies(); empty: none.
    std::optional<std::vector<std::string>> strategies;
    analysis::AnalysisOptions analysis; // context window and thresholds the strategies see
    int threads = util::defaultThreads();
    // The agent's compaction calls of a recording of the session (io/recordedrequest.h
    // readCompactionCalls); each compaction is linked to the first unused call that wrote its summary.
    std::vector<recording::CompactionCall> wire = {};
    // The compaction hook's records of the session (compactionhook::records): each compaction is
    // linked to the last snapshot taken after the compaction before it and not after its boundary.
    std::vector<compactionhook::Record> hooks = {};
};

// The strategies that write a summary or drop messages (the ones comparable to a compaction), in
// registry order.
const std::vector<std::string> &defaultStrategies();

// Transcript indices of the compaction boundaries (not sidechain), in order.
std::vector<std::size_t> compactionBoundaries(const Transcript &t);

// The transcript as it stood just before the compaction at `boundary`: from the previous boundary
// (or the start) up to it, that history as the live context (microcompactions in it applied), the
// messages the agent kept that the loader moved after the boundary back in their place, nothing
// after. origin[k]: the transcript index of its message k.
Transcript transcriptBefore(const Transcript &t, std::size_t boundary, std::vector<std::size_t> *origin = nullptr);

// One entry per compaction boundary, in order.
std::vector<Compaction> auditCompactions(const Transcript &t, const Options &options = {});

} // namespace cl::audit
