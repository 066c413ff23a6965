// SPDX-License-Identifier: MIT
#include "core/strategies/registry.h"

#include "core/strategies/factories.h"

#include <memory>

namespace cl::strategy {

const std::vector<const Strategy *> &all()
{
    static const std::vector<std::unique_ptr<Strategy>> owned = [] {
        std::vector<std::unique_ptr<Strategy>> v;
        v.push_back(makeTrimTools());
        v.push_back(makeMiddleRemoval());
        v.push_back(makeOldestRemoval());
        v.push_back(makeHybridRemoval());
        v.push_back(makeAutoSelect());
        v.push_back(makeMicrocompaction());
        v.push_back(makeSlidingWindow());
        v.push_back(makeDedupeReads());

        v.push_back(makeSnip());
        v.push_back(makeSnipSeed004());
        v.push_back(makeMicrocompact());
        v.push_back(makeAutoCompact());
        v.push_back(makeHardTruncate());
        v.push_back(makeProgressive());

        v.push_back(makeGeminiCli());
        v.push_back(makeClaudeCodeCompact());
        v.push_back(makeClaudeCodeMicrocompact());
        v.push_back(makeAnthropicClearToolUses());
        v.push_back(makeAnthropicClearThinking());
        v.push_back(makeCodex());
        v.push_back(makeLangChainTrimFirst());
        v.push_back(makeLangChainTrimLast());
        v.push_back(makeOpenHandsAmortized());
        v.push_back(makeOpenHandsMasking());
        v.push_back(makeCline());
        v.push_back(makeSweAgent());
        v.push_back(makeQwenCodeCompress());
        v.push_back(makeQwenCodeClearToolResults());
        v.push_back(makeCopilotCliCompact());
        return v;
    }();
    static const std::vector<const Strategy *> list = [] {
        std::vector<const Strategy *> v;
        for (const auto &s : owned)
            v.push_back(s.get());
        return v;
    }();
    return list;
}

const Strategy *find(std::string_view name)
{
    for (const Strategy *s : all())
        if (s->name() == name)
            return s;
    return nullptr;
}

} // namespace cl::strategy
