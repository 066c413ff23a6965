// SPDX-License-Identifier: MIT
#include "core/io/loader.h"

#include "core/analysis/analysis.h"
#include "core/formats/formats.h"
#include "core/io/filebytes.h"
#include "core/io/recordedrequest.h"
#include "core/util/json.h"
#include "core/io/textencoding.h"
#include "core/tokens/estimator.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace cl {

namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";
constexpr std::size_t kMaxDetectLine = std::size_t(1) << 20;

std::string_view trimStart(std::string_view s)
{
    if (s.substr(0, kBom.size()) == kBom)
        s.remove_prefix(kBom.size());
    while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\r' || s.front() == '\t'))
        s.remove_prefix(1);
    return s;
}

bool looksBinary(std::string_view bytes)
{
    return text::sniff(bytes).encoding == text::Encoding::Binary;
}

const std::set<std::string, std::less<>> &claudeLineTypes()
{
    static const std::set<std::string, std::less<>> types{"user", "assistant", "system", "attachment", "summary",
                                                          "file-history-snapshot", "queue-operation", "progress", "last-prompt", "ai-title", "custom-title",
                                                          "agent-name", "pr-link", "mode", "permission-mode", "bridge-session", "worktree-state"};
    return types;
}

// Classifies one JSONL line object; Unknown when it says nothing.
Format classifyLine(const json::json &o)
{
    if (!o.is_object())
        return Format::Unknown;
    const std::string type = json::str(o, "type");
    // GitHub Copilot CLI events: {type: "session.start" | "user.message" | ..., data, id, timestamp, parentId}.
    if (const json::json *data = json::object(o, "data")) {
        if (type == "session.start" && json::str(*data, "producer") == "copilot-agent")
            return Format::CopilotCli;
        if (o.contains("parentId") && o.contains("id") && type.find('.') != std::string::npos)
            return Format::CopilotCli;
    }
    if (o.contains("payload") && !type.empty() && o.contains("timestamp"))
        return Format::Codex;
    // Qwen Code: Claude Code's envelope around a Gemini Content (message.parts), system records with a payload.
    if ((o.contains("uuid") || o.contains("parentUuid"))
        && (type == "tool_result" || o.contains("systemPayload") || o.contains("provenance")
            || (json::object(o, "message") && json::array(*json::object(o, "message"), "parts"))))
        return Format::QwenCode;
    if (o.contains("uuid") || o.contains("parentUuid") || o.contains("leafUuid")
        || (o.contains("message") && claudeLineTypes().count(type))
        || (o.contains("sessionId") && claudeLineTypes().count(type) && type != "user"))
        return Format::ClaudeCode;
    if ((o.contains("sessionId") && o.contains("projectHash")) || o.contains("$set") || o.contains("$rewindTo"))
        return Format::GeminiCli;
    if (o.contains("id") && (type == "gemini" || type == "info" || type == "warning" || type == "error"))
        return Format::GeminiCli;
    if (o.contains("id") && type == "user" && o.contains("content") && !o.contains("message"))
        return Format::GeminiCli;
    return Format::Unknown;
}

bool blocksMention(const json::json &messages, std::initializer_list<std::string_view> blockTypes)
{
    for (const auto &m : messages) {
        const json::json *content = json::array(m, "content");
        if (!content)
            continue;
        for (const auto &b : *content) {
            const std::string t = json::str(b, "type");
            for (auto bt : blockTypes)
                if (t == bt)
                    return true;
        }
    }
    return false;
}

