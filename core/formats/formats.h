// SPDX-License-Identifier: MIT
#pragma once

// Per-format loaders and writers. A loader receives a Transcript whose path and buffer are set and
// fills records, messages, header and diagnostics; it must never throw and never stop at a bad line.
// The shared post-processing (tool pairing, token estimates) is done by loader.cpp afterwards.
// A writer rebuilds bytes from the neutral model (used for conversions and edited transcripts).

#include "core/loader.h"
#include "core/transcript.h"
#include "core/writer.h"

namespace cl::formats {

struct LoadContext {
    const LoadOptions &options;
    bool cancelled() const { return options.cancel && options.cancel->load(std::memory_order_relaxed); }
    void progress(double fraction) const { if (options.progress) options.progress(fraction); }
};

void loadClaudeCode(Transcript &t, const LoadContext &ctx);
void loadCodex(Transcript &t, const LoadContext &ctx);
void loadGeminiCli(Transcript &t, const LoadContext &ctx);
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

WriteResult writeClaudeCode(const Transcript &t);
// Appends a compaction (boundary + the conversation as a new chain) to the original lines; see core/export.h.
WriteResult writeClaudeCodeCompaction(const Transcript &t, const std::string &trigger, std::int64_t preTokens,
                                      std::int64_t postTokens);
WriteResult writeCodex(const Transcript &t);
WriteResult writeGeminiCli(const Transcript &t);
WriteResult writeOpenAIChat(const Transcript &t);
WriteResult writeOpenAIResponses(const Transcript &t);
WriteResult writeAnthropic(const Transcript &t);
WriteResult writeGemini(const Transcript &t);

} // namespace cl::formats
