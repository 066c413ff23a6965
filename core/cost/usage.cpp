// SPDX-License-Identifier: MIT
// The measured usage of a session, one entry per API response (core/cost/sessioncost.h).
#include "core/cost/sessioncost.h"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <unordered_map>

namespace cl::cost {

namespace {

namespace dom = simdjson::dom;

constexpr std::string_view kSynthetic = "<synthetic>"; // Claude Code's own messages: no model call

std::int64_t intField(const dom::object &o, std::string_view key)
{
    dom::element v;
    if (o.at_key(key).get(v) != simdjson::SUCCESS)
        return 0;
    std::int64_t i = 0;
    if (v.get_int64().get(i) == simdjson::SUCCESS)
        return i;
    std::uint64_t u = 0;
    if (v.get_uint64().get(u) == simdjson::SUCCESS)
        return std::int64_t(u);
    double d = 0;
    if (v.get_double().get(d) == simdjson::SUCCESS && std::isfinite(d))
        return d >= 9.2e18 ? INT64_MAX : d <= -9.2e18 ? INT64_MIN
                                                      : std::int64_t(std::llround(d));
    return 0;
}

std::string_view stringField(const dom::object &o, std::string_view key)
{
    std::string_view s;
    return o.at_key(key).get_string().get(s) == simdjson::SUCCESS ? s : std::string_view();
}

// A Claude Code usage object: cache writes split by TTL where the line says.
Tokens claudeUsage(const dom::object &u)
{
    dom::object split;
    const bool hasSplit = u.at_key("cache_creation").get_object().get(split) == simdjson::SUCCESS;
    return claudeTokens(intField(u, "input_tokens"), intField(u, "cache_creation_input_tokens"),
                        intField(u, "cache_read_input_tokens"), intField(u, "output_tokens"), hasSplit,
                        hasSplit ? intField(split, "ephemeral_5m_input_tokens") : 0,
                        hasSplit ? intField(split, "ephemeral_1h_input_tokens") : 0);
}

class ClaudeScan
{
public:
    explicit ClaudeScan(SessionUsage &out)
        : m_out(out)
        , m_folder(out)
    {
    }

    void finish() { m_folder.finish(); }

    void file(const Transcript &t, std::uint32_t index)
    {
        for (std::size_t i = 0; i < t.records.size(); ++i) {
            const Record &r = t.records[i];
            if (r.type == "assistant")
                assistantLine(t, r, index);
            else if (r.type == "attachment" && index == 0)
                attachmentLine(t, r);
        }
    }

private:
    bool parse(const Transcript &t, const Record &r, dom::object &obj)
    {
        const std::string_view bytes = t.recordBytes(r);
        dom::element doc;
        return m_parser.parse(bytes.data(), bytes.size(), true).get(doc) == simdjson::SUCCESS
               && doc.get_object().get(obj) == simdjson::SUCCESS;
    }

    void assistantLine(const Transcript &t, const Record &r, std::uint32_t file)
    {
        dom::object line, message, usage;
        if (!parse(t, r, line) || line.at_key("message").get_object().get(message) != simdjson::SUCCESS)
            return;
        ResponseLine l;
        l.model = stringField(message, "model");
        if (l.model == kSynthetic)
            return;
        Tokens tokens;
        if (message.at_key("usage").get_object().get(usage) == simdjson::SUCCESS) {
            tokens = claudeUsage(usage);
            l.tokens = &tokens;
        }
        l.sidechain = file > 0;
        if (bool b = false; line.at_key("isSidechain").get_bool().get(b) == simdjson::SUCCESS)
            l.sidechain = l.sidechain || b;
        if (double d = 0; line.at_key("costUSD").get_double().get(d) == simdjson::SUCCESS)
            l.recordedUsd = d;
        l.id = stringField(message, "id");
        l.line = r.line;
        l.message = file == 0 ? r.message : -1;
        l.file = file;
        m_folder.add(l);
    }

    void attachmentLine(const Transcript &t, const Record &r)
    {
        if (t.recordBytes(r).find("budget_usd") == std::string_view::npos)
            return;
        dom::object line, attachment;
        if (!parse(t, r, line) || line.at_key("attachment").get_object().get(attachment) != simdjson::SUCCESS
            || stringField(attachment, "type") != "budget_usd")
            return;
        if (double used = 0; attachment.at_key("used").get_double().get(used) == simdjson::SUCCESS) {
            m_out.budgetUsed = used;
            m_out.budgetLine = r.line;
        }
    }

