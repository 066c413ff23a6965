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
    CopilotCli // GitHub Copilot CLI events.jsonl; last, so kFormatCount follows it
};
inline constexpr int kFormatCount = int(Format::CopilotCli) + 1; // Unknown included

std::string_view formatName(Format f); // "claude-code", "codex", ... ; "unknown"
std::optional<Format> formatFromName(std::string_view name);
const std::vector<Format> &allFormats(); // every real format, in a stable order
bool isApiFormat(Format f);              // anthropic, openai-chat, openai-responses, gemini
bool isJsonLines(Format f);              // claude-code, codex, gemini-cli, copilot-cli (JSONL flavour)

} // namespace cl
