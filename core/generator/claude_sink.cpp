// SPDX-License-Identifier: MIT
// Claude Code JSONL, written line by line the way Claude Code writes it: one line per content block
// of an API response (sharing message.id and requestId, repeating usage), one line per tool result
// with its toolUseResult, a uuid/parentUuid chain, file-history-snapshot lines before prompts, and
// compact_boundary + isCompactSummary lines when the context fills up.
#include "core/generator/claude_sink.h"

#include <algorithm>

namespace cl::gen::detail {

namespace {

ojson usageJson(const Usage &u, std::int64_t output)
{
    // clang-format off
    return ojson{{"input_tokens", u.inputTokens}, {"cache_creation_input_tokens", u.cacheCreationTokens},
        {"cache_read_input_tokens", u.cacheReadTokens},
        {"cache_creation", ojson{{"ephemeral_5m_input_tokens", u.cacheCreationTokens}, {"ephemeral_1h_input_tokens", 0}}},
        {"output_tokens", output}, {"service_tier", "standard"}};
    // clang-format on
}

} // namespace

ClaudeSink::ClaudeSink(std::uint64_t seed, const Project &p, std::string sessionId, Stats &stats)
    : m_rng(seed ^ 0xC1A0DEC0DEull)
    , m_p(p)
    , m_sessionId(std::move(sessionId))
    , m_stats(stats)
{
}

ojson ClaudeSink::envelope(const std::string &type)
{
    ojson j;
    if (m_lastUuid.empty())
        j["parentUuid"] = nullptr;
    else
        j["parentUuid"] = m_lastUuid;
    j["isSidechain"] = false;
    j["userType"] = "external";
    j["cwd"] = m_p.cwd;
    j["sessionId"] = m_sessionId;
    j["version"] = kVersion;
    j["gitBranch"] = m_p.branch;
    if (type != "assistant")
        j["type"] = type;
    return j;
}

void ClaudeSink::finish(ojson &j, const std::string &uuid, std::int64_t timeMs)
{
    j["uuid"] = uuid;
    j["timestamp"] = formatTimestamp(clock(timeMs));
}

void ClaudeSink::line(const ojson &j)
{
    m_out += j.dump(-1, ' ', false, ojson::error_handler_t::replace);
    m_out += '\n';
    ++m_stats.lines;
}

void ClaudeSink::add(Event &&e)
{
    Message &m = e.msg;
    if (m.kind == MessageKind::CompactBoundary) {
        const std::string id = uuid(m_rng);
        ojson j;
        j["parentUuid"] = nullptr;
        j["logicalParentUuid"] = m_lastUuid.empty() ? ojson(nullptr) : ojson(m_lastUuid);
        j["isSidechain"] = false;
        j["userType"] = "external";
        j["cwd"] = m_p.cwd;
        j["sessionId"] = m_sessionId;
        j["version"] = kVersion;
        j["gitBranch"] = m_p.branch;
        j["type"] = "system";
        j["subtype"] = "compact_boundary";
        j["content"] = "Conversation compacted";
        j["isMeta"] = false;
        j["timestamp"] = formatTimestamp(clock(m.timeMs));
        j["uuid"] = id;
        j["level"] = "info";
        j["compactMetadata"] = ojson{{"trigger", "auto"}, {"preTokens", e.preTokens}};
        line(j);
        m_lastUuid = id;
        return;
    }
    if (m.role == Role::User && m.kind == MessageKind::CompactSummary) {
        const std::string id = uuid(m_rng);
        ojson j = envelope("user");
        j["message"] = ojson{{"role", "user"}, {"content", m.blocks.empty() ? std::string() : m.blocks[0].text}};
        j["isVisibleInTranscriptOnly"] = true;
        j["isCompactSummary"] = true;
        finish(j, id, m.timeMs);
        line(j);
        m_lastUuid = id;
        return;
    }
    if (m.role == Role::User && !m.hasToolResult()) {
        const std::string id = uuid(m_rng);
        if (m_rng.chance(0.6)) {
            // Claude Code snapshots tracked files before each prompt (no uuid: not in the chain).
            ojson backups = ojson::object();
            const int n = m_stats.snapshots ? m_rng.range(0, 3) : 0;
            for (int i = 0; i < n; ++i) {
                const std::string &path = m_rng.pick(m_p.files).path;
                backups[path] = ojson{{"backupFileName", base62(m_rng, 16) + "@v" + std::to_string(m_rng.range(1, 6))},
                                      {"version", m_rng.range(1, 6)},
                                      {"backupTime", formatTimestamp(m.timeMs - 1000)}};
            }
            // clang-format off
            ojson s{{"type", "file-history-snapshot"}, {"messageId", id},
                {"snapshot", ojson{{"messageId", id}, {"trackedFileBackups", backups}, {"timestamp", formatTimestamp(m.timeMs)}}},
                {"isSnapshotUpdate", false}};
            // clang-format on
            line(s);
            ++m_stats.snapshots;
        }
        ojson j = envelope("user");
        j["message"] = ojson{{"role", "user"}, {"content", m.plainText()}};
        finish(j, id, m.timeMs);
        line(j);
        m_lastUuid = id;
        return;
    }
    if (m.role == Role::User) {
        // One line per tool result, as Claude Code writes them when the tools finish.
        std::int64_t t = m.timeMs;
        for (std::size_t i = 0; i < m.blocks.size(); ++i) {
            const Block &b = m.blocks[i];
            const std::string id = uuid(m_rng);
            ojson block{{"tool_use_id", b.toolId}, {"type", "tool_result"}, {"content", b.text}};
            if (b.isError || b.toolName == "Bash")
                block["is_error"] = b.isError;
            ojson j = envelope("user");
            j["message"] = ojson{{"role", "user"}, {"content", ojson::array({std::move(block)})}};
            finish(j, id, t);
            if (i < e.toolUseResults.size())
                j["toolUseResult"] = std::move(e.toolUseResults[i]);
            const auto src = m_toolSource.find(b.toolId);
            if (src != m_toolSource.end()) {
                j["sourceToolAssistantUUID"] = src->second;
                m_toolSource.erase(src);
            }
            line(j);
            m_lastUuid = id;
            t += m_rng.range(1, 40);
        }
        return;
    }
    // Assistant: each content block on its own line; usage repeated, earlier lines are snapshots
    // taken while the response was still streaming (smaller output_tokens).
    const std::string requestId = "req_011C" + base62(m_rng, 20);
    std::int64_t t = m.timeMs;
    std::size_t useIndex = 0;
    const Usage u = m.usage.value_or(Usage{});
    for (std::size_t i = 0; i < m.blocks.size(); ++i) {
        const Block &b = m.blocks[i];
        const bool last = i + 1 == m.blocks.size();
        ojson block;
        switch (b.type) {
        case BlockType::Thinking:
            block = ojson{{"type", "thinking"}, {"thinking", b.text}, {"signature", "Eq" + base62(m_rng, 180)}};
            break;
        case BlockType::ToolUse:
            block = ojson{{"type", "tool_use"}, {"id", b.toolId}, {"name", b.toolName}, {"input", useIndex < e.inputs.size() ? std::move(e.inputs[useIndex]) : ojson::object()}};
            ++useIndex;
            break;
        default:
            block = ojson{{"type", "text"}, {"text", b.text}};
            break;
        }
        const std::string id = uuid(m_rng);
        // clang-format off
        ojson msg{{"id", m.apiMessageId}, {"type", "message"}, {"role", "assistant"}, {"model", m.model},
            {"content", ojson::array({std::move(block)})},
            {"stop_reason", last ? ojson(m.hasToolUse() ? "tool_use" : "end_turn") : ojson(nullptr)},
            {"stop_sequence", nullptr},
            {"usage", usageJson(u, last ? u.outputTokens : std::min<std::int64_t>(u.outputTokens, m_rng.range(1, 30)))}};
        // clang-format on
        ojson j = envelope("assistant");
        j["message"] = std::move(msg);
        j["requestId"] = requestId;
        j["type"] = "assistant";
        finish(j, id, t);
        if (b.type == BlockType::ToolUse)
            m_toolSource[b.toolId] = id;
        line(j);
        m_lastUuid = id;
        t += m_rng.range(200, 3000);
    }
}

} // namespace cl::gen::detail
