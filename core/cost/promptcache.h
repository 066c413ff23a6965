// SPDX-License-Identifier: MIT
#pragma once

// The prompt cache over a recording (core/formats/recording/recording.h): each model call compared
// with the request it continues. Providers cache a request's prefix in a fixed order (tool
// definitions, system prompt, then the messages); a request that only appends to the one before it
// can read all of that from the cache, one that changed something before the end cannot read past
// the change: the cache breaks there. For each request: what was appended, and where the prefix
// changed what changed and why (a tool list that changed, the system prompt, a reminder inserted or
// moved, a cleared tool result, a compaction that replaced the conversation), beside the cache
// reads and writes the provider measured and the dollars the break cost.
//
// Parts are compared without Anthropic's cache_control markers (the agent moves them forward each
// turn; they mark breakpoints, they are not content).

#include "core/formats/recording/recording.h"
#include "core/llm/pricing.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cl::cost {

// One cacheable piece of a request, in the provider's cache order.
struct RequestPart {
    enum class Kind : std::uint8_t {
        Tool,
        System,
        Message
    };
    Kind kind = Kind::Message;
    std::size_t index = 0;      // among the parts of its kind
    std::string label;          // tool name, "system", or the message's role
    std::uint64_t hash = 0;     // of its JSON without cache_control
    std::int64_t tokens = 0;    // seed estimate of its JSON text
    std::string text;           // its text (for messages and the system prompt: what a cause quotes)
    bool clearedResult = false; // a tool result whose content is the cleared-result marker
};
// The parts of a request body of wire API `api` (an Anthropic, OpenAI Chat / Responses or Gemini
// request); empty when the body is not such a document.
std::vector<RequestPart> requestParts(Format api, std::string_view body);

struct CacheStep {
    enum class Kind : std::uint8_t {
        First,    // no earlier request of the same conversation
        Append,   // the request before it, unchanged, plus what was appended
        Break,    // a part before the previous request's end changed: the cache breaks there
        Replaced, // same tools and system prompt, no message in common: a compaction or a fresh start
    };
    std::size_t number = 0;   // the request (recording numbering)
    std::size_t previous = 0; // the request it continues; 0 for First
    Kind kind = Kind::First;
    std::size_t parts = 0, commonParts = 0, messages = 0, previousMessages = 0;
    std::int64_t tokens = 0, commonTokens = 0, appendedTokens = 0;
    std::int64_t lostTokens = 0; // estimate: the previous request's parts after the change
    std::string where;           // the first part that differs ("message 12 (user)", "tool definitions", …)
    std::string cause;           // why, in one sentence
    std::optional<Usage> usage;  // measured for this request
    // What the break cost: the tokens the previous request left cached that this one could not
    // read (measured where both have usage: the previous request's cache reads + writes minus this
    // one's reads; else lostTokens), priced at what was paid for them now (a cache write, or
    // uncached input) minus the cache-read price. Unknown model: 0 dollars, priced = false.
    std::int64_t missedTokens = 0;
    double dollars = 0;
    bool priced = false;
    std::string model;
};
std::string_view cacheStepKindName(CacheStep::Kind k); // "first", "append", "break", "replaced"

// One step per model call of the recording, in its order.
std::vector<CacheStep> cacheSteps(const recording::Recording &r, const llm::PriceTable &prices);

} // namespace cl::cost
