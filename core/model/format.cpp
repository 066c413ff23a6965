// SPDX-License-Identifier: MIT
#include "core/model/format.h"

#include <array>
#include <utility>

namespace cl {

namespace {
constexpr std::array<std::pair<Format, std::string_view>, 9> kNames{{
    {Format::ClaudeCode, "claude-code"},
    {Format::Codex, "codex"},
    {Format::GeminiCli, "gemini-cli"},
    {Format::QwenCode, "qwen-code"},
    {Format::CopilotCli, "copilot-cli"},
    {Format::OpenAIChat, "openai-chat"},
    {Format::OpenAIResponses, "openai-responses"},
    {Format::Anthropic, "anthropic"},
    {Format::Gemini, "gemini"},
}};
} // namespace

std::string_view formatName(Format f)
{
    for (const auto &[fmt, name] : kNames)
        if (fmt == f)
            return name;
    return "unknown";
}

std::optional<Format> formatFromName(std::string_view name)
{
    for (const auto &[fmt, n] : kNames)
        if (n == name)
            return fmt;
    return std::nullopt;
}

const std::vector<Format> &allFormats()
{
    static const std::vector<Format> all = [] {
        std::vector<Format> v;
        for (const auto &p : kNames)
            v.push_back(p.first);
        return v;
    }();
    return all;
}

bool isApiFormat(Format f)
{
    return f == Format::Anthropic || f == Format::OpenAIChat || f == Format::OpenAIResponses || f == Format::Gemini;
}

std::string_view agentTitle(Format f)
{
    switch (f) {
    case Format::ClaudeCode: return "Claude Code";
    case Format::Codex: return "Codex CLI";
    case Format::GeminiCli: return "Gemini CLI";
    case Format::QwenCode: return "Qwen Code";
    case Format::CopilotCli: return "Copilot CLI";
    default: return {};
    }
}

bool isJsonLines(Format f)
{
    return f == Format::ClaudeCode || f == Format::Codex || f == Format::GeminiCli || f == Format::QwenCode
           || f == Format::CopilotCli;
}

} // namespace cl
