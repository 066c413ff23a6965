// SPDX-License-Identifier: MIT
// Qwen Code session writer. Qwen Code never rewrites a session's lines: it records a change of what
// the model sees (its own compression) as one chat_compression record whose compressedHistory is
// the whole new history, and rebuilds its history on resume from the last such record plus the
// records after it. An edited Qwen Code session is written the same way: every original line byte
// for byte, then one chat_compression record holding the edited live context, chained to the last
// record the agent would resume from. Other formats become a new session: one record per turn,
// and when the source holds history from before a compaction, that history as records followed by
// a chat_compression record holding the live context.
#include "core/formats/api/common.h"
#include "core/formats/formats.h"
#include "core/formats/qwencode/internal.h"
#include "core/tokens/contextfigure.h"
#include "core/util/uuid.h"

#include <algorithm>
#include <chrono>

namespace cl::formats {

namespace qwencode {

bool outsideChain(std::string_view subtype)
{
    return subtype == "session_artifact_event" || subtype == "session_artifact_snapshot" || subtype == "session_sources_snapshot"
           || subtype.rfind("managed_session_", 0) == 0;
}

nlohmann::json compressionInfo(const nlohmann::json &payload)
{
    nlohmann::json out = nlohmann::json::object();
    if (const auto *info = cl::json::object(payload, "info"))
        for (const char *k : {"originalTokenCount", "newTokenCount", "compressionStatus", "newTokenCountIsEstimated"})
            if (const auto *v = cl::json::child(*info, k); v && v->is_primitive())
                out[k] = *v;
    return out;
}

} // namespace qwencode

namespace qwencode {
namespace {

using ojson = nlohmann::ordered_json;
using Json = nlohmann::json;

struct Envelope {
    std::string sessionId, cwd, version, gitBranch;
};

std::string headerString(const Transcript &t, std::initializer_list<const char *> keys)
{
    for (const char *k : keys)
        if (std::string v = cl::json::str(t.header, k); !v.empty())
            return v;
    return {};
}

std::uint64_t contentHash(const Transcript &t)
{
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : t.buffer ? std::string_view(*t.buffer) : std::string_view(t.path))
        h = (h ^ c) * 1099511628211ull;
    return h;
}

Envelope envelopeOf(const Transcript &t)
{
    Envelope env;
    env.sessionId = headerString(t, {"sessionId", "session_id", "id"});
    if (env.sessionId.empty())
        env.sessionId = util::uuidFrom(contentHash(t), t.messages.size());
    env.cwd = headerString(t, {"cwd"});
    if (env.cwd.empty())
        env.cwd = "/";
    env.version = t.format == Format::QwenCode ? headerString(t, {"version"}) : std::string();
    if (env.version.empty())
        env.version = "contextlens";
    env.gitBranch = headerString(t, {"gitBranch"});
    return env;
}

ojson record(const Envelope &env, const std::string &uuid, const std::string &parent, const std::string &timestamp,
             const char *type)
{
    ojson o = ojson::object();
    o["uuid"] = uuid;
    o["parentUuid"] = parent.empty() ? ojson() : ojson(parent);
    o["sessionId"] = env.sessionId;
    o["timestamp"] = timestamp;
    o["type"] = type;
    o["cwd"] = env.cwd;
    o["version"] = env.version;
    if (!env.gitBranch.empty())
        o["gitBranch"] = env.gitBranch;
    return o;
}

void writeLine(const ojson &o, ByteSink &sink)
{
    cl::json::dumpTo(o, sink);
    sink += '\n';
}

std::string now()
{
    return formatTimestamp(std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

ojson compressionRecord(const Transcript &t, const Envelope &env, const std::string &parent, std::int64_t pre,
                        std::int64_t post, std::vector<std::string> &notes)
{
    Json contents = encodeGeminiContents(t, notes);
    ojson o = record(env, util::randomUuid(), parent, now(), "system");
    o["subtype"] = "chat_compression";
    ojson info = ojson::object();
    info["originalTokenCount"] = pre;
    info["newTokenCount"] = post;
    info["compressionStatus"] = 1; // COMPRESSED
    info["newTokenCountIsEstimated"] = true;
    ojson payload = ojson::object();
    payload["info"] = std::move(info);
    // Qwen Code lists here the calls of a finished goal turn (its goal mode), none for a compression of its own.
    payload["completedToolCallIds"] = ojson::array();
    payload["compressedHistory"] = ojson::parse(cl::json::dump(contents));
    o["systemPayload"] = std::move(payload);
    return o;
}

// The uuid Qwen Code's chain walk starts from: the last record that takes part in the chain.
std::string leafUuid(std::string_view buf)
{
    const auto spans = cl::json::splitLines(buf);
    for (std::size_t i = spans.size(); i-- > 0;) {
        Json o;
        std::string err;
        if (cl::json::parse(buf.substr(spans[i].offset, spans[i].contentLength), o, err) == cl::json::ParseStatus::Failed
            || !o.is_object())
            continue;
        const std::string uuid = cl::json::str(o, "uuid");
        if (!uuid.empty() && !(cl::json::str(o, "type") == "system" && qwencode::outsideChain(cl::json::str(o, "subtype"))))
            return uuid;
    }
    return {};
}

// The live context of the file as read: what the compression record replaces.
std::int64_t originalFigure(const Transcript &edited)
{
    Transcript orig;
    orig.format = Format::QwenCode;
    orig.path = edited.path;
    orig.buffer = edited.buffer;
    LoadOptions lo;
    LoadContext ctx{lo, {}};
    loadQwenCode(orig, ctx);
    linkToolPairs(orig);
    markLiveContext(orig);
    return tokens::contextFigure(orig).total;
}

// ---- a new session from another format ----

const char *recordType(const Message &m)
{
    if (m.role == Role::Assistant)
        return "assistant";
    const bool results = !m.blocks.empty() && std::all_of(m.blocks.begin(), m.blocks.end(), [](const Block &b) {
        return b.type == BlockType::ToolResult;
    });
    return results || m.role == Role::Tool ? "tool_result" : "user";
}

WriteResult convert(const Transcript &t, ByteSink &sink)
{
    WriteResult r;
    const Envelope env = envelopeOf(t);
    const std::uint64_t seed = contentHash(t);
    std::string parent;
    std::int64_t clock = kNoTime;
    std::size_t n = 0, skipped = 0;
    bool history = false;
    for (const auto &m : t.messages) {
        history = history || (m.history && m.isTurn());
        if (m.timeMs != kNoTime && clock == kNoTime)
            clock = m.timeMs;
    }
    if (clock == kNoTime)
        clock = 0;
    auto emit = [&](const Message &m) {
        if (m.role == Role::System || m.sidechain) {
            ++skipped;
            return;
        }
        const Json *sigs = cl::json::object(m.meta, "thoughtSignatures");
        Json parts = api::encodeGeminiParts(m.blocks, sigs ? *sigs : Json(), r.notes);
        if (parts.empty())
            return;
        if (m.timeMs != kNoTime)
            clock = std::max(clock, m.timeMs);
        const std::string uuid = util::uuidFrom(seed, ++n);
        const char *type = recordType(m);
        ojson o = record(env, uuid, parent, formatTimestamp(clock), type);
        if (m.role == Role::Assistant && !m.model.empty())
            o["model"] = m.model;
        ojson message = ojson::object();
        message["role"] = m.role == Role::Assistant ? "model" : "user";
        message["parts"] = ojson::parse(cl::json::dump(parts));
        o["message"] = std::move(message);
        if (m.role == Role::Assistant && m.usage) {
            const Usage &u = *m.usage;
            const std::int64_t prompt = u.inputTokens + u.cacheReadTokens + u.cacheCreationTokens;
            ojson usage = ojson::object();
            usage["promptTokenCount"] = prompt;
            usage["candidatesTokenCount"] = u.outputTokens;
            usage["thoughtsTokenCount"] = u.reasoningTokens;
            usage["totalTokenCount"] = prompt + u.outputTokens + u.reasoningTokens;
            usage["cachedContentTokenCount"] = u.cacheReadTokens;
            o["usageMetadata"] = std::move(usage);
            if (u.contextWindow > 0)
                o["contextWindowSize"] = u.contextWindow;
        }
        writeLine(o, sink);
        parent = uuid;
    };
    for (const auto &m : t.messages) {
        if (!m.isTurn()) {
            ++skipped;
            continue;
        }
        if (!history || m.history)
            emit(m);
    }
    if (history) {
        // The seed estimates of the whole conversation and of what stays live.
        std::int64_t pre = 0, post = 0;
        for (const auto &m : t.messages)
            if (m.isTurn() && !m.sidechain) {
                pre += tokens::estimateMessage(m);
                post += m.history ? 0 : tokens::estimateMessage(m);
            }
        writeLine(compressionRecord(t, env, parent, pre, post, r.notes), sink);
        r.notes.push_back("history from before the last compaction written as records, the live context as a compression record");
    }
    if (skipped)
        r.notes.push_back(std::to_string(skipped) + " system prompt, event and metadata messages not written (Qwen Code records none)");
    return r;
}

} // namespace
} // namespace qwencode

WriteResult writeQwenCodeCompaction(const Transcript &t, std::int64_t preTokens, std::int64_t postTokens, ByteSink &out)
{
    WriteResult r;
    const std::string_view buf = *t.buffer;
    out += buf;
    if (!buf.empty() && buf.back() != '\n')
        out += '\n';
    if (preTokens < 0)
        preTokens = qwencode::originalFigure(t);
    if (postTokens < 0)
        postTokens = tokens::contextFigure(t).total;
    const std::string parent = qwencode::leafUuid(buf);
    if (parent.empty())
        r.notes.push_back("no record to chain the compression to: Qwen Code starts its history from it");
    qwencode::writeLine(qwencode::compressionRecord(t, qwencode::envelopeOf(t), parent, preTokens, postTokens, r.notes), out);
    return r;
}

WriteResult writeQwenCode(const Transcript &t, ByteSink &out)
{
    if (t.format == Format::QwenCode && t.buffer && !t.hasEdits()) {
        out += *t.buffer;
        return {};
    }
    if (t.format == Format::QwenCode && t.buffer)
        return writeQwenCodeCompaction(t, -1, -1, out);
    return qwencode::convert(t, out);
}

} // namespace cl::formats
