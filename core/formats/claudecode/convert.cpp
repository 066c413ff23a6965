// SPDX-License-Identifier: MIT
// New Claude Code lines built from the neutral model: whole-transcript conversion from another
// format, and lines a strategy inserted into a Claude Code session.
#include "core/formats/claudecode/internal.h"
#include "core/util/uuid.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <random>

namespace cl::formats::claudecode {

using nlohmann::ordered_json;

namespace {

std::uint64_t fnv1a(std::string_view s, std::uint64_t h = 1469598103934665603ull)
{
    for (const char c : s) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ull;
    }
    return h;
}

std::string headerString(const Transcript &t, std::initializer_list<const char *> keys)
{
    for (const char *k : keys)
        if (std::string v = cl::json::str(t.header, k); !v.empty())
            return v;
    return {};
}

} // namespace

Envelope envelopeFrom(const Transcript &t)
{
    Envelope env;
    env.sessionId = headerString(t, {"sessionId", "session_id", "id"});
    if (env.sessionId.empty()) {
        // Hashed where it lies: the source may be hundreds of megabytes.
        const std::string_view seed = t.buffer ? std::string_view(*t.buffer) : std::string_view(t.path);
        const std::uint64_t h = fnv1a(seed);
        env.sessionId = util::uuidFrom(h, fnv1a("#", h) ^ t.messages.size());
    }
    if (t.format == Format::ClaudeCode) {
        env.cwd = headerString(t, {"cwd"});
        if (std::string v = headerString(t, {"version"}); !v.empty())
            env.version = v;
        env.gitBranch = headerString(t, {"gitBranch"});
        env.agentFile = t.header.is_object() && t.header.value("agentFile", false);
    }
    return env;
}

bool buildsLine(const Message &m)
{
    return m.kind == MessageKind::CompactBoundary || m.kind == MessageKind::MicrocompactBoundary
           || m.isEvent() || m.role == Role::User || m.role == Role::Tool
           || m.role == Role::Assistant;
}

ordered_json buildLine(const Message &m, const Envelope &env, const std::string &uuid, const std::string &parentUuid,
                       const std::string &timestamp, std::vector<std::string> &notes)
{
    ordered_json line = ordered_json::object();
    std::string type;
    if (m.kind == MessageKind::CompactBoundary || m.kind == MessageKind::MicrocompactBoundary
        || m.isEvent()) {
        type = "system";
    } else if (m.role == Role::User || m.role == Role::Tool) {
        type = "user";
    } else if (m.role == Role::Assistant) {
        type = "assistant";
    } else {
        std::string note = std::string("skipped ") + std::string(roleName(m.role))
                           + " message(s): Claude Code sessions keep the system prompt out of the file";
        if (std::find(notes.begin(), notes.end(), note) == notes.end())
            notes.push_back(std::move(note));
        return ordered_json::object();
    }
    const bool boundary = m.kind == MessageKind::CompactBoundary;
    line["parentUuid"] = boundary || parentUuid.empty() ? ordered_json(nullptr) : ordered_json(parentUuid);
    if (boundary)
        line["logicalParentUuid"] = parentUuid.empty() ? ordered_json(nullptr) : ordered_json(parentUuid);
    line["isSidechain"] = m.sidechain || env.agentFile;
    line["userType"] = "external";
    line["cwd"] = env.cwd;
    line["sessionId"] = env.sessionId;
    line["version"] = env.version;
    line["gitBranch"] = env.gitBranch;
    if (!m.agentId.empty())
        line["agentId"] = m.agentId;
    line["type"] = type;

    if (type == "system") {
        std::string subtype = "informational";
        if (boundary)
            subtype = "compact_boundary";
        else if (m.kind == MessageKind::MicrocompactBoundary)
            subtype = "microcompact_boundary";
        else if (const auto slash = m.type.find('/'); m.type.rfind("system/", 0) == 0 && slash != std::string::npos)
            subtype = m.type.substr(slash + 1);
        line["subtype"] = subtype;
        line["content"] = boundary && m.plainText().empty() ? std::string("Conversation compacted") : m.plainText();
        line["isMeta"] = false;
        line["level"] = "info";
        if (boundary || m.kind == MessageKind::MicrocompactBoundary) {
            ordered_json meta = m.meta.is_object() ? ordered_json::parse(cl::json::dump(m.meta)) : ordered_json::object();
            meta.erase("logicalParentUuid");
            line[boundary ? "compactMetadata" : "microcompactMetadata"] = std::move(meta);
        }
    } else {
        ordered_json msg = ordered_json::object();
        if (type == "assistant") {
            msg["id"] = m.apiMessageId.empty() ? "msg_" + uuid : m.apiMessageId;
            msg["type"] = "message";
            msg["role"] = "assistant";
            msg["model"] = m.model.empty() ? std::string("<synthetic>") : m.model;
            msg["content"] = encodeBlocks(m.blocks, &notes);
            msg["stop_reason"] = nullptr;
            msg["stop_sequence"] = nullptr;
            if (m.usage)
                msg["usage"] = {{"input_tokens", m.usage->inputTokens},
                                {"cache_creation_input_tokens", m.usage->cacheCreationTokens},
                                {"cache_read_input_tokens", m.usage->cacheReadTokens},
                                {"output_tokens", m.usage->outputTokens}};
        } else {
            msg["role"] = "user";
            msg["content"] = encodeBlocks(m.blocks, &notes);
        }
        line["message"] = std::move(msg);
        if (m.isMeta)
            line["isMeta"] = true;
        if (m.kind == MessageKind::CompactSummary) {
            line["isCompactSummary"] = true;
            line["isVisibleInTranscriptOnly"] = true;
        }
    }
    line["uuid"] = uuid;
    line["timestamp"] = timestamp;
    return line;
}

WriteResult writeConversion(const Transcript &t, ByteSink &out)
{
    WriteResult r;
    const Envelope env = envelopeFrom(t);
    const std::uint64_t seed = fnv1a(env.sessionId);
    std::int64_t clock = 1735689600000; // 2025-01-01, when the source has no times at all
    for (const auto &m : t.messages)
        if (m.timeMs != kNoTime) {
            clock = m.timeMs;
            break;
        }
    std::string parent;
    std::size_t skippedEvents = 0;
    for (std::size_t i = 0; i < t.messages.size(); ++i) {
        const Message &m = t.messages[i];
        if (m.isEvent()) {
            ++skippedEvents; // another tool's events and metadata mean nothing to Claude Code
            continue;
        }
        clock = m.timeMs != kNoTime ? m.timeMs : clock + 1000;
        const std::string uuid = util::uuidFrom(seed, i + 1);
        const ordered_json line = buildLine(m, env, uuid, parent, formatTimestamp(clock), r.notes);
        if (line.empty())
            continue;
        cl::json::dumpTo(line, out);
        out += '\n';
        parent = uuid;
    }
    if (skippedEvents)
        r.notes.push_back("skipped " + std::to_string(skippedEvents) + " event/metadata item(s) of the source format");
    return r;
}

} // namespace cl::formats::claudecode
