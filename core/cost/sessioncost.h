// SPDX-License-Identifier: MIT
#pragma once

// What a session really cost: its measured usage per API response, priced by the response's model
// (core/llm/pricing.h).
//
// - Claude Code writes each content block of a response as its own line; the lines share message.id
//   and repeat the usage, the last line carrying the final figures (docs/design/formats.md). Every
//   assistant line of the file is read (rewound branches and sidechains were paid for too) and of
//   each message.id the last line's usage is kept; subagent files count with their session. The
//   cache writes are split by TTL where the line says (usage.cache_creation.ephemeral_5m_input_tokens
//   / ephemeral_1h_input_tokens); whatever cache_creation_input_tokens holds beyond the 1-hour part
//   is a 5-minute write (the default TTL). Claude Code's own "<synthetic>" responses (no model call)
//   cost nothing.
// - Codex: each response's last token_count (input minus cached input, cached input read from the
//   cache, output including reasoning). Gemini CLI: each message's tokens (input minus cached, cached,
//   output plus thoughts, which Google bills as output). Other formats: the usage their messages carry.
//
// Recorded cost: today's Claude Code (the 2.1.x schema) writes no per-response cost and no cost-state
// line. Older versions wrote costUSD on assistant lines: summed per message.id (last line). The Agent
// SDK's budget attachment ({"type": "budget_usd", "used": $}) is read too: the last one's `used`.
// Either is compared with our figure.

#include "core/llm/pricing.h"
#include "core/model/transcript.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cl::cost {

// Tokens by how they are billed.
struct Tokens {
    std::int64_t input = 0; // uncached input
    std::int64_t cacheWrite5m = 0;
    std::int64_t cacheWrite1h = 0;
    std::int64_t cacheRead = 0;
    std::int64_t output = 0;
    std::int64_t total() const { return input + cacheWrite5m + cacheWrite1h + cacheRead + output; }
    // What the model saw as its context.
    std::int64_t context() const { return input + cacheWrite5m + cacheWrite1h + cacheRead; }
    Tokens &operator+=(const Tokens &o);
};

// Dollars by the same kinds.
struct Dollars {
    double input = 0, cacheWrite5m = 0, cacheWrite1h = 0, cacheRead = 0, output = 0;
    double total() const { return input + cacheWrite5m + cacheWrite1h + cacheRead + output; }
    Dollars &operator+=(const Dollars &o);
};
Dollars price(const Tokens &t, const llm::Price &p);

// One API response with its final usage.
struct Response {
    std::string id;    // message.id / response id; "" when the source has none
    std::string model; // as the source names it; "" when it does not
    Tokens tokens;
    std::uint32_t line = 0;            // the line whose usage was kept (1-based)
    std::int32_t message = -1;         // transcript message index; -1 when not loaded (rewound branch, subagent file)
    bool sidechain = false;            // a subagent's response (sidechain line or subagent file)
    std::uint32_t file = 0;            // 0: the session file; k: its k-th subagent file
    std::size_t lines = 1;             // lines of the file that carried this response
    std::optional<double> recordedUsd; // costUSD on its last line (older Claude Code)
};

// The measured usage of a session file and its subagent files.
struct SessionUsage {
    std::vector<Response> responses;  // in file order (main file first), one per message.id
    std::size_t foldedLines = 0;      // lines that repeated a response already counted (Claude Code)
    std::optional<double> budgetUsed; // the last budget_usd attachment's `used` (Agent SDK), if any
    std::uint32_t budgetLine = 0;     // and its line
};
SessionUsage readUsage(const Transcript &t);

// A Claude Code usage object's figures by how they are billed: cache_creation_input_tokens, split
// by TTL when the line has the split (cache_creation.ephemeral_5m/1h_input_tokens, `split`).
Tokens claudeTokens(std::int64_t input, std::int64_t cacheCreation, std::int64_t cacheRead, std::int64_t output,
                    bool split, std::int64_t split5m, std::int64_t split1h);

// One line (or message) of a response, as a reader found it.
struct ResponseLine {
    std::string_view id;            // message.id, the message's id; "": a response of its own
    std::string_view model;         // "" keeps what an earlier line of the response said
    const Tokens *tokens = nullptr; // its usage; null when the line has none
    std::uint32_t line = 0;
    std::int32_t message = -1;
    bool sidechain = false;
    std::uint32_t file = 0;
    std::optional<double> recordedUsd;
};

// Folds the lines of each response (same id) into one Response: the usage of its last line that had
// one, the model its lines last named, the rest from its last line. readUsage() and the session
// browser's line scan (core/sessions) both count responses this way.
class ResponseFolder
{
public:
    explicit ResponseFolder(SessionUsage &out)
        : m_out(out)
    {}
    // The index of the line's response in SessionUsage::responses (until finish()).
    std::size_t add(const ResponseLine &l);
    // Drops the responses no line of which had usage: they carry nothing to price.
    void finish();
    // Responses so far, measured or not (before finish()).
    std::size_t responses() const { return m_out.responses.size(); }

private:
    SessionUsage &m_out;
    std::unordered_map<std::string, std::size_t> m_byId;
    std::vector<char> m_measured; // per response: some line of it had usage
};

struct ModelCost {
    std::string model;               // as the responses name it ("" none)
    std::optional<llm::Price> price; // the entry it was priced by; none: unknown model
    std::size_t responses = 0;
    Tokens tokens;
    Dollars dollars; // zero when the price is unknown
};

struct SessionCost {
    std::vector<ModelCost> models; // in order of first response
    std::size_t responses = 0;
    std::size_t foldedLines = 0;
    std::size_t subagentResponses = 0;
    Tokens tokens;   // all responses
    Dollars dollars; // the priced ones
    Tokens unpriced; // tokens of responses whose model has no price
    bool complete() const { return unpriced.total() == 0; }
    std::vector<std::string> unknownModels; // models without a price (with tokens)

    // What the agent recorded, when it did.
    std::optional<double> recorded;         // dollars
    std::string recordedHow;                // "costUSD on 12 responses", "budget_usd attachment (line 80)"
    std::optional<double> recordedCompared; // our figure for what `recorded` covers
    std::string note;                       // one line on the recorded-cost check, or why there is none
};

// Prices every response by its model; `modelOverride` (non-empty) prices all of them as that model.
SessionCost sessionCost(const Transcript &t, const llm::PriceTable &prices, const std::string &modelOverride = {});
// `format` words the note when nothing was recorded.
SessionCost sessionCost(const SessionUsage &usage, const llm::PriceTable &prices, const std::string &modelOverride = {},
                        Format format = Format::Unknown);

// What each subagent of `t` (in Transcript::subagents order) cost by its own measured usage.
struct SubagentCost {
    bool priced = false;   // it has measured responses and some of them a price
    bool complete = false; // every response's model had a price
    double dollars = 0;
};
std::vector<SubagentCost> subagentCosts(const Transcript &t, const llm::PriceTable &prices);

// The model of the session: the last main-chain response's, else the transcript header's "model".
std::string sessionModel(const Transcript &t, const std::vector<Response> &responses);

} // namespace cl::cost
