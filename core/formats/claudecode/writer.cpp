// SPDX-License-Identifier: MIT
// Writing a Claude Code session back after strategies changed it: untouched lines byte-for-byte,
// edited messages re-serialized in their original envelope, deleted lines dropped, inserted
// messages written as new lines, and parentUuid links re-pointed only where they would dangle.
#include "core/formats/claudecode/internal.h"
#include "core/util/uuid.h"

#include <algorithm>
#include <chrono>
#include <unordered_map>
#include <unordered_set>

namespace cl::formats::claudecode {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

ordered_json parseOrdered(std::string_view text)
{
    if (cl::json::nestingDepth(text) > cl::json::kMaxDepth)
        return ordered_json(ordered_json::value_t::discarded); // nlohmann would recurse without limit
    std::string clean;
    if (!cl::json::isValidUtf8(text)) {
        clean = cl::json::sanitizeUtf8(text);
        text = clean;
    }
    return ordered_json::parse(text.begin(), text.end(), nullptr, false); // discarded value on error
}

struct OriginalBlock {
    std::vector<Block> decoded; // a tool_result with nested images decodes to several blocks
    ordered_json json;
    bool used = false;
};

// Every content block of the message's source lines, so unchanged blocks are written exactly as
// they were (thinking signatures, image data and fields the neutral model does not hold).
std::vector<OriginalBlock> originalBlocks(const Transcript &t, const Message &m, bool &stringContent)
{
    std::vector<OriginalBlock> out;
    stringContent = false;
    for (const std::uint32_t r : m.records) {
        const ordered_json line = parseOrdered(withoutTerminator(t.recordBytes(t.records[r])));
        if (!line.is_object() || !line.contains("message") || !line["message"].is_object())
            continue;
        const ordered_json &content = line["message"].value("content", ordered_json());
        if (content.is_string())
            stringContent = m.records.size() == 1;
        if (!content.is_array())
            continue;
        for (const auto &item : content) {
            OriginalBlock ob;
            json copy = json::parse(item.dump(-1, ' ', false, ordered_json::error_handler_t::replace));
            std::vector<Problem> ignored;
            decodeBlock(copy, ob.decoded, ignored);
            ob.json = item;
            out.push_back(std::move(ob));
        }
    }
    return out;
}

ordered_json encodeReusing(const Transcript &t, const Message &m, std::vector<std::string> &notes)
{
    bool stringContent = false;
    std::vector<OriginalBlock> originals = originalBlocks(t, m, stringContent);
    if (stringContent && m.blocks.size() == 1 && m.blocks[0].type == BlockType::Text)
        return m.blocks[0].text;
    ordered_json content = ordered_json::array();
    for (std::size_t i = 0; i < m.blocks.size();) {
        bool reused = false;
        for (auto &ob : originals) {
            const std::size_t k = ob.decoded.size();
            if (ob.used || k == 0 || i + k > m.blocks.size())
                continue;
            if (std::equal(ob.decoded.begin(), ob.decoded.end(), m.blocks.begin() + std::ptrdiff_t(i), sameBlock)) {
                content.push_back(ob.json);
                ob.used = reused = true;
                i += k;
                break;
            }
        }
        if (reused)
            continue;
        // A tool_result takes the images nested in it along.
        std::size_t end = i + 1;
        if (m.blocks[i].type == BlockType::ToolResult)
            while (end < m.blocks.size() && m.blocks[end].type == BlockType::Image
                   && m.blocks[end].toolId == m.blocks[i].toolId)
                ++end;
        const std::vector<Block> part(m.blocks.begin() + std::ptrdiff_t(i), m.blocks.begin() + std::ptrdiff_t(end));
        for (auto &b : encodeBlocks(part, &notes))
            content.push_back(std::move(b));
        i = end;
    }
    return content;
}

} // namespace

