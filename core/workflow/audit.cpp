// SPDX-License-Identifier: MIT
#include "core/workflow/audit.h"

#include "core/llm/answer.h"
#include "core/strategies/registry.h"
#include "core/strategy/factmatch.h"
#include "core/tokens/estimator.h"
#include "core/tokens/fixedpart.h"
#include "core/util/json.h"
#include "core/workflow/compare.h"

#include <algorithm>
#include <numeric>
#include <unordered_set>

namespace cl::audit {

namespace {

bool isBoundary(const Message &m)
{
    return !m.sidechain && m.kind == MessageKind::CompactBoundary;
}

// Claude Code: the uuids of the messages a compaction kept (compactMetadata.preservedMessages).
std::unordered_set<std::string> preservedIds(const Message &boundary)
{
    std::unordered_set<std::string> ids;
    const nlohmann::json *kept = boundary.meta.is_object() ? json::object(boundary.meta, "preservedMessages") : nullptr;
    if (const nlohmann::json *uuids = kept ? json::array(*kept, "uuids") : nullptr)
        for (const auto &u : *uuids)
            if (u.is_string() && !u.get_ref<const std::string &>().empty())
                ids.insert(u.get<std::string>());
    return ids;
}

std::size_t nextBoundary(const Transcript &t, std::size_t boundary)
{
    for (std::size_t i = boundary + 1; i < t.messages.size(); ++i)
        if (isBoundary(t.messages[i]))
            return i;
    return t.messages.size();
}

bool sameRecord(const Message &a, const Message &b)
{
    return !a.records.empty() && !b.records.empty() && a.records.front() == b.records.front();
}

// The first compaction summary after the boundary: on the boundary's chain, else (a summary line
// written as a sidechain) any.
std::int32_t summaryAfter(const Transcript &t, std::size_t boundary, std::size_t next)
{
    std::int32_t any = -1;
    for (std::size_t i = boundary + 1; i < next; ++i) {
        const Message &m = t.messages[i];
        if (m.kind != MessageKind::CompactSummary)
            continue;
        if (m.sidechain == t.messages[boundary].sidechain)
            return std::int32_t(i);
        if (any < 0)
            any = std::int32_t(i);
    }
    return any;
}

// What the agent sent after the compaction: its summary and the messages it kept. The summary is
// the compaction's summary message (Claude Code isCompactSummary, Codex's summary request), else the
// Gemini CLI state snapshot, else (Codex without a summary request) the compacted line's message.
void findAfter(const Transcript &t, Compaction &c)
{
    const Message &boundary = t.messages[c.boundary];
    const std::size_t next = nextBoundary(t, c.boundary);
    const std::unordered_set<std::string> preserved = preservedIds(boundary);
    c.summaryMessage = summaryAfter(t, c.boundary, next);
    std::vector<std::size_t> after;
    for (std::size_t i = c.from; i < next; ++i) {
        const Message &m = t.messages[i];
        if (i == c.boundary || std::int32_t(i) == c.summaryMessage || !m.isTurn() || m.sidechain != boundary.sidechain)
            continue;
        const bool kept = !m.id.empty() && preserved.count(m.id);
        const bool fromBoundary = i > c.boundary && sameRecord(m, boundary); // Codex / Gemini CLI lists
        if (kept || fromBoundary)
            after.push_back(i);
    }
    if (c.summaryMessage < 0 && t.format == Format::GeminiCli) {
        // The state snapshot, in the compression's list or in a restatement of it written on resume
        // (another line, which then holds what the agent kept).
        for (std::size_t i = c.boundary + 1; i < next && c.summaryMessage < 0; ++i) {
            const Message &m = t.messages[i];
            if (m.isTurn() && !m.sidechain && m.plainText().find("<state_snapshot>") != std::string::npos)
                c.summaryMessage = std::int32_t(i);
        }
        if (c.summaryMessage >= 0 && !sameRecord(t.messages[std::size_t(c.summaryMessage)], boundary)) {
            const Message &snapshot = t.messages[std::size_t(c.summaryMessage)];
            for (std::size_t i = c.boundary + 1; i < next; ++i)
                if (t.messages[i].isTurn() && sameRecord(t.messages[i], snapshot))
                    after.push_back(i);
        }
    }
    for (const std::size_t i : after)
        if (std::int32_t(i) != c.summaryMessage)
            c.keptMessages.push_back(i);
    if (c.summaryMessage >= 0)
        c.summary = t.messages[std::size_t(c.summaryMessage)].plainText();
    else if (t.format == Format::Codex)
        c.summary = boundary.plainText();
}

// The text the facts are looked for in (llm::retention, strategy/factmatch.h): the summary, then the
// kept messages' texts and tool inputs.
std::string keptText(const Transcript &t, const Compaction &c)
{
    std::string s = c.summary;
    for (const std::size_t i : c.keptMessages)
        for (const Block &b : t.messages[i].blocks) {
            s += '\n';
            s += b.text;
            if (b.type == BlockType::ToolUse && !b.input.is_null())
                s += '\n' + json::dump(b.input);
        }
    return s;
}

std::vector<strategy::Fact> toTranscriptIndices(std::vector<strategy::Fact> facts, const std::vector<std::size_t> &origin)
{
    for (auto &f : facts)
        for (auto &s : f.sources)
            s = origin[s];
    return facts;
}

std::vector<std::string> strategyNames(const Options &o)
{
    return o.strategies ? *o.strategies : defaultStrategies();
}

std::vector<StrategyRow> runStrategies(const Transcript &before, const std::vector<std::string> &names, const Options &o)
{
    strategy::Input in(before, o.analysis);
    strategy::CompareOptions co;
    co.names = names;
    co.threads = o.threads;
    co.run.validate = false; // only the figures are reported
    for (const auto &n : names)
        if (const strategy::Strategy *s = strategy::find(n)) {
            const auto specs = s->params();
            if (std::any_of(specs.begin(), specs.end(), [](const strategy::ParamSpec &p) { return p.name == "force"; }))
                co.params[n] = {{"force", true}};
        }
    std::vector<strategy::CompareRow> rows = strategy::compare(in, co);
    std::vector<StrategyRow> out;
    for (const auto &n : names) // compare() puts unknown names first; keep the caller's order
        for (auto &r : rows)
            if (r.strategy == n) {
                StrategyRow row;
                row.strategy = r.strategy;
                row.title = r.title;
                row.error = r.error;
                if (r.error.empty()) {
                    const strategy::Stats &s = r.result.stats;
                    row.changed = r.result.changed;
                    row.note = r.result.note;
                    row.tokensBefore = s.tokensBefore;
                    row.tokensAfter = s.tokensAfter;
                    row.factsKept = s.factsKept;
                    row.factsTotal = s.factsTotal;
                    row.factRetention = s.factRetention;
                }
                out.push_back(std::move(row));
                break;
            }
    return out;
}

} // namespace

const std::vector<std::string> &defaultStrategies()
{
    // Removal and summary strategies; the ones that only shorten or clear results inside messages
    // (snip, microcompact, clear-tool-uses, observation masking, ...) are not compactions.
    static const std::vector<std::string> names = [] {
        static const std::unordered_set<std::string> compacting = {
            "trim-tools", "middle", "oldest", "hybrid", "auto-select", "microcompaction", "sliding-window",
            "auto-compact", "hard-truncate", "progressive", "gemini-cli", "claude-code-compact", "codex",
            "langchain-trim-first", "langchain-trim-last", "openhands-amortized", "cline"};
        std::vector<std::string> out;
        for (const strategy::Strategy *s : strategy::all())
            if (compacting.count(std::string(s->name())))
                out.emplace_back(s->name());
        return out;
    }();
    return names;
}

std::vector<std::size_t> compactionBoundaries(const Transcript &t)
{
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < t.messages.size(); ++i)
        if (isBoundary(t.messages[i]))
            out.push_back(i);
    return out;
}

