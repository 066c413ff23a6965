// SPDX-License-Identifier: MIT
#pragma once

// Helpers shared by the analysis sources (not part of the public API): text scans, and the
// one-pass per-message summary every rule of analyze() reads, so that no rule re-walks the blocks,
// re-derives tool kinds or re-scans text (a 100 000-message transcript analyses in tens of ms).

#include "core/analysis.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cl::analysis::detail {

std::string_view trim(std::string_view s);
// ASCII case-insensitive search of needle in the first `limit` bytes of hay.
bool containsCi(std::string_view hay, std::string_view needle, std::size_t limit);
// Any text block (first `limit` bytes each) contains one of the needles; returns its index or -1.
int textContainsAny(const Message &m, const std::vector<std::string> &needles, std::size_t limit);
bool hasFence(const Message &m, std::size_t limit);
// ``` in text, or a Write/Edit/Shell call (see analysis.h).
bool hasCodeOrCommand(const Message &m, std::size_t limit);
bool hasFailedResult(const Message &m);
std::size_t textLength(const Message &m); // text + tool result text, in bytes

// A fixed set of needles searched at once, ASCII case-insensitively (see analysis_scan.cpp).
class Scanner {
public:
    explicit Scanner(const std::vector<std::string> &needles);
    // Lowest index of a needle occurring in hay, or -1 (empty needles never match).
    int find(std::string_view hay) const;
    // textContainsAny() with this set: the first text block holding a needle decides.
    int findInText(const Message &m, std::size_t limit) const;

private:
    static constexpr std::size_t kMaxSimdPairs = 40;
    struct Pair {                          // a needle prefix: lower-cased first two or three bytes
        std::uint8_t b0 = 0, b1 = 0, b2 = 0;
        bool hasB2 = false;                // false: a two-byte needle
        std::vector<std::size_t> needles;  // ascending
    };
    bool matchAt(std::string_view hay, std::size_t pos, std::size_t k) const;
    std::vector<std::string> needles_;     // lower-cased
    std::vector<std::size_t> singles_;     // one-byte needles
    std::vector<Pair> pairs_;
};

// The command string of a shell-kind call without copying when it is a plain string (the usual
// case); `storage` holds it when it has to be built. Same result as shellCommand().
std::string_view shellCommandView(const Block &toolUse, std::string &storage);
// toolPaths() without building a vector: calls f(std::string_view) per path, in the same order.
template <class F> void forEachToolPath(const Block &toolUse, F &&f);
template <class F> void forEachPatchPath(std::string_view text, F &&f);

// Per conversation position, everything the rules read.
enum MsgFlag : std::uint16_t {
    kUserRequest = 1, kToolUse = 2, kToolResult = 4, kFailed = 8, kFence = 16, kCodeCall = 32, kMedia = 64,
    kReferencedLater = 128,
};
struct MsgInfo {
    std::int64_t timeMs = kNoTime;
    std::size_t textLen = 0;         // textLength()
    std::uint32_t wordBegin = 0, wordEnd = 0; // topic word hashes in Summary::words
    std::int32_t keyword = -1;       // textContainsAny(importantKeywords)
    std::int32_t firstResult = -1;   // block index of the first tool_result
    Role role = Role::Unknown;
    std::uint16_t flags = 0;
    bool has(MsgFlag f) const { return (flags & f) != 0; }
};
struct Summary {
    std::vector<MsgInfo> msgs;            // per position
    std::vector<std::uint64_t> words;     // sorted unique word hashes per message, concatenated
    std::vector<std::int32_t> spans;      // rule (c) difference array, n + 1
    std::size_t maxWords = 0;             // most words of one message
};
Summary summarize(const Transcript &t, const ConversationView &v, const AnalysisOptions &o);

std::vector<BoundaryScore> scoreBoundaries(const Transcript &t, const ConversationView &v, const AnalysisOptions &o,
                                           const Summary &s);
std::vector<PriorityInfo> priorities(const Transcript &t, const ConversationView &v, const AnalysisOptions &o,
                                     const Summary &s);
std::vector<Importance> importance(const Transcript &t, const ConversationView &v, const AnalysisOptions &o,
                                   const Summary &s);

template <class F> void forEachPatchPath(std::string_view text, F &&f)
{
    static constexpr std::string_view heads[] = {"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "};
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t eol = text.find('\n', pos);
        if (eol == std::string_view::npos)
            eol = text.size();
        std::string_view line = text.substr(pos, eol - pos);
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        if (line.size() > 4 && line[0] == '*')
            for (const std::string_view h : heads)
                if (line.size() > h.size() && line.substr(0, h.size()) == h)
                    f(line.substr(h.size()));
        pos = eol + 1;
    }
}

template <class F> void forEachToolPath(const Block &b, F &&f)
{
    const auto &in = b.input;
    if (in.is_string()) {
        forEachPatchPath(in.get_ref<const std::string &>(), f);
        return;
    }
    if (!in.is_object())
        return;
    for (const char *key : {"file_path", "path", "absolute_path", "notebook_path"}) {
        const auto it = in.find(key);
        if (it != in.end() && it->is_string() && !it->template get_ref<const std::string &>().empty())
            f(std::string_view(it->template get_ref<const std::string &>()));
    }
    if (const auto it = in.find("paths"); it != in.end() && it->is_array())
        for (const auto &p : *it)
            if (p.is_string())
                f(std::string_view(p.get_ref<const std::string &>()));
    for (const char *key : {"input", "patch"})
        if (const auto it = in.find(key); it != in.end() && it->is_string())
            forEachPatchPath(it->template get_ref<const std::string &>(), f);
}

} // namespace cl::analysis::detail
