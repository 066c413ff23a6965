// SPDX-License-Identifier: MIT
#include "core/workflow/compactionhook.h"

#include "core/io/backups.h"
#include "core/io/loader.h"
#include "core/llm/answer.h"
#include "core/tokens/contextfigure.h"
#include "core/util/json.h"
#include "core/workflow/audit.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <numeric>

namespace cl::compactionhook {

namespace fs = std::filesystem;

namespace {

std::int64_t nowMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

LoadResult loadAlone(const std::string &path)
{
    LoadOptions o;
    o.loadSubagents = false;
    return loadFile(path, o);
}

} // namespace

nlohmann::json recordJson(const Record &r)
{
    nlohmann::json j = {{"kind", r.kind == Record::Kind::Before ? "before" : "after"},
                        {"event", r.event},
                        {"stamp", r.stamp},
                        {"timeMs", r.timeMs},
                        {"sessionId", r.sessionId},
                        {"trigger", r.trigger},
                        {"snapshot", r.snapshot}};
    if (r.kind == Record::Kind::Before) {
        j["instructions"] = r.instructions;
        j["bytes"] = r.bytes;
        j["liveTokens"] = r.liveTokens;
        j["liveMessages"] = r.liveMessages;
    } else {
        j["summary"] = r.summary;
        j["factsChecked"] = r.factsChecked;
        j["factsKept"] = r.factsKept;
        nlohmann::json dropped = nlohmann::json::array();
        for (const strategy::Fact &f : r.dropped)
            dropped.push_back({{"kind", std::string(strategy::factKindName(f.kind))}, {"text", f.text}, {"sources", f.sources}});
        j["dropped"] = dropped;
    }
    return j;
}

namespace {

bool fromJson(const nlohmann::json &j, Record &r)
{
    if (!j.is_object())
        return false;
    const std::string kind = json::str(j, "kind");
    if (kind != "before" && kind != "after")
        return false;
    r.kind = kind == "before" ? Record::Kind::Before : Record::Kind::After;
    r.event = json::str(j, "event");
    r.stamp = json::str(j, "stamp");
    r.timeMs = json::num(j, "timeMs");
    r.sessionId = json::str(j, "sessionId");
    r.trigger = json::str(j, "trigger");
    r.snapshot = json::str(j, "snapshot");
    r.instructions = json::str(j, "instructions");
    r.bytes = std::uint64_t(std::max<std::int64_t>(0, json::num(j, "bytes")));
    r.liveTokens = json::num(j, "liveTokens");
    r.liveMessages = std::size_t(std::max<std::int64_t>(0, json::num(j, "liveMessages")));
    r.summary = json::str(j, "summary");
    r.factsChecked = json::boolean(j, "factsChecked");
    r.factsKept = std::size_t(std::max<std::int64_t>(0, json::num(j, "factsKept")));
    if (const auto d = j.find("dropped"); d != j.end() && d->is_array())
        for (const nlohmann::json &f : *d) {
            strategy::Fact fact;
            fact.text = json::str(f, "text");
            const std::string k = json::str(f, "kind");
            for (const auto kk : {strategy::Fact::Kind::Request, strategy::Fact::Kind::Path, strategy::Fact::Kind::Command,
                                  strategy::Fact::Kind::Error})
                if (strategy::factKindName(kk) == k)
                    fact.kind = kk;
            if (const auto s = f.find("sources"); s != f.end() && s->is_array())
                for (const nlohmann::json &i : *s)
                    if (i.is_number_unsigned())
                        fact.sources.push_back(i.get<std::size_t>());
            r.dropped.push_back(std::move(fact));
        }
    return true;
}

bool append(const std::string &file, const Record &r, std::string &error)
{
    std::error_code ec;
    fs::create_directories(fs::path(file).parent_path(), ec);
    std::ofstream out(file, std::ios::binary | std::ios::app);
    out << recordJson(r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    if (!out.flush()) {
        error = file + ": cannot append";
        return false;
    }
    return true;
}

// The snapshot's live context: the messages the agent was about to summarise.
std::vector<std::size_t> liveMessages(const Transcript &t)
{
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < t.messages.size(); ++i)
        if (!t.messages[i].history && !t.messages[i].sidechain && t.messages[i].isConversation())
            out.push_back(i);
    return out;
}

// The last snapshot of the session when no compaction followed it (the file holds as many as its
// copy did) is superseded by the one just taken: Gemini CLI fires PreCompress before every turn's
// check, whether it then compresses or not, and a Claude Code compaction can fail. Its copy and its
// record go, so that the snapshots kept are one per compaction, and the newest.
void dropSuperseded(const std::string &root, const std::string &path, const std::string &sessionId, std::size_t compactionsNow)
{
    const std::vector<Record> list = records(root, path);
    if (list.empty() || list.back().kind != Record::Kind::Before || list.back().sessionId != sessionId)
        return;
    const LoadResult previous = loadAlone(list.back().snapshot);
    if (previous.ok() && audit::compactionBoundaries(*previous.transcript).size() != compactionsNow)
        return;
    const std::string file = recordsFile(root, path);
    std::ifstream in(file, std::ios::binary);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        lines.push_back(std::move(line));
    in.close();
    while (!lines.empty() && lines.back().empty())
        lines.pop_back();
    if (lines.empty())
        return;
    lines.pop_back();
    const std::string tmp = file + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        for (const std::string &l : lines)
            out << l << '\n';
        if (!out.flush())
            return;
    }
    std::error_code ec;
    fs::rename(tmp, file, ec);
    if (!ec)
        fs::remove(list.back().snapshot, ec);
}

} // namespace

