// SPDX-License-Identifier: MIT
// The one-pass per-message summary of analysis_internal.h: a single walk over every conversation
// message's blocks yields the flags, the keyword and fence scans, text lengths, the topic words
// and the rule (c) spans that the boundary, priority and importance rules then read.
#include "core/analysis_internal.h"

#include <algorithm>

namespace cl::analysis::detail {

namespace {

inline bool wordByte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Appends the raw word hashes of one text block to w (analysis.h "topic change"): ASCII
// [a-z0-9_] runs of >= 3 chars (lower-cased) and every non-ASCII code point, first scanBytes,
// stopping once w holds maxWords * 2 raw words (counted over the message's blocks).
void blockWords(std::string_view s, std::size_t cap, std::vector<std::uint64_t> &w)
{
    std::size_t i = 0;
    while (i < s.size() && w.size() < cap) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if (wordByte(c)) {
            std::uint64_t h = 1469598103934665603ull;
            std::size_t len = 0;
            while (i < s.size()) {
                unsigned char ch = static_cast<unsigned char>(s[i]);
                if (!wordByte(ch))
                    break;
                if (ch >= 'A' && ch <= 'Z')
                    ch = static_cast<unsigned char>(ch - 'A' + 'a');
                h = (h ^ ch) * 1099511628211ull;
                ++len;
                ++i;
            }
            if (len >= 3)
                w.push_back(h);
        } else if (c >= 0x80) {
            // One UTF-8 code point: lead byte plus continuation bytes.
            std::uint64_t h = 0x9e3779b97f4a7c15ull;
            do {
                h = (h ^ static_cast<unsigned char>(s[i])) * 1099511628211ull;
                ++i;
            } while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80);
            w.push_back(h);
        } else {
            ++i;
        }
    }
}

} // namespace

Summary summarize(const Transcript &t, const ConversationView &v, const AnalysisOptions &o)
{
    Summary s;
    const std::size_t n = v.size();
    s.msgs.resize(n);
    s.spans.assign(n + 1, 0);
    s.words.reserve(n * 8);
    const Scanner keywords(o.importantKeywords);
    const std::size_t cap = o.topicMaxWords * 2;
    std::vector<std::uint64_t> w;
    for (std::size_t p = 0; p < n; ++p) {
        const std::size_t i = v.index[p];
        const Message &m = t.messages[i];
        MsgInfo &info = s.msgs[p];
        info.timeMs = m.timeMs;
        info.role = m.role;
        std::uint16_t flags = 0;
        w.clear();
        for (std::size_t bi = 0; bi < m.blocks.size(); ++bi) {
            const Block &b = m.blocks[bi];
            switch (b.type) {
            case BlockType::Text: {
                info.textLen += b.text.size();
                const std::string_view text(b.text);
                const std::string_view scan = text.substr(0, std::min(o.scanBytes, text.size()));
                if (info.keyword < 0)
                    info.keyword = keywords.find(scan);
                if (!(flags & kFence) && scan.find("```") != std::string_view::npos)
                    flags |= kFence;
                blockWords(text.substr(0, std::min(o.topicScanBytes, text.size())), cap, w);
                break;
            }
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
        if (m.role == Role::User && !(flags & kToolResult))
            flags |= kUserRequest;
        info.flags = flags;
        std::sort(w.begin(), w.end());
        w.erase(std::unique(w.begin(), w.end()), w.end());
        if (w.size() > o.topicMaxWords)
            w.resize(o.topicMaxWords);
        info.wordBegin = std::uint32_t(s.words.size());
        s.words.insert(s.words.end(), w.begin(), w.end());
        info.wordEnd = std::uint32_t(s.words.size());
        s.maxWords = std::max(s.maxWords, w.size());
    }
    return s;
}

} // namespace cl::analysis::detail
