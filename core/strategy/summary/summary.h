// SPDX-License-Identifier: MIT
#pragma once

// Summaries of the part of a conversation a strategy compacts. Strategies ask a Summarizer for a
// summary in a given style; the rule-based summarizer here builds it deterministically from the
// messages (no model call); a model summarizer (net/modelsummarizer.h) implements the same interface.
//
// Styles (SummaryRequest::style):
//   seed001      seed 001 createSummary: system summary, tool-usage summary, narrative, critical info
//   seed003      seed 003 auto-compact: "[Conversation History Summary] ... [End Summary ...]"
//   seed004      seed 004 sliding-window summary (content + keyPoints, summaryMaxChars)
//   claude-code  the nine sections of a Claude Code compaction + continuation preamble
//   gemini       gemini-cli state_snapshot (overall goal, constraints, knowledge, artifacts, ...)
//   codex        Codex CLI handoff summary (goal, progress, constraints, remaining, critical data)
//   openhands    OpenHands condensation summary (state of the task so far)

#include "core/analysis/analysis.h"
#include "core/model/transcript.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cl::strategy {

// seed 001 groupMessages over the summarized messages. Texts, names and paths are views into the
// transcript (which outlives the digest) or into `storage` (texts and commands that had to be
// built): a digest of 100 000 messages copies no message text. Move-only, since views may point
// into its own storage.
struct Digest {
    struct Call {
        std::size_t message = 0;
        std::string_view id, name;
        analysis::ToolKind kind = analysis::ToolKind::Other;
        const Block *block = nullptr; // the tool_use block in the transcript, never null
        const nlohmann::json &args() const { return block->input; }
        const Block &use() const { return *block; }
    };
    struct Error {
        std::size_t message = 0;
        std::string_view toolUseId, toolName;
        std::string error; // first line
    };
    struct Media {
        std::size_t message = 0;
        std::string_view mediaType;
        std::size_t size = 0;
    };
    Digest() = default;
    Digest(Digest &&) = default;
    Digest &operator=(Digest &&) = default;
    Digest(const Digest &) = delete;
    Digest &operator=(const Digest &) = delete;

    std::vector<std::pair<std::size_t, std::string_view>> userInputs;         // index, text
    std::vector<std::pair<std::size_t, std::string_view>> assistantResponses; // index, text
    std::vector<Call> toolCalls;
    std::vector<Error> errors;
    std::vector<Media> images, documents;
    std::vector<std::string_view> filesRead, filesModified, commands; // unique, first-seen order
    std::int64_t firstTimeMs = kNoTime, lastTimeMs = kNoTime;
    std::list<std::string> storage; // a list: its elements never move, not even when spliced
};
Digest digest(const Transcript &t, const std::vector<std::size_t> &messages);

struct SummaryRequest {
    const Transcript *transcript = nullptr;
    std::vector<std::size_t> messages; // transcript indices being summarized, in order
    std::string style = "seed001";
    std::string instructions;                     // user's compact instructions (honoured by the LLM version; echoed here)
    bool preserveToolCalls = true;                // seed 001: include the tool-usage summary
    std::size_t maxChars = 0;                     // 0: no limit (seed004 uses summaryMaxChars)
    std::int64_t tokensBefore = 0;                // of the summarized messages (seed 001 statistics)
    const analysis::Analysis *analysis = nullptr; // of the whole transcript (critical tools), optional
    std::vector<std::size_t> preserved;           // transcript indices whose tool results must be quoted verbatim
};

struct Summary {
    std::string text;
    nlohmann::json sections = nlohmann::json::object(); // the structured parts (GUI shows them)
    std::vector<std::string> keyPoints;
};

// Thrown by a summarizer that cannot give a whole, usable summary (a model's error, timeout, refusal,
// empty or oversized answer, cancel): strategy::run() then applies nothing and puts what() in the note.
class SummaryError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

class Summarizer
{
public:
    virtual ~Summarizer() = default;
    virtual std::string_view name() const = 0;
    virtual Summary summarize(const SummaryRequest &request) const = 0;
};

const Summarizer &ruleSummarizer();

// The first line of s after any leading characters in `skip`, without trailing spaces / CR, clipped
// to at most max bytes on a code point boundary with "…" appended when clipped. Every summary style
// quotes messages through it.
std::string clipFirstLine(std::string_view s, std::size_t max, std::string_view skip = " \t\r\n");
// The same line as a view into s, without the "…" (clipped tells whether it belongs after it).
std::string_view clipFirstLineView(std::string_view s, std::size_t max, bool &clipped,
                                   std::string_view skip = " \t\r\n");
std::vector<std::string> summaryStyles();
// The first lines of a Claude Code compact summary: the session continues from the summary below.
std::string claudeCodePreamble(const std::string &instructions);

// Style implementations (strategy/summary/rule_styles.cpp, strategy/summary/agent_styles.cpp).
Summary summarizeSeed001(const SummaryRequest &r, const Digest &d);
Summary summarizeSeed003(const SummaryRequest &r, const Digest &d);
Summary summarizeSeed004(const SummaryRequest &r, const Digest &d);
Summary summarizeClaudeCode(const SummaryRequest &r, const Digest &d);
Summary summarizeGemini(const SummaryRequest &r, const Digest &d);
Summary summarizeCodex(const SummaryRequest &r, const Digest &d);
Summary summarizeOpenHands(const SummaryRequest &r, const Digest &d);

} // namespace cl::strategy
