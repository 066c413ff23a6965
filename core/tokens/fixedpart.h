// SPDX-License-Identifier: MIT
#pragma once

// The fixed part of every request (docs/design/tokens.md, "Fixed part"): what an agent sends with
// each request besides the conversation — system prompt, tool definitions, environment context.
// The live context the model sees is the conversation after the last compaction plus this part.
// Where the figure comes from, best first:
//   recorded  the file holds the exact system prompt and tool definitions (Claude Code
//             api-request-shape lines, an API request document's "tools"); their text estimated;
//   measured  the first measured usage minus the estimate of the conversation it covered;
//   default   a stated figure per agent (docs/design/tokens.md lists them), for files with neither.

#include "core/model/transcript.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cl::tokens {

struct FixedPart {
    enum class Source : std::uint8_t {
        None, // nothing is sent besides the conversation (API documents without tools)
        Recorded,
        Measured,
        Default
    };
    Source source = Source::None;
    std::int64_t tokens = 0;
    std::int64_t systemTokens = 0; // system prompt where recorded (measured / default: its share of tokens)
    std::int64_t toolTokens = 0;   // recorded only: tool definitions
    std::size_t tools = 0;         // recorded only: number of tool definitions
    struct ToolDef {
        std::string name;
        std::int64_t tokens = 0;
    };
    std::vector<ToolDef> toolDefs; // recorded only: each definition (toolTokens is their sum)
    // Claude Code attachments of the live context the agent sends with the conversation, by
    // category ("skills", "agents", "memory", "mcp", "files", "environment"); recorded only.
    struct Attachment {
        std::string category;
        std::string kind; // the attachment's type, e.g. "skill_listing"
        std::int64_t tokens = 0;
        std::uint32_t message = 0; // transcript index of its line
    };
    std::vector<Attachment> attachments;
    std::int64_t attachmentTokens = 0; // their sum (part of tokens)
    std::string how;                   // one line for humans: where the figure comes from
};
std::string_view fixedPartSourceName(FixedPart::Source s);

// The per-agent default when nothing better is known (0 for API formats).
std::int64_t defaultFixedTokens(Format f);
FixedPart fixedPart(const Transcript &t);
// The category of a Claude Code attachment type the agent sends to the model ("" for the ones it
// keeps to itself, e.g. prompt_snapshot, a copy of the system prompt).
std::string_view attachmentCategory(std::string_view kind);

} // namespace cl::tokens
