// SPDX-License-Identifier: MIT
#pragma once

// simdjson on demand for the session scanners: one parser per thread, lines parsed in place in a
// padded buffer, values read only when a scanner asks for them (everything else is skipped on the
// structural index, never copied or unescaped).

#include "core/sessions/internal.h"
#include "core/util/json.h"

#include <simdjson.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

namespace cl::sessions::detail {

namespace od = simdjson::ondemand;

// Bytes of a file with SIMDJSON_PADDING readable (initialized) bytes after the end.
struct PaddedBytes {
    std::string storage;
    std::size_t size = 0;
    std::string_view view() const { return {storage.data(), size}; }
    std::size_t capacityAfter(const char *p) const { return std::size_t(storage.data() + storage.size() - p); }
};

inline std::string_view stringOf(od::value &v)
{
    std::string_view s;
    if (v.get_string().get(s) != simdjson::SUCCESS)
        return {};
    return s;
}

inline std::int64_t intOf(od::value &v)
{
    od::number n;
    if (v.get_number().get(n) != simdjson::SUCCESS)
        return 0;
    if (n.is_int64())
        return n.get_int64();
    if (n.is_uint64())
        return std::int64_t(n.get_uint64() > std::uint64_t(INT64_MAX) ? INT64_MAX : n.get_uint64());
    // 1e300 or NaN in a hostile file: clamped, never an undefined conversion.
    const double d = n.get_double();
    return !(d == d) ? 0 : d >= 9.2e18 ? INT64_MAX
                       : d <= -9.2e18  ? INT64_MIN
                                       : std::int64_t(d);
}

// A field of an object looked up in any order; false when absent or unreadable.
inline bool field(od::object &object, std::string_view key, od::value &out)
{
    return object.find_field_unordered(key).get(out) == simdjson::SUCCESS;
}

inline std::string_view stringField(od::object &object, std::string_view key)
{
    od::value v;
    return field(object, key, v) ? stringOf(v) : std::string_view();
}

inline std::int64_t intField(od::object &object, std::string_view key)
{
    od::value v;
    return field(object, key, v) ? intOf(v) : 0;
}

inline bool isTrue(od::value &v)
{
    bool b = false;
    return v.get_bool().get(b) == simdjson::SUCCESS && b;
}

// Widens the session's time range by one record's timestamp.
inline void noteTime(Session &s, std::string_view timestamp)
{
    const std::int64_t ms = parseTimestamp(timestamp);
    if (ms == kNoTime)
        return;
    if (s.startMs == kNoTime || ms < s.startMs)
        s.startMs = ms;
    if (s.lastMs == kNoTime || ms > s.lastMs)
        s.lastMs = ms;
}

// The text of a content value: a string, or the first block with a "text" field that is a user's
// text (typedRequest); tool results and media are skipped without reading them.
std::string firstRequestIn(od::value &content);

class OnDemand
{
public:
    // Runs f(od::object &) on every line of bytes that is a JSON object. A line simdjson refuses for
    // its UTF-8 is read again with invalid bytes replaced; other refused lines are skipped (f must
    // itself drop what it gathered from a line whose iteration fails part way).
    template <class F> void forEachLine(const PaddedBytes &bytes, F &&f)
    {
        const char *p = bytes.storage.data();
        const char *end = p + bytes.size;
        if (bytes.view().substr(0, 3) == "\xEF\xBB\xBF") // a byte-order mark an editor left
            p += 3;
        while (p < end) {
            const char *nl = static_cast<const char *>(std::memchr(p, '\n', std::size_t(end - p)));
            const char *lineEnd = nl ? nl : end;
            const char *b = p;
            while (b < lineEnd && (*b == ' ' || *b == '\t' || *b == '\r'))
                ++b;
            if (b < lineEnd && *b == '{')
                parseLine(b, std::size_t(lineEnd - b), bytes.capacityAfter(b), f);
            p = nl ? nl + 1 : end;
        }
    }

    // The whole buffer as one document; f(od::value &) on its root. False when simdjson refuses it.
    template <class F> bool document(const PaddedBytes &bytes, F &&f)
    {
        od::document doc;
        if (m_parser.iterate(bytes.storage.data(), bytes.size, bytes.storage.size()).get(doc) != simdjson::SUCCESS)
            return false;
        od::value root;
        if (doc.get_value().get(root) != simdjson::SUCCESS)
            return false;
        return f(root);
    }

private:
    template <class F> void parseLine(const char *b, std::size_t len, std::size_t capacity, F &f)
    {
        od::document doc;
        auto error = m_parser.iterate(b, len, capacity).get(doc);
        if (error == simdjson::UTF8_ERROR) {
            m_scratch = json::sanitizeUtf8(std::string_view(b, len));
            const std::size_t n = m_scratch.size();
            m_scratch.append(simdjson::SIMDJSON_PADDING, ' ');
            error = m_parser.iterate(m_scratch.data(), n, m_scratch.size()).get(doc);
        }
        if (error != simdjson::SUCCESS)
            return;
        od::object object;
        if (doc.get_object().get(object) != simdjson::SUCCESS)
            return;
        f(object);
    }

    od::parser m_parser;
    std::string m_scratch;
};

// The scanners of each agent's files (scan_claude.cpp, scan_codex.cpp, scan_gemini.cpp).
void scanClaudeCode(OnDemand &parser, const PaddedBytes &bytes, Session &out);
void scanCodex(OnDemand &parser, const PaddedBytes &bytes, Session &out);
void scanCopilot(OnDemand &parser, const PaddedBytes &bytes, Session &out);
void scanGeminiLines(OnDemand &parser, const PaddedBytes &bytes, Session &out);
// A Gemini CLI JSON document: a legacy recorded session or a checkpoint (sets out.checkpoint).
bool scanGeminiDocument(OnDemand &parser, const PaddedBytes &bytes, Session &out);

} // namespace cl::sessions::detail