bool parseEvent(std::string_view text, Event &out, std::string &error)
{
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object()) {
        error = "the hook input is no JSON object";
        return false;
    }
    out.name = json::str(j, "hook_event_name");
    out.sessionId = json::str(j, "session_id");
    out.transcriptPath = json::str(j, "transcript_path");
    out.cwd = json::str(j, "cwd");
    out.trigger = json::str(j, "trigger");
    out.instructions = json::str(j, "custom_instructions");
    out.summary = json::str(j, "compact_summary");
    if (!out.before() && !out.after()) {
        error = "not a compaction hook event ('" + out.name + "'; PreCompact, PreCompress or PostCompact)";
        return false;
    }
    if (out.transcriptPath.empty()) {
        error = "the hook input names no transcript_path";
        return false;
    }
    return true;
}

std::string recordsFile(const std::string &root, const std::string &transcriptPath)
{
    return (fs::path(backups::folderFor(root, transcriptPath)) / "compactions.jsonl").string();
}

std::optional<llm::Retention> snapshotFacts(const std::string &copy, const std::string &text)
{
    const LoadResult r = loadAlone(copy);
    if (!r.ok())
        return std::nullopt;
    // Every message: collectFacts visits only the live ones, as the audit does.
    std::vector<std::size_t> all(r.transcript->messages.size());
    std::iota(all.begin(), all.end(), std::size_t(0));
    return llm::retention(*r.transcript, all, text);
}

std::vector<Record> records(const std::string &root, const std::string &transcriptPath)
{
    std::vector<Record> out;
    std::ifstream in(recordsFile(root, transcriptPath), std::ios::binary);
    std::string line;
    while (std::getline(in, line)) {
        Record r;
        if (fromJson(nlohmann::json::parse(line, nullptr, false), r))
            out.push_back(std::move(r));
    }
    return out;
}

bool handle(const Event &e, const std::string &root, Record &out, std::string &error)
{
    const std::string &path = e.transcriptPath;
    out = Record{};
    out.event = e.name;
    out.timeMs = nowMs();
    out.stamp = backups::stampAt(out.timeMs);
    out.sessionId = e.sessionId;
    out.trigger = e.trigger;
    if (e.before()) {
        out.kind = Record::Kind::Before;
        out.instructions = e.instructions;
        backups::Entry made;
        if (!backups::create(root, path, &made, &error))
            return false;
        out.snapshot = made.path;
        out.stamp = made.stamp;
        out.bytes = made.size;
        const LoadResult r = loadAlone(made.path);
        if (r.ok()) {
            out.liveTokens = tokens::contextFigure(*r.transcript).total;
            out.liveMessages = liveMessages(*r.transcript).size();
            dropSuperseded(root, path, e.sessionId, audit::compactionBoundaries(*r.transcript).size());
        }
        return append(recordsFile(root, path), out, error);
    }
    out.kind = Record::Kind::After;
    out.summary = e.summary;
    // The snapshot of this compaction: the last one taken of this session, not yet checked.
    const std::vector<Record> earlier = records(root, path);
    for (auto it = earlier.rbegin(); it != earlier.rend(); ++it) {
        if (it->kind == Record::Kind::After)
            break;
        if (!e.sessionId.empty() && it->sessionId != e.sessionId)
            continue;
        out.snapshot = it->snapshot;
        break;
    }
    if (out.summary.empty()) {
        // Codex hands no summary over: the one its file now holds, of its last compaction.
        if (const LoadResult now = loadAlone(path); now.ok()) {
            audit::Options a;
            a.strategies = std::vector<std::string>{};
            const std::vector<audit::Compaction> list = audit::auditCompactions(*now.transcript, a);
            if (!list.empty())
                out.summary = list.back().summary;
        }
    }
    if (!out.snapshot.empty() && !out.summary.empty())
        if (std::optional<llm::Retention> kept = snapshotFacts(out.snapshot, out.summary)) {
            out.factsChecked = true;
            out.factsKept = kept->kept.size();
            out.dropped = std::move(kept->dropped);
        }
    return append(recordsFile(root, path), out, error);
}

} // namespace cl::compactionhook
