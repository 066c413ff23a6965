// SPDX-License-Identifier: MIT
#include "core/cost/promptcache.h"

#include "core/formats/recording/answer.h"
#include "core/tokens/estimator.h"
#include "core/util/json.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace cl::cost {

namespace {

using J = json::json;

// Earlier requests a request is compared with: enough for interleaved agents and side calls.
constexpr std::size_t kLookBack = 64;

void stripCacheControl(J &j)
{
    if (j.is_object()) {
        j.erase("cache_control");
        for (auto &[key, value] : j.items())
            stripCacheControl(value);
    } else if (j.is_array()) {
        for (J &e : j)
            stripCacheControl(e);
    }
}

std::string textOf(const J &element)
{
    if (!element.is_object())
        return json::flattenText(element);
    for (const char *key : {"content", "output", "arguments"})
        if (const J *c = json::child(element, key))
            return json::flattenText(*c);
    if (const J *parts = json::array(element, "parts")) {
        std::string text;
        for (const J &p : *parts)
            text += (text.empty() ? "" : "\n") + (p.contains("text") ? json::str(p, "text") : json::dump(p));
        return text;
    }
    return json::dump(element);
}

bool isClearedResult(const J &message)
{
    const J *content = json::array(message, "content");
    if (!content)
        return false;
    for (const J &b : *content)
        if (json::str(b, "type") == "tool_result")
            if (const J *c = json::child(b, "content"); c && json::flattenText(*c) == kClearedResult)
                return true;
    return false;
}

void add(std::vector<RequestPart> &out, RequestPart::Kind kind, std::size_t index, std::string label, const J &value)
{
    RequestPart p;
    p.kind = kind;
    p.index = index;
    p.label = std::move(label);
    const std::string dumped = json::dump(value);
    p.hash = std::hash<std::string>{}(dumped);
    p.tokens = tokens::estimateText(dumped);
    if (kind != RequestPart::Kind::Tool)
        p.text = textOf(value);
    p.clearedResult = kind == RequestPart::Kind::Message && isClearedResult(value);
    out.push_back(std::move(p));
}

std::string toolName(const J &tool)
{
    std::string name = json::str(tool, "name");
    if (name.empty())
        if (const J *fn = json::object(tool, "function"))
            name = json::str(*fn, "name");
    return name.empty() ? json::str(tool, "type", "tool") : name;
}

void addTools(std::vector<RequestPart> &out, const J &doc)
{
    const J *tools = json::array(doc, "tools");
    if (!tools)
        return;
    std::size_t n = 0;
    for (const J &tool : *tools) {
        if (const J *decls = json::array(tool, "functionDeclarations")) { // Gemini: one Tool, many functions
            for (const J &d : *decls)
                add(out, RequestPart::Kind::Tool, n++, toolName(d), d);
            continue;
        }
        add(out, RequestPart::Kind::Tool, n++, toolName(tool), tool);
    }
}

void addSystem(std::vector<RequestPart> &out, const J *system)
{
    if (!system || system->is_null())
        return;
    if (system->is_array()) {
        std::size_t n = 0;
        for (const J &block : *system)
            add(out, RequestPart::Kind::System, n++, "system", block);
    } else {
        add(out, RequestPart::Kind::System, 0, "system", *system);
    }
}

void addMessages(std::vector<RequestPart> &out, const J *messages)
{
    if (!messages || !messages->is_array())
        return;
    std::size_t n = 0;
    for (const J &m : *messages)
        add(out, RequestPart::Kind::Message, n++, json::str(m, "role", json::str(m, "type", "item")), m);
}

std::size_t countKind(const std::vector<RequestPart> &parts, RequestPart::Kind kind)
{
    return std::size_t(std::count_if(parts.begin(), parts.end(), [kind](const RequestPart &p) { return p.kind == kind; }));
}

std::int64_t tokensFrom(const std::vector<RequestPart> &parts, std::size_t from)
{
    std::int64_t n = 0;
    for (std::size_t i = from; i < parts.size(); ++i)
        n += parts[i].tokens;
    return n;
}

std::string quote(std::string_view s)
{
    constexpr std::size_t kMax = 60;
    std::string out(s.substr(0, kMax));
    for (char &c : out)
        if (c == '\n' || c == '\t')
            c = ' ';
    return "\"" + out + (s.size() > kMax ? "…\"" : "\"");
}

// The first line that differs, as ` ("old" became "new")`.
std::string firstDifference(const std::string &a, const std::string &b)
{
    std::size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i])
        ++i;
    const std::size_t start = i == 0 ? 0 : a.rfind('\n', i - 1) + 1;
    auto lineAt = [start](const std::string &s) {
        if (start >= s.size())
            return std::string_view();
        const std::size_t nl = s.find('\n', start);
        return std::string_view(s).substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    };
    return " (" + quote(lineAt(a)) + " became " + quote(lineAt(b)) + ")";
}

