// SPDX-License-Identifier: MIT
#pragma once

// Per-format loaders and writers. A loader receives a Transcript whose path and buffer are set and
// fills records, messages, header and diagnostics; it must never throw and never stop at a bad line.
// The shared post-processing (tool pairing, token estimates) is done by loader.cpp afterwards.
// A writer rebuilds bytes from the neutral model (used for conversions and edited transcripts) and
// hands them to a ByteSink as it goes; the WriteResult it returns carries notes and errors only.

#include "core/model/buffer.h"
#include "core/model/transcript.h"
#include "core/formats/load.h"
#include "core/formats/writeresult.h"
#include "core/util/bytesink.h"

namespace cl::formats {

struct LoadContext {
    const LoadOptions &options;
    // Loads another file with the same machinery (format detection, shared post-processing): the
    // Claude Code loader reads a session's subagent files with it. Set by core/io/loader.cpp.
    std::function<LoadResult(const std::string &path, const LoadOptions &)> loadOther;
    bool cancelled() const { return options.cancel && options.cancel->load(std::memory_order_relaxed); }
    void progress(double fraction) const
    {
        if (options.progress) options.progress(fraction);
    }
};

void loadClaudeCode(Transcript &t, const LoadContext &ctx);
void loadCodex(Transcript &t, const LoadContext &ctx);
void loadGeminiCli(Transcript &t, const LoadContext &ctx);
void loadQwenCode(Transcript &t, const LoadContext &ctx);
void loadCopilotCli(Transcript &t, const LoadContext &ctx);
void loadOpenAIChat(Transcript &t, const LoadContext &ctx);
void loadOpenAIResponses(Transcript &t, const LoadContext &ctx);
void loadAnthropic(Transcript &t, const LoadContext &ctx);
void loadGemini(Transcript &t, const LoadContext &ctx);

// Gemini API Content[] shared by the gemini loader and Gemini CLI /chat checkpoints ({history: [...]}
// or a bare array): decodes the array value that starts at byte arrayBegin of *t.buffer into one
// record and one message per Content item. Implemented in gemini.cpp.
void loadGeminiContentArray(Transcript &t, std::size_t arrayBegin, const LoadContext &ctx);
// Encodes conversation messages as Gemini Content[] (roles user/model, merged so they alternate).
nlohmann::json encodeGeminiContents(const Transcript &t, std::vector<std::string> &notes);

WriteResult writeClaudeCode(const Transcript &t, ByteSink &out);
// Appends a compaction (boundary + the conversation as a new chain) to the original lines; see core/io/export.h.
// origin: compactMetadata.contextlens, the mark of a compaction ContextLens wrote (core/workflow/undonecompaction.h).
WriteResult writeClaudeCodeCompaction(const Transcript &t, const std::string &trigger, std::int64_t preTokens,
                                      std::int64_t postTokens, ByteSink &out,
                                      const nlohmann::json &origin = nlohmann::json::object());
WriteResult writeCodex(const Transcript &t, ByteSink &out);
WriteResult writeGeminiCli(const Transcript &t, ByteSink &out);
// Same format with edits: the original lines, then one chat_compression record holding the edited
// live context (core/formats/qwencode/writer.cpp); other formats: a new session.
WriteResult writeQwenCode(const Transcript &t, ByteSink &out);
// The compression record with the token counts it states (originalTokenCount, newTokenCount: what
// Qwen Code takes as its prompt size on resume); -1: the live context figure of the original / of t.
WriteResult writeQwenCodeCompaction(const Transcript &t, std::int64_t preTokens, std::int64_t postTokens, ByteSink &out);
WriteResult writeCopilotCli(const Transcript &t, ByteSink &out);
WriteResult writeOpenAIChat(const Transcript &t, ByteSink &out);
WriteResult writeOpenAIResponses(const Transcript &t, ByteSink &out);
WriteResult writeAnthropic(const Transcript &t, ByteSink &out);
WriteResult writeGemini(const Transcript &t, ByteSink &out);

// A writer's output in memory (WriteResult::bytes filled), for tests that call one writer directly.
template <typename Writer>
WriteResult inMemory(Writer writer, const Transcript &t)
{
    ByteSink sink;
    WriteResult r = writer(t, sink);
    r.size = sink.size();
    r.bytes = sink.take();
    return r;
}

} // namespace cl::formats
