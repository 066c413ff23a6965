// SPDX-License-Identifier: MIT
// Stats and metrics of a strategy result, and turning a result back into a transcript.
//
// Fact retention: the facts of docs/design/mechanisms.md §8 that a later turn may need: user requests (their
// first line, at most 80 bytes), file paths a call read or modified, shell commands (first 80
// bytes) and errors (first line of a failed result, at most 80 bytes). A fact survives when a
// message it came from is still in the result and mentions it (untouched messages trivially; edited
// ones are searched), or when an inserted message (a summary) mentions it; "mentions" is
// factmatch.h's rule (relative paths, unique basenames, commands without their `cd`, any case).
//
// Cache prefix: prompt caches reuse the longest unchanged prefix of the request. The prefix here
// is the run of leading conversation messages that are the original messages, in their original
// order and untouched; its tokens are what a provider cache could still serve.
#include "core/strategy/strategy.h"

#include "core/analysis/analysis.h"
#include "core/model/messagecopy.h"
#include "core/strategy/factmatch.h"
#include "core/tokens/contextfigure.h"
#include "core/tokens/estimator.h"

#include <algorithm>
#include <memory>

namespace cl::strategy {

namespace {

// Which slots are the original's messages as read, in order (tokens::intactOf).
std::vector<char> intactOfSlots(const Transcript &original, const std::vector<Slot> &slots)
{
    std::vector<std::int32_t> origins;
    std::vector<char> edited;
    origins.reserve(slots.size());
    edited.reserve(slots.size());
    for (const Slot &s : slots) {
        origins.push_back(s.origin);
        edited.push_back(char(s.message != nullptr));
    }
    return tokens::intactOf(original, origins, edited);
}

bool inContext(const Message &m)
{
    return m.isConversation() && !m.sidechain;
}

std::string firstLine(std::string_view s, std::size_t max)
{
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string_view::npos)
        return {};
    s.remove_prefix(b);
    s = s.substr(0, s.find('\n'));
    while (!s.empty() && (s.back() == ' ' || s.back() == '\r' || s.back() == '\t'))
        s.remove_suffix(1);
    if (s.size() > max) {
        std::size_t n = max;
        while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80)
            --n;
        s = s.substr(0, n);
    }
    return std::string(s);
}

void appendText(const Message &m, std::string &out)
{
    for (const auto &b : m.blocks) {
        out += b.text;
        out += '\n';
        if (b.type == BlockType::ToolUse && !b.input.is_null())
            out += b.input.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        out += '\n';
    }
}

} // namespace

std::vector<Fact> collectFacts(const Transcript &t, const std::vector<std::size_t> *only)
{
    std::vector<Fact> facts;
    std::unordered_map<std::string, std::size_t> seen;
    auto add = [&](std::string text, Fact::Kind kind, std::size_t source) {
        if (text.size() < 3)
            return;
        const auto [it, fresh] = seen.emplace(text, facts.size());
        if (fresh)
            facts.push_back({std::move(text), kind, {source}});
        else if (facts[it->second].sources.back() != source)
            facts[it->second].sources.push_back(source);
    };
    auto visit = [&](std::size_t i) {
        const Message &m = t.messages[i];
        if (!inContext(m) || m.role == Role::System)
            return;
        if (analysis::isUserRequest(m) && m.kind == MessageKind::Conversation && !m.isMeta)
            for (const auto &b : m.blocks)
                if (b.type == BlockType::Text) {
                    add(firstLine(b.text, 80), Fact::Kind::Request, i);
                    break;
                }
        for (const auto &b : m.blocks) {
            if (b.type == BlockType::ToolUse) {
                for (auto &p : analysis::toolPaths(b))
                    add(std::move(p), Fact::Kind::Path, i);
                if (std::string c = analysis::shellCommand(b); !c.empty())
                    add(firstLine(c, 80), Fact::Kind::Command, i);
            } else if (b.type == BlockType::ToolResult && b.isError) {
                add(firstLine(b.text, 80), Fact::Kind::Error, i);
            }
        }
    };
    if (only)
        for (const std::size_t i : *only)
            visit(i);
    else
        for (std::size_t i = 0; i < t.messages.size(); ++i)
            visit(i);
    return facts;
}

