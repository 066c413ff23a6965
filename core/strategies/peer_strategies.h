// SPDX-License-Identifier: MIT
#pragma once

// Factories of the peer policies (peers.md): what a real agent would do to this session.
// One or two per file under core/strategies/peer_*.cpp; peer_registry.cpp lists them in menu order.

#include "core/strategy.h"

#include <memory>

namespace cl::strategy {

std::unique_ptr<Strategy> makeGeminiCli();               // peer_gemini.cpp
std::unique_ptr<Strategy> makeClaudeCodeCompact();       // peer_claude.cpp
std::unique_ptr<Strategy> makeClaudeCodeMicrocompact();  // peer_microcompact.cpp
std::unique_ptr<Strategy> makeAnthropicClearToolUses();  // peer_anthropic.cpp
std::unique_ptr<Strategy> makeAnthropicClearThinking();  // peer_anthropic.cpp
std::unique_ptr<Strategy> makeCodex();                   // peer_codex.cpp
std::unique_ptr<Strategy> makeLangChainTrimFirst();      // peer_langchain.cpp
std::unique_ptr<Strategy> makeLangChainTrimLast();       // peer_langchain.cpp
std::unique_ptr<Strategy> makeOpenHandsAmortized();      // peer_openhands.cpp
std::unique_ptr<Strategy> makeOpenHandsMasking();        // peer_openhands.cpp
std::unique_ptr<Strategy> makeCline();                   // peer_cline.cpp
std::unique_ptr<Strategy> makeSweAgent();                // peer_swe.cpp

} // namespace cl::strategy