Format classifyMessageArray(const json::json &items)
{
    bool anyRole = false;
    for (const auto &it : items) {
        if (!it.is_object())
            continue;
        const std::string type = json::str(it, "type");
        if (type == "function_call" || type == "function_call_output" || type == "reasoning"
            || (type == "message" && it.contains("role")))
            return Format::OpenAIResponses;
        if (it.contains("parts"))
            return Format::GeminiCli; // /chat save checkpoint, legacy bare Content[]
        const std::string role = json::str(it, "role");
        if (role == "tool" || role == "developer" || role == "system" || it.contains("tool_calls"))
            return Format::OpenAIChat;
        if (!role.empty())
            anyRole = true;
    }
    if (blocksMention(items, {"tool_use", "tool_result", "thinking", "redacted_thinking"}))
        return Format::Anthropic;
    if (blocksMention(items, {"image_url", "input_audio"}))
        return Format::OpenAIChat;
    return anyRole ? Format::OpenAIChat : Format::Unknown;
}

// Roles and fields that exist only in OpenAI Chat Completions messages.
bool hasOpenAIShapes(const json::json &items)
{
    for (const auto &it : items) {
        const std::string role = json::str(it, "role");
        if (role == "tool" || role == "developer" || role == "system" || role == "function" || it.contains("tool_calls")
            || it.contains("tool_call_id"))
            return true;
    }
    return blocksMention(items, {"image_url", "input_audio"});
}

Format classifyDocument(const json::json &doc)
{
    if (doc.is_array())
        return classifyMessageArray(doc);
    if (!doc.is_object())
        return Format::Unknown;
    if (const json::json *messages = json::array(doc, "messages")) {
        for (const auto &m : *messages) {
            const std::string type = json::str(m, "type");
            if (type == "user" || type == "gemini" || type == "info")
                return Format::GeminiCli; // legacy ConversationRecord
        }
        // Message shapes decide first: an OpenAI export keeps a "claude-..." model name when it was
        // converted from an Anthropic source, and OpenAI requests may carry max_tokens too.
        const Format f = classifyMessageArray(*messages);
        if (f == Format::OpenAIChat && hasOpenAIShapes(*messages))
            return f;
        if (doc.contains("system") || doc.contains("max_tokens") || doc.contains("stop_sequences")
            || json::str(doc, "model").rfind("claude", 0) == 0)
            return Format::Anthropic;
        return f == Format::Unknown ? Format::OpenAIChat : f;
    }
    if (json::array(doc, "input") || doc.contains("previous_response_id") || doc.contains("instructions"))
        return Format::OpenAIResponses;
    if (json::array(doc, "history"))
        return Format::GeminiCli;
    if (json::array(doc, "contents") || doc.contains("systemInstruction") || doc.contains("system_instruction"))
        return Format::Gemini;
    return Format::Unknown;
}

} // namespace

