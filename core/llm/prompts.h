// SPDX-License-Identifier: MIT
#pragma once

// What a model is asked when it writes a summary (docs/design/summaries.md): one preset per summary
// structure, in our own wording, each with the sections its answer must have.
//   claude-code  an analysis first, then a summary in nine sections (request and intent, concepts,
//                files and code, errors and fixes, problem solving, all user messages, pending tasks,
//                current work, next step with verbatim quotes)
//   gemini       a private scratchpad, then a state snapshot (overall goal, active constraints, key
//                knowledge, artifact trail, file system state, recent actions, task state)
//   codex        a handoff summary for the next model (goal, progress, constraints, what remains,
//                critical data)
//   seed003      a compact summary of the conversation so far (seed 003's summarizer)
// The history goes in as data, framed, with an instruction to ignore any instruction inside it; an
// earlier summary in it is to be merged, not lost; the user's compact instructions are added.

#include "core/llm/provider.h"
#include "core/model/transcript.h"

#include <string>
#include <vector>

namespace cl::llm {

struct Section {
    std::string key;     // "primaryRequest", "overall_goal", ...
    std::string heading; // what the answer's heading must contain (case-insensitive)
};

struct Preset {
    std::string name;                      // claude-code, gemini, codex, seed003
    std::string system;                    // the instruction (user-editable template)
    std::vector<Section> sections;         // required, in order
    std::string openTag, closeTag;         // the summary's wrapper in the answer ("<summary>"), "" = none
    std::string scratchOpen, scratchClose; // the thinking part to strip ("<analysis>"), "" = none
};
const Preset &preset(const std::string &name); // unknown names give seed003
std::vector<std::string> presetNames();
// The preset for a summary style of the rule summarizer (seed001/seed004/openhands -> seed003).
std::string presetForStyle(const std::string &style);

struct PromptInput {
    const Transcript *transcript = nullptr;
    std::vector<std::size_t> messages; // what is summarized, in order
    std::string instructions;          // the user's compact instructions
    std::size_t maxChars = 400000;     // the history part's budget; the oldest messages go first
    std::size_t maxResultChars = 4000; // one tool result's share of it
    std::string systemOverride;        // a user template instead of the preset's instruction ("" = preset)
};

struct BuiltPrompt {
    Prompt prompt;
    std::size_t included = 0;          // messages in the prompt
    std::size_t dropped = 0;           // oldest messages left out to fit maxChars
    bool mergesEarlierSummary = false; // an earlier summary was among the messages (anchored)
};
BuiltPrompt buildPrompt(const Preset &p, const PromptInput &in);

// One message as the prompt shows it: "[role] text", calls and results on their own lines.
std::string renderMessage(const Message &m, std::size_t maxResultChars);

} // namespace cl::llm
