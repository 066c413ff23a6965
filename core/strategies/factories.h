// SPDX-License-Identifier: MIT
#pragma once

// One factory per strategy, each defined in the file named after its strategy. registry.cpp lists
// them in menu order. The mechanisms are described in docs/design/mechanisms.md (§9) and the real
// agents' policies in docs/design/agents.md.

#include "core/strategy/strategy.h"

#include <memory>

namespace cl::strategy {

// The project's own strategies (docs/design/mechanisms.md §9).
std::unique_ptr<Strategy> makeTrimTools();       // "trim-tools"      trim_tools.cpp
std::unique_ptr<Strategy> makeMiddleRemoval();   // "middle"          removal.cpp
std::unique_ptr<Strategy> makeOldestRemoval();   // "oldest"          removal.cpp
std::unique_ptr<Strategy> makeHybridRemoval();   // "hybrid"          removal.cpp
std::unique_ptr<Strategy> makeAutoSelect();      // "auto-select"     removal.cpp
std::unique_ptr<Strategy> makeMicrocompaction(); // "microcompaction" microcompaction.cpp
std::unique_ptr<Strategy> makeSlidingWindow();   // "sliding-window"  sliding_window.cpp
std::unique_ptr<Strategy> makeDedupeReads();     // "dedupe-reads"    dedupe_reads.cpp

// The four tiers as stand-alone strategies, and the manager that escalates through them
// (mechanisms.md §9.2–9.6; the tiers themselves are in tiers.h).
std::unique_ptr<Strategy> makeSnip();         // "snip"            snip.cpp
std::unique_ptr<Strategy> makeSnipSeed004();  // "snip-seed004"    snip.cpp
std::unique_ptr<Strategy> makeMicrocompact(); // "microcompact"    microcompact.cpp
std::unique_ptr<Strategy> makeAutoCompact();  // "auto-compact"    auto_compact.cpp
std::unique_ptr<Strategy> makeHardTruncate(); // "hard-truncate"   hard_truncate.cpp
std::unique_ptr<Strategy> makeProgressive();  // "progressive"     progressive.cpp

// What a real agent would do to this session (docs/design/agents.md).
std::unique_ptr<Strategy> makeGeminiCli();                // "gemini-cli"                    gemini_cli.cpp
std::unique_ptr<Strategy> makeClaudeCodeCompact();        // "claude-code-compact"           claude_code_compact.cpp
std::unique_ptr<Strategy> makeClaudeCodeMicrocompact();   // "claude-code-microcompact"      claude_code_microcompact.cpp
std::unique_ptr<Strategy> makeAnthropicClearToolUses();   // "anthropic-clear-tool-uses"     anthropic_clear.cpp
std::unique_ptr<Strategy> makeAnthropicClearThinking();   // "anthropic-clear-thinking"      anthropic_clear.cpp
std::unique_ptr<Strategy> makeCodex();                    // "codex"                         codex.cpp
std::unique_ptr<Strategy> makeLangChainTrimFirst();       // "langchain-trim-first"          langchain_trim.cpp
std::unique_ptr<Strategy> makeLangChainTrimLast();        // "langchain-trim-last"           langchain_trim.cpp
std::unique_ptr<Strategy> makeOpenHandsAmortized();       // "openhands-amortized"           openhands.cpp
std::unique_ptr<Strategy> makeOpenHandsMasking();         // "openhands-observation-masking" openhands.cpp
std::unique_ptr<Strategy> makeCline();                    // "cline"                         cline.cpp
std::unique_ptr<Strategy> makeSweAgent();                 // "swe-agent"                     swe_agent.cpp
std::unique_ptr<Strategy> makeQwenCodeCompress();         // "qwen-code"                     qwen_code.cpp
std::unique_ptr<Strategy> makeQwenCodeClearToolResults(); // "qwen-code-clear-tool-results" qwen_code_clear.cpp
std::unique_ptr<Strategy> makeCopilotCliCompact();        // "copilot-cli"                   copilot_cli.cpp

} // namespace cl::strategy
