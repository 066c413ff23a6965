// SPDX-License-Identifier: MIT
// Active-branch selection: rewinds leave sibling branches in the file; the conversation the agent
// continues is the chain from the last leaf back through parentUuid (and logicalParentUuid across
// a compact_boundary). Duplicate uuids, dangling parents and cycles must never hang or crash.
#include "core/formats/claudecode/internal.h"

#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace cl::formats::claudecode {

namespace {

std::string_view parentOf(const LineInfo &l)
{
    return !l.parentUuid.empty() ? std::string_view(l.parentUuid) : std::string_view(l.logicalParentUuid);
}

// The same record written again when a session is resumed: byte for byte (newer Claude Code), or
// (Claude Code 1.0.x) the same record with the fields that belong to the run that wrote it written
// anew. Anything else under the same uuid is a conflict.
bool repeatsRecord(std::string_view a, std::string_view b)
{
    if (a == b)
        return true;
    json::json ja, jb;
    std::string error;
    if (json::parse(a, ja, error) == json::ParseStatus::Failed || json::parse(b, jb, error) == json::ParseStatus::Failed
        || !ja.is_object() || !jb.is_object())
        return false;
    for (const char *key : {"sessionId", "timestamp", "version", "cwd", "gitBranch", "userType", "entrypoint", "slug"}) {
        ja.erase(key);
        jb.erase(key);
    }
    return ja == jb;
}

} // namespace

std::vector<char> selectActiveBranch(Transcript &t, const std::vector<LineInfo> &lines)
{
    const std::size_t n = lines.size();
    std::vector<std::int32_t> parent(n, -1);
    std::unordered_map<std::string_view, std::uint32_t> byUuid;
    byUuid.reserve(n);
    std::vector<std::uint32_t> unresolved;

    // Forward pass: a parent is the latest EARLIER line with that uuid, so a duplicated uuid (a
    // resumed session re-appending lines, a trimmed fixture) still yields an acyclic chain.
    for (std::size_t i = 0; i < n; ++i) {
        const LineInfo &l = lines[i];
        const std::string_view p = parentOf(l);
        if (!p.empty()) {
            if (const auto it = byUuid.find(p); it != byUuid.end())
                parent[i] = std::int32_t(it->second);
            else
                unresolved.push_back(std::uint32_t(i));
        }
        if (!l.uuid.empty()) {
            const auto [it, inserted] = byUuid.try_emplace(l.uuid, std::uint32_t(i));
            if (!inserted) {
                // An older Claude Code resuming a session writes some of its lines again (repeatsRecord):
                // a repeat, information, not a conflict. Either way at most one copy joins the branch.
                const std::uint32_t first = it->second;
                if (repeatsRecord(withoutTerminator(t.recordBytes(t.records[i])), withoutTerminator(t.recordBytes(t.records[first]))))
                    t.addDiagnostic(t.records[i].line,
                                    "line repeats line " + std::to_string(t.records[first].line)
                                        + " (written again when the session was resumed); it is kept once",
                                    Diagnostic::Severity::Info);
                else
                    t.addDiagnostic(t.records[i].line, "duplicate uuid " + l.uuid + " (first on line "
                                                           + std::to_string(t.records[first].line) + ")");
                it->second = std::uint32_t(i);
            }
        }
    }
    for (const std::uint32_t i : unresolved) {
        const std::string_view p = parentOf(lines[i]);
        const auto it = byUuid.find(p);
        if (p == lines[i].uuid || (it != byUuid.end() && it->second == i)) {
            t.addDiagnostic(t.records[i].line, "parentUuid cycle: line names itself as parent");
        } else if (it == byUuid.end() && lines[i].sidechain) {
            // A subagent's or compaction agent's own file starts from a line of its parent session.
            t.addDiagnostic(t.records[i].line, "parent uuid " + std::string(p) + " is in the parent session (agent file)",
                            Diagnostic::Severity::Info);
        } else if (it == byUuid.end()) {
            t.addDiagnostic(t.records[i].line, "parent uuid " + std::string(p) + " not found in the file");
        } else {
            parent[i] = std::int32_t(it->second); // forward reference: allowed, cycles are caught below
        }
    }

    // A leaf is a conversation line without conversation descendants (progress lines may sit in
    // between). Parents normally precede children, so one backward pass propagates.
    std::vector<char> hasConvChild(n, 0);
    for (std::size_t k = n; k-- > 0;) {
        if (parent[k] >= 0 && std::size_t(parent[k]) != k && (isConversationKind(lines[k].kind) || hasConvChild[k]))
            hasConvChild[std::size_t(parent[k])] = 1;
    }
    std::int64_t leaf = -1;
    std::int64_t sidechainLeaf = -1;
    std::int64_t lastConv = -1;
    for (std::size_t k = n; k-- > 0 && leaf < 0;) {
        if (!isConversationKind(lines[k].kind))
            continue;
        if (lastConv < 0)
            lastConv = std::int64_t(k);
        if (hasConvChild[k])
            continue;
        if (!lines[k].sidechain)
            leaf = std::int64_t(k);
        else if (sidechainLeaf < 0)
            sidechainLeaf = std::int64_t(k);
    }
    if (leaf < 0)
        leaf = sidechainLeaf >= 0 ? sidechainLeaf : lastConv;

    std::vector<char> onBranch(n, 0);
    std::vector<char> visited(n, 0);
    for (std::int64_t cur = leaf; cur >= 0; cur = parent[std::size_t(cur)]) {
        if (visited[std::size_t(cur)]) {
            t.addDiagnostic(t.records[std::size_t(cur)].line, "parentUuid cycle through line "
                                                                  + std::to_string(t.records[std::size_t(cur)].line));
            break;
        }
        visited[std::size_t(cur)] = 1;
        onBranch[std::size_t(cur)] = 1;
    }

    // Parallel tool calls: later lines of the same response and the tool results for it may hang
    // off an on-branch assistant line as siblings of the chain, directly or through progress lines
    // (a hook's or a tool's progress written between two lines of one response); they belong to
    // the active turn. A repeated line never joins when a copy of it is already there.
    std::unordered_set<std::string_view> branchUuids;
    for (std::size_t i = 0; i < n; ++i)
        if (onBranch[i] && !lines[i].uuid.empty())
            branchUuids.insert(lines[i].uuid);
    for (std::size_t i = 0; i < n; ++i) {
        if (onBranch[i] || parent[i] < 0)
            continue;
        const LineInfo &l = lines[i];
        if (!l.uuid.empty() && branchUuids.count(l.uuid))
            continue;
        std::int64_t anc = parent[i];
        for (std::size_t steps = 0; anc >= 0 && !isConversationKind(lines[std::size_t(anc)].kind) && steps < n; ++steps)
            anc = parent[std::size_t(anc)];
        if (anc < 0 || std::size_t(anc) == i || !onBranch[std::size_t(anc)])
            continue;
        const LineInfo &p = lines[std::size_t(anc)];
        if (p.kind != LineKind::Assistant)
            continue;
        if ((l.kind == LineKind::Assistant && !l.apiId.empty() && l.apiId == p.apiId)
            || (l.kind == LineKind::User && l.toolResultsOnly)) {
            onBranch[i] = 1;
            if (!l.uuid.empty())
                branchUuids.insert(l.uuid);
        }
    }
    for (std::size_t i = 0; i < n; ++i)
        if (!lines[i].hasParentKey && isConversationKind(lines[i].kind))
            onBranch[i] = 1;
    return onBranch;
}

} // namespace cl::formats::claudecode
