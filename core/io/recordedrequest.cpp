// SPDX-License-Identifier: MIT
#include "core/io/recordedrequest.h"

#include "core/formats/recording/answer.h"
#include "core/io/filebytes.h"
#include "core/io/loader.h"
#include "core/io/writer.h"
#include "core/tokens/contextfigure.h"
#include "core/tokens/estimator.h"
#include "core/tokens/fixedpart.h"
#include "core/util/json.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cl {

namespace {

std::string describe(const recording::Exchange &e)
{
    return "request " + std::to_string(e.number) + " (" + e.method + " " + e.path + ")";
}

// The answer's trouble in one phrase, "" when it was read.
std::string answerTrouble(const recording::Exchange &e, const recording::Answer &a)
{
    if (!e.error.empty())
        return e.error;
    if (e.responseLine == 0)
        return "no response recorded (the agent or the proxy stopped first)";
    if (e.responseBinary)
        return "the answer is not text" + (e.contentEncoding.empty() ? std::string() : " (" + e.contentEncoding + ")") + ": not read";
    if (!a.error.empty())
        return "the provider answered " + std::to_string(e.status) + ": " + a.error;
    if (!a.decoded)
        return "the answer (status " + std::to_string(e.status) + ") could not be read";
    return {};
}

// The model a request asked for: the body's "model", or Gemini's in the path (models/NAME:verb).
std::string modelOf(const Transcript &t, const recording::Exchange &e)
{
    const std::string model = cl::json::str(t.header, "model");
    return model.empty() ? recording::modelInPath(e.path) : model;
}

// The request as a transcript; with `answer`, the answer appended as its last message. `read`, when
// given, gets the answer as reassembled.
LoadResult loadExchange(const recording::Recording &rec, const recording::Exchange &e, const std::string &file,
                        const LoadOptions &opts, bool answer = true, recording::Answer *read = nullptr)
{
    LoadResult result;
    const std::string name = requestPath(file, e.number);
    if (!e.isModelCall()) {
        result.error = name + ": " + describe(e) + " is not a model call: nothing to open";
        return result;
    }
    if (e.requestBinary || e.requestBody.empty()) {
        result.error = name + ": " + describe(e) + " has no JSON body";
        return result;
    }
    LoadOptions o = opts;
    o.format = e.api;
    o.request = 0;
    result = loadBytes(e.requestBody, name, o);
    if (!result.ok())
        return result;
    recording::Answer answerRead = recording::readAnswer(e.api, e.responseBody);
    const recording::Answer &a = answerRead;
    bool added = false;
    if (answer && a.decoded && !a.message.blocks.empty()) {
        Transcript &t = *result.transcript;
        // The answer goes into the document the way its API writes an assistant turn, and that
        // document is what is loaded: its bytes hold every message, so a copy or an export of it
        // is the request with its answer, and nothing counts as edited.
        Message m = a.message;
        m.edited = true;
        t.messages.push_back(std::move(m));
        const WriteResult w = writeTranscript(t, e.api);
        LoadResult merged = w.ok ? loadBytes(w.bytes, name, o) : LoadResult{};
        if (merged.ok() && !merged.transcript->messages.empty() && merged.transcript->messages.back().role == Role::Assistant) {
            result = std::move(merged);
            added = true;
        } else {
            t.messages.pop_back();
            t.addDiagnostic(0, "the answer could not be added to the request's document" + (w.error.empty() ? std::string() : ": " + w.error));
        }
    }
    Transcript &t = *result.transcript;
    if (added && a.usage)
        t.messages.back().usage = a.usage; // what the provider measured for this request
    const std::string trouble = answerTrouble(e, a);
    if (!trouble.empty())
        t.addDiagnostic(0, "the answer: " + trouble, Diagnostic::Severity::Warning);
    for (const Diagnostic &d : rec.diagnostics)
        t.diagnostics.push_back(d);
    std::size_t modelCalls = 0;
    for (const auto &x : rec.exchanges)
        modelCalls += x.isModelCall() ? 1 : 0;
    t.recording = {{"file", file},
                   {"request", e.number},
                   {"requests", rec.exchanges.size()},
                   {"modelCalls", modelCalls},
                   {"run", e.run},
                   {"id", e.id},
                   {"method", e.method},
                   {"path", e.path},
                   {"time", e.time},
                   {"status", e.status},
                   {"stopReason", a.stopReason},
                   {"answered", added},
                   {"answerError", trouble}};
    if (e.firstByteMs)
        t.recording["firstByteMs"] = *e.firstByteMs;
    if (e.totalMs)
        t.recording["totalMs"] = *e.totalMs;
    if (read)
        *read = std::move(answerRead);
    return result;
}

} // namespace

std::optional<RequestPath> splitRequestPath(const std::string &path)
{
    const std::size_t hash = path.rfind('#');
    if (hash == std::string::npos || hash == 0 || hash + 1 >= path.size() || path.size() - hash > 10)
        return std::nullopt;
    std::size_t n = 0;
    for (std::size_t i = hash + 1; i < path.size(); ++i) {
        if (path[i] < '0' || path[i] > '9')
            return std::nullopt;
        n = n * 10 + std::size_t(path[i] - '0');
    }
    if (n == 0)
        return std::nullopt;
    return RequestPath{path.substr(0, hash), n};
}

