// SPDX-License-Identifier: MIT
#include "core/strategies/registry.h"
#include "core/strategies/peer_strategies.h"

namespace cl::strategy {

void addPeerStrategies(std::vector<std::unique_ptr<Strategy>> &out)
{
    out.push_back(makeGeminiCli());
    out.push_back(makeClaudeCodeCompact());
    out.push_back(makeClaudeCodeMicrocompact());
    out.push_back(makeAnthropicClearToolUses());
    out.push_back(makeAnthropicClearThinking());
    out.push_back(makeCodex());
    out.push_back(makeLangChainTrimFirst());
    out.push_back(makeLangChainTrimLast());
    out.push_back(makeOpenHandsAmortized());
    out.push_back(makeOpenHandsMasking());
    out.push_back(makeCline());
    out.push_back(makeSweAgent());
}

} // namespace cl::strategy
