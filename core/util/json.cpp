// SPDX-License-Identifier: MIT
#include "core/util/json.h"

#include "core/util/bytesink.h"
#include "core/util/json_simd.h"

#include <algorithm>

#include <cstring>

namespace cl::json {

std::vector<LineSpan> splitLines(std::string_view buffer)
{
    std::vector<LineSpan> lines;
    lines.reserve(buffer.size() / 256 + 1);
    std::size_t pos = 0;
    std::uint32_t lineNo = 1;
    while (pos < buffer.size()) {
        const std::size_t nl = buffer.find('\n', pos);
        LineSpan span;
        span.offset = static_cast<std::uint32_t>(pos);
        span.line = lineNo++;
        if (nl == std::string_view::npos) {
            span.length = static_cast<std::uint32_t>(buffer.size() - pos);
            span.contentLength = span.length;
            if (span.contentLength && buffer[pos + span.contentLength - 1] == '\r')
                --span.contentLength;
            pos = buffer.size();
        } else {
            span.length = static_cast<std::uint32_t>(nl + 1 - pos);
            span.contentLength = span.length - 1;
            if (span.contentLength && buffer[nl - 1] == '\r')
                --span.contentLength;
            pos = nl + 1;
        }
        lines.push_back(span);
    }
    return lines;
}

namespace {
// Length of the valid UTF-8 sequence at s[i], or 0 if invalid.
std::size_t utf8SequenceLength(std::string_view s, std::size_t i)
{
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80)
        return 1;
    std::size_t n;
    std::uint32_t cp;
    if ((c & 0xE0) == 0xC0) {
        n = 2;
        cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3;
        cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (i + n > s.size())
        return 0;
    for (std::size_t k = 1; k < n; ++k) {
        const auto cc = static_cast<unsigned char>(s[i + k]);
        if ((cc & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (cc & 0x3F);
    }
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF
        || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}
} // namespace

bool isValidUtf8(std::string_view s)
{
    std::size_t i = 0;
    while (i < s.size()) {
        // Fast path over ASCII, 8 bytes at a time.
        while (i + 8 <= s.size()) {
            std::uint64_t w;
            std::memcpy(&w, s.data() + i, 8);
            if (w & 0x8080808080808080ull)
                break;
            i += 8;
        }
        if (i >= s.size())
            break;
        const std::size_t n = utf8SequenceLength(s, i);
        if (!n)
            return false;
        i += n;
    }
    return true;
}

std::string sanitizeUtf8(std::string_view s)
{
    std::string out;
    out.reserve(s.size() + 16);
    std::size_t i = 0;
    while (i < s.size()) {
        const std::size_t n = utf8SequenceLength(s, i);
        if (n) {
            out.append(s.substr(i, n));
            i += n;
        } else {
            out.append("\xEF\xBF\xBD");
            ++i;
        }
    }
    return out;
}

int nestingDepth(std::string_view text, int limit)
{
    int depth = 0;
    int maxDepth = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        switch (c) {
        case '"': {
            // To the quote that ends the string (memchr: a 100 MB string is skipped at memory speed):
            // the first one after an even run of backslashes.
            const std::size_t open = i;
            for (;;) {
                const void *q = std::memchr(text.data() + i + 1, '"', text.size() - i - 1);
                if (!q)
                    return maxDepth; // unterminated: nothing nests further
                i = std::size_t(static_cast<const char *>(q) - text.data());
                std::size_t k = i;
                while (k > open + 1 && text[k - 1] == '\\')
                    --k;
                if ((i - k) % 2 == 0)
                    break;
            }
            break;
        }
        case '[':
        case '{':
            if (++depth > maxDepth) {
                maxDepth = depth;
                if (maxDepth > limit)
                    return maxDepth;
            }
            break;
        case ']':
        case '}':
            --depth;
            break;
        default:
            break;
        }
    }
    return maxDepth;
}

json fromSimdjson(const simdjson::dom::element &e)
{
    using ET = simdjson::dom::element_type;
    switch (e.type()) {
    case ET::OBJECT: {
        json j = json::object();
        const simdjson::dom::object object = e.get_object().value_unsafe(); // a value: the result is a temporary
        for (const auto field : object)
            j[std::string(field.key)] = fromSimdjson(field.value);
        return j;
    }
    case ET::ARRAY: {
        json j = json::array();
        const simdjson::dom::array array = e.get_array().value_unsafe();
        for (const auto item : array)
            j.push_back(fromSimdjson(item));
        return j;
    }
    case ET::STRING: return json(std::string(e.get_string().value_unsafe()));
    case ET::INT64: {
        const std::int64_t v = e.get_int64().value_unsafe();
        return v >= 0 ? json(std::uint64_t(v)) : json(v);
    }
    case ET::UINT64: return json(e.get_uint64().value_unsafe());
    case ET::DOUBLE: return json(e.get_double().value_unsafe());
    case ET::BOOL: return json(e.get_bool().value_unsafe());
    case ET::NULL_VALUE: return json();
    }
    return json();
}

namespace {

constexpr std::size_t kBigText = std::size_t(4) << 20;
thread_local std::size_t t_inPlaceParses = 0;

// A text of a few huge values: fewer than one string per 64 KB.
bool fewValues(std::string_view text)
{
    const std::size_t limit = 2 * (text.size() / 65536 + 16) + 1; // quotes (two per string) allowed
    std::size_t quotes = 0;
    for (const char *p = text.data(), *end = p + text.size();
         (p = static_cast<const char *>(std::memchr(p, '"', std::size_t(end - p)))) != nullptr; ++p)
        if (++quotes > limit)
            return false;
    return true;
}

} // namespace

std::size_t inPlaceParses()
{
    return t_inPlaceParses;
}

ParseStatus parse(std::string_view text, json &out, std::string &error, std::size_t readableAfter)
{
    if (text.size() >= kBigText && readableAfter >= simdjson::SIMDJSON_PADDING && fewValues(text)
        && nestingDepth(text) <= kMaxDepth) {
        simdjson::dom::parser parser;
        simdjson::dom::element root;
        // Invalid UTF-8, numbers out of range or anything else simdjson refuses: nlohmann's reading,
        // with its repairs, below.
        if (parser.parse(text.data(), text.size(), false).get(root) == simdjson::SUCCESS) {
            out = fromSimdjson(root);
            ++t_inPlaceParses;
            return ParseStatus::Ok;
        }
    }
    return parse(text, out, error);
}

ParseStatus parse(std::string_view text, json &out, std::string &error)
{
    if (nestingDepth(text) > kMaxDepth) {
        error = "JSON nested deeper than " + std::to_string(kMaxDepth) + " levels";
        out = nullptr;
        return ParseStatus::Failed;
    }
    try {
        out = json::parse(text.begin(), text.end());
        return ParseStatus::Ok;
    } catch (const json::parse_error &e) {
        if (!isValidUtf8(text)) {
            const std::string clean = sanitizeUtf8(text);
            try {
                out = json::parse(clean);
                return ParseStatus::OkSanitized;
            } catch (const json::exception &e2) {
                error = e2.what();
            }
        } else {
            error = e.what();
        }
    } catch (const std::exception &e) {
        error = e.what();
    }
    // nlohmann's messages start with "[json.exception.parse_error.101] "; keep the useful part.
    if (const auto p = error.find("] "); p != std::string::npos && error.rfind("[json.exception", 0) == 0)
        error.erase(0, p + 2);
    out = nullptr;
    return ParseStatus::Failed;
}

const json *child(const json &obj, std::string_view key)
{
    if (!obj.is_object())
        return nullptr;
    const auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
}

const json *array(const json &obj, std::string_view key)
{
    const json *c = child(obj, key);
    return c && c->is_array() ? c : nullptr;
}

const json *object(const json &obj, std::string_view key)
{
    const json *c = child(obj, key);
    return c && c->is_object() ? c : nullptr;
}

std::string str(const json &obj, std::string_view key, std::string_view fallback)
{
    const json *c = child(obj, key);
    if (c && c->is_string())
        return c->get_ref<const std::string &>();
    return std::string(fallback);
}

std::int64_t num(const json &obj, std::string_view key, std::int64_t fallback)
{
    const json *c = child(obj, key);
    if (!c)
        return fallback;
    if (c->is_number_integer() || c->is_number_unsigned())
        return c->get<std::int64_t>();
    if (c->is_number_float())
        return static_cast<std::int64_t>(c->get<double>());
    return fallback;
}

bool boolean(const json &obj, std::string_view key, bool fallback)
{
    const json *c = child(obj, key);
    return c && c->is_boolean() ? c->get<bool>() : fallback;
}

std::string str(const nlohmann::ordered_json &obj, std::string_view key, std::string_view fallback)
{
    if (obj.is_object())
        if (const auto it = obj.find(key); it != obj.end() && it->is_string())
            return it->get_ref<const std::string &>();
    return std::string(fallback);
}

bool boolean(const nlohmann::ordered_json &obj, std::string_view key, bool fallback)
{
    if (obj.is_object())
        if (const auto it = obj.find(key); it != obj.end() && it->is_boolean())
            return it->get<bool>();
    return fallback;
}

namespace {

// nlohmann's own serializer (the one dump() uses) with a ByteSink as its output.
class SinkAdapter final : public nlohmann::detail::output_adapter_protocol<char>
{
public:
    explicit SinkAdapter(ByteSink &out)
        : m_out(out)
    {}
    void write_character(char c) override { m_out += c; }
    void write_characters(const char *s, std::size_t n) override { m_out += std::string_view(s, n); }

private:
    ByteSink &m_out;
};

template <typename J>
void serialize(const J &j, ByteSink &out, int indent, unsigned shift)
{
    nlohmann::detail::serializer<J> s(std::make_shared<SinkAdapter>(out), ' ', J::error_handler_t::replace);
    if (indent >= 0)
        s.dump(j, true, false, unsigned(indent), shift);
    else
        s.dump(j, false, false, 0);
}

} // namespace

void dumpTo(const json &j, ByteSink &out, int indent, unsigned shift)
{
    serialize(j, out, indent, shift);
}

void dumpTo(const nlohmann::ordered_json &j, ByteSink &out, int indent, unsigned shift)
{
    serialize(j, out, indent, shift);
}

std::string dump(const json &j, int indent)
{
    return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

std::string flattenText(const json &content)
{
    if (content.is_string())
        return content.get<std::string>();
    if (content.is_null())
        return {};
    if (content.is_array()) {
        std::string out;
        for (const auto &item : content) {
            if (!out.empty())
                out += '\n';
            if (item.is_string())
                out += item.get<std::string>();
            else if (const json *t = child(item, "text"); t && t->is_string())
                out += t->get<std::string>();
            else
                out += dump(item);
        }
        return out;
    }
    return dump(content);
}

namespace {
std::size_t skipWs(std::string_view d, std::size_t i)
{
    while (i < d.size() && (d[i] == ' ' || d[i] == '\n' || d[i] == '\r' || d[i] == '\t'))
        ++i;
    return i;
}

// End (one past) of the string starting at d[i] == '"'; npos if unterminated.
std::size_t skipString(std::string_view d, std::size_t i)
{
    for (++i; i < d.size(); ++i) {
        if (d[i] == '\\')
            ++i;
        else if (d[i] == '"')
            return i + 1;
    }
    return std::string_view::npos;
}

// End (one past) of the value starting at d[i]; npos if malformed.
std::size_t skipValue(std::string_view d, std::size_t i)
{
    if (i >= d.size())
        return std::string_view::npos;
    if (d[i] == '"')
        return skipString(d, i);
    if (d[i] == '[' || d[i] == '{') {
        int depth = 0;
        for (; i < d.size(); ++i) {
            const char c = d[i];
            if (c == '"') {
                i = skipString(d, i);
                if (i == std::string_view::npos)
                    return i;
                --i;
            } else if (c == '[' || c == '{') {
                ++depth;
            } else if (c == ']' || c == '}') {
                if (--depth == 0)
                    return i + 1;
            }
        }
        return std::string_view::npos;
    }
    // number, true, false, null
    while (i < d.size() && d[i] != ',' && d[i] != ']' && d[i] != '}' && d[i] != ' ' && d[i] != '\n' && d[i] != '\r'
           && d[i] != '\t')
        ++i;
    return i;
}
} // namespace

std::vector<Range> arrayElements(std::string_view doc, std::size_t arrayBegin)
{
    std::vector<Range> out;
    if (arrayBegin >= doc.size() || doc[arrayBegin] != '[')
        return out;
    std::size_t i = skipWs(doc, arrayBegin + 1);
    if (i < doc.size() && doc[i] == ']')
        return out;
    while (i < doc.size()) {
        const std::size_t end = skipValue(doc, i);
        if (end == std::string_view::npos || end == i)
            return {};
        out.push_back({i, end});
        i = skipWs(doc, end);
        if (i >= doc.size())
            return {};
        if (doc[i] == ']')
            return out;
        if (doc[i] != ',')
            return {};
        i = skipWs(doc, i + 1);
    }
    return {};
}

std::string topLevelString(std::string_view doc, std::string_view key)
{
    const Range r = topLevelValue(doc, key);
    if (r.begin == r.end || doc[r.begin] != '"')
        return {};
    json v;
    std::string error;
    if (parse(doc.substr(r.begin, r.end - r.begin), v, error) == ParseStatus::Failed || !v.is_string())
        return {};
    return v.get<std::string>();
}

bool topLevelTrue(std::string_view doc, std::string_view key)
{
    const Range r = topLevelValue(doc, key);
    return r.begin != r.end && doc.substr(r.begin, r.end - r.begin) == "true";
}

Range topLevelValue(std::string_view doc, std::string_view key)
{
    std::size_t i = skipWs(doc, 0);
    if (i >= doc.size() || doc[i] != '{')
        return {};
    i = skipWs(doc, i + 1);
    while (i < doc.size() && doc[i] == '"') {
        const std::size_t keyEnd = skipString(doc, i);
        if (keyEnd == std::string_view::npos)
            return {};
        const std::string_view k = doc.substr(i + 1, keyEnd - i - 2);
        i = skipWs(doc, keyEnd);
        if (i >= doc.size() || doc[i] != ':')
            return {};
        i = skipWs(doc, i + 1);
        const std::size_t valueEnd = skipValue(doc, i);
        if (valueEnd == std::string_view::npos)
            return {};
        if (k == key)
            return {i, valueEnd};
        i = skipWs(doc, valueEnd);
        if (i < doc.size() && doc[i] == ',')
            i = skipWs(doc, i + 1);
        else
            break;
    }
    return {};
}

} // namespace cl::json
