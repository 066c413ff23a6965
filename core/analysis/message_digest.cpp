// SPDX-License-Identifier: MIT
// The one-pass per-message summary of analysis/internal.h: a single walk over every conversation
// message's blocks yields the flags, text lengths and the rule (c) spans; the text scans (keywords,
// fences, break phrases, topic words) come from Message::textIndex when current (analysis/index.cpp). The boundary, priority and
// importance rules then read only this summary.
#include "core/analysis/internal.h"

#include <algorithm>

namespace cl::analysis::detail {

Summary summarize(const Transcript &t, const ConversationView &v, const AnalysisOptions &o)
{
    Summary s;
    const std::size_t n = v.size();
    s.msgs.resize(n);
    s.spans.assign(n + 1, 0);
    s.words.reserve(n * 8);
    const TextScanner scanner(o);
    std::vector<Word> w;
    TextIndex scratch;
    for (std::size_t p = 0; p < n; ++p) {
        prefetchAhead(t, v, p);
        const std::size_t i = v.index[p];
        const Message &m = t.messages[i];
        MsgInfo &info = s.msgs[p];
        info.timeMs = m.timeMs;
        info.role = m.role;
        std::uint16_t flags = 0;
        for (std::size_t bi = 0; bi < m.blocks.size(); ++bi) {
            const Block &b = m.blocks[bi];
            switch (b.type) {
            case BlockType::Text:
                info.textLen += b.text.size();
                break;
            case BlockType::ToolUse: {
                flags |= kToolUse;
                const ToolKind k = toolKind(b.toolName);
                if (k == ToolKind::Write || k == ToolKind::Edit || k == ToolKind::Shell)
                    flags |= kCodeCall;
                if (b.pairMessage > std::int32_t(i))
                    flags |= kReferencedLater;
                // Rule (c): a call at position p answered at r > p splits every cut p+1..r.
                if (b.pairMessage >= 0 && std::size_t(b.pairMessage) < v.position.size()) {
                    const std::int32_t r = v.position[std::size_t(b.pairMessage)];
                    if (r > std::int32_t(p)) {
                        ++s.spans[p + 1];
                        --s.spans[std::size_t(r) + 1];
                    }
                }
                break;
            }
            case BlockType::ToolResult:
                info.textLen += b.text.size();
                if (!(flags & kToolResult))
                    info.firstResult = std::int32_t(bi);
                flags |= kToolResult;
                if (b.isError)
                    flags |= kFailed;
                break;
            case BlockType::Image:
            case BlockType::Document:
                flags |= kMedia;
                break;
            default:
                break;
            }
        }
        // The text scans: from the load-time cache when it is current, else now.
        const TextIndex *x = scanner.cached(m, info.textLen);
        const Word *wb = nullptr, *we = nullptr;
        if (x) {
            wb = x->words.data();
            we = wb + x->wordCount;
        } else {
            scanner.scan(m, scratch, w);
            x = &scratch;
            wb = w.data();
            we = wb + w.size();
        }
        info.keyword = x->keyword;
        info.breakPhrase = x->breakPhrase;
        if (x->fence)
            flags |= kFence;
        if (m.role == Role::User && !(flags & kToolResult))
            flags |= kUserRequest;
        // Boundary rule "tool_sequence_chained", tested here while this message's blocks are in cache.
        if (p > 0 && m.role == Role::Assistant && (flags & kToolUse) && s.msgs[p - 1].has(kToolResult)) {
            const Message &prev = t.messages[v.index[p - 1]];
            const std::string &firstId = prev.blocks[std::size_t(s.msgs[p - 1].firstResult)].toolId;
            if (!firstId.empty())
                for (const auto &b : m.blocks)
                    if (b.type == BlockType::Text && b.text.find(firstId) != std::string::npos) {
                        flags |= kChainedRef;
                        break;
                    }
        }
        info.flags = flags;
        info.wordBegin = std::uint32_t(s.words.size());
        s.words.insert(s.words.end(), wb, we);
        info.wordEnd = std::uint32_t(s.words.size());
        s.maxWords = std::max(s.maxWords, std::size_t(we - wb));
    }
    return s;
}

} // namespace cl::analysis::detail