    SessionUsage &m_out;
    ResponseFolder m_folder;
    dom::parser m_parser;
};

// Formats whose messages carry their usage (Codex token_count, Gemini CLI tokens, loaded API
// documents, a Claude Code transcript built in memory).
void messageUsage(const Transcript &t, SessionUsage &out)
{
    const bool thoughtsAreOutput = t.format == Format::GeminiCli || t.format == Format::Gemini;
    ResponseFolder folder(out);
    for (std::size_t i = 0; i < t.messages.size(); ++i) {
        const Message &m = t.messages[i];
        if (!m.usage || m.model == kSynthetic)
            continue;
        Tokens tk;
        tk.input = m.usage->inputTokens;
        tk.cacheWrite5m = m.usage->cacheCreationTokens;
        tk.cacheRead = m.usage->cacheReadTokens;
        tk.output = m.usage->outputTokens + (thoughtsAreOutput ? m.usage->reasoningTokens : 0);
        ResponseLine l;
        l.id = !m.apiMessageId.empty() ? m.apiMessageId : m.id;
        l.model = m.model;
        l.tokens = &tk;
        l.line = m.line;
        l.message = std::int32_t(i);
        l.sidechain = m.sidechain;
        folder.add(l);
    }
    folder.finish();
}

bool hasRecords(const Transcript &t)
{
    return t.buffer && !t.records.empty();
}

} // namespace

Tokens &Tokens::operator+=(const Tokens &o)
{
    // Saturating: counts a file claims (2^63 - 1 twice) must not overflow.
    auto add = [](std::int64_t &a, std::int64_t b) {
        if (__builtin_add_overflow(a, b, &a))
            a = b > 0 ? INT64_MAX : INT64_MIN;
    };
    add(input, o.input);
    add(cacheWrite5m, o.cacheWrite5m);
    add(cacheWrite1h, o.cacheWrite1h);
    add(cacheRead, o.cacheRead);
    add(output, o.output);
    return *this;
}

Dollars &Dollars::operator+=(const Dollars &o)
{
    input += o.input;
    cacheWrite5m += o.cacheWrite5m;
    cacheWrite1h += o.cacheWrite1h;
    cacheRead += o.cacheRead;
    output += o.output;
    return *this;
}

Dollars price(const Tokens &t, const llm::Price &p)
{
    // A count below zero is no usage (a damaged or hand-made file): it costs nothing, never less.
    auto count = [](std::int64_t n) { return n > 0 ? double(n) : 0.0; };
    Dollars d;
    d.input = count(t.input) * p.input / 1e6;
    d.cacheWrite5m = count(t.cacheWrite5m) * p.cacheWrite5m / 1e6;
    d.cacheWrite1h = count(t.cacheWrite1h) * p.cacheWrite1h / 1e6;
    d.cacheRead = count(t.cacheRead) * p.cacheRead / 1e6;
    d.output = count(t.output) * p.output / 1e6;
    return d;
}

Tokens claudeTokens(std::int64_t input, std::int64_t cacheCreation, std::int64_t cacheRead, std::int64_t output,
                    bool split, std::int64_t split5m, std::int64_t split1h)
{
    Tokens t;
    t.input = input;
    t.output = output;
    t.cacheRead = cacheRead;
    std::int64_t written = cacheCreation;
    if (split) {
        t.cacheWrite1h = split1h;
        if (written == 0)
            written = split5m + split1h;
    }
    // Beyond the 1-hour part, a write is a 5-minute one (the default TTL).
    t.cacheWrite5m = std::max<std::int64_t>(0, written - t.cacheWrite1h);
    return t;
}

std::size_t ResponseFolder::add(const ResponseLine &l)
{
    Response *resp = nullptr;
    if (!l.id.empty()) {
        const auto [it, added] = m_byId.try_emplace(std::string(l.id), m_out.responses.size());
        if (!added) {
            resp = &m_out.responses[it->second];
            ++resp->lines;
            ++m_out.foldedLines;
        }
    }
    if (!resp) {
        m_out.responses.emplace_back();
        m_measured.push_back(0);
        resp = &m_out.responses.back();
        resp->id = std::string(l.id);
    }
    // The last line of a response carries its final usage.
    if (l.tokens) {
        resp->tokens = *l.tokens;
        m_measured[std::size_t(resp - m_out.responses.data())] = 1;
    }
    if (!l.model.empty())
        resp->model = std::string(l.model);
    if (l.recordedUsd)
        resp->recordedUsd = l.recordedUsd;
    resp->line = l.line;
    resp->message = l.message;
    resp->sidechain = l.sidechain;
    resp->file = l.file;
    return std::size_t(resp - m_out.responses.data());
}

void ResponseFolder::finish()
{
    std::size_t kept = 0;
    for (std::size_t i = 0; i < m_out.responses.size(); ++i) {
        if (!m_measured[i]) {
            m_out.foldedLines -= m_out.responses[i].lines - 1;
            continue;
        }
        if (kept != i)
            m_out.responses[kept] = std::move(m_out.responses[i]);
        ++kept;
    }
    m_out.responses.resize(kept);
    m_measured.assign(kept, 1);
    m_byId.clear(); // indices moved
}

SessionUsage readUsage(const Transcript &t)
{
    SessionUsage out;
    if (t.format == Format::ClaudeCode && hasRecords(t)) {
        ClaudeScan scan(out);
        scan.file(t, 0);
        for (std::size_t k = 0; k < t.subagents.size(); ++k)
            if (t.subagents[k] && hasRecords(*t.subagents[k]))
                scan.file(*t.subagents[k], std::uint32_t(k + 1));
        scan.finish();
        return out;
    }
    messageUsage(t, out);
    return out;
}

} // namespace cl::cost