std::string_view factKindName(Fact::Kind k)
{
    switch (k) {
    case Fact::Kind::Request: return "request";
    case Fact::Kind::Path: return "path";
    case Fact::Kind::Command: return "command";
    case Fact::Kind::Error: return "error";
    }
    return "request";
}

const std::string &Result::slotReason(std::size_t slot) const
{
    const Slot &s = slots[slot];
    if (s.origin >= 0 && static_cast<std::size_t>(s.origin) < fates.size())
        return fates[static_cast<std::size_t>(s.origin)].reason;
    return s.reason;
}

const Message &Result::message(const Transcript &original, std::size_t slot) const
{
    const Slot &s = slots[slot];
    return s.message ? *s.message : original.messages[static_cast<std::size_t>(s.origin)];
}

Transcript Result::materialize(const Transcript &original) const
{
    Transcript t = sameFileWithoutMessages(original);
    t.diagnostics = original.diagnostics;
    t.tokenCalibration = tokens::carriedCalibration(original); // counted like the original
    {
        const std::vector<char> intact = intactOfSlots(original, slots);
        const auto firstChange = std::find(intact.begin(), intact.end(), char(0));
        t.tokenCalibration.unchangedPrefix = firstChange - intact.begin();
    }
    t.messages.reserve(slots.size());
    for (std::size_t k = 0; k < slots.size(); ++k) {
        t.messages.push_back(message(original, k));
        if (slots[k].message)
            t.messages.back().edited = true;
    }
    // Records point at the message now decoded from them; a removed message's records at the next
    // surviving one (navigation only: writers drop records no message owns).
    std::vector<std::int32_t> remap(original.messages.size(), -1);
    for (std::size_t k = 0; k < slots.size(); ++k)
        if (slots[k].origin >= 0)
            remap[static_cast<std::size_t>(slots[k].origin)] = static_cast<std::int32_t>(k);
    // A record that gave several messages (a Codex compacted line's replacement history, a Gemini
    // CLI "$set" of messages or turn with inline results) and lost some of them: the messages left
    // are flagged edited, so that the writer re-encodes the record without the removed ones.
    std::vector<char> lost(original.records.size(), 0);
    bool anyLost = false;
    for (std::size_t i = 0; i < remap.size(); ++i)
        if (remap[i] < 0)
            for (const std::uint32_t r : original.messages[i].records)
                if (r < lost.size())
                    lost[r] = anyLost = true;
    if (anyLost)
        for (auto &m : t.messages)
            for (const std::uint32_t r : m.records)
                if (r < lost.size() && lost[r])
                    m.edited = true;
    std::int32_t next = static_cast<std::int32_t>(slots.empty() ? 0 : slots.size() - 1);
    for (std::size_t i = remap.size(); i-- > 0;) {
        if (remap[i] >= 0)
            next = remap[i];
        else
            remap[i] = next;
    }
    for (auto &r : t.records)
        if (r.message >= 0 && static_cast<std::size_t>(r.message) < remap.size())
            r.message = remap[static_cast<std::size_t>(r.message)];
    for (auto &m : t.messages)
        for (auto &b : m.blocks)
            b.pairMessage = b.pairBlock = -1;
    const std::size_t diagnostics = t.diagnostics.size();
    linkToolPairs(t);
    t.diagnostics.resize(std::min(diagnostics, t.diagnostics.size())); // orphans are the validity check's job
    return t;
}

Transcript Result::shape(const Transcript &original) const
{
    Transcript t;
    t.format = original.format;
    t.path = original.path;
    t.messages.resize(slots.size());
    for (std::size_t k = 0; k < slots.size(); ++k) {
        // What validity reads: the skeleton (roles, kinds, block types, flags such as serverSide),
        // the type, the tool ids and names, and whether each text is empty.
        const Message &m = message(original, k);
        Message &s = t.messages[k];
        copyMessageSkeleton(s, m);
        s.type = m.type;
        for (std::size_t b = 0; b < m.blocks.size(); ++b) {
            const Block &from = m.blocks[b];
            Block &to = s.blocks[b];
            to.toolId = from.toolId;
            to.toolName = from.toolName;
            if (!from.text.empty())
                to.text = "."; // only whether it is empty is checked
        }
    }
    linkToolPairs(t);
    t.diagnostics.clear(); // orphans are the validity check's job
    return t;
}