Format detectFormat(std::string_view bytes, std::string_view path, std::size_t readableAfter)
{
    if (const auto e = text::sniff(bytes).encoding; e == text::Encoding::Utf16LE || e == text::Encoding::Utf16BE)
        return detectFormat(text::decodeUtf16(bytes, e == text::Encoding::Utf16BE), path);
    const std::string_view body = trimStart(bytes);
    if (body.empty() || looksBinary(body))
        return Format::Unknown;

    // JSONL: look at the first few lines that parse as objects on their own. The lines are walked
    // only as far as needed (splitting an 800 MB session into lines here cost 47 ms of its load).
    int votes[kFormatSlots] = {};
    int inspected = 0;
    std::size_t lineCount = 0;
    bool objectLines = true; // every non-empty line looked at is shaped like one JSON object
    for (std::size_t pos = 0; pos < body.size() && inspected < 8;) {
        const std::size_t nl = body.find('\n', pos);
        const std::size_t end = nl == std::string_view::npos ? body.size() : nl;
        std::string_view text = body.substr(pos, end - pos);
        pos = nl == std::string_view::npos ? body.size() : nl + 1;
        ++lineCount;
        if (!text.empty() && text.back() == '\r')
            text.remove_suffix(1);
        if (text.empty())
            continue;
        if (text.front() != '{' || text.back() != '}') {
            objectLines = false;
            continue;
        }
        // Huge lines (a 30 MB tool result) would dominate the load time; the small ones decide.
        if (text.size() > kMaxDetectLine)
            continue;
        json::json o;
        std::string err;
        if (json::parse(text, o, err) == json::ParseStatus::Failed)
            continue;
        ++inspected;
        ++votes[static_cast<int>(classifyLine(o))];
    }
    // Stopping after eight objects leaves lineCount >= 8: what follows asks only whether there was more than one line.
    const bool singleDocument = lineCount <= 1 || inspected == 0;
    if (!singleDocument || lineCount > 1) {
        int best = 0;
        for (int f = 1; f < kFormatSlots; ++f)
            if (votes[f] > votes[best] || (best == 0 && votes[f] > 0))
                best = f;
        // One vote is enough when the other lines are objects too, only too big to look at (a first
        // user message of 100 MB): parsing the whole file as one document would only fail, slowly.
        if (best != 0 && votes[best] > 0 && (inspected > 1 || (objectLines && lineCount > 1)))
            return static_cast<Format>(best);
    }

    // A single JSON document.
    json::json doc;
    std::string err;
    if (json::parse(body, doc, err, readableAfter) != json::ParseStatus::Failed) {
        const Format f = classifyDocument(doc);
        if (f != Format::Unknown)
            return f;
    }
    // One-line JSONL or a broken document: fall back to the votes, then to the file name.
    for (int f = 1; f < kFormatSlots; ++f)
        if (votes[f] > 0)
            return static_cast<Format>(f);
    if (path.find("rollout-") != std::string_view::npos)
        return Format::Codex;
    if (path.find("/.claude/") != std::string_view::npos)
        return Format::ClaudeCode;
    if (path.find("/.gemini/") != std::string_view::npos)
        return Format::GeminiCli;
    if (path.find("/.qwen/") != std::string_view::npos)
        return Format::QwenCode;
    if (path.find("/.copilot/session-state/") != std::string_view::npos)
        return Format::CopilotCli;
    return Format::Unknown;
}

LoadResult loadFile(const std::string &path, const LoadOptions &opts)
{
    LoadResult result;
    const bool standardInput = path == "-";
    const std::string name = standardInput ? std::string("(standard input)") : path;
    // Non-blocking open: opening a FIFO for reading would otherwise wait for a writer.
    const int fd = standardInput ? ::dup(0) : ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0 && errno == ENOENT) {
        // "recording.jsonl#12": request 12 of a recording (core/io/recordedrequest.h).
        if (const auto request = splitRequestPath(path); request && ::access(request->file.c_str(), F_OK) == 0) {
            LoadOptions o = opts;
            o.request = request->request;
            return loadFile(request->file, o);
        }
    }
    if (fd < 0) {
        result.error = name + ": cannot open: " + std::strerror(errno);
        return result;
    }
    struct stat st = {};
    std::string bytes, error;
    bool ok = false, cancelled = false;
    if (::fstat(fd, &st) != 0) {
        error = std::string("cannot read: ") + std::strerror(errno);
    } else if (S_ISDIR(st.st_mode)) {
        error = "is a directory, not a transcript file";
    } else if (S_ISREG(st.st_mode)) {
        if (std::uint64_t(st.st_size) > kMaxFileBytes)
            error = "file larger than 4 GiB is not supported";
        else
            ok = readWholeFile(fd, std::size_t(st.st_size), bytes, error);
    } else {
        ok = readUntilEnd(fd, bytes, error, opts.cancel, cancelled); // pipe, FIFO, terminal, character device
    }
    ::close(fd);
    if (cancelled) {
        result.cancelled = true;
        result.error = "cancelled";
        return result;
    }
    if (!ok) {
        result.error = name + ": " + error;
        return result;
    }
    return loadBytes(std::move(bytes), name, opts);
}

