// SPDX-License-Identifier: MIT
// A Gemini CLI session's summary: the recorded JSONL (metadata line, message lines, "$set" updates,
// "$rewindTo" rewinds), the legacy one-document ConversationRecord, and `/chat save` checkpoints.
// Which messages are still in the record follows the loader (core/formats/geminicli/loader.cpp):
// a message written again replaces the earlier copy, a rewind drops everything from its id on, a
// "$set" of messages restating known ids replaces the history and one with new ids is a compression.
#include "core/sessions/ondemand_internal.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace cl::sessions::detail {

namespace {

struct Message {
    std::string id;
    std::string_view type, timestamp, model;
    bool hasId = false;
    bool hasTokens = false;
    std::int64_t context = 0;
    cost::Tokens tokens; // as core/cost reads the loaded message: thoughts are billed as output
    std::string request;
};

bool isTurn(std::string_view type) { return type == "user" || type == "gemini" || type == "model"; }

bool readTokens(od::value &v, Message &m)
{
    od::object tokens;
    if (v.get_object().get(tokens) != simdjson::SUCCESS)
        return true;
    std::int64_t input = 0, cached = 0, output = 0, thoughts = 0;
    for (auto field : tokens) {
        od::field f;
        if (std::move(field).get(f) != simdjson::SUCCESS)
            return false;
        if (f.key() == "input")
            input = intOf(f.value());
        else if (f.key() == "cached")
            cached = intOf(f.value());
        else if (f.key() == "output")
            output = intOf(f.value());
        else if (f.key() == "thoughts")
            thoughts = intOf(f.value());
    }
    // Gemini's prompt count includes the cached part.
    m.context = std::max<std::int64_t>(0, input - cached) + cached;
    m.tokens = {};
    m.tokens.input = std::max<std::int64_t>(0, input - cached);
    m.tokens.cacheRead = cached;
    m.tokens.output = output + thoughts;
    m.hasTokens = true;
    return true;
}

// One message object's fields (a line, or an element of "$set".messages or "messages").
bool readMessageField(od::field &f, Message &m, bool wantRequest)
{
    const auto key = f.key();
    if (key == "id") {
        m.id = stringOf(f.value());
        m.hasId = true;
    } else if (key == "type") {
        m.type = stringOf(f.value());
    } else if (key == "timestamp") {
        m.timestamp = stringOf(f.value());
    } else if (key == "model") {
        m.model = stringOf(f.value());
    } else if (key == "tokens") {
        return readTokens(f.value(), m);
    } else if ((key == "content" || key == "parts") && wantRequest && (m.type.empty() || m.type == "user")) {
        m.request = firstRequestIn(f.value());
    }
    return true;
}

bool readMessage(od::value &v, Message &m, bool wantRequest)
{
    od::object object;
    if (v.get_object().get(object) != simdjson::SUCCESS)
        return false;
    for (auto field : object) {
        od::field f;
        if (std::move(field).get(f) != simdjson::SUCCESS || !readMessageField(f, m, wantRequest))
            return false;
    }
    return true;
}

class GeminiRecord
{
public:
    explicit GeminiRecord(Session &out)
        : m_out(out)
    {}

    bool wantRequest() const { return m_out.firstRequest.empty(); }

    // What every message read says, wherever it stands.
    void note(const Message &m)
    {
        noteTime(m_out, m.timestamp);
        if (m.hasTokens)
            m_out.peakContext = std::max(m_out.peakContext, m.context);
        if (!m.model.empty() && m.type != "user")
            m_out.model = m.model;
        if (m.type == "user" && m_out.firstRequest.empty() && !m.request.empty())
            m_out.firstRequest = firstLine(m.request);
    }

    void line(const Message &m)
    {
        note(m);
        m_seen.insert(m.id);
        if (const auto it = m_active.find(m.id); it != m_active.end()) {
            m_entries[it->second] = entry(m); // written again: the later copy wins
            return;
        }
        m_active[m.id] = m_entries.size();
        m_entries.push_back(entry(m));
    }

    void rewindTo(const std::string &id)
    {
        const auto it = m_active.find(id);
        for (std::size_t i = it == m_active.end() ? 0 : it->second; i < m_entries.size(); ++i)
            drop(i);
    }

    // "$set".messages: the whole conversation from here on.
    void replace(const std::vector<Message> &list)
    {
        bool restates = true;
        for (const auto &m : list) {
            std::string_view id = m.id;
            constexpr std::string_view kResponse = "_response";
            if (id.size() > kResponse.size() && id.substr(id.size() - kResponse.size()) == kResponse)
                id.remove_suffix(kResponse.size());
            restates = restates && m_seen.count(std::string(id));
        }
        if (!m_active.empty()) {
            if (!restates)
                ++m_out.compactions; // the earlier messages stay, as history
            else
                for (std::size_t i = 0; i < m_entries.size(); ++i)
                    drop(i);
        }
        m_active.clear();
        for (const auto &m : list) {
            note(m);
            m_seen.insert(m.id);
            if (m_active.count(m.id))
                continue; // a turn's tool results, listed under the turn's id
            m_active[m.id] = m_entries.size();
            m_entries.push_back(entry(m));
        }
    }

    std::size_t turns() const
    {
        return std::size_t(std::count_if(m_entries.begin(), m_entries.end(), [](const Entry &e) { return e.turn && !e.dropped; }));
    }

    // Session-level fields: the metadata line, a legacy record's top level, a "$set".
    void sessionField(od::field &f)
    {
        const auto key = f.key();
        if (key == "sessionId" && m_out.sessionId.empty())
            m_out.sessionId = stringOf(f.value());
        else if (key == "startTime" || key == "lastUpdated")
            noteTime(m_out, stringOf(f.value()));
        else if (key == "summary")
            m_summary = stringOf(f.value());
    }