void computeStats(const Input &in, Result &r, bool metrics)
{
    const Transcript &t = in.transcript;
    Stats s;
    for (std::size_t i = 0; i < t.messages.size(); ++i) {
        const Message &m = t.messages[i];
        if (!inContext(m))
            continue;
        ++s.messagesBefore;
        s.tokensBefore += tokens::estimateMessage(m);
        if (i < r.fates.size())
            ++s.fateCounts[static_cast<std::size_t>(r.fates[i].fate)];
    }
    for (std::size_t k = 0; k < r.slots.size(); ++k) {
        const Message &m = r.message(t, k);
        if (!inContext(m))
            continue;
        ++s.messagesAfter;
        s.tokensAfter += tokens::estimateMessage(m);
        if (r.slots[k].origin >= 0)
            ++s.originalKept;
        else
            ++s.inserted;
    }
    s.fateCounts[static_cast<std::size_t>(Fate::Inserted)] = s.inserted;
    if (s.tokensBefore > 0)
        s.reduction = 1.0 - double(s.tokensAfter) / double(s.tokensBefore);
    // The live figures: the input's, and the result's counted like it (its calibration carried).
    {
        const Transcript::TokenCalibration carried = tokens::carriedCalibration(t);
        std::vector<const Message *> messages;
        messages.reserve(r.slots.size());
        for (std::size_t k = 0; k < r.slots.size(); ++k)
            messages.push_back(&r.message(t, k));
        std::vector<char> intact = intactOfSlots(t, r.slots);
        s.liveBefore = in.liveTokens(); // the analysis' figure: counted once per input, not per run
        s.liveAfter = tokens::contextFigureOf(t, std::move(messages), std::move(intact), carried, in.options.estimator).total;
        if (s.liveBefore > 0)
            s.liveReduction = 1.0 - double(s.liveAfter) / double(s.liveBefore);
    }
    if (s.messagesBefore > 0)
        s.efficiency = 0.6 * s.reduction + 0.4 * double(s.originalKept) / double(s.messagesBefore);

    // Cache prefix.
    std::size_t next = 0; // next original index expected
    for (std::size_t k = 0; k < r.slots.size(); ++k) {
        const Slot &slot = r.slots[k];
        const Message &m = r.message(t, k);
        if (!inContext(m))
            continue;
        while (next < t.messages.size() && !inContext(t.messages[next]))
            ++next;
        if (slot.message || slot.origin != static_cast<std::int32_t>(next))
            break;
        s.cachePrefixTokens += tokens::estimateMessage(m);
        ++next;
    }
    if (s.tokensBefore > 0)
        s.cachePrefixShare = double(s.cachePrefixTokens) / double(s.tokensBefore);

    if (metrics) {
        const std::vector<Fact> facts = collectFacts(t);
        const FactMatcher matcher(facts, sessionCwd(t));
        std::string insertedText;
        for (std::size_t k = 0; k < r.slots.size(); ++k)
            if (r.slots[k].origin < 0 && r.slots[k].message)
                appendText(*r.slots[k].message, insertedText);
        const FactText inserted(insertedText);
        // An edited source message's text, prepared once for every fact that came from it.
        struct Edited {
            std::string text;
            FactText prepared{text};
        };
        std::vector<std::unique_ptr<Edited>> edited(t.messages.size());
        s.factsTotal = facts.size();
        for (std::size_t fi = 0; fi < facts.size(); ++fi) {
            bool kept = false;
            for (const std::size_t src : facts[fi].sources) {
                if (src >= r.fates.size() || r.fates[src].slot < 0)
                    continue;
                const Slot &slot = r.slots[static_cast<std::size_t>(r.fates[src].slot)];
                if (!slot.message) {
                    kept = true;
                    break;
                }
                if (!edited[src]) {
                    edited[src] = std::make_unique<Edited>();
                    appendText(*slot.message, edited[src]->text);
                }
                if (matcher.mentions(fi, edited[src]->prepared)) {
                    kept = true;
                    break;
                }
            }
            if (!kept && !insertedText.empty() && matcher.mentions(fi, inserted))
                kept = true;
            s.factsKept += kept ? 1 : 0;
        }
        s.factRetention = s.factsTotal ? double(s.factsKept) / double(s.factsTotal) : 1.0;
    }
    r.stats = s;
}

} // namespace cl::strategy
