// SPDX-License-Identifier: MIT
#pragma once

// Seed 003's reusable context manager (createContextManager): a message list that snips large tool
// results as they are added and compacts itself with the four tiers on demand. The seed's API is
// kept by name (add / getMessages / getUsage / compact) so its examples read the same here; compact()
// runs the registered "progressive" strategy, so what it does is exactly what the GUI previews.
//
// Usage counts every conversation message with the seed 001 estimate, the system prompt included
// (the seed's getUsage counts the stored messages; a system prompt added as a message is one of them).

#include "core/strategy/strategy.h"
#include "core/model/transcript.h"

#include <cstdint>
#include <vector>

namespace cl::strategy {

// seed 003 CompressionThresholds and their defaults.
struct CompressionThresholds {
    std::size_t snipMaxChars = 10000;
    double microcompactTrigger = 0.6;
    double autoCompactTrigger = 0.8;
    double hardTruncateTrigger = 0.95;
    std::int64_t maxContextTokens = 200000;
};

class ContextManager
{
public:
    using Thresholds = CompressionThresholds;
    struct Usage {
        std::int64_t tokens = 0;
        double percentage = 0; // tokens / maxContextTokens (0.44 = 44 %)
    };

    explicit ContextManager(Thresholds thresholds = {}, Format format = Format::Anthropic);

    // Appends a message; tool results longer than snipMaxChars are snipped on insert (seed 003).
    // Returns true when something was snipped.
    bool add(Message message);
    const std::vector<Message> &getMessages() const { return m_transcript.messages; }
    Usage getUsage() const;
    // Runs "progressive" with these thresholds and replaces the messages by its result. The Result
    // (log, extra().tiers, stats) says what happened. summarizer: null = the rule-based one.
    Result compact(const Summarizer *summarizer = nullptr);

    const Thresholds &thresholds() const { return m_thresholds; }
    const Transcript &transcript() const { return m_transcript; }

private:
    Thresholds m_thresholds;
    Transcript m_transcript;
};

} // namespace cl::strategy
