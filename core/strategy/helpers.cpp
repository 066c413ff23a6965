// SPDX-License-Identifier: MIT
// Helpers shared by strategy implementations (declared in strategy/editor.h): text messages, UTF-8
// cuts, safe cut positions, summary insertion. Split from strategy/editor.cpp, which keeps the Editor.
#include "core/strategy/editor.h"

#include <algorithm>

namespace cl::strategy {

Message makeTextMessage(Role role, std::string text, MessageKind kind)
{
    Message m;
    m.role = role;
    m.kind = kind;
    m.type = std::string(roleName(role));
    Block b;
    b.type = BlockType::Text;
    b.text = std::move(text);
    m.blocks.push_back(std::move(b));
    m.edited = true;
    return m;
}

std::string_view utf8Head(std::string_view s, std::size_t n)
{
    if (n >= s.size())
        return s;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80)
        --n;
    return s.substr(0, n);
}

std::string_view utf8Tail(std::string_view s, std::size_t n)
{
    if (n >= s.size())
        return s;
    std::size_t start = s.size() - n;
    while (start < s.size() && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80)
        ++start;
    return s.substr(start);
}

std::size_t utf8Length(std::string_view s)
{
    // Code points = bytes that are not continuation bytes (10xxxxxx, i.e. -128..-65 as signed
    // char). A plain counting loop: the compiler vectorizes it, where std::popcount without
    // -mpopcnt was a library call per 8 bytes and the largest cost of the snip strategies.
    std::size_t points = 0;
    for (const char c : s)
        points += static_cast<signed char>(c) >= -64 ? 1 : 0;
    return points;
}

bool isSafeCut(const Editor &e, std::size_t position)
{
    const std::size_t n = e.size();
    if (position == 0 || position >= n)
        return true;
    const Message &m = e.transcript().messages[e.at(position)];
    if (!analysis::isUserRequest(m))
        return false;
    const auto &scores = e.analysis().boundaries; // element k is position k + 1
    return position - 1 < scores.size() ? !scores[position - 1].inToolSequence : true;
}

std::optional<std::size_t> safeCutAtOrAfter(const Editor &e, std::size_t position)
{
    for (std::size_t p = position; p <= e.size(); ++p)
        if (isSafeCut(e, p))
            return p;
    return std::nullopt;
}

std::optional<std::size_t> safeCutAtOrBefore(const Editor &e, std::size_t position)
{
    for (std::size_t p = std::min(position, e.size()) + 1; p-- > 0;)
        if (isSafeCut(e, p))
            return p;
    return std::nullopt;
}

void insertSummary(Editor &e, std::size_t before, std::string text, std::string reason, std::string_view acknowledgement)
{
    const Transcript &t = e.transcript();
    e.insertBefore(before, makeTextMessage(Role::User, std::move(text), MessageKind::CompactSummary), reason);
    // The next message the model will see after the summary (a summary usually follows tens of
    // thousands of removed messages: their flags are read, not the messages).
    for (std::size_t i = before; i < t.messages.size(); ++i) {
        if (e.isRemoved(i))
            continue;
        const Message &m = t.messages[i];
        if (!m.isConversation() || m.sidechain)
            continue;
        if (m.role == Role::User)
            e.insertBefore(before, makeTextMessage(Role::Assistant, std::string(acknowledgement)),
                           "acknowledgement so that roles alternate after the summary");
        return;
    }
}

std::vector<std::size_t> leadingSystem(const Editor &e)
{
    std::vector<std::size_t> out;
    for (std::size_t p = 0; p < e.size() && e.transcript().messages[e.at(p)].role == Role::System; ++p)
        out.push_back(e.at(p));
    return out;
}

} // namespace cl::strategy