std::string withoutReminders(const std::string &text)
{
    static constexpr std::string_view kOpen = "<system-reminder>", kClose = "</system-reminder>";
    std::string out;
    std::size_t pos = 0;
    while (true) {
        const std::size_t open = text.find(kOpen, pos);
        if (open == std::string::npos)
            break;
        const std::size_t close = text.find(kClose, open);
        if (close == std::string::npos)
            break;
        out.append(text, pos, open - pos);
        pos = close + kClose.size();
    }
    out.append(text, pos);
    return out;
}

std::string plural(std::size_t n, const char *one, const char *many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string joined(const std::vector<std::string> &names)
{
    std::string s;
    for (std::size_t i = 0; i < names.size() && i < 5; ++i)
        s += (i ? ", " : "") + names[i];
    return names.size() > 5 ? s + " and " + std::to_string(names.size() - 5) + " more" : s;
}

struct Seen {
    const recording::Exchange *exchange = nullptr;
    std::vector<RequestPart> parts;
    std::optional<Usage> usage;
    std::string model;
    std::int64_t timeMs = kNoTime;
};

std::size_t commonPrefix(const std::vector<RequestPart> &a, const std::vector<RequestPart> &b)
{
    std::size_t i = 0;
    while (i < a.size() && i < b.size() && a[i].hash == b[i].hash)
        ++i;
    return i;
}

bool sharesAMessage(const std::vector<RequestPart> &a, const std::vector<RequestPart> &b)
{
    std::set<std::uint64_t> hashes;
    for (const RequestPart &p : a)
        if (p.kind == RequestPart::Kind::Message)
            hashes.insert(p.hash);
    for (const RequestPart &p : b)
        if (p.kind == RequestPart::Kind::Message && hashes.count(p.hash))
            return true;
    return false;
}

const RequestPart *firstMessage(const std::vector<RequestPart> &parts)
{
    for (const RequestPart &p : parts)
        if (p.kind == RequestPart::Kind::Message)
            return &p;
    return nullptr;
}

// Where the prefix changed and why: A is the previous request, B this one, c their common parts.
void explainBreak(const Seen &a, const Seen &b, std::size_t c, CacheStep &step)
{
    const RequestPart &pa = a.parts[c];
    const RequestPart *pb = c < b.parts.size() ? &b.parts[c] : nullptr;
    using K = RequestPart::Kind;
    if (pa.kind == K::Tool || (pb && pb->kind == K::Tool)) {
        step.where = "tool definitions";
        std::multiset<std::string> na, nb;
        std::vector<std::string> orderA, orderB;
        for (const RequestPart &p : a.parts)
            if (p.kind == K::Tool)
                na.insert(p.label), orderA.push_back(p.label);
        for (const RequestPart &p : b.parts)
            if (p.kind == K::Tool)
                nb.insert(p.label), orderB.push_back(p.label);
        std::vector<std::string> added, removed;
        std::set_difference(nb.begin(), nb.end(), na.begin(), na.end(), std::back_inserter(added));
        std::set_difference(na.begin(), na.end(), nb.begin(), nb.end(), std::back_inserter(removed));
        if (!added.empty() || !removed.empty())
            step.cause = "the tool definitions changed:" + (added.empty() ? std::string() : " added " + joined(added))
                         + (added.empty() || removed.empty() ? "" : ";") + (removed.empty() ? std::string() : " removed " + joined(removed));
        else if (orderA != orderB)
            step.cause = "the same tools were sent in another order";
        else
            step.cause = "the definition of tool " + pa.label + " changed";
        return;
    }
    if (pa.kind == K::System || (pb && pb->kind == K::System)) {
        step.where = "system prompt";
        step.cause = "the system prompt changed"
                     + (pa.kind == K::System && pb && pb->kind == K::System ? firstDifference(pa.text, pb->text) : std::string());
        return;
    }
    step.where = "message " + std::to_string(pa.index + 1) + " (" + pa.label + ")";
    if (!pb) {
        step.cause = "the messages from here on were not sent again (" + plural(a.parts.size() - c, "message", "messages")
                     + " dropped: a rewind or an agent trimming its history)";
        return;
    }
    auto at = [](const std::vector<RequestPart> &parts, std::size_t i) { return i < parts.size() ? parts[i].hash : 0; };
    for (std::size_t k = 1; k <= 3; ++k) {
        if (at(b.parts, c + k) == pa.hash) {
            bool reminder = false;
            for (std::size_t i = c; i < c + k; ++i)
                reminder |= b.parts[i].text.find("<system-reminder>") != std::string::npos;
            step.cause = plural(k, "message was", "messages were") + " inserted before it"
                         + (reminder ? std::string(" (a system reminder, placed earlier than before)") : std::string());
            return;
        }
        if (at(a.parts, c + k) == pb->hash) {
            step.cause = plural(k, "message was", "messages were") + " removed here";
            return;
        }
    }
    if (!pa.clearedResult && pb->clearedResult) {
        step.cause = "a tool result in it was cleared (\"" + std::string(kClearedResult) + "\")";
        return;
    }
    if (pa.text != pb->text && withoutReminders(pa.text) == withoutReminders(pb->text)) {
        step.cause = "only a system reminder in it changed (added, removed or moved)";
        return;
    }
    step.cause = pa.text == pb->text ? "its blocks changed (not their text)" : "its content changed" + firstDifference(pa.text, pb->text);
}

void price(const Seen &b, const llm::PriceTable &prices, CacheStep &step)
{
    const std::optional<llm::Price> p = prices.find(b.model);
    if (!p || step.missedTokens <= 0)
        return;
    const double paid = b.usage && b.usage->cacheCreationTokens > 0 ? p->cacheWrite5m : p->input;
    step.dollars = double(step.missedTokens) * std::max(0.0, paid - p->cacheRead) / 1e6;
    step.priced = true;
}

std::vector<RequestPart> partsOf(Format api, J doc)
{
    std::vector<RequestPart> out;
    if (!doc.is_object())
        return out;
    stripCacheControl(doc);
    switch (api) {
    case Format::Anthropic:
        addTools(out, doc);
        addSystem(out, json::child(doc, "system"));
        addMessages(out, json::child(doc, "messages"));
        break;
    case Format::OpenAIChat:
        addTools(out, doc);
        addMessages(out, json::child(doc, "messages"));
        break;
    case Format::OpenAIResponses:
        addSystem(out, json::child(doc, "instructions"));
        addTools(out, doc);
        addMessages(out, json::child(doc, "input"));
        break;
    case Format::Gemini:
        addSystem(out, json::child(doc, "systemInstruction"));
        addTools(out, doc);
        addMessages(out, json::child(doc, "contents"));
        break;
    default: break;
    }
    return out;
}

} // namespace