Transcript transcriptBefore(const Transcript &t, std::size_t boundary, std::vector<std::size_t> *originOut)
{
    std::size_t start = 0;
    for (std::size_t i = boundary; i-- > 0;)
        if (isBoundary(t.messages[i])) {
            start = i;
            break;
        }
    std::vector<std::size_t> origin(boundary - start);
    std::iota(origin.begin(), origin.end(), start);
    // Claude Code: the loader moves the messages the last compaction kept after its summary, where
    // the agent sends them; before the compaction they were in their own place.
    const Message &b = t.messages[boundary];
    if (const auto preserved = preservedIds(b); !preserved.empty()) {
        const std::size_t next = nextBoundary(t, boundary);
        for (std::size_t j = boundary + 1; j < next; ++j) {
            const Message &m = t.messages[j];
            if (m.sidechain || m.line >= b.line || !preserved.count(m.id))
                continue;
            // After the previous boundary, before the first message written later than it.
            auto at = std::find_if(origin.begin(), origin.end(), [&](std::size_t k) {
                return !isBoundary(t.messages[k]) && t.messages[k].line > m.line;
            });
            origin.insert(at, j);
        }
    }
    Transcript pre = sameFileWithoutMessages(t);
    pre.messages.reserve(origin.size());
    for (const std::size_t i : origin) {
        Message &m = pre.messages.emplace_back(t.messages[i]);
        m.history = false;
        for (Block &blk : m.blocks)
            if (blk.cleared) { // markLiveContext below decides again for this context
                blk.cleared = false;
                m.cache.tokenEstimate = -1;
            }
    }
    for (Record &r : pre.records)
        r.message = -1;
    for (std::size_t k = 0; k < pre.messages.size(); ++k)
        for (const std::uint32_t r : pre.messages[k].records)
            if (r < pre.records.size() && pre.records[r].message < 0)
                pre.records[r].message = std::int32_t(k);
    linkToolPairs(pre);
    pre.diagnostics.clear(); // pairing's notes: the file's diagnostics belong to the file
    markLiveContext(pre);
    if (originOut)
        *originOut = std::move(origin);
    return pre;
}

