// SPDX-License-Identifier: MIT
#include "core/formats/recording/recording.h"

#include "core/util/json.h"

#include <map>
#include <utility>

namespace cl::recording {

namespace {

bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::optional<std::int64_t> optionalNumber(const json::json &o, std::string_view key)
{
    const json::json *v = json::child(o, key);
    if (!v || !v->is_number())
        return std::nullopt;
    return v->get<std::int64_t>();
}

} // namespace

bool looksLikeRecording(std::string_view bytes)
{
    std::size_t pos = 0;
    while (pos < bytes.size() && (bytes[pos] == ' ' || bytes[pos] == '\n' || bytes[pos] == '\r' || bytes[pos] == '\t'))
        ++pos;
    const std::size_t nl = bytes.find('\n', pos);
    std::string_view first = bytes.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    if (first.size() > 4096 || first.empty() || first.front() != '{')
        return false;
    json::json o;
    std::string err;
    if (json::parse(first, o, err) == json::ParseStatus::Failed)
        return false;
    return json::str(o, "type") == "recording" && o.contains("version");
}

Format apiOfPath(std::string_view path)
{
    const std::size_t q = path.find('?');
    if (q != std::string_view::npos)
        path = path.substr(0, q);
    if (path == "/v1/messages" || endsWith(path, "/v1/messages"))
        return Format::Anthropic;
    if (endsWith(path, ":generateContent") || endsWith(path, ":streamGenerateContent"))
        return Format::Gemini;
    if (endsWith(path, "/chat/completions"))
        return Format::OpenAIChat;
    if (endsWith(path, "/responses"))
        return Format::OpenAIResponses;
    return Format::Unknown;
}

Recording readRecording(std::string_view bytes, const std::string &path)
{
    Recording r;
    auto say = [&](std::uint32_t line, std::string message) {
        r.diagnostics.push_back({Diagnostic::Severity::Warning, path, line, std::move(message)});
    };
    std::size_t run = 0;
    std::map<std::int64_t, std::size_t> open; // id → exchange index, within the current run
    for (const json::LineSpan &span : json::splitLines(bytes)) {
        const std::string_view text = bytes.substr(span.offset, span.contentLength);
        if (text.find_first_not_of(" \t\r") == std::string_view::npos)
            continue;
        json::json o;
        std::string err;
        if (json::parse(text, o, err) == json::ParseStatus::Failed || !o.is_object()) {
            say(span.line, "not a JSON object (" + (err.empty() ? std::string("not an object") : err) + "): skipped");
            continue;
        }
        const std::string type = json::str(o, "type");
        if (type == "recording") {
            ++run;
            open.clear();
            r.upstreams.push_back(json::str(o, "upstream"));
            continue;
        }
        const json::json *id = json::child(o, "id");
        if ((type == "request" || type == "response") && (!id || !id->is_number_integer())) {
            say(span.line, type + " without a numeric id: skipped");
            continue;
        }
        if (type == "request") {
            Exchange e;
            e.number = r.exchanges.size() + 1;
            e.run = run;
            e.id = id->get<std::int64_t>();
            e.time = json::str(o, "time");
            e.method = json::str(o, "method");
            e.path = json::str(o, "path");
            e.api = apiOfPath(e.path);
            e.requestLine = span.line;
            e.requestBody = json::str(o, "body");
            e.requestBinary = !o.contains("body") && o.contains("bodyBase64");
            if (const json::json *h = json::object(o, "headers"))
                for (const auto &[name, value] : h->items())
                    if (value.is_string())
                        e.requestHeaders.emplace_back(name, value.get<std::string>());
            if (open.count(e.id))
                say(span.line, "request id " + std::to_string(e.id) + " used twice in one run: the later one is answered");
            open[e.id] = r.exchanges.size();
            r.exchanges.push_back(std::move(e));
        } else if (type == "rewrite") {
            const auto it = open.find(id->get<std::int64_t>());
            if (it == open.end()) {
                say(span.line, "rewrite of id " + std::to_string(id->get<std::int64_t>()) + " that no request of this run has: skipped");
                continue;
            }
            Exchange &e = r.exchanges[it->second];
            Rewrite w;
            w.strategy = json::str(o, "strategy");
            w.mode = json::str(o, "mode");
            w.changed = json::boolean(o, "changed");
            w.valid = json::boolean(o, "valid", true);
            w.forwarded = json::str(o, "forwarded") == "compacted";
            w.tokensBefore = json::num(o, "tokensBefore");
            w.tokensAfter = json::num(o, "tokensAfter");
            w.predictedBefore = json::num(o, "predictedBefore");
            w.predictedAfter = json::num(o, "predictedAfter");
            w.calibrated = json::boolean(o, "calibrated");
            w.note = json::str(o, "note");
            w.error = json::str(o, "error");
            if (const json::json *v = json::array(o, "violations"))
                for (const json::json &x : *v)
                    if (x.is_string())
                        w.violations.push_back(x.get<std::string>());
            w.body = json::str(o, "body");
            if (w.forwarded && !w.body.empty()) {
                e.agentBody = std::move(e.requestBody);
                e.requestBody = w.body;
            }
            e.rewrite = std::move(w);
        } else if (type == "response") {
            const auto it = open.find(id->get<std::int64_t>());
            if (it == open.end()) {
                say(span.line, "response to id " + std::to_string(id->get<std::int64_t>()) + " that no request of this run has: skipped");
                continue;
            }
            Exchange &e = r.exchanges[it->second];
            open.erase(it);
            e.responseLine = span.line;
            e.status = int(json::num(o, "status"));
            if (const json::json *h = json::object(o, "headers")) {
                e.contentType = json::str(*h, "content-type");
                e.contentEncoding = json::str(*h, "content-encoding");
            }
            e.responseBody = json::str(o, "body");
            e.responseBinary = !o.contains("body") && o.contains("bodyBase64");
            e.firstByteMs = optionalNumber(o, "firstByteMs");
            e.totalMs = optionalNumber(o, "totalMs");
            e.error = json::str(o, "error");
        } else {
            say(span.line, "line of type \"" + type + "\" is not part of a recording: skipped");
        }
    }
    return r;
}

std::string Exchange::requestHeader(std::string_view name) const
{
    for (const auto &[n, v] : requestHeaders)
        if (n == name)
            return v;
    return {};
}

std::string modelInPath(std::string_view path)
{
    const std::size_t at = path.find("models/");
    const std::size_t colon = at == std::string_view::npos ? at : path.find(':', at);
    return colon == std::string_view::npos ? std::string() : std::string(path.substr(at + 7, colon - at - 7));
}

const Exchange *pick(const Recording &r, std::size_t number)
{
    if (number > 0)
        return number <= r.exchanges.size() ? &r.exchanges[number - 1] : nullptr;
    // The agent's own loop sends its tools; side calls (a title, a quota check) mostly do not.
    const Exchange *last = nullptr;
    for (auto it = r.exchanges.rbegin(); it != r.exchanges.rend(); ++it) {
        if (!it->isModelCall() || it->requestBody.empty())
            continue;
        if (it->requestBody.find("\"tools\"") != std::string::npos)
            return &*it;
        if (!last)
            last = &*it;
    }
    return last;
}

} // namespace cl::recording