LoadResult loadBytes(std::string bytes, std::string path, const LoadOptions &opts)
{
    LoadResult result;
    auto t = std::make_shared<Transcript>();
    t->path = std::move(path);
    const text::Sniff sniffed = text::sniff(bytes);
    std::string encodingNote;
    if (sniffed.encoding == text::Encoding::Utf16LE || sniffed.encoding == text::Encoding::Utf16BE) {
        bytes = text::decodeUtf16(bytes, sniffed.encoding == text::Encoding::Utf16BE);
        encodingNote = "file is " + std::string(text::encodingName(sniffed.encoding))
                       + (sniffed.byteOrderMark ? " (byte-order mark)" : " (no byte-order mark)")
                       + ": decoded to UTF-8; whatever is written from it is UTF-8";
    }
    padBuffer(bytes);
    t->buffer = std::make_shared<const std::string>(std::move(bytes));
    const std::string_view body = *t->buffer;
    if (!encodingNote.empty())
        t->addDiagnostic(0, encodingNote, Diagnostic::Severity::Warning);

    if (sniffed.encoding == text::Encoding::Utf32) {
        t->addDiagnostic(0, "file is UTF-32 text, which no agent writes; convert it to UTF-8 first", Diagnostic::Severity::Error);
        t->format = opts.format.value_or(Format::Unknown);
        result.transcript = std::move(t);
        return result;
    }
    if (trimStart(body).empty()) {
        t->addDiagnostic(0, "file is empty", Diagnostic::Severity::Warning);
        t->format = opts.format.value_or(Format::Unknown);
        result.transcript = std::move(t);
        return result;
    }
    if (sniffed.encoding == text::Encoding::Binary && !opts.format) {
        t->addDiagnostic(0, text::binaryReason(body, sniffed), Diagnostic::Severity::Error);
        result.transcript = std::move(t);
        return result;
    }
    if (sniffed.encoding == text::Encoding::Utf8 && sniffed.firstNul != std::string_view::npos)
        t->addDiagnostic(std::uint32_t(text::lineOfOffset(body, sniffed.firstNul)),
                         "NUL byte at byte " + std::to_string(sniffed.firstNul) + " (not allowed in JSON text; the line it is on cannot be read)",
                         Diagnostic::Severity::Warning);
    if (!opts.format && recording::looksLikeRecording(body))
        return loadRecordedRequest(body, t->path, opts);
    if (opts.request > 0) {
        result.error = t->path + ": not a recording, so it has no request " + std::to_string(opts.request);
        return result;
    }
    t->format = opts.format ? *opts.format : detectFormat(body, t->path, readableAfter(*t->buffer, body));
    const formats::LoadContext ctx{opts, [](const std::string &other, const LoadOptions &o) { return loadFile(other, o); }};
    switch (t->format) {
    case Format::ClaudeCode: formats::loadClaudeCode(*t, ctx); break;
    case Format::Codex: formats::loadCodex(*t, ctx); break;
    case Format::GeminiCli: formats::loadGeminiCli(*t, ctx); break;
    case Format::QwenCode: formats::loadQwenCode(*t, ctx); break;
    case Format::CopilotCli: formats::loadCopilotCli(*t, ctx); break;
    case Format::OpenAIChat: formats::loadOpenAIChat(*t, ctx); break;
    case Format::OpenAIResponses: formats::loadOpenAIResponses(*t, ctx); break;
    case Format::Anthropic: formats::loadAnthropic(*t, ctx); break;
    case Format::Gemini: formats::loadGemini(*t, ctx); break;
    case Format::Unknown:
        t->addDiagnostic(0, "cannot detect the transcript format (choose one explicitly)", Diagnostic::Severity::Error);
        result.transcript = std::move(t);
        return result;
    }
    if (ctx.cancelled()) {
        result.cancelled = true;
        result.error = "cancelled";
        return result;
    }
    linkToolPairs(*t);
    if (!opts.wholeHistory)
        markLiveContext(*t);
    t->wholeHistory = opts.wholeHistory;
    tokens::estimateAll(*t, opts.threads);
    // The analysis' per-message text scans, while the text is warm (analysis::indexText).
    analysis::indexText(*t, analysis::AnalysisOptions{}, opts.threads);
    ctx.progress(1.0);
    result.transcript = std::move(t);
    return result;
}

} // namespace cl