    const std::string &summary() const { return m_summary; }

    // The usage of the messages still in the record, by model.
    std::vector<ModelUsage> usage() const
    {
        std::vector<ModelUsage> out;
        for (const Entry &e : m_entries)
            if (e.hasTokens && !e.dropped)
                addUsage(out, e.model, e.tokens);
        return out;
    }

private:
    struct Entry {
        std::string id;
        bool turn = false;
        bool dropped = false;
        bool hasTokens = false;
        cost::Tokens tokens;
        std::string model;
    };
    static Entry entry(const Message &m)
    {
        // The loader reads tokens of the model's messages only.
        const bool measured = m.hasTokens && (m.type == "gemini" || m.type == "model");
        Entry e{m.id, isTurn(m.type), false, measured, m.tokens, {}};
        if (measured)
            e.model = std::string(m.model);
        return e;
    }
    void drop(std::size_t i)
    {
        if (m_entries[i].dropped)
            return;
        m_entries[i].dropped = true;
        if (const auto it = m_active.find(m_entries[i].id); it != m_active.end() && it->second == i)
            m_active.erase(it);
    }

    Session &m_out;
    std::vector<Entry> m_entries;
    std::unordered_map<std::string, std::size_t> m_active;
    std::unordered_set<std::string> m_seen;
    std::string m_summary;
};

bool readMessageList(od::value &v, GeminiRecord &record, std::vector<Message> &list)
{
    od::array array;
    if (v.get_array().get(array) != simdjson::SUCCESS)
        return false;
    for (auto element : array) {
        od::value item;
        Message m;
        if (std::move(element).get(item) != simdjson::SUCCESS || !readMessage(item, m, record.wantRequest()))
            return false;
        if (m.hasId)
            list.push_back(std::move(m));
    }
    return true;
}

// A line: a message, a "$set", a "$rewindTo" or the metadata.
void readLine(od::object &object, GeminiRecord &record)
{
    Message m;
    std::vector<Message> list;
    bool isSet = false, hasList = false;
    std::string rewind;
    bool isRewind = false;
    for (auto field : object) {
        od::field f;
        if (std::move(field).get(f) != simdjson::SUCCESS)
            return;
        const auto key = f.key();
        if (key == "$rewindTo") {
            rewind = stringOf(f.value());
            isRewind = true;
        } else if (key == "$set") {
            isSet = true;
            od::object set;
            if (f.value().get_object().get(set) != simdjson::SUCCESS)
                continue;
            for (auto setField : set) {
                od::field sf;
                if (std::move(setField).get(sf) != simdjson::SUCCESS)
                    return;
                if (sf.key() == "messages") {
                    if (!readMessageList(sf.value(), record, list))
                        return;
                    hasList = true;
                } else {
                    record.sessionField(sf);
                }
            }
        } else if (key == "sessionId" || key == "startTime" || key == "lastUpdated" || key == "summary") {
            if (!m.hasId)
                record.sessionField(f);
        } else if (!readMessageField(f, m, record.wantRequest())) {
            return;
        }
    }
    if (isRewind)
        record.rewindTo(rewind);
    else if (isSet && hasList)
        record.replace(list);
    else if (!isSet && m.hasId)
        record.line(m);
}

// A checkpoint's history: API Content entries {role, parts}.
void readHistory(od::array &history, Session &out)
{
    for (auto element : history) {
        od::object content;
        if (element.get_object().get(content) != simdjson::SUCCESS)
            continue;
        std::string_view role;
        for (auto field : content) {
            od::field f;
            if (std::move(field).get(f) != simdjson::SUCCESS)
                return;
            if (f.key() == "role") {
                role = stringOf(f.value());
            } else if (f.key() == "parts" && role == "user" && out.firstRequest.empty()) {
                out.firstRequest = firstLine(firstRequestIn(f.value()));
            }
        }
        out.messages += role == "user" || role == "model";
    }
}

} // namespace

void scanGeminiLines(OnDemand &parser, const PaddedBytes &bytes, Session &out)
{
    out.format = Format::GeminiCli;
    GeminiRecord record(out);
    parser.forEachLine(bytes, [&](od::object &object) { readLine(object, record); });
    out.messages = record.turns();
    out.usage = record.usage();
    out.title = firstLine(record.summary());
}

bool scanGeminiDocument(OnDemand &parser, const PaddedBytes &bytes, Session &out)
{
    out.format = Format::GeminiCli;
    GeminiRecord record(out);
    const bool ok = parser.document(bytes, [&](od::value &root) {
        od::array array;
        if (root.get_array().get(array) == simdjson::SUCCESS) { // a legacy checkpoint: a bare Content[]
            out.checkpoint = true;
            readHistory(array, out);
            return true;
        }
        od::object object;
        if (root.get_object().get(object) != simdjson::SUCCESS)
            return false;
        for (auto field : object) {
            od::field f;
            if (std::move(field).get(f) != simdjson::SUCCESS)
                return false;
            if (f.key() == "history") {
                out.checkpoint = true;
                if (f.value().get_array().get(array) == simdjson::SUCCESS)
                    readHistory(array, out);
            } else if (f.key() == "messages") {
                std::vector<Message> list;
                if (!readMessageList(f.value(), record, list))
                    return false;
                for (const auto &m : list)
                    record.line(m);
            } else {
                record.sessionField(f);
            }
        }
        return true;
    });
    if (!out.checkpoint)
        out.messages = record.turns();
    out.usage = record.usage();
    out.title = firstLine(record.summary());
    return ok;
}

} // namespace cl::sessions::detail
