// SPDX-License-Identifier: MIT
// Loading one API request document into records, and rebuilding it byte-for-byte around edits.
#include "core/formats/api/common.h"

#include <algorithm>
#include <numeric>

namespace cl::formats::api {

std::uint32_t LineCounter::lineAt(std::size_t offset)
{
    if (offset < m_pos) { // asked backwards: start over
        m_pos = 0;
        m_line = 1;
    }
    offset = std::min(offset, m_buffer.size());
    for (; m_pos < offset; ++m_pos)
        if (m_buffer[m_pos] == '\n')
            ++m_line;
    return m_line;
}

std::size_t documentStart(std::string_view buffer)
{
    std::size_t i = buffer.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
    while (i < buffer.size() && (buffer[i] == ' ' || buffer[i] == '\n' || buffer[i] == '\r' || buffer[i] == '\t'))
        ++i;
    return i;
}

cl::json::Range topLevel(std::string_view buffer, std::string_view key)
{
    // The scanner does not know about a BOM; give it the document from its first byte.
    const std::size_t start = documentStart(buffer);
    cl::json::Range r = cl::json::topLevelValue(buffer.substr(start), key);
    if (r.begin == r.end)
        return {};
    return {r.begin + start, r.end + start};
}

bool parseDocument(Transcript &t, json &doc)
{
    std::string error;
    const std::string_view body = std::string_view(*t.buffer).substr(documentStart(*t.buffer));
    const auto status = cl::json::parse(body, doc, error, readableAfter(*t.buffer, body));
    if (status == cl::json::ParseStatus::Failed) {
        t.addDiagnostic(0, "not valid JSON: " + error, Diagnostic::Severity::Error);
        return false;
    }
    if (status == cl::json::ParseStatus::OkSanitized)
        t.addDiagnostic(0, "invalid UTF-8 replaced while reading");
    return true;
}

void keepWholeFileRaw(Transcript &t)
{
    if (!t.buffer || t.buffer->empty())
        return;
    Record r;
    r.offset = 0;
    r.length = static_cast<std::uint32_t>(t.buffer->size());
    r.line = 1;
    t.records.push_back(r);
}

namespace {
bool isEmptyArray(std::string_view buf, std::size_t arrayBegin)
{
    std::size_t i = arrayBegin + 1;
    while (i < buf.size() && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t'))
        ++i;
    return i < buf.size() && buf[i] == ']';
}
} // namespace

void decodeArray(Transcript &t, std::size_t arrayBegin, const json *parsed, LineCounter &lines, const LoadContext &ctx,
                 const DecodeFn &decode)
{
    const std::string_view buf = *t.buffer;
    if (arrayBegin >= buf.size() || buf[arrayBegin] != '[') {
        t.addDiagnostic(lines.lineAt(arrayBegin), "expected an array here", Diagnostic::Severity::Error);
        return;
    }
    const auto ranges = cl::json::arrayElements(buf, arrayBegin);
    if (ranges.empty()) {
        if (!isEmptyArray(buf, arrayBegin))
            t.addDiagnostic(lines.lineAt(arrayBegin), "cannot find the elements of the array (broken JSON)",
                            Diagnostic::Severity::Error);
        return;
    }
    if (parsed && (!parsed->is_array() || parsed->size() != ranges.size())) {
        t.addDiagnostic(lines.lineAt(arrayBegin), "array elements do not match the parsed document; parsing one by one");
        parsed = nullptr;
    }
    for (std::size_t i = 0; i < ranges.size(); ++i) {
        if (i % 256 == 0) {
            if (ctx.cancelled())
                return;
            ctx.progress(0.9 * double(i) / double(ranges.size()));
        }
        Record r;
        r.offset = static_cast<std::uint32_t>(ranges[i].begin);
        r.length = static_cast<std::uint32_t>(ranges[i].end - ranges[i].begin);
        r.line = lines.lineAt(ranges[i].begin);
        const auto recordIndex = static_cast<std::uint32_t>(t.records.size());

        json own;
        const json *element = parsed ? &(*parsed)[i] : nullptr;
        if (!element) {
            std::string error;
            const auto status = cl::json::parse(buf.substr(r.offset, r.length), own, error);
            if (status == cl::json::ParseStatus::Failed) {
                t.addDiagnostic(r.line, "element " + std::to_string(i + 1) + " is not valid JSON: " + error);
                t.records.push_back(r);
                continue;
            }
            element = &own;
        }
        Message m;
        m.line = r.line;
        m.records = {recordIndex};
        if (decode(t, *element, r.line, m)) {
            r.parsed = true;
            r.type = m.type;
            r.message = static_cast<std::int32_t>(t.messages.size());
            t.messages.push_back(std::move(m));
        }
        t.records.push_back(std::move(r));
    }
}

void addSideMessage(Transcript &t, cl::json::Range range, std::string recordType, LineCounter &lines, Message m)
{
    Record r;
    r.offset = static_cast<std::uint32_t>(range.begin);
    r.length = static_cast<std::uint32_t>(range.end - range.begin);
    r.line = lines.lineAt(range.begin);
    r.type = std::move(recordType);
    r.parsed = true;
    r.message = static_cast<std::int32_t>(t.messages.size());
    m.line = r.line;
    m.records = {static_cast<std::uint32_t>(t.records.size())};
    t.records.push_back(std::move(r));
    t.messages.push_back(std::move(m));
}

void sortRecords(Transcript &t)
{
    std::vector<std::uint32_t> order(t.records.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return t.records[a].offset < t.records[b].offset; });
    std::vector<std::uint32_t> newIndex(order.size());
    std::vector<Record> sorted;
    sorted.reserve(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        newIndex[order[i]] = static_cast<std::uint32_t>(i);
        sorted.push_back(std::move(t.records[order[i]]));
    }
    t.records = std::move(sorted);
    for (auto &m : t.messages) {
        for (auto &r : m.records)
            r = newIndex[r];
        std::sort(m.records.begin(), m.records.end());
    }
}

bool rebuildSameFormat(const Transcript &t, std::string_view arrayKey, const EncodeFn &encode, WriteResult &out,
                       ByteSink &sink)
{
    if (!t.buffer)
        return false;
    const std::string_view buf = *t.buffer;
    const std::size_t arrayBegin = arrayKey.empty() ? documentStart(buf) : topLevel(buf, arrayKey).begin;
    if (arrayBegin >= buf.size() || buf[arrayBegin] != '[')
        return false;
    const auto ranges = cl::json::arrayElements(buf, arrayBegin);
    if (ranges.empty() && !isEmptyArray(buf, arrayBegin))
        return false;
    const std::size_t regionBegin = ranges.empty() ? arrayBegin + 1 : ranges.front().begin;
    const std::size_t regionEnd = ranges.empty() ? arrayBegin + 1 : ranges.back().end;
    auto inArray = [&](const Record &r) {
        return !ranges.empty() && r.offset >= regionBegin && r.offset < regionEnd;
    };

    // Edits outside the array (system prompt, instructions) need the full re-encode.
    std::vector<bool> referenced(t.records.size(), false);
    for (const auto &m : t.messages) {
        for (const auto r : m.records) {
            if (r >= t.records.size())
                return false;
            referenced[r] = true;
            if (m.edited && !inArray(t.records[r]))
                return false;
        }
    }
    for (std::size_t r = 0; r < t.records.size(); ++r)
        if (!referenced[r] && t.records[r].message >= 0 && !inArray(t.records[r]))
            return false;

    std::string separator = ", ";
    if (ranges.size() >= 2) {
        separator = std::string(buf.substr(ranges[0].end, ranges[1].begin - ranges[0].end));
    } else if (ranges.size() == 1) {
        const std::string_view lead = buf.substr(arrayBegin + 1, ranges[0].begin - arrayBegin - 1);
        separator = lead.empty() ? std::string(", ") : "," + std::string(lead);
    }
    // Written as it goes: the bytes before the first element, then the elements, then the rest.
    sink += buf.substr(0, regionBegin);
    bool first = true;
    auto put = [&](std::string_view piece) {
        if (!first)
            sink += separator;
        sink += piece;
        first = false;
    };
    std::vector<bool> emitted(t.records.size(), false);
    std::size_t rawCursor = 0; // raw element records before this index are already placed
    auto flushRaw = [&](std::size_t upTo) {
        for (; rawCursor < upTo && rawCursor < t.records.size(); ++rawCursor) {
            const Record &r = t.records[rawCursor];
            if (!emitted[rawCursor] && !referenced[rawCursor] && r.message < 0 && inArray(r)) {
                put(t.recordBytes(r));
                emitted[rawCursor] = true;
            }
        }
    };
    for (const auto &m : t.messages) {
        std::int64_t elementRecord = -1;
        for (const auto r : m.records)
            if (inArray(t.records[r])) {
                elementRecord = r;
                break;
            }
        if (elementRecord >= 0)
            flushRaw(std::size_t(elementRecord));
        if (!m.edited && elementRecord >= 0) {
            if (!emitted[elementRecord]) {
                put(t.recordBytes(t.records[elementRecord]));
                emitted[elementRecord] = true;
            }
            continue;
        }
        if (!m.edited && !m.records.empty())
            continue; // an untouched side value (system prompt): still in the prefix
        for (const auto &element : encode(m, out.notes))
            put(cl::json::dump(element));
    }
    flushRaw(t.records.size());
    sink += buf.substr(regionEnd);
    out.ok = true;
    return true;
}

} // namespace cl::formats::api
