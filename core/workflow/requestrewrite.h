// SPDX-License-Identifier: MIT
#pragma once

// Compaction on the wire (`contextlens-cli record --strategy`): a request an agent sends, in one of
// the four wire APIs, loaded with its API's loader, run through a strategy (its own trigger, the
// pins and exempt tools holding), and written back as the same API's document: every field the
// strategy did not touch (model, tools, system prompt, options, untouched messages) stays byte for
// byte. The result is checked with the provider's validity rules; one that fails them, or a body
// that cannot be read, is never sent: the original goes, and the reason is said.
//
// The figures are the request's whole context (fixed part included) in ContextLens's count
// (strategy::Stats liveBefore / liveAfter), and the same in the provider's count: multiplied by what
// the provider measured over what ContextLens estimated for the last answered request of that API
// (learn()). That is the saving predicted for the request the provider receives.

#include "core/model/format.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace cl::wire {

struct RewriteOptions {
    std::string strategy;                             // registry name
    nlohmann::json params = nlohmann::json::object(); // {name: value} over the strategy's defaults
    // Message indices of each request never removed or edited, counted as `compact --pin` counts them
    // on the request (FILE#N): a system prompt sent outside the messages is message 0.
    std::vector<std::size_t> pinned;
    std::vector<std::string> exemptTools; // calls and results of these tools are kept
    bool dryRun = false;                  // record what would be sent; forward the original
};

struct Rewrite {
    bool changed = false;                                 // the strategy changed the request
    bool valid = true;                                    // the changed request passes the provider's rules
    bool forwarded = false;                               // the changed body is what goes upstream (live mode, changed, valid)
    std::string body;                                     // the changed request ("" when unchanged or not written)
    std::int64_t tokensBefore = 0, tokensAfter = 0;       // ContextLens's figure of the whole request
    std::int64_t predictedBefore = 0, predictedAfter = 0; // the same in the provider's count (calibrated)
    double calibration = 1;                               // measured / estimated, learned from answers (1: none yet)
    bool calibrated = false;                              // an answer of this API taught the calibration
    std::string note;                                     // the strategy's note
    std::vector<std::string> violations;                  // why the changed request is invalid
    std::string error;                                    // the body could not be read or written: the original goes
};

class RequestRewriter
{
public:
    explicit RequestRewriter(RewriteOptions options);
    // Whether the options name a strategy and its parameters resolve; false with error otherwise.
    static bool check(const RewriteOptions &options, std::string &error);
    const RewriteOptions &options() const { return m_options; }

    // The request `body` of wire API `api` (Anthropic, OpenAI Chat / Responses, Gemini).
    Rewrite rewrite(Format api, std::string_view body) const;
    // The provider measured `measured` input tokens for a request ContextLens put at `estimated`.
    void learn(Format api, std::int64_t estimated, std::int64_t measured);
    double calibration(Format api) const;

private:
    RewriteOptions m_options;
    std::map<Format, double> m_calibration;
};

} // namespace cl::wire
