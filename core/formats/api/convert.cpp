// SPDX-License-Identifier: MIT
// Canonical form of a conversation for the API writers: paired tool calls, no orphans.
#include "core/formats/api/common.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

namespace cl::formats::api {

void addNote(std::vector<std::string> &notes, std::string note)
{
    if (std::find(notes.begin(), notes.end(), note) == notes.end())
        notes.push_back(std::move(note));
}

namespace {

// A value dumped with indent 2, its lines after the first shifted right by `shift` spaces.
void putIndented(ByteSink &out, const json &value, unsigned shift)
{
    cl::json::dumpTo(value, out, 2, shift);
}

} // namespace

DocumentStream::DocumentStream(ByteSink &out, json header, std::string arrayKey)
    : m_out(out)
    , m_header(std::move(header))
    , m_arrayKey(std::move(arrayKey))
{
    if (m_header.is_object())
        m_header.erase(m_arrayKey);
    else
        m_header = json::object();
    m_out += "{";
    for (auto it = m_header.begin(); it != m_header.end() && it.key() < m_arrayKey; ++it)
        key(it.key(), it.value());
    m_out += m_anyKey ? ",\n  " : "\n  ";
    m_anyKey = true;
    m_out += cl::json::dump(json(m_arrayKey));
    m_out += ": [";
}

void DocumentStream::key(const std::string &name, const json &value)
{
    m_out += m_anyKey ? ",\n  " : "\n  ";
    m_anyKey = true;
    m_out += cl::json::dump(json(name));
    m_out += ": ";
    putIndented(m_out, value, 2);
}

void DocumentStream::element(const json &e)
{
    m_out += m_count++ ? ",\n    " : "\n    ";
    putIndented(m_out, e, 4);
}

void DocumentStream::finish()
{
    m_out += m_count ? "\n  ]" : "]";
    for (auto it = m_header.begin(); it != m_header.end(); ++it)
        if (it.key() > m_arrayKey)
            key(it.key(), it.value());
    m_out += "\n}\n";
}

std::string dataUrl(const Block &image)
{
    if (!image.input.is_object())
        return {};
    const std::string url = cl::json::str(image.input, "url");
    if (!url.empty())
        return url;
    const std::string data = cl::json::str(image.input, "data");
    if (data.empty() || cl::json::str(image.input, "kind") == "text") // plain text, not base64
        return {};
    const std::string mt = cl::json::str(image.input, "media_type", image.mediaType);
    return "data:" + mt + ";base64," + data;
}

void parseDataUrl(std::string_view url, Block &image)
{
    if (url.substr(0, 5) == "data:") {
        const std::size_t comma = url.find(',');
        const std::string_view head = url.substr(5, comma == std::string_view::npos ? url.size() : comma - 5);
        image.mediaType = std::string(head.substr(0, head.find(';')));
        const std::string_view data = comma == std::string_view::npos ? std::string_view() : url.substr(comma + 1);
        image.dataSize = data.size();
        image.input = json{{"data", data}, {"media_type", image.mediaType}};
        return;
    }
    image.input = json{{"url", url}};
}

std::string placeholderText(const Block &b)
{
    const std::string what = b.type == BlockType::Image ? "image" : "document";
    return "[" + what + " omitted" + (b.mediaType.empty() ? std::string() : ": " + b.mediaType) + "]";
}

std::string argumentsString(const json &input)
{
    if (input.is_string())
        return input.get<std::string>();
    if (input.is_null())
        return "{}";
    return cl::json::dump(input);
}

json parseArguments(Transcript &t, std::uint32_t line, const json &arguments)
{
    if (!arguments.is_string())
        return arguments.is_null() ? json::object() : arguments;
    const std::string &s = arguments.get_ref<const std::string &>();
    if (s.find_first_not_of(" \t\r\n") == std::string::npos)
        return json::object();
    json parsed;
    std::string error;
    if (cl::json::parse(s, parsed, error) == cl::json::ParseStatus::Failed) {
        t.addDiagnostic(line, "tool call arguments are not valid JSON (kept as text): " + error);
        return arguments;
    }
    return parsed;
}

std::string blocksText(const json &content)
{
    if (content.is_string())
        return content.get<std::string>();
    if (content.is_null())
        return {};
    if (!content.is_array())
        return cl::json::dump(content);
    std::string out;
    for (const auto &item : content) {
        if (!out.empty())
            out += '\n';
        if (item.is_string())
            out += item.get<std::string>();
        else if (const json *text = cl::json::child(item, "text"); text && text->is_string())
            out += text->get<std::string>();
        else if (const std::string type = cl::json::str(item, "type"); !type.empty())
            out += "[" + type + "]";
        else
            out += cl::json::dump(item);
    }
    return out;
}

Block shapeOf(const Block &b)
{
    Block s;
    s.type = b.type;
    s.text = b.type == BlockType::Raw ? b.text : b.text.empty() ? std::string()
                                                                : std::string(" ");
    s.toolId = b.toolId;
    s.toolName = b.toolName;
    s.input = b.input;
    s.mediaType = b.mediaType;
    s.dataSize = b.dataSize;
    s.isError = b.isError;
    return s;
}

namespace {

Block textBlock(std::string text)
{
    return makeBlock(BlockType::Text, std::move(text));
}

// The result block for a call; a recorded result's text is moved out of it (it is used once).
Block resultFor(const Block &use, Block *result)
{
    Block r;
    r.type = BlockType::ToolResult;
    r.toolId = use.toolId;
    r.toolName = use.toolName;
    if (result && result->cleared) {
        r.text = std::string(kClearedResult); // what the agent sends since its microcompaction
        r.isError = result->isError;
    } else if (result) {
        r.text = std::move(result->text);
        r.isError = result->isError;
    } else {
        r.text = "[no result recorded]";
    }
    return r;
}

struct Item {
    Role role;
    std::vector<Block> blocks;
    std::vector<bool> claimed; // result blocks moved next to their call
};

} // namespace

Canonical canonicalize(const Transcript &t, bool liftSystem, std::vector<std::string> &notes)
{
    Canonical c;
    c.model = cl::json::str(t.header, "model");
    std::size_t nonConversation = 0, sidechain = 0, rawBlocks = 0, unknownRoles = 0, serverBlocks = 0;
    std::vector<Item> items;
    for (const auto &m : t.messages) {
        if (!m.isConversation()) {
            ++nonConversation;
            continue;
        }
        if (m.sidechain) {
            ++sidechain;
            continue;
        }
        if (m.role == Role::Assistant && !m.model.empty() && cl::json::str(t.header, "model").empty())
            c.model = m.model;
        Item item{m.role, {}, {}};
        if (item.role == Role::Unknown) {
            item.role = Role::User;
            ++unknownRoles;
        }
        // Tools a provider runs itself (Anthropic's web search, ...) answered in the same message:
        // another provider cannot take the pair, so both are left out.
        std::set<std::string> serverAnswered;
        for (const auto &b : m.blocks)
            if (b.type == BlockType::ToolResult && b.serverSide)
                serverAnswered.insert(b.toolId);
        for (const auto &b : m.blocks) {
            if (b.type == BlockType::Raw) {
                ++rawBlocks;
                continue;
            }
            if (b.serverSide && (b.type == BlockType::ToolResult || serverAnswered.count(b.toolId))) {
                serverBlocks += b.type == BlockType::ToolUse;
                continue;
            }
            if (b.type == BlockType::Text && b.text.empty())
                continue;
            item.blocks.push_back(b);
        }
        item.claimed.assign(item.blocks.size(), false);
        items.push_back(std::move(item));
    }
    if (nonConversation)
        addNote(notes, std::to_string(nonConversation) + " non-conversation messages (events, metadata, compaction "
                                                         "markers) left out");
    if (sidechain)
        addNote(notes, std::to_string(sidechain) + " sidechain (subagent) messages left out");
    if (rawBlocks)
        addNote(notes, std::to_string(rawBlocks) + " unrecognised content blocks left out");
    if (serverBlocks)
        addNote(notes, std::to_string(serverBlocks) + " calls of the provider's own tools (web search, ...) left out with "
                                                      "their results");
    if (unknownRoles)
        addNote(notes, std::to_string(unknownRoles) + " messages with an unknown role sent as user messages");

    // Pair every result with the latest unanswered call of the same id before it.
    struct Use {
        std::size_t item, block;
    };
    std::unordered_map<std::string, std::vector<Use>> pending;
    std::map<std::pair<std::size_t, std::size_t>, std::pair<std::size_t, std::size_t>> resultOf; // use -> result
    std::set<std::string> usedIds;
    std::size_t synthesized = 0, renamed = 0, orphans = 0, placeholders = 0, repeats = 0;
    for (std::size_t i = 0; i < items.size(); ++i) {
        for (std::size_t j = 0; j < items[i].blocks.size(); ++j) {
            Block &b = items[i].blocks[j];
            if (b.type == BlockType::ToolUse) {
                const std::string original = b.toolId;
                if (b.toolId.empty()) {
                    b.toolId = "call_" + std::to_string(i) + "_" + std::to_string(j);
                    ++synthesized;
                }
                if (!usedIds.insert(b.toolId).second) {
                    b.toolId += "_" + std::to_string(i) + "_" + std::to_string(j);
                    usedIds.insert(b.toolId);
                    ++renamed;
                }
                if (!original.empty())
                    pending[original].push_back({i, j});
            } else if (b.type == BlockType::ToolResult && b.repeated) {
                // Gemini CLI's restatement of a result its call already has: one result per call.
                b = textBlock(std::string());
                items[i].claimed[j] = true;
                ++repeats;
            } else if (b.type == BlockType::ToolResult) {
                auto it = pending.find(b.toolId);
                if (it != pending.end() && !it->second.empty()) {
                    const Use u = it->second.back();
                    it->second.pop_back();
                    resultOf[{u.item, u.block}] = {i, j};
                    items[i].claimed[j] = true;
                } else {
                    const std::string label = b.toolName.empty() ? b.toolId : b.toolName + " " + b.toolId;
                    b = textBlock("[tool result without a matching tool call (" + label + ")]\n" + b.text);
                    ++orphans;
                }
            }
        }
    }
    if (synthesized)
        addNote(notes, std::to_string(synthesized) + " tool calls without an id were given one");
    if (renamed)
        addNote(notes, std::to_string(renamed) + " tool calls with a duplicate id were given a new id");
    if (orphans)
        addNote(notes, std::to_string(orphans) + " tool results without a matching call turned into text");
    if (repeats)
        addNote(notes, std::to_string(repeats) + " repeated tool results (recorded twice by the agent) left out: one result per call");

    bool seenNonSystem = false;
    std::size_t midSystem = 0, misplacedThinking = 0, misplacedCalls = 0;
    auto flushAssistant = [&](std::size_t i, std::vector<std::size_t> &segment) {
        if (segment.empty())
            return;
        // Blocks are moved, not copied: each item block goes to exactly one turn.
        std::vector<Turn> results;
        for (const auto j : segment) {
            const Block &use = items[i].blocks[j];
            if (use.type != BlockType::ToolUse)
                continue;
            const auto it = resultOf.find({i, j});
            Block *result = it == resultOf.end() ? nullptr : &items[it->second.first].blocks[it->second.second];
            if (!result)
                ++placeholders;
            Turn tool{Role::Tool, {}};
            tool.blocks.push_back(resultFor(use, result)); // not an initializer list: that would copy the text
            results.push_back(std::move(tool));
        }
        Turn turn{Role::Assistant, {}};
        for (const auto j : segment)
            turn.blocks.push_back(std::move(items[i].blocks[j]));
        c.turns.push_back(std::move(turn));
        for (auto &r : results)
            c.turns.push_back(std::move(r));
        segment.clear();
    };
    for (std::size_t i = 0; i < items.size(); ++i) {
        Item &item = items[i];
        if (item.role == Role::Assistant) {
            seenNonSystem = true;
            std::vector<std::size_t> segment;
            bool lastWasUse = false;
            for (std::size_t j = 0; j < item.blocks.size(); ++j) {
                if (item.claimed[j])
                    continue;
                const bool isUse = item.blocks[j].type == BlockType::ToolUse;
                if (!isUse && lastWasUse)
                    flushAssistant(i, segment);
                segment.push_back(j);
                lastWasUse = isUse;
            }
            flushAssistant(i, segment);
            continue;
        }
        Turn turn{item.role == Role::System ? Role::System : Role::User, {}};
        for (std::size_t j = 0; j < item.blocks.size(); ++j) {
            if (item.claimed[j])
                continue;
            Block &b = item.blocks[j];
            if (b.type == BlockType::Thinking || b.type == BlockType::RedactedThinking) {
                ++misplacedThinking;
                continue;
            }
            if (b.type == BlockType::ToolUse) { // a call outside an assistant message cannot be sent as one
                ++misplacedCalls;
                b = textBlock("[tool call " + b.toolName + " " + argumentsString(b.input) + "]");
            }
            turn.blocks.push_back(std::move(b));
        }
        if (turn.blocks.empty())
            continue;
        if (turn.role == Role::System) {
            if (liftSystem && !seenNonSystem) {
                for (const auto &b : turn.blocks) {
                    if (b.type != BlockType::Text)
                        continue;
                    if (!c.system.empty())
                        c.system += "\n\n";
                    c.system += b.text;
                }
                continue;
            }
            if (liftSystem) {
                ++midSystem;
                turn.role = Role::User;
                for (auto &b : turn.blocks)
                    if (b.type == BlockType::Text)
                        b.text = "[system]\n" + b.text;
            }
        } else {
            seenNonSystem = true;
        }
        c.turns.push_back(std::move(turn));
    }
    if (placeholders)
        addNote(notes, std::to_string(placeholders)
                           + " tool calls had no recorded result: gave them the placeholder result \"[no result recorded]\"");
    if (midSystem)
        addNote(notes, std::to_string(midSystem) + " system messages inside the conversation sent as user text");
    if (misplacedThinking)
        addNote(notes, std::to_string(misplacedThinking) + " thinking blocks outside assistant messages dropped");
    if (misplacedCalls)
        addNote(notes, std::to_string(misplacedCalls) + " tool calls outside assistant messages turned into text");
    return c;
}

std::vector<Turn> alternate(Canonical &&c, std::vector<std::string> &notes)
{
    std::vector<Turn> out;
    std::size_t merged = 0;
    for (auto &turn : c.turns) {
        if (turn.blocks.empty())
            continue;
        const Role role = turn.role == Role::Assistant ? Role::Assistant : Role::User;
        if (!out.empty() && out.back().role == role) {
            out.back().blocks.insert(out.back().blocks.end(), std::make_move_iterator(turn.blocks.begin()),
                                     std::make_move_iterator(turn.blocks.end()));
            // Tool results from several calls join in one turn; other consecutive turns are real merges.
            if (turn.role != Role::Tool)
                ++merged;
            continue;
        }
        out.push_back(Turn{role, std::move(turn.blocks)});
    }
    if (merged)
        addNote(notes, std::to_string(merged) + " consecutive messages of the same role merged so roles alternate");
    if (out.empty() || out.front().role != Role::User) {
        out.insert(out.begin(), Turn{Role::User, {textBlock(out.empty() ? "(empty conversation)" : "(continued)")}});
        addNote(notes, "inserted a placeholder user message: the request must start with a user message");
    }
    return out;
}

} // namespace cl::formats::api