std::string requestPath(const std::string &file, std::size_t request)
{
    return file + "#" + std::to_string(request);
}

LoadResult loadRecordedRequest(std::string_view bytes, const std::string &file, const LoadOptions &opts)
{
    const recording::Recording rec = recording::readRecording(bytes, file);
    const recording::Exchange *e = recording::pick(rec, opts.request);
    if (!e) {
        LoadResult r;
        r.error = opts.request > 0 ? file + ": the recording has " + std::to_string(rec.exchanges.size())
                                         + " requests, no request " + std::to_string(opts.request)
                                   : file + ": the recording holds no model call";
        return r;
    }
    return loadExchange(rec, *e, file, opts);
}

RecordingSummary summarizeRecording(std::string_view bytes, const std::string &file, const LoadOptions &opts)
{
    RecordingSummary out;
    const recording::Recording rec = recording::readRecording(bytes, file);
    out.diagnostics = rec.diagnostics;
    LoadOptions o = opts;
    o.progress = nullptr;
    const std::vector<recording::CompactionCall> calls = recording::findCompactionCalls(rec);
    auto call = calls.begin();
    for (const recording::Exchange &e : rec.exchanges) {
        if (opts.cancel && opts.cancel->load(std::memory_order_relaxed))
            break;
        RequestSummary s;
        s.number = e.number;
        s.run = e.run;
        s.id = e.id;
        s.time = e.time;
        s.method = e.method;
        s.path = e.path;
        s.api = e.isModelCall() ? e.api : Format::Unknown;
        s.status = e.status;
        s.firstByteMs = e.firstByteMs;
        s.totalMs = e.totalMs;
        s.error = e.error;
        s.session = recording::sessionIdOf(e);
        if (e.rewrite) {
            s.rewrite = *e.rewrite;
            s.rewrite->body.clear();
        }
        if (call != calls.end() && call->request == e.number)
            s.compaction = compactionLabel(*call++);
        if (s.api != Format::Unknown) {
            ++out.modelCalls;
            recording::Answer a;
            const LoadResult r = loadExchange(rec, e, file, o, false, &a);
            if (!r.ok()) {
                s.error = r.error;
            } else {
                const Transcript &t = *r.transcript;
                const std::size_t sent = t.messages.size();
                s.model = modelOf(t, e);
                for (std::size_t i = 0; i < sent; ++i) {
                    const Message &m = t.messages[i];
                    if (!m.isConversation())
                        continue;
                    if (m.role == Role::System) {
                        s.systemTokens += tokens::estimateMessage(m); // instructions, system prompt
                    } else {
                        ++s.messages;
                        s.messageTokens += tokens::estimateMessage(m);
                    }
                }
                const tokens::FixedPart fixed = tokens::fixedPart(t);
                s.systemTokens += fixed.systemTokens;
                s.toolTokens = fixed.toolTokens;
                s.tools = fixed.tools;
                if (sent > 0)
                    s.estimate = tokens::contextFigure(t, tokens::Estimator::Calibrated, sent - 1).total;
                s.usage = a.usage;
                s.stopReason = a.stopReason;
                s.answerBlocks = a.message.blocks.size();
                for (const Block &b : a.message.blocks)
                    s.answerToolCalls += b.type == BlockType::ToolUse ? 1 : 0;
                if (s.model.empty())
                    s.model = a.message.model;
                if (s.error.empty())
                    s.error = answerTrouble(e, a);
            }
        }
        out.requests.push_back(std::move(s));
        if (opts.progress)
            opts.progress(double(out.requests.size()) / double(rec.exchanges.size()));
    }
    return out;
}

bool readRecordingFile(const std::string &file, std::string &bytes, std::string &error)
{
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        error = file + ": cannot open: " + std::strerror(errno);
        return false;
    }
    struct stat st = {};
    bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (!ok)
        error = file + ": not a regular file";
    else if (!(ok = readWholeFile(fd, std::size_t(st.st_size), bytes, error)))
        error = file + ": " + error;
    ::close(fd);
    if (ok && !recording::looksLikeRecording(bytes)) {
        error = file + ": not a recording (its first line is not {\"type\":\"recording\",...}; see docs/recording-format.md)";
        ok = false;
    }
    return ok;
}

bool readCompactionCalls(const std::string &file, std::vector<recording::CompactionCall> &out, std::string &error)
{
    std::string bytes;
    if (!readRecordingFile(file, bytes, error))
        return false;
    out = recording::findCompactionCalls(recording::readRecording(bytes, file));
    return true;
}

std::string compactionLabel(const recording::CompactionCall &call)
{
    std::string s = call.agent + " compaction";
    if (call.pass > 1)
        s += " (its check)";
    else if (!call.trigger.empty())
        s += " (" + call.trigger + ")";
    return s;
}

bool summarizeRecordingFile(const std::string &file, RecordingSummary &out, std::string &error, const LoadOptions &opts)
{
    std::string bytes;
    if (!readRecordingFile(file, bytes, error))
        return false;
    out = summarizeRecording(bytes, file, opts);
    return true;
}

} // namespace cl
