// SPDX-License-Identifier: MIT
#pragma once

// Where the context goes (docs/design/composition.md): the live context at a message split into
// categories — the fixed part of every request (system prompt, built-in tools, MCP tools by server,
// or the fixed part as one figure when the file does not record it), the messages (user text,
// assistant text, thinking, tool calls, tool results per tool, images and documents, compaction
// summaries, system messages, per-message framing), then the free space and the agent's reserved
// buffer. The categories add up exactly to the live context figure at that message
// (tokens/contextfigure.h: in the agent's count, the fixed part included): each category is first
// estimated (seed 001), then the fixed part's categories are scaled to the figure's fixed part and the
// messages' categories to its conversation, remainders given to the largest. With
// tokens::Estimator::Seed that is the plain sum:
//   total(at) = fixed part + Σ estimateMessage(m) over the conversation messages sent with `at`
// (after the last compaction before it, history included at its own time).
// Suggestions name a strategy and the tokens it frees on the live context, found by running it.

#include "core/model/transcript.h"
#include "core/tokens/contextfigure.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cl::composition {

enum class Group : std::uint8_t {
    Fixed,    // sent with every request
    Messages, // the conversation
    Space     // free space and the reserved buffer (not part of the total)
};

struct Item {
    std::string category; // Category::key
    std::string label;    // "Read src/app.ts", "Bash: npm test", "thinking", ...
    std::int64_t tokens = 0;
    std::int32_t message = -1; // transcript index; -1 for fixed-part items (tool definitions)
    std::int32_t block = -1;
};

struct Category {
    std::string key;   // stable id: "system", "tools", "mcp:github", "fixed", "user", "result:Read", ...
    std::string label; // for humans
    Group group = Group::Messages;
    std::int64_t tokens = 0;
    std::size_t items = 0;               // blocks (messages for framing; tool definitions for tools)
    bool estimated = true;               // false only where the file records the exact figure
    std::vector<std::uint32_t> messages; // transcript indices holding this category (messages group)
    std::vector<Item> top;               // its largest items, largest first (Options::topPerCategory)
};

// The same file read more than once in the live context (Read-like tools, by path).
struct RepeatedRead {
    std::string path;
    std::size_t reads = 0;
    std::int64_t tokens = 0;     // all reads
    std::int64_t onceTokens = 0; // the latest read alone
    std::vector<std::uint32_t> messages;
};

struct Composition {
    std::size_t at = 0;      // transcript index the composition is for
    std::size_t from = 0;    // first transcript index of the conversation sent with it
    std::int64_t total = 0;  // fixed part + messages = Σ categories of Fixed and Messages
    std::int64_t window = 0; // context window (analysis::contextWindowOf)
    std::string windowSource;
    std::int64_t reserved = 0; // the agent's buffer: auto-compaction fires this far below the window
    std::string reservedHow;
    std::int64_t free = 0;            // window - total - reserved (never below 0)
    std::string fixedSource;          // tokens::fixedPartSourceName
    std::string basis;                // tokens::basisName: how the total was obtained
    std::string how;                  // the figure's one line (tokens::ContextFigure::how)
    std::vector<Category> categories; // Fixed, then Messages (largest first), then Space
    std::vector<Item> biggest;        // largest items, largest first
    std::vector<RepeatedRead> repeatedReads;
    // Thinking of assistant responses before the latest one: what clearing thinking would drop (the
    // API keeps only the current response's thinking for most models).
    std::int64_t earlierThinking = 0;
    const Category *find(const std::string &key) const;
};

struct Options {
    std::int64_t contextWindow = 0; // 0: the file's (analysis::contextWindowOf)
    tokens::Estimator estimator = tokens::Estimator::Calibrated;
    std::size_t biggest = 10;
    std::size_t topPerCategory = 5;
};

// The composition at transcript index `at` (clamped to the last message). at = SIZE_MAX: the end.
Composition compose(const Transcript &t, std::size_t at = SIZE_MAX, const Options &o = {});

// One row per conversation message outside sidechains: the total and each category's tokens at it,
// columns in `keys` order (every category that is non-zero anywhere, Fixed first).
struct Series {
    std::vector<std::string> keys;
    std::vector<std::string> labels;
    std::vector<std::uint32_t> messages;           // transcript index per row
    std::vector<std::vector<std::int64_t>> values; // [row][key]
    std::vector<std::int64_t> totals;              // per row
};
Series overTime(const Transcript &t, const Options &o = {});

// A way to free tokens, checked by running the strategy on the live context.
struct Suggestion {
    std::string text;     // "3 reads of src/app.ts: 12.4 K; ..."
    std::string strategy; // registry name ("" when nothing runs, e.g. MCP definitions)
    nlohmann::json params = nlohmann::json::object();
    std::int64_t frees = 0; // tokens the strategy's result is smaller by (0 when it does nothing)
    std::string note;       // the strategy's own note
};
std::vector<Suggestion> suggest(const Transcript &t, const Composition &c);

std::string groupName(Group g);

} // namespace cl::composition
