// SPDX-License-Identifier: MIT
#include "core/workflow/undonecompaction.h"

#include "core/util/json.h"

#include <optional>
#include <unordered_map>

namespace cl {

namespace {

std::string_view lineOf(const Transcript &t, const Record &r)
{
    std::string_view s = t.recordBytes(r);
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

} // namespace

bool isContextLensBoundary(std::string_view line, nlohmann::json *origin)
{
    if (json::topLevelString(line, "type") != "system" || json::topLevelString(line, "subtype") != "compact_boundary")
        return false;
    const json::Range meta = json::topLevelValue(line, "compactMetadata");
    if (meta.end <= meta.begin)
        return false;
    const nlohmann::json m = nlohmann::json::parse(line.substr(meta.begin, meta.end - meta.begin), nullptr, false);
    if (!m.is_object() || !m.contains(kCompactionMarker))
        return false;
    if (origin)
        *origin = m[kCompactionMarker];
    return true;
}

std::vector<UndoneCompaction> findUndoneCompactions(const Transcript &t)
{
    std::vector<UndoneCompaction> out;
    if (t.format != Format::ClaudeCode || !t.buffer)
        return out;
    // The boundaries ContextLens wrote that are off the live chain, and the last boundary on it.
    struct Candidate {
        std::size_t record;
        nlohmann::json origin;
    };
    std::vector<Candidate> candidates;
    std::int64_t lastLiveBoundary = -1;
    for (std::size_t i = 0; i < t.records.size(); ++i) {
        const Record &r = t.records[i];
        if (r.type != "system")
            continue;
        if (r.message >= 0) {
            const Message &m = t.messages[std::size_t(r.message)];
            if (m.kind == MessageKind::CompactBoundary && !m.sidechain)
                lastLiveBoundary = std::int64_t(i);
            continue;
        }
        nlohmann::json origin;
        if (isContextLensBoundary(lineOf(t, r), &origin))
            candidates.push_back({i, std::move(origin)});
    }
    if (candidates.empty())
        return out;
    // Where a uuid is: a message's id is its last line's uuid; other lines (one line of a response
    // written as several) are read from their bytes, only when needed (a line may hold 50 MB).
    std::unordered_map<std::string_view, std::size_t> recordOfUuid;
    for (const Message &m : t.messages)
        if (!m.id.empty() && !m.records.empty())
            recordOfUuid[m.id] = m.records.back();
    std::unordered_map<std::string, std::size_t> everyUuid;
    bool everyRead = false;
    auto find = [&](const std::string &uuid) -> std::optional<std::size_t> {
        if (const auto it = recordOfUuid.find(uuid); it != recordOfUuid.end())
            return it->second;
        if (!everyRead) {
            everyRead = true;
            for (std::size_t i = 0; i < t.records.size(); ++i)
                if (std::string u = json::topLevelString(lineOf(t, t.records[i]), "uuid"); !u.empty())
                    everyUuid[std::move(u)] = i;
        }
        if (const auto it = everyUuid.find(uuid); it != everyUuid.end())
            return it->second;
        return std::nullopt;
    };
    for (Candidate &c : candidates) {
        // The first line after the boundary that the live chain holds and that continues from a
        // line before it; it must be live itself (no later compaction on the chain).
        for (std::size_t i = c.record + 1; i < t.records.size(); ++i) {
            const Record &r = t.records[i];
            if (r.message < 0)
                continue;
            const Message &m = t.messages[std::size_t(r.message)];
            if (m.sidechain || m.records.empty() || m.records.front() != i || m.parentId.empty())
                continue;
            const std::optional<std::size_t> parent = find(m.parentId);
            if (!parent || *parent >= c.record)
                continue;
            if (std::int64_t(i) > lastLiveBoundary)
                out.push_back({t.records[c.record].line, r.line, t.records[*parent].line, std::move(c.origin)});
            break;
        }
    }
    return out;
}

std::string describe(const UndoneCompaction &u)
{
    return "the agent continued from before your compaction at line " + std::to_string(u.boundaryLine)
           + "; it is no longer live (its new lines start at line " + std::to_string(u.continuedLine)
           + ", after line " + std::to_string(u.fromLine) + ")";
}

} // namespace cl
