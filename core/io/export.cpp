// SPDX-License-Identifier: MIT
#include "core/io/export.h"

#include "core/formats/formats.h"
#include "core/io/loader.h"
#include "core/tokens/estimator.h"

namespace cl {

WriteResult exportTranscript(const Transcript &t, Format target, const ExportOptions &o, ByteSink &out)
{
    if (target == Format::ClaudeCode && t.format == Format::ClaudeCode && o.compactionStyle && t.hasEdits() && t.buffer) {
        std::int64_t pre = o.preTokens;
        if (pre < 0) {
            // What the strategy started from: the original file's conversation (strategies see all
            // of it, earlier compactions included; the result is never larger, so preTokens >=
            // postTokens). `t` holds the result, so the original lines are decoded again.
            LoadOptions lo;
            lo.format = Format::ClaudeCode;
            lo.loadSubagents = false;
            const LoadResult orig = loadBytes(*t.buffer, t.path, lo);
            pre = orig.transcript ? tokens::totalEstimate(*orig.transcript) : 0;
        }
        // postTokens -1: the writer counts the context it appends.
        try {
            return finishWrite(formats::writeClaudeCodeCompaction(t, o.trigger, pre, -1, out, o.origin), out);
        } catch (const std::exception &e) {
            return failedWrite(target, e);
        }
    }
    return writeTranscript(t, target, out);
}

WriteResult exportTranscript(const Transcript &t, Format target, const ExportOptions &options)
{
    ByteSink sink;
    WriteResult r = exportTranscript(t, target, options, sink);
    r.bytes = sink.take();
    return r;
}

} // namespace cl
