// SPDX-License-Identifier: MIT
#include "core/export.h"

#include "core/formats/formats.h"
#include "core/tokens.h"

namespace cl {

WriteResult exportTranscript(const Transcript &t, Format target, const ExportOptions &o)
{
    if (target == Format::ClaudeCode && t.format == Format::ClaudeCode && o.compactionStyle && t.hasEdits() && t.buffer) {
        std::int64_t pre = o.preTokens;
        if (pre < 0) {
            // The original conversation: every decoded line of the file, as the loader estimated it.
            pre = 0;
            for (const auto &m : t.messages)
                if (!m.edited && m.isConversation() && !m.sidechain)
                    pre += tokens::estimateMessage(m);
        }
        return formats::writeClaudeCodeCompaction(t, o.trigger, pre, tokens::totalEstimate(t));
    }
    return writeTranscript(t, target);
}

} // namespace cl