namespace {

// The call that wrote the compaction's summary, from `next` on; Gemini CLI's check pass that follows
// it (and wrote the same or a better snapshot the session holds) is taken as its last call.
std::optional<WireCompaction> linkWire(const std::vector<recording::CompactionCall> &calls, std::size_t &next,
                                       const Compaction &c)
{
    if (c.summary.empty())
        return std::nullopt;
    for (std::size_t i = next; i < calls.size(); ++i) {
        if (!recording::holdsSummary(c.summary, calls[i]))
            continue;
        std::size_t last = i;
        while (last + 1 < calls.size() && calls[last + 1].pass > 1 && recording::holdsSummary(c.summary, calls[last + 1]))
            ++last;
        std::size_t first = i;
        while (first > next && calls[first].pass > 1 && calls[first - 1].agent == calls[first].agent)
            --first;
        WireCompaction w;
        w.call = calls[last];
        w.firstRequest = calls[first].request;
        w.calls = int(last - first + 1);
        next = last + 1;
        return w;
    }
    return std::nullopt;
}

// Where the compaction's boundary starts in the file, for the formats an agent only appends to
// (Claude Code, Codex, Qwen Code); none for the others.
std::optional<std::uint64_t> boundaryOffset(const Transcript &t, std::size_t boundary)
{
    const Message &m = t.messages[boundary];
    if ((t.format != Format::ClaudeCode && t.format != Format::Codex && t.format != Format::QwenCode) || m.records.empty() || m.records.front() >= t.records.size())
        return std::nullopt;
    return t.records[m.records.front()].offset;
}

// The snapshot of the compaction: the last before-record from `next` on that was taken after the
// compaction before it and before this one. In a file the agent only appends to, by size: the
// snapshot's bytes end after the previous boundary and before this one starts; elsewhere by time,
// not after the boundary's (records without time: the next one). With the after-record that
// follows it.
std::optional<HookSnapshot> linkSnapshot(const std::vector<compactionhook::Record> &hooks, std::size_t &next,
                                         const Transcript &t, const Compaction &c, std::optional<std::uint64_t> previous)
{
    using Kind = compactionhook::Record::Kind;
    const std::optional<std::uint64_t> at = boundaryOffset(t, c.boundary);
    std::optional<std::size_t> chosen;
    for (std::size_t i = next; i < hooks.size(); ++i) {
        const compactionhook::Record &h = hooks[i];
        if (h.kind != Kind::Before)
            continue;
        if (at) {
            if (h.bytes > *at)
                break;
            if (!previous || h.bytes > *previous)
                chosen = i;
            continue;
        }
        if (c.timeMs != kNoTime && h.timeMs > c.timeMs)
            break;
        chosen = i;
        if (c.timeMs == kNoTime)
            break;
    }
    if (!chosen)
        return std::nullopt;
    HookSnapshot s;
    s.before = hooks[*chosen];
    next = *chosen + 1;
    if (next < hooks.size() && hooks[next].kind == Kind::After) {
        s.after = hooks[next];
        ++next;
    }
    std::optional<llm::Retention> kept = compactionhook::snapshotFacts(s.before.snapshot, keptText(t, c));
    if (!kept)
        return s;
    s.readable = true;
    s.factsKept = kept->kept.size();
    s.dropped = std::move(kept->dropped);
    std::unordered_set<std::string> inFile;
    for (const auto *list : {&c.kept, &c.dropped})
        for (const strategy::Fact &f : *list)
            inFile.insert(f.text);
    for (const strategy::Fact &f : s.dropped)
        if (!inFile.count(f.text))
            s.onlyInSnapshot.push_back(f);
    return s;
}

} // namespace