std::vector<RequestPart> requestParts(Format api, std::string_view body)
{
    J doc;
    std::string err;
    if (json::parse(body, doc, err) == json::ParseStatus::Failed)
        return {};
    return partsOf(api, std::move(doc));
}

std::string_view cacheStepKindName(CacheStep::Kind k)
{
    switch (k) {
    case CacheStep::Kind::First: return "first";
    case CacheStep::Kind::Append: return "append";
    case CacheStep::Kind::Break: return "break";
    case CacheStep::Kind::Replaced: return "replaced";
    }
    return "first";
}

std::vector<CacheStep> cacheSteps(const recording::Recording &r, const llm::PriceTable &prices)
{
    std::vector<CacheStep> steps;
    std::vector<Seen> seen;
    for (const recording::Exchange &e : r.exchanges) {
        if (!e.isModelCall() || e.requestBody.empty())
            continue;
        Seen b;
        b.exchange = &e;
        J doc;
        std::string err;
        if (json::parse(e.requestBody, doc, err) == json::ParseStatus::Failed)
            continue;
        b.model = recording::modelInPath(e.path);
        if (b.model.empty())
            b.model = json::str(doc, "model");
        b.parts = partsOf(e.api, std::move(doc));
        b.usage = recording::readAnswer(e.api, e.responseBody).usage;
        b.timeMs = parseTimestamp(e.time);

        CacheStep step;
        step.number = e.number;
        step.model = b.model;
        step.usage = b.usage;
        step.parts = b.parts.size();
        step.messages = countKind(b.parts, RequestPart::Kind::Message);
        step.tokens = tokensFrom(b.parts, 0);
        // The earlier request it shares the longest prefix with (the latest of equals).
        const Seen *a = nullptr;
        std::size_t best = 0;
        for (std::size_t k = seen.size(); k-- > 0 && seen.size() - k <= kLookBack;) {
            if (seen[k].exchange->api != e.api)
                continue;
            const std::size_t c = commonPrefix(seen[k].parts, b.parts);
            if (!a || c > best) {
                a = &seen[k];
                best = c;
            }
        }
        if (a) {
            const std::size_t nonMessageA = a->parts.size() - countKind(a->parts, RequestPart::Kind::Message);
            const std::size_t nonMessageB = b.parts.size() - step.messages;
            const RequestPart *firstA = firstMessage(a->parts), *firstB = firstMessage(b.parts);
            const bool sameStart = firstA && firstB && firstA->hash == firstB->hash;
            if (best >= a->parts.size())
                step.kind = CacheStep::Kind::Append;
            else if (best > nonMessageA || (best < nonMessageA && sameStart))
                step.kind = CacheStep::Kind::Break;
            else if (best == nonMessageA && nonMessageA == nonMessageB && firstA && firstB)
                // No message in common: replaced; some later on: the first one changed.
                step.kind = sharesAMessage(a->parts, b.parts) ? CacheStep::Kind::Break : CacheStep::Kind::Replaced;
        }
        if (step.kind != CacheStep::Kind::First) {
            step.previous = a->exchange->number;
            step.previousMessages = countKind(a->parts, RequestPart::Kind::Message);
            step.commonParts = best;
            step.commonTokens = tokensFrom(b.parts, 0) - tokensFrom(b.parts, best);
            step.appendedTokens = tokensFrom(b.parts, best);
            step.lostTokens = step.kind == CacheStep::Kind::Append ? 0 : tokensFrom(a->parts, best);
            if (step.kind == CacheStep::Kind::Break) {
                explainBreak(*a, b, best, step);
            } else if (step.kind == CacheStep::Kind::Replaced) {
                step.where = "messages";
                step.cause = "the conversation was replaced: request " + std::to_string(a->exchange->number) + " sent "
                             + plural(step.previousMessages, "message", "messages") + ", this one "
                             + plural(step.messages, "message", "messages") + ", none in common (a compaction, or a fresh start)";
            }
            // Measured: what the previous request left in the cache that this one did not read.
            if (a->usage && b.usage) {
                const std::int64_t cached = a->usage->cacheReadTokens + a->usage->cacheCreationTokens;
                step.missedTokens = std::max<std::int64_t>(0, cached - b.usage->cacheReadTokens);
                if (step.kind == CacheStep::Kind::Append && step.missedTokens > 0 && step.missedTokens * 20 > cached) {
                    const std::int64_t seconds = a->timeMs != kNoTime && b.timeMs != kNoTime ? (b.timeMs - a->timeMs) / 1000 : -1;
                    step.cause = "read " + std::to_string(step.missedTokens) + " fewer tokens from the cache than request "
                                 + std::to_string(a->exchange->number) + " left there"
                                 + (seconds >= 0 ? " " + std::to_string(seconds) + " s earlier" : std::string())
                                 + " (the cache expired or was evicted)";
                } else if (step.kind == CacheStep::Kind::Append) {
                    step.missedTokens = 0;
                }
            } else if (step.kind != CacheStep::Kind::Append) {
                step.missedTokens = step.lostTokens;
            }
            price(b, prices, step);
        }
        steps.push_back(std::move(step));
        seen.push_back(std::move(b));
    }
    return steps;
}

} // namespace cl::cost