WriteResult writeSameFormat(const Transcript &t, ByteSink &out)
{
    WriteResult result;
    const std::size_t nr = t.records.size();
    std::vector<std::int32_t> owner(nr, -1);
    for (std::size_t mi = 0; mi < t.messages.size(); ++mi)
        for (const std::uint32_t r : t.messages[mi].records)
            if (r < nr && owner[r] < 0)
                owner[r] = std::int32_t(mi);

    // Inserted messages (no records) go after the last record of the message before them.
    std::vector<std::vector<std::size_t>> after(nr);
    std::vector<std::size_t> atStart;
    std::int64_t anchor = -1;
    for (std::size_t mi = 0; mi < t.messages.size(); ++mi) {
        const Message &m = t.messages[mi];
        if (m.records.empty())
            (anchor < 0 ? atStart : after[std::size_t(anchor)]).push_back(mi);
        else
            anchor = std::max<std::int64_t>(anchor, *std::max_element(m.records.begin(), m.records.end()));
    }

    // Lines that disappear: records of deleted messages, and the extra lines of an edited
    // multi-line response (it is written as one line in place of its first).
    std::unordered_set<std::string> removed;
    std::vector<char> skip(nr, 0);
    for (std::size_t r = 0; r < nr; ++r) {
        const bool deleted = owner[r] < 0 && t.records[r].message >= 0;
        const bool merged = owner[r] >= 0 && t.messages[std::size_t(owner[r])].edited
                            && t.messages[std::size_t(owner[r])].records.front() != r;
        if (deleted || merged) {
            skip[r] = 1;
            if (std::string u = cl::json::topLevelString(t.recordBytes(t.records[r]), "uuid"); !u.empty())
                removed.insert(std::move(u));
        }
    }

    const Envelope env = envelopeFrom(t);
    std::unordered_map<std::string, std::string> redirect; // parent uuid -> inserted line continuing it
    std::string last[2];                                   // last written chain uuid: main, sidechain
    std::string lastTimestamp;
    auto resolve = [&](const std::string &p, int lane) -> std::string {
        if (p.empty())
            return p;
        if (const auto it = redirect.find(p); it != redirect.end())
            return it->second;
        return removed.count(p) ? last[lane] : p;
    };
    auto emitNew = [&](const std::vector<std::size_t> &list) {
        const std::string before[2] = {last[0], last[1]};
        for (const std::size_t mi : list) {
            const Message &m = t.messages[mi];
            const int lane = m.sidechain ? 1 : 0;
            const std::string uuid = util::randomUuid();
            std::string ts = m.timestamp;
            if (ts.empty())
                ts = m.timeMs != kNoTime ? formatTimestamp(m.timeMs) : lastTimestamp;
            if (ts.empty())
                ts = formatTimestamp(std::chrono::duration_cast<std::chrono::milliseconds>(
                                         std::chrono::system_clock::now().time_since_epoch())
                                         .count());
            const ordered_json line = buildLine(m, env, uuid, last[lane], ts, result.notes);
            if (line.empty())
                continue;
            cl::json::dumpTo(line, out);
            out += '\n';
            last[lane] = uuid;
        }
        for (int lane = 0; lane < 2; ++lane)
            if (!before[lane].empty() && before[lane] != last[lane])
                redirect[before[lane]] = last[lane];
    };

    out.reserve(t.buffer->size() + 4096);
    emitNew(atStart);
    for (std::size_t r = 0; r < nr; ++r) {
        const std::string_view bytes = t.recordBytes(t.records[r]);
        const std::int32_t mi = owner[r];
        if (!skip[r]) {
            const int lane = mi >= 0 ? (t.messages[std::size_t(mi)].sidechain ? 1 : 0) : (cl::json::topLevelTrue(bytes, "isSidechain") ? 1 : 0);
            std::string uuid;
            if (mi >= 0 && t.messages[std::size_t(mi)].edited) {
                ordered_json line = parseOrdered(withoutTerminator(bytes));
                if (line.is_object() && line.contains("message") && line["message"].is_object()) {
                    const Message &m = t.messages[std::size_t(mi)];
                    line["message"]["content"] = encodeReusing(t, m, result.notes);
                    if (m.records.size() > 1) { // usage and stop reason of the complete response
                        const ordered_json lastLine = parseOrdered(withoutTerminator(t.recordBytes(t.records[m.records.back()])));
                        if (lastLine.is_object() && lastLine.contains("message") && lastLine["message"].is_object())
                            for (const char *k : {"usage", "stop_reason"})
                                if (lastLine["message"].contains(k))
                                    line["message"][k] = lastLine["message"][k];
                    }
                    for (const char *k : {"parentUuid", "logicalParentUuid"})
                        if (line.contains(k) && line[k].is_string())
                            if (const std::string p = resolve(line[k].get<std::string>(), lane); p != line[k].get<std::string>())
                                line[k] = p.empty() ? ordered_json(nullptr) : ordered_json(p);
                    uuid = cl::json::str(line, "uuid");
                    cl::json::dumpTo(line, out);
                    out += bytes.size() > withoutTerminator(bytes).size() ? bytes.substr(withoutTerminator(bytes).size()) : "\n";
                } else {
                    result.notes.push_back("line " + std::to_string(t.records[r].line)
                                           + ": edited message has no message object; written unchanged");
                    out += bytes;
                }
            } else if ((redirect.empty() && removed.empty()) || !t.records[r].parsed) {
                out += bytes;
                uuid = cl::json::topLevelString(bytes, "uuid");
            } else {
                // Splice new parent links into the original bytes; everything else stays as read.
                std::string text(bytes);
                for (const char *k : {"parentUuid", "logicalParentUuid"}) {
                    const std::string old = cl::json::topLevelString(text, k);
                    const std::string now = resolve(old, lane);
                    if (now == old)
                        continue;
                    const auto range = cl::json::topLevelValue(text, k);
                    text.replace(range.begin, range.end - range.begin,
                                 now.empty() ? std::string("null") : cl::json::dump(json(now)));
                }
                out += text;
                uuid = cl::json::topLevelString(text, "uuid");
            }
            if (mi >= 0 && !uuid.empty())
                last[lane] = uuid;
            if (mi >= 0 && !t.messages[std::size_t(mi)].timestamp.empty())
                lastTimestamp = t.messages[std::size_t(mi)].timestamp;
        }
        emitNew(after[r]);
    }
    return result;
}

} // namespace cl::formats::claudecode
