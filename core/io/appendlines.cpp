// SPDX-License-Identifier: MIT
#include "core/io/appendlines.h"

#include "core/io/loader.h"
#include "core/model/buffer.h"
#include "core/tokens/estimator.h"
#include "core/util/json.h"

#include <algorithm>
#include <limits>
#include <string_view>
#include <unordered_set>

namespace cl {

namespace {

bool isRequest(const Message &m)
{
    if (m.sidechain || m.role != Role::User || m.kind != MessageKind::Conversation || m.records.empty())
        return false;
    return std::any_of(m.blocks.begin(), m.blocks.end(), [](const Block &b) { return b.type != BlockType::ToolResult; });
}

// Codex: every line is a message of its own and the loader carries only the model and the last
// response (for the usage that follows it), so a turn can also be cut before a response.
bool isResponse(const Transcript &t, const Message &m)
{
    return t.format == Format::Codex && !m.records.empty() && m.role == Role::Assistant && m.kind == MessageKind::Conversation;
}

// The last user request (Codex: or response) whose messages and lines split the transcript cleanly:
// every message before it comes from lines before its first line, every message from it on from lines
// at or after it.
std::optional<std::size_t> restartMessage(const Transcript &t)
{
    const std::size_t n = t.messages.size();
    constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
    std::vector<std::uint32_t> lowestFrom(n + 1, kNone); // lowest record of messages i..n-1
    for (std::size_t i = n; i-- > 0;) {
        lowestFrom[i] = lowestFrom[i + 1];
        for (const std::uint32_t r : t.messages[i].records)
            lowestFrom[i] = std::min(lowestFrom[i], r);
    }
    std::vector<std::int64_t> highestBefore(n + 1, -1); // highest record of messages 0..i-1
    for (std::size_t i = 0; i < n; ++i) {
        highestBefore[i + 1] = highestBefore[i];
        for (const std::uint32_t r : t.messages[i].records)
            highestBefore[i + 1] = std::max<std::int64_t>(highestBefore[i + 1], r);
    }
    for (std::size_t i = n; i-- > 1;) {
        const Message &m = t.messages[i];
        if (!isRequest(m) && !isResponse(t, m))
            continue;
        const std::uint32_t first = m.records.front();
        if (highestBefore[i] < std::int64_t(first) && lowestFrom[i] == first)
            return i;
        if (t.format == Format::ClaudeCode)
            return std::nullopt; // messages moved by a compaction: no clean cut before them either
    }
    return std::nullopt;
}

// What linkToolPairs says (made again over the whole transcript).
bool fromPairing(const Diagnostic &d)
{
    for (const std::string_view prefix : {"duplicate tool call id ", "orphan tool result: ", "second tool result for tool call id "})
        if (d.message.rfind(prefix, 0) == 0)
            return true;
    constexpr std::string_view unanswered = ") has no result";
    return d.message.rfind("tool call ", 0) == 0 && d.message.size() > unanswered.size()
           && d.message.compare(d.message.size() - unanswered.size(), unanswered.size(), unanswered) == 0;
}

// A Claude Code line's own "uuid" (outside strings a quote is never escaped).
std::string_view lineUuid(std::string_view line)
{
    constexpr std::string_view key = "\"uuid\":\"";
    const std::size_t at = line.rfind(key);
    if (at == std::string_view::npos)
        return {};
    const std::size_t begin = at + key.size();
    const std::size_t end = line.find('"', begin);
    return end == std::string_view::npos ? std::string_view{} : line.substr(begin, end - begin);
}

// Codex: a response's model is the one of the turn_context before it, which may lie before the cut;
// the loader of the current turn did not see it.
void carryCodexModel(const Transcript &base, std::size_t restart, Transcript &f)
{
    std::string model;
    for (std::size_t i = restart; i-- > 0;)
        if (base.messages[i].type == "turn_context" && !base.messages[i].model.empty()) {
            model = base.messages[i].model;
            break;
        }
    for (Message &m : f.messages) {
        if (m.type == "turn_context" && !m.model.empty())
            model = m.model;
        else if (m.role == Role::Assistant && m.kind == MessageKind::Conversation)
            m.model = model;
    }
}

// "parent uuid X not found in the file" / "parent uuid X is in the parent session (agent file)"
std::string_view missingParent(const std::string &diagnostic)
{
    constexpr std::string_view prefix = "parent uuid ";
    if (diagnostic.rfind(prefix, 0) != 0)
        return {};
    const std::string_view rest = std::string_view(diagnostic).substr(prefix.size());
    return rest.substr(0, rest.find(' '));
}

// The header as a fresh load makes it from all lines, given the one of the earlier lines and the one
// of the current turn and the new lines.
void mergeHeader(Format format, nlohmann::json &into, const nlohmann::json &from)
{
    if (!from.is_object())
        return;
    if (!into.is_object())
        into = nlohmann::json::object();
    if (format == Format::Codex) {
        // The first session_meta describes the file, later ones fill gaps; the latest turn's model.
        for (auto it = from.begin(); it != from.end(); ++it)
            if (!into.contains(it.key()) || it.key() == "model")
                into[it.key()] = it.value();
        return;
    }
    if (!into.contains("sessionId") && from.contains("sessionId"))
        into["sessionId"] = from["sessionId"];
    // Claude Code titles: a later custom title wins, an AI title only names a session without one.
    if (const std::string custom = json::str(from, "customTitle"); !custom.empty()) {
        into["customTitle"] = custom;
        into["title"] = custom;
    }
    if (const std::string ai = json::str(from, "aiTitle"); !ai.empty()) {
        into["aiTitle"] = ai;
        if (!into.contains("customTitle"))
            into["title"] = ai;
    }
}

// The ids of base's messages [0, upTo), kept in st (extended, or made again when the cut moved back).
const AppendState::Set &collectIds(const Transcript &base, std::size_t upTo, AppendState &st)
{
    if (st.idMessages > upTo) {
        st.earlierIds.clear();
        st.idMessages = 0;
    }
    for (std::size_t i = st.idMessages; i < upTo; ++i)
        if (!base.messages[i].id.empty())
            st.earlierIds.emplace(base.messages[i].id);
    st.idMessages = upTo;
    return st.earlierIds;
}

// The uuids of base's lines [0, upTo), kept in st like the ids.
const AppendState::Set &collectUuids(const Transcript &base, std::size_t upTo, AppendState &st)
{
    if (st.uuidLines > upTo) {
        st.earlierUuids.clear();
        st.uuidLines = 0;
    }
    for (std::size_t i = st.uuidLines; i < upTo; ++i)
        if (const std::string_view u = lineUuid(base.recordBytes(base.records[i])); !u.empty())
            st.earlierUuids.emplace(u);
    st.uuidLines = upTo;
    return st.earlierUuids;
}

// Room for `more` elements or bytes after the size, and some to spare: the next appends, growing
// this one in place, then need not move everything.
template <typename Container>
void makeRoom(Container &c, std::size_t more)
{
    const std::size_t need = c.size() + more;
    if (c.capacity() < need)
        c.reserve(need + need / 8);
}

// A transcript holding base's first out.keptMessages messages and out.keptRecords records, and as its
// buffer base's bytes up to out.reparsedFrom followed by the fragment's, with room for the fragment's
// messages and records. Grown from st.spare when that is held by no one else (its prefix is base's up
// to the spare counts; the rest is copied from base), made from copies of base otherwise. Fills
// out.inPlace.
std::shared_ptr<Transcript> startFrom(const Transcript &base, AppendResult &out, const Transcript &fragment, AppendState &st)
{
    const std::string_view tail = *fragment.buffer;
    const std::size_t bytes = out.reparsedFrom;
    std::shared_ptr<const Transcript> spare = std::move(st.spare);
    st.spare.reset();
    auto t = std::make_shared<Transcript>();
    std::size_t keepMessages = 0, keepRecords = 0, keepBytes = 0;
    if (spare && spare.use_count() == 1) {
        // Nothing else holds it: its contents move into a new transcript (a new identity for anyone
        // who remembers the old one by its address), which keeps what is still the base's.
        *t = std::move(const_cast<Transcript &>(*spare));
        spare.reset();
        keepMessages = std::min(st.spareMessages, out.keptMessages);
        keepRecords = std::min(st.spareRecords, out.keptRecords);
        keepBytes = std::min(st.spareBytes, bytes);
        t->messages.erase(t->messages.begin() + std::ptrdiff_t(keepMessages), t->messages.end());
        t->records.erase(t->records.begin() + std::ptrdiff_t(keepRecords), t->records.end());
        t->diagnostics.clear();
        t->tokenCalibration = {};
        out.inPlace = true;
    }
    makeRoom(t->messages, out.keptMessages - keepMessages + fragment.messages.size());
    makeRoom(t->records, out.keptRecords - keepRecords + fragment.records.size());
    t->messages.insert(t->messages.end(), base.messages.begin() + std::ptrdiff_t(keepMessages),
                       base.messages.begin() + std::ptrdiff_t(out.keptMessages));
    t->records.insert(t->records.end(), base.records.begin() + std::ptrdiff_t(keepRecords),
                      base.records.begin() + std::ptrdiff_t(out.keptRecords));
    if (out.inPlace && t->buffer && t->buffer.use_count() == 1) {
        auto &grown = const_cast<std::string &>(*t->buffer);
        grown.resize(keepBytes);
        makeRoom(grown, bytes - keepBytes + tail.size() + kBufferPadding);
        grown.append(std::string_view(*base.buffer).substr(keepBytes, bytes - keepBytes)).append(tail);
        padBuffer(grown);
        return t;
    }
    std::string copy;
    makeRoom(copy, bytes + tail.size() + kBufferPadding);
    copy.append(std::string_view(*base.buffer).substr(0, bytes)).append(tail);
    padBuffer(copy);
    t->buffer = std::make_shared<const std::string>(std::move(copy));
    return t;
}
} // namespace

AppendResult appendLines(const Transcript &base, std::string_view more, const LoadOptions &opts, AppendState *state)
{
    AppendResult out;
    if (base.format != Format::ClaudeCode && base.format != Format::Codex) {
        out.reason = "only line-based sessions (Claude Code, Codex) are read incrementally";
        return out;
    }
    if (!base.buffer || more.empty()) {
        out.reason = "nothing to append to";
        return out;
    }
    const std::optional<std::size_t> restart = restartMessage(base);
    if (!restart) {
        out.reason = "no earlier turn to keep";
        return out;
    }
    const Message &first = base.messages[*restart];
    const Record &cut = base.records[first.records.front()];
    const std::uint32_t cutRecord = first.records.front();
    const std::uint32_t lineShift = cut.line - 1;
    out.reparsedFrom = cut.offset;

    // The current turn and the new lines, parsed on their own.
    std::string fragmentBytes;
    fragmentBytes.reserve(base.buffer->size() - cut.offset + more.size() + kBufferPadding);
    fragmentBytes.append(std::string_view(*base.buffer).substr(cut.offset)).append(more);
    LoadOptions fo;
    fo.format = base.format;
    fo.wholeHistory = true;
    fo.loadSubagents = false;
    fo.threads = 1;
    const LoadResult loaded = loadBytes(std::move(fragmentBytes), base.path, fo);
    if (!loaded.ok()) {
        out.reason = "the new lines do not load: " + loaded.error;
        return out;
    }
    Transcript &f = *loaded.transcript;
    if (f.messages.empty() || f.messages.front().records.empty() || f.messages.front().records.front() != 0
        || f.messages.front().id != first.id) {
        out.reason = "the current turn reads differently with the new lines";
        return out;
    }
    if (f.offBranchMessages > 0) {
        out.reason = "the new lines continue from an earlier message (a rewind)";
        return out;
    }
    const bool agentFile = base.header.is_object() && base.header.value("agentFile", false);
    if (agentFile != (f.header.is_object() && f.header.value("agentFile", false))) {
        out.reason = "the new lines change whose conversation the file holds";
        return out;
    }
    AppendState local;
    AppendState &st = state ? *state : local;
    const AppendState::Set &earlierIds = collectIds(base, *restart, st);
    for (const Message &m : f.messages) {
        if (!m.id.empty() && earlierIds.count(m.id)) {
            out.reason = "a new line repeats an earlier one (" + m.id + ")";
            return out;
        }
        if (m.kind == MessageKind::CompactBoundary && json::object(m.meta, "preservedMessages")) {
            out.reason = "a compaction that keeps earlier messages moves them";
            return out;
        }
    }
    if (base.format == Format::ClaudeCode) {
        // Any line of the current turn or the new ones repeating the uuid of an earlier line (a
        // resumed session writes some again): a fresh load says so on those lines.
        const AppendState::Set &earlier = collectUuids(base, cutRecord, st);
        for (const Record &r : f.records)
            if (const std::string_view u = lineUuid(f.recordBytes(r)); !u.empty() && earlier.count(u)) {
                out.reason = "a new line repeats an earlier one (" + std::string(u) + ")";
                return out;
            }
    }
    for (const Diagnostic &d : f.diagnostics)
        if (d.message.rfind("token_count before any assistant message", 0) == 0) {
            out.reason = "the new lines report the usage of an earlier response";
            return out;
        }

    if (base.format == Format::Codex)
        carryCodexModel(base, *restart, f);

    out.keptMessages = *restart;
    out.keptRecords = cutRecord;
    std::shared_ptr<Transcript> t = startFrom(base, out, f, st);
    t->format = base.format;
    t->path = base.path;
    t->header = base.header;
    mergeHeader(base.format, t->header, f.header);
    t->subagents = base.subagents;
    t->offBranchMessages = base.offBranchMessages;
    t->wholeHistory = base.wholeHistory;

    const auto messageShift = std::int32_t(*restart);
    for (Record r : f.records) {
        r.offset += cut.offset;
        r.line += lineShift;
        if (r.message >= 0)
            r.message += messageShift;
        t->records.push_back(std::move(r));
    }
    for (Message &m : f.messages) {
        for (auto &r : m.records)
            r += cutRecord;
        m.line += lineShift;
        m.cache.tokenEstimate = -1; // pairing and clearing below may change it
        t->messages.push_back(std::move(m));
    }
    // Diagnostics: the earlier lines' from the old load, the rest from the new parse. Tool pairing's
    // are made again below; a parent that the earlier lines hold is found after all.
    for (const Diagnostic &d : base.diagnostics)
        if ((d.line < cut.line || d.file != base.path) && !fromPairing(d))
            t->diagnostics.push_back(d);
    for (Diagnostic d : f.diagnostics) {
        if (d.line == 0 || fromPairing(d))
            continue;
        if (const std::string_view parent = missingParent(d.message); !parent.empty() && earlierIds.count(parent))
            continue;
        d.line += lineShift;
        t->diagnostics.push_back(std::move(d));
    }
    // Pairing and the live context as a fresh load makes them: pairs first, over every message.
    for (Message &m : t->messages) {
        m.history = false;
        for (Block &b : m.blocks)
            if (b.cleared) {
                b.cleared = false;
                m.cache.tokenEstimate = -1;
            }
    }
    linkToolPairs(*t);
    if (!opts.wholeHistory)
        markLiveContext(*t);
    tokens::estimateAll(*t, 1); // only the messages without an estimate
    out.transcript = std::move(t);
    return out;
}

} // namespace cl
