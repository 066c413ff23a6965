// SPDX-License-Identifier: MIT
#include "core/generator/generator.h"

#include "core/generator/claude_sink.h"
#include "core/generator/internal.h"
#include "core/io/writer.h"

#include <cmath>
#include <map>

namespace cl::gen {

namespace {

using namespace detail;

// Tool names each agent family uses for the same actions, so a Gemini or OpenAI transcript does
// not look like a Claude Code one with the labels swapped.
std::string toolNameFor(Format f, const std::string &claudeName)
{
    // clang-format off
    struct Row { const char *claude, *gemini, *openai, *copilot; };
    static const Row rows[] = {{"Read", "read_file", "read_file", "view"}, {"Grep", "search_file_content", "grep", "grep"},
        {"Glob", "glob", "list_files", "glob"}, {"Bash", "run_shell_command", "shell", "bash"}, {"Edit", "replace", "edit_file", "edit"},
        {"Write", "write_file", "write_file", "create"}, {"TodoWrite", "write_todos", "update_plan", "sql"}};
    // clang-format on
    for (const auto &r : rows) {
        if (claudeName != r.claude)
            continue;
        if (f == Format::GeminiCli || f == Format::Gemini || f == Format::QwenCode)
            return r.gemini;
        if (f == Format::Codex || f == Format::OpenAIChat || f == Format::OpenAIResponses)
            return r.openai;
        if (f == Format::CopilotCli)
            return r.copilot;
    }
    return claudeName;
}

std::string modelFor(Format f)
{
    switch (f) {
    case Format::Codex:
    case Format::OpenAIChat:
    case Format::OpenAIResponses: return "gpt-5-codex";
    case Format::GeminiCli:
    case Format::Gemini: return "gemini-2.5-pro";
    case Format::QwenCode: return "qwen3-coder-plus";
    case Format::CopilotCli: return "gpt-4.1";
    default: return "claude-sonnet-4-5-20250929";
    }
}

// Collects the neutral model; counts bytes roughly like a JSON serialization would.
class NeutralSink final : public Sink
{
public:
    NeutralSink(Transcript &t, Format target)
        : m_t(t)
        , m_target(target)
    {}
    void add(Event &&e) override
    {
        Message m = std::move(e.msg);
        std::size_t use = 0;
        for (auto &b : m.blocks) {
            m_bytes += b.text.size() + b.text.size() / 12 + 60; // escapes + block framing
            if (b.type == BlockType::ToolUse) {
                if (use < e.inputs.size()) {
                    const std::string dumped = e.inputs[use].dump();
                    m_bytes += dumped.size() + dumped.size() / 8;
                    b.input = nlohmann::json::parse(dumped, nullptr, false);
                }
                ++use;
            }
            if (b.type == BlockType::ToolUse || b.type == BlockType::ToolResult) {
                b.toolName = toolNameFor(m_target, b.toolName);
                b.toolId = toolIdFor(b, m.timeMs);
            }
        }
        m_bytes += 120;
        m.line = std::uint32_t(m_t.messages.size() + 1);
        m_t.messages.push_back(std::move(m));
    }
    std::size_t bytes() const override { return m_bytes; }

private:
    // Call ids as each family spells them: OpenAI "call_…", Gemini CLI "<tool>-<ms>-<suffix>".
    std::string toolIdFor(const Block &b, std::int64_t timeMs)
    {
        const std::string suffix = b.toolId.size() > 8 ? b.toolId.substr(8) : b.toolId;
        if (b.type == BlockType::ToolResult) {
            const auto it = m_ids.find(b.toolId);
            return it == m_ids.end() ? b.toolId : it->second;
        }
        std::string id = b.toolId;
        if (m_target == Format::Codex || m_target == Format::OpenAIChat || m_target == Format::OpenAIResponses
            || m_target == Format::QwenCode || m_target == Format::CopilotCli)
            id = "call_" + suffix;
        else if (m_target == Format::GeminiCli || m_target == Format::Gemini)
            id = b.toolName + "-" + std::to_string(timeMs) + "-" + suffix.substr(0, 12);
        m_ids[b.toolId] = id;
        return id;
    }

