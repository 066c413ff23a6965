// SPDX-License-Identifier: MIT
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace cl {

// The names are the user-visible vocabulary everywhere: CLI flags, JSON output and the GUI.
enum class Format {
    Unknown,
    ClaudeCode,
    Codex,
    GeminiCli,
    OpenAIChat,
    OpenAIResponses,
    Anthropic,
    Gemini,
    QwenCode,
    CopilotCli // the last value: kFormatSlots follows it
};
// One past the last value: arrays indexed by Format (Unknown included).
inline constexpr int kFormatSlots = static_cast<int>(Format::CopilotCli) + 1;

std::string_view formatName(Format f); // "claude-code", "codex", ... ; "unknown"
std::optional<Format> formatFromName(std::string_view name);
const std::vector<Format> &allFormats(); // every real format, in a stable order
bool isApiFormat(Format f);              // anthropic, openai-chat, openai-responses, gemini
// The agent that writes a session format, as users name it ("Claude Code", "Codex CLI", "Gemini CLI",
// "Qwen Code", "Copilot CLI"); empty for the API formats.
std::string_view agentTitle(Format f);
bool isJsonLines(Format f); // claude-code, codex, gemini-cli, qwen-code, copilot-cli (JSONL flavour)

} // namespace cl
