// SPDX-License-Identifier: MIT
// Tool rounds, critical tools (seed 001 §6) and the facts of a transcript, from one walk over the
// conversation: on a large session each separate walk cost mostly cache misses on the same block
// arrays, and critical tools and facts both extracted every shell command.
#include "core/analysis/analysis.h"
#include "core/analysis/internal.h"

#include <algorithm>
#include <unordered_set>

namespace cl::analysis {

namespace {

// Whether plainText() would trim to nothing: every text block is whitespace only (the '\n' joins are).
bool blankText(const Message &m)
{
    for (const auto &b : m.blocks)
        if (b.type == BlockType::Text && !detail::trim(b.text).empty())
            return false;
    return true;
}

// The critical entries of one call, in criticalTools() order; cmd is its shell command (Shell kind).
void addCritical(const ToolCall &c, std::string_view cmd, const AnalysisOptions &o, std::vector<CriticalTool> &out)
{
    if (c.kind == ToolKind::Write || c.kind == ToolKind::Edit || c.kind == ToolKind::Delete) {
        std::string reason;
        const std::string_view kind = toolKindName(c.kind);
        reason.reserve(c.name.size() + kind.size() + 18);
        reason.append(c.name).append(" modifies files (").append(kind).append(")");
        out.push_back({c.message, c.block, c.id, c.name, "file_modification", std::move(reason)});
    } else if (c.kind == ToolKind::Shell) {
        for (const auto &pat : o.systemChangePatterns)
            if (!pat.empty() && cmd.find(pat) != std::string_view::npos) {
                std::string reason = c.name;
                reason.append(" command contains \"").append(pat).append("\"");
                out.push_back({c.message, c.block, c.id, c.name, "system_change", std::move(reason)});
                break;
            }
    }
    if (c.failed)
        out.push_back({c.message, c.block, c.id, c.name, "error_context", c.name + " failed"});
}

// What one walk fills; a null member is skipped. Critical tools are found per round, so they need
// rounds (and options).
struct Sinks {
    std::vector<ToolRound> *rounds = nullptr;
    std::vector<CriticalTool> *critical = nullptr;
    Facts *facts = nullptr;
    const AnalysisOptions *options = nullptr;
};

void toolPass(const Transcript &t, const ConversationView &v, const Sinks &s)
{
    std::size_t chain = 0;
    bool requestSinceLast = true;
    Facts *f = s.facts;
    std::vector<CriticalTool> *critical = s.rounds && s.options ? s.critical : nullptr;
    // Views into the transcript's tool inputs (stable while t lives): a path is copied once, when new.
    std::unordered_set<std::string_view> seenRead, seenModified;
    std::string storage;
    for (std::size_t p = 0; p < v.size(); ++p) {
        detail::prefetchAhead(t, v, p);
        const std::size_t i = v.index[p];
        const Message &m = t.messages[i];
        std::size_t uses = 0;
        bool results = false;
        for (const auto &b : m.blocks) {
            uses += b.type == BlockType::ToolUse;
            results = results || b.type == BlockType::ToolResult;
        }
        const bool request = m.role == Role::User && !results;
        ToolRound *round = nullptr;
        if (s.rounds) {
            if (request) {
                requestSinceLast = true;
            } else if (m.role == Role::Assistant && uses > 0) {
                if (s.rounds->empty())
                    s.rounds->reserve(64);
                round = &s.rounds->emplace_back();
                round->assistant = i;
                round->calls.reserve(uses);
            }
        }
        if (!round && !f)
            continue;
        for (std::size_t bi = 0; bi < m.blocks.size(); ++bi) {
            const Block &b = m.blocks[bi];
            if (b.type == BlockType::ToolResult) {
                if (f && b.isError) {
                    std::string_view first = b.text;
                    first = first.substr(0, first.find('\n'));
                    f->errors.emplace_back(i, std::string(detail::trim(first)));
                }
                continue;
            }
            if (b.type != BlockType::ToolUse)
                continue;
            const ToolKind kind = toolKind(b.toolName);
            ToolCall *c = nullptr;
            if (round) {
                c = &round->calls.emplace_back();
                c->message = i;
                c->block = bi;
                c->id = b.toolId;
                c->name = b.toolName;
                c->kind = kind;
                c->resultMessage = b.pairMessage;
                c->failed = b.isError;
                if (b.pairMessage >= 0 && std::size_t(b.pairMessage) < t.messages.size() && b.pairBlock >= 0) {
                    const Message &rm = t.messages[std::size_t(b.pairMessage)];
                    if (std::size_t(b.pairBlock) < rm.blocks.size())
                        c->failed = c->failed || rm.blocks[std::size_t(b.pairBlock)].isError;
                    if (std::find(round->results.begin(), round->results.end(), std::size_t(b.pairMessage))
                        == round->results.end())
                        round->results.push_back(std::size_t(b.pairMessage));
                }
                round->failed = round->failed || c->failed;
            }
            std::string_view cmd;
            if (kind == ToolKind::Shell && (f || (c && critical)))
                cmd = detail::shellCommandView(b, storage);
            if (f) {
                if (kind == ToolKind::Read) {
                    detail::forEachToolPath(b, [&](std::string_view path) {
                        if (seenRead.insert(path).second)
                            f->filesRead.emplace_back(path);
                    });
                } else if (kind == ToolKind::Write || kind == ToolKind::Edit || kind == ToolKind::Delete) {
                    detail::forEachToolPath(b, [&](std::string_view path) {
                        if (seenModified.insert(path).second)
                            f->filesModified.emplace_back(path);
                    });
                } else if (kind == ToolKind::Shell && !cmd.empty()) {
                    f->commands.emplace_back(i, std::string(cmd));
                }
            }
            if (c && critical)
                addCritical(*c, cmd, *s.options, *critical);
        }
        if (round) {
            std::sort(round->results.begin(), round->results.end());
            if (requestSinceLast && s.rounds->size() > 1)
                ++chain;
            requestSinceLast = false;
            round->chain = chain;
        }
        if (f && request && !blankText(m)) {
            f->userRequests.emplace_back(i, m.plainText());
            f->pendingTaskIndex = std::int32_t(i);
        }
    }
    if (f) {
        if (!f->userRequests.empty())
            f->pendingTask = f->userRequests.back().second;
        // The last assistant message with text, found from the end (testing every message's text
        // for blankness cost a cache miss per message).
        for (std::size_t p = v.size(); p-- > 0;) {
            const Message &m = t.messages[v.index[p]];
            if (m.role == Role::Assistant && !blankText(m)) {
                f->currentWork = m.plainText();
                f->currentWorkIndex = std::int32_t(v.index[p]);
                break;
            }
        }
    }
}

} // namespace

std::vector<ToolRound> toolRounds(const Transcript &t, const ConversationView &v)
{
    std::vector<ToolRound> rounds;
    toolPass(t, v, {&rounds, nullptr, nullptr, nullptr});
    return rounds;
}

std::vector<CriticalTool> criticalTools(const Transcript &t, const std::vector<ToolRound> &rounds, const AnalysisOptions &o)
{
    std::vector<CriticalTool> out;
    std::size_t calls = 0;
    for (const auto &round : rounds)
        calls += round.calls.size();
    out.reserve(calls / 2); // one large allocation rather than a doubling series
    std::string storage;
    for (const auto &round : rounds)
        for (const auto &c : round.calls) {
            const std::string_view cmd = c.kind == ToolKind::Shell
                                             ? detail::shellCommandView(t.messages[c.message].blocks[c.block], storage)
                                             : std::string_view();
            addCritical(c, cmd, o, out);
        }
    return out;
}

Facts facts(const Transcript &t, const ConversationView &v)
{
    Facts f;
    toolPass(t, v, {nullptr, nullptr, &f, nullptr});
    return f;
}

void detail::toolsAndFacts(const Transcript &t, const ConversationView &v, const AnalysisOptions &o,
                           std::vector<ToolRound> &rounds, std::vector<CriticalTool> &critical, Facts &facts)
{
    critical.reserve(v.size() / 8);
    toolPass(t, v, {&rounds, &critical, &facts, &o});
}

} // namespace cl::analysis
