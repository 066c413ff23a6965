// SPDX-License-Identifier: MIT
#pragma once

// Pieces shared by the GitHub Copilot CLI loader (formats/copilotcli/loader.cpp) and writers
// (formats/copilotcli/writer.cpp: same-format edits; convert.cpp: a fresh events.jsonl).

#include "core/model/transcript.h"
#include "core/util/bytesink.h"
#include "core/util/json.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cl::formats::copilotcli {

using ojson = nlohmann::ordered_json;

// The version the written session.start names; the events were read from Copilot CLI 1.0.102.
inline constexpr const char *kCopilotVersion = "1.0.102";

// Makes the event ids of a written file: UUID v4 shaped (Copilot CLI refuses a session whose
// id or parentId is not a UUID), stable for the same input so that writing twice gives the same file.
class EventIds
{
public:
    explicit EventIds(const Transcript &t);
    std::string next();

private:
    std::uint64_t m_a = 0, m_b = 0, m_n = 0;
};

// One event line {type, data, id, timestamp, parentId} in Copilot CLI's key order, with a newline.
void writeEvent(ByteSink &sink, std::string_view type, ojson data, const std::string &id, const std::string &timestamp,
                const std::string &parentId);

// The data of the events that carry a message, built from the message (what the loader reads
// back): assistant.message content / reasoningText / toolRequests, tool.execution_complete
// success / result, user.message content / transformedContent.
ojson toolRequests(const Message &m, const ojson *original, std::vector<std::string> &notes);
std::string joinedText(const Message &m);

// RFC 3339 UTC with milliseconds, like Copilot CLI writes.
std::string isoTime(std::int64_t ms);

// Writes events one after the other, each new one with a fresh id and the previous line's id as
// its parentId (Copilot CLI's chain: every event names the one written before it).
class EventWriter
{
public:
    EventWriter(const Transcript &t, ByteSink &sink, std::vector<std::string> &notes)
        : m_ids(t)
        , m_sink(sink)
        , m_notes(notes)
    {}
    // An original line written as it was (or re-encoded): the chain goes on from its id.
    void original(std::string_view bytes, const std::string &id, const std::string &timestamp);
    void event(std::string_view type, ojson data);
    // Message m as the events Copilot CLI records for it. fresh: a file written from another format,
    // which also gets the turn events, tool.execution_start and the response's usage record.
    void message(const Message &m, bool fresh);
    // A compaction as Copilot CLI records one: its start, then the complete event with the summary.
    void compaction(const std::string &summary, const Message *boundary);
    void closeTurn();
    void setTime(std::int64_t ms)
    {
        if (ms != kNoTime)
            m_timestamp = isoTime(ms);
    }
    void setTimestamp(std::string ts)
    {
        if (!ts.empty())
            m_timestamp = std::move(ts);
    }
    std::size_t skipped = 0; // events and metadata of another format, not written

private:
    void toolResult(const Block &b, const std::string &model, bool fresh);

    EventIds m_ids;
    ByteSink &m_sink;
    std::vector<std::string> &m_notes;
    std::string m_lastId, m_timestamp = isoTime(0);
    std::int64_t m_turn = -1;
    bool m_turnOpen = false;
    std::vector<std::string> m_openCalls;
    std::size_t m_calls = 0;
};

} // namespace cl::formats::copilotcli
