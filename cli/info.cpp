// SPDX-License-Identifier: MIT
// `info`: what a transcript holds, as text or JSON. The JSON report is built first and the text is
// printed from it, so both always say the same.
#include "cli/cli.h"

#include "cli/common.h"
#include "core/analysis/analysis.h"
#include "core/analysis/subagents.h"
#include "core/tokens/estimator.h"
#include "core/tokens/fixedpart.h"
#include "core/workflow/undonecompaction.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace cl::cli {

namespace {

ojson countsJson(const std::map<std::string, std::size_t> &counts)
{
    ojson j = ojson::object();
    for (const auto &[k, v] : counts)
        j[k] = v;
    return j;
}

std::size_t countLines(std::string_view bytes)
{
    std::size_t n = std::size_t(std::count(bytes.begin(), bytes.end(), '\n'));
    if (!bytes.empty() && bytes.back() != '\n')
        ++n;
    return n;
}

// Each subagent run: what started it (the session, another subagent) and its size; parents first.
ojson subagentRunsJson(const Transcript &t)
{
    const std::vector<analysis::SubagentRun> runs = analysis::subagentRuns(t);
    ojson out = ojson::array();
    auto add = [&](auto &self, std::int32_t parent) -> void {
        for (std::size_t r = 0; r < runs.size(); ++r) {
            const analysis::SubagentRun &run = runs[r];
            if (run.parentRun != parent)
                continue;
            ojson j{{"agentId", run.agentId}, {"description", run.description}, {"agentType", run.agentType}, {"depth", run.depth}, {"messages", run.messages}, {"tokens", run.tokens}, {"sessionMessage", nullptr}, {"startedBy", nullptr}, {"message", nullptr}};
            if (run.parentRun >= 0)
                j["startedBy"] = runs[std::size_t(run.parentRun)].agentId;
            else if (run.message >= 0)
                j["startedBy"] = "session";
            if (run.message >= 0)
                j["message"] = run.message;
            if (run.sessionMessage >= 0)
                j["sessionMessage"] = run.sessionMessage;
            // An agent of the session's team: its name, and the session's messages to and about it.
            j["name"] = run.name.empty() ? ojson(nullptr) : ojson(run.name);
            j["background"] = run.background;
            j["messagesTo"] = run.messagesTo;
            j["notifications"] = run.notifications;
            out.push_back(std::move(j));
            self(self, std::int32_t(r));
        }
    };
    add(add, -1);
    return out;
}

ojson report(const Transcript &t)
{
    std::map<std::string, std::size_t> recordTypes, roles, kinds;
    for (const auto &r : t.records)
        ++recordTypes[r.parsed ? (r.type.empty() ? std::string("(no type)") : r.type) : std::string("(unparsed)")];
    std::size_t toolCalls = 0, toolResults = 0, toolErrors = 0, rounds = 0, thinking = 0, sidechain = 0, compactions = 0,
                orphans = 0;
    std::int64_t firstTime = kNoTime, lastTime = kNoTime;
    for (const auto &m : t.messages) {
        ++roles[std::string(roleName(m.role))];
        ++kinds[std::string(messageKindName(m.kind))];
        sidechain += m.sidechain;
        compactions += m.kind == MessageKind::CompactBoundary;
        bool hasUse = false;
        for (const auto &b : m.blocks) {
            if (b.type == BlockType::ToolUse) {
                ++toolCalls;
                hasUse = true;
                orphans += b.pairMessage < 0;
            } else if (b.type == BlockType::ToolResult) {
                ++toolResults;
                toolErrors += b.isError;
            } else if (b.type == BlockType::Thinking || b.type == BlockType::RedactedThinking) {
                ++thinking;
            }
        }
        // A round is one assistant response with calls; chained responses are separate rounds.
        rounds += hasUse && m.role == Role::Assistant;
        if (m.timeMs != kNoTime) {
            if (firstTime == kNoTime || m.timeMs < firstTime)
                firstTime = m.timeMs;
            if (lastTime == kNoTime || m.timeMs > lastTime)
                lastTime = m.timeMs;
        }
    }
    std::size_t subagentMessages = 0;
    for (const auto &s : t.subagents)
        if (s)
            subagentMessages += s->messages.size();

    const auto points = tokens::measuredContext(t);
    const tokens::FixedPart fixed = tokens::fixedPart(t);
    const auto error = tokens::estimatorError(t, fixed.tokens);
    const std::int64_t conversation = tokens::totalEstimate(t);
    const tokens::ContextFigure figure = tokens::contextFigure(t, commandEstimator());
    ojson tok{{"estimated", conversation}};
    if (!points.empty()) {
        tok["measured"] = points.back().measured;
        tok["measuredPoints"] = points.size();
        tok["estimatorErrorPercent"] = std::round(error.meanAbsPercent * 10) / 10;
        tok["estimatorBiasPercent"] = std::round(error.meanSignedPercent * 10) / 10;
    } else {
        tok["measured"] = nullptr;
        tok["measuredPoints"] = 0;
    }
    // The live context: what the next request sends (docs/design/analysis.md, "Live context").
    std::size_t history = 0;
    std::int64_t historyTokens = 0;
    for (const auto &m : t.messages)
        if (m.history && m.isTurn() && !m.sidechain) {
            ++history;
            historyTokens += tokens::estimateMessage(m);
        }
    const analysis::WindowChoice window = analysis::contextWindowOf(t, analysis::AnalysisOptions{});
    ojson live{{"historyMessages", history},
               {"historyTokens", historyTokens},
               {"liveFromMessage", history ? ojson(liveStart(t) + 1) : ojson(nullptr)},
               {"conversationTokens", figure.conversation},
               {"fixedTokens", figure.fixed},
               {"fixedSource", std::string(tokens::fixedPartSourceName(fixed.source))},
               {"fixedHow", figure.fixedHow},
               {"totalTokens", figure.total},
               {"basis", std::string(tokens::basisName(figure.basis))},
               {"how", figure.how},
               {"estimator", std::string(tokens::estimatorName(figure.estimator))},
               {"measuredAt", figure.measuredAt >= 0 ? ojson(figure.measuredAt + 1) : ojson(nullptr)},
               {"lastMeasuredAt", figure.lastMeasuredAt >= 0 ? ojson(figure.lastMeasuredAt + 1) : ojson(nullptr)},
               {"lastMeasurementIsHistory", figure.lastMeasurementIsHistory},
               {"calibrationFactor", std::round(figure.calibration.factor * 1000) / 1000},
               {"calibrationPairs", figure.calibration.pairs},
               {"seedConversationTokens", figure.seedConversation},
               {"contextWindow", window.window},
               {"contextWindowSource", window.source}};
    std::size_t errors = 0, warnings = 0;
    for (const auto &d : diagnosticsJson(t)) {
        errors += d["severity"] == "error";
        warnings += d["severity"] == "warning";
    }
    const std::string_view bytes = t.buffer ? std::string_view(*t.buffer) : std::string_view();
    ojson j;
    j["path"] = t.path;
    j["format"] = std::string(formatName(t.format));
    j["bytes"] = bytes.size();
    j["lines"] = countLines(bytes);
    j["records"] = t.records.size();
    j["recordTypes"] = countsJson(recordTypes);
    j["messages"] = t.messages.size();
    j["roles"] = countsJson(roles);
    j["kinds"] = countsJson(kinds);
    j["toolCalls"] = toolCalls;
    j["toolResults"] = toolResults;
    j["toolErrors"] = toolErrors;
    j["toolRounds"] = rounds;
    j["unansweredToolCalls"] = orphans;
    j["thinkingBlocks"] = thinking;
    j["tokens"] = tok;
    j["live"] = live;
    j["sidechainMessages"] = sidechain;
    j["subagents"] = t.subagents.size();
    j["subagentMessages"] = subagentMessages;
    j["subagentRuns"] = subagentRunsJson(t);
    // An agent file opened on its own: a conversation of its own, linked to the call that started it.
    j["agentFile"] = t.header.is_object() && t.header.value("agentFile", false);
    if (j["agentFile"] && t.header.contains("parentSession"))
        j["parent"] = ojson{{"session", t.header.value("parentSession", "")},
                            {"toolUseId", t.header.value("parentToolUseId", "")},
                            {"line", t.header.value("parentLine", 0)}};
    j["offBranchMessages"] = t.offBranchMessages;
    j["compactions"] = compactions;
    // Compactions ContextLens saved that the agent left behind by continuing from before them.
    ojson undone = ojson::array();
    for (const UndoneCompaction &u : findUndoneCompactions(t))
        undone.push_back(ojson{{"line", u.boundaryLine}, {"continuedLine", u.continuedLine}, {"fromLine", u.fromLine}, {"note", describe(u)}});
    j["undoneCompactions"] = undone;
    j["firstTimestamp"] = firstTime == kNoTime ? ojson(nullptr) : ojson(firstTime);
    j["lastTimestamp"] = lastTime == kNoTime ? ojson(nullptr) : ojson(lastTime);
    j["errors"] = errors;
    j["warnings"] = warnings;
    j["diagnostics"] = diagnosticsJson(t);
    // A request of a recording (FILE#N): which one and how it went.
    j["recording"] = t.recording.is_null() ? ojson(nullptr) : ojson::parse(t.recording.dump());
    return j;
}

std::string joinCounts(const ojson &counts)
{
    std::string s;
    for (const auto &[k, v] : counts.items())
        s += (s.empty() ? "" : ", ") + k + " " + std::to_string(v.get<std::size_t>());
    return s.empty() ? "-" : s;
}

std::string num(const ojson &v) { return v.is_null() ? "-" : v.dump(); }

std::string text(const ojson &j)
{
    std::string s;
    auto row = [&s](const std::string &k, const std::string &v) { s += k + std::string(k.size() < 22 ? 22 - k.size() : 1, ' ') + v + "\n"; };
    row("file", j["path"].get<std::string>());
    row("format", j["format"].get<std::string>());
    if (const ojson &r = j["recording"]; r.is_object()) {
        row("recorded request", num(r["request"]) + " of " + num(r["requests"]) + " in " + r["file"].get<std::string>() + " ("
                                    + r["method"].get<std::string>() + " " + r["path"].get<std::string>() + ", "
                                    + r["time"].get<std::string>() + ")");
        std::string answer = "status " + num(r["status"]);
        if (r.contains("firstByteMs"))
            answer += ", first byte after " + num(r["firstByteMs"]) + " ms";
        if (r.contains("totalMs"))
            answer += ", done after " + num(r["totalMs"]) + " ms";
        if (!r["stopReason"].get<std::string>().empty())
            answer += ", stop: " + r["stopReason"].get<std::string>();
        if (!r["answerError"].get<std::string>().empty())
            answer += "; " + r["answerError"].get<std::string>();
        row("  answer", answer + (r["answered"].get<bool>() ? " (the last message)" : ""));
    }
    row("bytes", num(j["bytes"]));
    row("lines / records", num(j["lines"]) + " / " + num(j["records"]));
    row("record types", joinCounts(j["recordTypes"]));
    row("messages", num(j["messages"]));
    row("  by role", joinCounts(j["roles"]));
    row("  by kind", joinCounts(j["kinds"]));
    row("tool calls", num(j["toolCalls"]) + " (" + num(j["toolErrors"]) + " failed, " + num(j["unansweredToolCalls"]) + " unanswered)");
    row("tool rounds", num(j["toolRounds"]));
    row("thinking blocks", num(j["thinkingBlocks"]));
    const ojson &tok = j["tokens"];
    const ojson &live = j["live"];
    row("live context", num(live["totalTokens"]) + " of " + num(live["contextWindow"]) + " (" + live["contextWindowSource"].get<std::string>()
                            + "): conversation " + num(live["conversationTokens"]) + " + fixed part " + num(live["fixedTokens"]));
    row("  counted", live["basis"].get<std::string>() + ": " + live["how"].get<std::string>());
    row("  fixed part", live["fixedHow"].get<std::string>());
    if (!live["liveFromMessage"].is_null())
        row("  history", num(live["historyMessages"]) + " messages (" + num(live["historyTokens"])
                             + " tokens) before the last compaction, no longer sent; live from message "
                             + num(live["liveFromMessage"]));
    row("tokens estimated", num(tok["estimated"]) + " (plain estimate, conversation)");
    if (!tok["measured"].is_null())
        row("tokens measured", num(tok["measured"]) + " (last of " + num(tok["measuredPoints"]) + " responses; estimator error "
                                   + num(tok["estimatorErrorPercent"]) + " %, bias " + num(tok["estimatorBiasPercent"]) + " %)");
    else
        row("tokens measured", "- (no usage data)");
    row("sidechain messages", num(j["sidechainMessages"]));
    if (j["agentFile"].get<bool>())
        row("agent file", j.contains("parent") ? "started by tool call " + j["parent"]["toolUseId"].get<std::string>() + " on line "
                                                     + num(j["parent"]["line"]) + " of " + j["parent"]["session"].get<std::string>()
                                               : std::string("a subagent's own file (its parent session is not beside it)"));
    row("subagents", num(j["subagents"]) + " (" + num(j["subagentMessages"]) + " messages)");
    for (const auto &run : j["subagentRuns"]) { // a tree: each one under the agent that started it
        std::string where = "its call not found";
        if (run["startedBy"] == "session")
            where = "started by the session's message " + num(run["message"]);
        else if (run["startedBy"].is_string())
            where = "started by subagent " + run["startedBy"].get<std::string>();
        std::string team;
        if (run["name"].is_string())
            team += " named " + run["name"].get<std::string>();
        if (run["background"].get<bool>())
            team += " in the background";
        const auto count = [](const ojson &list, const char *one, const char *many) {
            return list.empty() ? std::string() : ", " + std::to_string(list.size()) + (list.size() == 1 ? one : many);
        };
        row(std::string(2 * run["depth"].get<std::size_t>(), ' ') + "agent " + run["agentId"].get<std::string>(),
            "\"" + run["description"].get<std::string>() + "\"" + team + ", " + num(run["messages"]) + " messages, " + num(run["tokens"])
                + " tokens, " + where + count(run["messagesTo"], " message sent to it", " messages sent to it")
                + count(run["notifications"], " notification that it stopped", " notifications that it stopped"));
    }
    row("off-branch messages", num(j["offBranchMessages"]));
    row("compactions", num(j["compactions"]));
    for (const auto &u : j["undoneCompactions"])
        row("undone compaction", u["note"].get<std::string>());
    row("diagnostics", num(j["errors"]) + " errors, " + num(j["warnings"]) + " warnings");
    for (const auto &d : j["diagnostics"])
        s += "  " + d["severity"].get<std::string>() + ": " + d["text"].get<std::string>() + "\n";
    return s;
}

} // namespace

int info(const std::vector<std::string> &args, std::string &out, std::string &err)
{
    const Args a = parseArgs(args, {{"--as", "", true}});
    Output o{out, err, a.has("--json")};
    if (a.has("--help")) {
        out += commandHelp("info");
        return Exit::Success;
    }
    if (!a.error.empty())
        return o.fail("info: " + a.error);
    if (a.positional.size() != 1)
        return o.fail("info: expected one FILE (usage: contextlens-cli info FILE [--as FORMAT] [--json])");
    std::optional<Format> as;
    std::string error;
    if (const auto name = a.value("--as"); name && !(as = parseFormat(*name, error)))
        return o.fail(error);
    const auto t = loadForCommand(a.positional[0], as, error);
    if (!t)
        return o.fail(error);
    const ojson j = report(*t);
    if (o.json)
        o.print(j);
    else
        out += text(j);
    return countIssues(*t) ? Exit::Issues : Exit::Success;
}

} // namespace cl::cli