    std::map<std::string, std::string> m_ids; // original tool_use id -> the family's spelling
    Transcript &m_t;
    Format m_target;
    std::size_t m_bytes = 0;
};

struct Setup {
    Rng rng;
    Project project;
    std::int64_t startMs;
    std::string sessionId;
    explicit Setup(const Options &o)
        : rng(o.seed)
        , project(makeProject(rng))
    {
        if (!o.cwd.empty())
            project.cwd = o.cwd;
        // Some day in 2025, 08:00-11:00 UTC.
        startMs = (1735689600LL + std::int64_t(rng.below(330)) * 86400 + 8 * 3600 + std::int64_t(rng.below(3 * 3600))) * 1000;
        sessionId = uuid(rng);
    }
};

Transcript buildNeutral(const Options &o, std::size_t targetBytes, Stats &stats)
{
    Setup s(o);
    Transcript t;
    t.format = Format::Unknown; // synthesized: writers must build everything from the messages
    t.path = "generated";
    t.header = nlohmann::json{{"sessionId", s.sessionId}, {"model", modelFor(o.format)}, {"cwd", s.project.cwd}, {"generator", "contextlens"}};
    Message sys;
    sys.role = Role::System;
    sys.type = "system";
    sys.timeMs = s.startMs;
    sys.timestamp = formatTimestamp(s.startMs);
    Block b;
    b.text = "You are a coding agent working in " + s.project.cwd + " (git branch " + s.project.branch
             + "). Use the tools to read, search and edit files and to run commands. Keep answers short.";
    sys.blocks.push_back(std::move(b));
    t.messages.push_back(std::move(sys));
    NeutralSink sink(t, o.format);
    SessionLimits limits;
    limits.messages = o.messages;
    limits.bytes = o.messages ? 0 : targetBytes;
    runSession(o, limits, s.rng, s.project, s.startMs, modelFor(o.format), sink, stats);
    for (std::size_t i = 0; i < t.messages.size(); ++i)
        t.messages[i].line = std::uint32_t(i + 1);
    return t;
}

std::string generateClaude(const Options &o, Stats &stats)
{
    Setup s(o);
    ClaudeSink sink(o.seed, s.project, s.sessionId, stats);
    SessionLimits limits;
    limits.messages = o.messages;
    limits.bytes = o.messages ? 0 : o.targetBytes;
    limits.compaction = true;
    if (limits.bytes)
        sink.reserve(limits.bytes + limits.bytes / 16);
    runSession(o, limits, s.rng, s.project, s.startMs, modelFor(Format::ClaudeCode), sink, stats);
    std::string out = sink.take();
    stats.bytes = out.size();
    return out;
}

} // namespace

Transcript generateTranscript(const Options &options, Stats *stats)
{
    Stats local;
    Transcript t = buildNeutral(options, options.targetBytes, local);
    if (stats)
        *stats = local;
    return t;
}

std::string generate(const Options &options, Stats *stats, std::string *error)
{
    Stats local;
    if (options.messages == 0 && options.targetBytes == 0) {
        if (error)
            *error = "give a message count or a target size";
        return {};
    }
    if (options.format == Format::ClaudeCode) {
        std::string out = generateClaude(options, local);
        if (stats)
            *stats = local;
        return out;
    }
    if (options.format == Format::Unknown) {
        if (error)
            *error = "unknown format";
        return {};
    }
    // Other formats: the writer decides the final size, so aim, measure, and aim again once.
    std::size_t aim = options.targetBytes;
    WriteResult w;
    for (int pass = 0; pass < 3; ++pass) {
        local = Stats{};
        const Transcript t = buildNeutral(options, aim, local);
        w = writeTranscript(t, options.format);
        if (!w.ok) {
            if (error)
                *error = std::string(formatName(options.format)) + " writer: " + w.error;
            return {};
        }
        if (options.messages || w.bytes.empty())
            break;
        const double ratio = double(w.bytes.size()) / double(options.targetBytes);
        if (std::fabs(ratio - 1.0) < 0.04)
            break;
        aim = std::size_t(double(aim) / ratio);
    }
    local.bytes = w.bytes.size();
    if (stats)
        *stats = local;
    return std::move(w.bytes);
}

} // namespace cl::gen
