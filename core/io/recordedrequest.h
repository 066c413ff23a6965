// SPDX-License-Identifier: MIT
#pragma once

// A request of a recording (`contextlens-cli record`, docs/recording-format.md) opened like a
// session file: its body is a document of its wire API (anthropic, openai-chat, openai-responses,
// gemini), loaded with that format's loader, so the system prompt, the tool definitions and the
// messages are exactly what the model was sent; the answer that came back is appended as the
// assistant's message with the usage the provider measured. "rec.jsonl#12" names request 12 of
// rec.jsonl (numbered from 1 in file order); "rec.jsonl" alone the last request of the agent's own
// loop (recording::pick).

#include "core/formats/load.h"
#include "core/formats/recording/compactioncall.h"
#include "core/formats/recording/recording.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cl {

struct RequestPath {
    std::string file;
    std::size_t request = 0;
};
// "file#N" split; nullopt when the path does not end in '#' and digits.
std::optional<RequestPath> splitRequestPath(const std::string &path);
std::string requestPath(const std::string &file, std::size_t request);

// Loads request `opts.request` of the recording in `bytes` (read from `file`). The answer, when it
// could be read, is written into the request's document as its API's next assistant turn, and that
// document is loaded (so an export is the request with its answer); the provider's measured usage
// is on that last message. The transcript's path is requestPath(file, N); Transcript::recording says
// which request and how it went ("answered": the last message is the answer). An exchange that is
// not a model call, or whose body cannot be read, fails with an error naming it.
LoadResult loadRecordedRequest(std::string_view bytes, const std::string &file, const LoadOptions &opts);

// One line per request of a recording, for the request list (CLI `requests`, the window's Requests).
struct RequestSummary {
    std::size_t number = 0, run = 0;
    std::int64_t id = 0;
    std::string time, method, path;
    Format api = Format::Unknown; // Unknown: not a model call
    std::string model;
    int status = 0;                                                   // 0: no response recorded
    std::size_t messages = 0;                                         // conversation messages sent
    std::size_t tools = 0;                                            // tool definitions sent
    std::int64_t systemTokens = 0, toolTokens = 0, messageTokens = 0; // ContextLens's estimate of each part
    std::int64_t estimate = 0;                                        // the context figure of the request (fixed + conversation)
    std::optional<Usage> usage;                                       // what the provider measured for it
    std::string stopReason;
    std::size_t answerBlocks = 0, answerToolCalls = 0;
    std::optional<std::int64_t> firstByteMs, totalMs;
    std::string error;      // the exchange's failure, the provider's error or why the body was not read
    std::string session;    // the agent's session id the request names (recording::sessionIdOf), else ""
    std::string compaction; // "Claude Code compaction", "Gemini CLI compaction (check)", … ; "" when not one
    // Compaction on the wire: what the strategy made of the request (its body left out). When the
    // compacted request went upstream, the figures above are of it: what the model saw.
    std::optional<recording::Rewrite> rewrite;
    // The session file's message that is this request's answer (io/requestsession.h), -1 when not linked.
    std::int64_t sessionMessage = -1;
};
struct RecordingSummary {
    std::vector<RequestSummary> requests;
    std::vector<Diagnostic> diagnostics;
    std::size_t modelCalls = 0;
};
// Each request loaded in turn (memory stays that of one request). opts.progress is told after each
// request; opts.cancel stops between requests.
RecordingSummary summarizeRecording(std::string_view bytes, const std::string &file, const LoadOptions &opts = {});
// A recording file's bytes; false with error ("FILE: why") when it cannot be read or is not a recording.
bool readRecordingFile(const std::string &file, std::string &bytes, std::string &error);
// The agent's own compaction calls of a recording file (recording/compactioncall.h); false with
// error ("FILE: why") when it cannot be read or is not a recording.
bool readCompactionCalls(const std::string &file, std::vector<recording::CompactionCall> &out, std::string &error);
// The words a request list names a compaction call with ("Codex compaction (auto)").
std::string compactionLabel(const recording::CompactionCall &call);

// The same for the file itself; false with error ("FILE: why") when it cannot be read or is not a
// recording.
bool summarizeRecordingFile(const std::string &file, RecordingSummary &out, std::string &error, const LoadOptions &opts = {});

} // namespace cl