std::vector<Compaction> auditCompactions(const Transcript &t, const Options &o)
{
    std::vector<Compaction> out;
    const std::vector<std::size_t> boundaries = compactionBoundaries(t);
    if (boundaries.empty())
        return out;
    const std::int64_t fixed = tokens::fixedPart(t).tokens;
    const std::vector<std::string> names = strategyNames(o);
    const std::string cwd = strategy::sessionCwd(t);
    std::size_t nextCall = 0, nextHook = 0;
    for (std::size_t k = 0; k < boundaries.size(); ++k) {
        Compaction c;
        c.boundary = boundaries[k];
        c.from = k ? boundaries[k - 1] + 1 : 0;
        const Message &bm = t.messages[c.boundary];
        c.timestamp = bm.timestamp;
        c.timeMs = bm.timeMs;
        if (bm.meta.is_object()) {
            c.trigger = json::str(bm.meta, "trigger");
            c.recordedAfter = std::max<std::int64_t>(0, json::num(bm.meta, "postTokens"));
            if (const std::int64_t pre = json::num(bm.meta, "preTokens"); pre > 0) {
                c.tokensBefore = pre;
                c.beforeRecorded = true;
            }
        }
        findAfter(t, c);

        std::vector<std::size_t> origin;
        const Transcript before = transcriptBefore(t, c.boundary, &origin);
        std::int64_t conversation = 0;
        for (const Message &m : before.messages)
            if (m.isConversation() && !m.sidechain) {
                conversation += tokens::estimateMessage(m);
                ++c.replacedMessages;
            }
        c.fixedTokens = fixed;
        c.estimatedBefore = fixed + conversation;
        if (!c.beforeRecorded)
            c.tokensBefore = c.estimatedBefore;
        if (c.summaryMessage >= 0)
            c.tokensAfter += tokens::estimateMessage(t.messages[std::size_t(c.summaryMessage)]);
        for (const std::size_t i : c.keptMessages)
            c.tokensAfter += tokens::estimateMessage(t.messages[i]);

        // Every message of `before`: collectFacts visits only the live ones, as strategy::run does.
        std::vector<std::size_t> all(before.messages.size());
        std::iota(all.begin(), all.end(), std::size_t(0));
        llm::Retention r = llm::retention(before, all, keptText(t, c));
        c.kept = toTranscriptIndices(std::move(r.kept), origin);
        c.dropped = toTranscriptIndices(std::move(r.dropped), origin);
        c.wire = linkWire(o.wire, nextCall, c);
        c.snapshot = linkSnapshot(o.hooks, nextHook, t, c, k ? boundaryOffset(t, boundaries[k - 1]) : std::nullopt);
        if (c.wire && !c.dropped.empty()) {
            std::vector<strategy::Fact> all = c.kept; // the list the basename rule counts over
            all.insert(all.end(), c.dropped.begin(), c.dropped.end());
            const strategy::FactMatcher matcher(all, cwd);
            const strategy::FactText sent(c.wire->call.sentText);
            for (std::size_t i = 0; i < c.dropped.size(); ++i)
                if (!matcher.mentions(c.kept.size() + i, sent))
                    c.wire->notSent.push_back(c.dropped[i]);
        }
        // Pending work: the request fact whose last source is the latest.
        for (const auto *list : {&c.kept, &c.dropped})
            for (const strategy::Fact &f : *list)
                if (f.kind == strategy::Fact::Kind::Request && (!c.pending || f.sources.back() > c.pending->sources.back())) {
                    c.pending = f;
                    c.pendingKept = list == &c.kept;
                }
        if (!names.empty() && c.replacedMessages > 0) // nothing the model saw: nothing to compare
            c.strategies = runStrategies(before, names, o);
        out.push_back(std::move(c));
    }
    return out;
}

} // namespace cl::audit
