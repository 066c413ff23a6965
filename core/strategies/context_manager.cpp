// SPDX-License-Identifier: MIT
#include "core/strategies/context_manager.h"

#include "core/strategies/tiers.h"
#include "core/tokens/estimator.h"
#include "core/strategies/registry.h"

namespace cl::strategy {

ContextManager::ContextManager(Thresholds thresholds, Format format)
    : m_thresholds(thresholds)
{
    m_transcript.format = format;
}

bool ContextManager::add(Message message)
{
    bool snipped = false;
    for (auto &b : message.blocks) {
        if (b.type != BlockType::ToolResult)
            continue;
        if (auto s = tiers::snipText(b.text, m_thresholds.snipMaxChars, tiers::seed003Snip()); s && s->size() < b.text.size()) {
            b.text = std::move(*s);
            snipped = true;
        }
    }
    if (snipped)
        message.cache.tokenEstimate = -1;
    message.records.clear(); // the manager owns no source file
    message.edited = true;
    m_transcript.messages.push_back(std::move(message));
    return snipped;
}

ContextManager::Usage ContextManager::getUsage() const
{
    Usage u;
    u.tokens = tokens::totalEstimate(m_transcript);
    u.percentage = m_thresholds.maxContextTokens > 0
                       ? static_cast<double>(u.tokens) / static_cast<double>(m_thresholds.maxContextTokens)
                       : 0.0;
    return u;
}

Result ContextManager::compact(const Summarizer *summarizer)
{
    // Pairs are linked here rather than on every add(), which would make adding quadratic.
    for (auto &m : m_transcript.messages)
        for (auto &b : m.blocks)
            b.pairMessage = b.pairBlock = -1;
    linkToolPairs(m_transcript);
    m_transcript.diagnostics.clear();
    const Strategy *progressive = find("progressive");
    if (!progressive) {
        Result r = unchanged(m_transcript);
        r.note = "the progressive strategy is not registered";
        return r;
    }
    Input in(m_transcript);
    in.options.contextWindow = m_thresholds.maxContextTokens;
    in.summarizer = summarizer;
    const nlohmann::json params{{"snipMaxChars", m_thresholds.snipMaxChars},
                                {"microcompactTrigger", m_thresholds.microcompactTrigger},
                                {"autoCompactTrigger", m_thresholds.autoCompactTrigger},
                                {"hardTruncateTrigger", m_thresholds.hardTruncateTrigger}};
    RunOptions opt;
    opt.validate = false;
    opt.metrics = false;
    Result r = run(*progressive, in, params, opt);
    if (r.changed) {
        std::vector<Message> next;
        next.reserve(r.slots.size());
        for (std::size_t k = 0; k < r.slots.size(); ++k)
            next.push_back(r.message(m_transcript, k));
        m_transcript.messages = std::move(next);
    }
    return r;
}

} // namespace cl::strategy
