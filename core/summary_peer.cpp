// SPDX-License-Identifier: MIT
// Rule-based summaries in the layouts real agents use (Claude Code, gemini-cli, Codex, OpenHands),
// filled deterministically from the Digest of the summarized messages and, when given, the
// analysis of the whole transcript (facts, critical tools). Wording is ours; the section structure
// follows each agent's compaction prompt. Every list is capped so that a summary of 100 000
// messages stays a few KB.
#include "core/summary.h"

#include <algorithm>
#include <map>

namespace cl::strategy {

namespace {

constexpr std::size_t kItem = 240;   // bytes of one quoted line
constexpr std::size_t kList = 20;    // items of one list

std::string clipLine(std::string_view s, std::size_t max = kItem)
{
    return clipFirstLine(s, max);
}

// The last `max` items (with a count of the earlier ones), each clipped.
nlohmann::json lastItems(const std::vector<std::string> &items, std::size_t max = kList)
{
    nlohmann::json out = nlohmann::json::array();
    const std::size_t from = items.size() > max ? items.size() - max : 0;
    if (from)
        out.push_back("(" + std::to_string(from) + " earlier not listed)");
    for (std::size_t k = from; k < items.size(); ++k)
        out.push_back(clipLine(items[k]));
    return out;
}

std::vector<std::string> texts(const std::vector<std::pair<std::size_t, std::string>> &v)
{
    std::vector<std::string> out;
    out.reserve(v.size());
    for (const auto &p : v)
        out.push_back(p.second);
    return out;
}

// User lines that state a rule or preference ("must", "never", "don't", ...).
std::vector<std::string> constraints(const Digest &d)
{
    static const char *const words[] = {"must", "never", "always", "don't", "do not", "should", "avoid", "only",
                                        "prefer", "make sure", "必须", "不要", "记住"};
    std::vector<std::string> out;
    for (const auto &[i, text] : d.userInputs) {
        std::string lower = text.substr(0, 2000);
        std::transform(lower.begin(), lower.end(), lower.begin(),
                       [](unsigned char c) { return static_cast<char>(c < 0x80 ? std::tolower(c) : c); });
        for (const char *w : words)
            if (lower.find(w) != std::string::npos) {
                out.push_back(clipLine(text));
                break;
            }
    }
    return out;
}

std::vector<std::string> toolUsage(const Digest &d)
{
    std::map<std::string, std::size_t> count;
    for (const auto &c : d.toolCalls)
        ++count[c.name];
    std::vector<std::pair<std::size_t, std::string>> sorted;
    for (const auto &[name, n] : count)
        sorted.emplace_back(n, name);
    std::sort(sorted.begin(), sorted.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
    std::vector<std::string> out;
    for (const auto &[n, name] : sorted)
        out.push_back(name + " x" + std::to_string(n));
    return out;
}

std::vector<std::string> errorLines(const Digest &d)
{
    std::vector<std::string> out;
    for (const auto &e : d.errors)
        out.push_back((e.toolName.empty() ? std::string("tool") : e.toolName) + ": " + e.error);
    return out;
}



std::vector<std::string> recentActions(const Digest &d, std::size_t max = 10)
{
    std::vector<std::string> out;
    const std::size_t from = d.toolCalls.size() > max ? d.toolCalls.size() - max : 0;
    for (std::size_t k = from; k < d.toolCalls.size(); ++k) {
        const auto &c = d.toolCalls[k];
        std::string what = c.name;
        Block storage;
        if (const auto paths = analysis::toolPaths(c.use(storage)); !paths.empty())
            what += " " + paths.front();
        else if (c.args().is_object())
            for (const char *key : {"command", "pattern", "query", "url"})
                if (const auto it = c.args().find(key); it != c.args().end() && it->is_string()) {
                    what += " " + clipLine(it->get<std::string>(), 120);
                    break;
                }
        out.push_back(what);
    }
    return out;
}

// Critical tool results inside the summarized range, quoted (seed 001 §6) when the request asks.
std::vector<std::string> preserved(const SummaryRequest &r)
{
    std::vector<std::string> out;
    if (!r.transcript)
        return out;
    for (const std::size_t i : r.preserved) {
        if (i >= r.transcript->messages.size())
            continue;
        for (const Block &b : r.transcript->messages[i].blocks)
            if (b.type == BlockType::ToolResult)
                out.push_back("[preserved tool result: " + b.toolId + "]\n" + b.text);
    }
    return out;
}

std::string bulletList(const nlohmann::json &items, std::string_view none = "(none)")
{
    if (!items.is_array() || items.empty())
        return "   - " + std::string(none) + "\n";
    std::string out;
    for (const auto &x : items)
        out += "   - " + (x.is_string() ? x.get<std::string>() : x.dump()) + "\n";
    return out;
}

std::string lastOr(const std::vector<std::pair<std::size_t, std::string>> &v, std::string_view fallback)
{
    return v.empty() ? std::string(fallback) : clipLine(v.back().second, 600);
}

// Text of the facts the analysis found for the whole session, when it is available.
std::string pendingFrom(const SummaryRequest &r, const Digest &d)
{
    if (r.analysis && !r.analysis->facts.pendingTask.empty())
        return clipLine(r.analysis->facts.pendingTask, 600);
    return lastOr(d.userInputs, "(no open request)");
}

std::string currentFrom(const SummaryRequest &r, const Digest &d)
{
    if (r.analysis && !r.analysis->facts.currentWork.empty())
        return clipLine(r.analysis->facts.currentWork, 600);
    return lastOr(d.assistantResponses, "(no assistant work recorded)");
}

void finish(Summary &s, const std::vector<std::pair<std::string, std::string>> &order)
{
    for (const auto &[key, label] : order) {
        const auto &v = s.sections[key];
        if (v.is_string() && !v.get<std::string>().empty())
            s.keyPoints.push_back(label + ": " + clipLine(v.get<std::string>(), 160));
        else if (v.is_array() && !v.empty())
            s.keyPoints.push_back(label + ": " + std::to_string(v.size()) + " item(s)");
    }
}

} // namespace

Summary summarizeClaudeCode(const SummaryRequest &r, const Digest &d)
{
    Summary s;
    auto &sec = s.sections;
    const auto users = texts(d.userInputs);
    sec["primaryRequest"] = d.userInputs.empty() ? std::string("(no user request in the compacted part)")
                                                 : clipLine(d.userInputs.front().second, 600);
    sec["keyConcepts"] = lastItems(toolUsage(d));
    nlohmann::json files = nlohmann::json::array();
    for (const auto &f : d.filesModified)
        files.push_back(f + " (modified)");
    for (const auto &f : d.filesRead)
        if (std::find(d.filesModified.begin(), d.filesModified.end(), f) == d.filesModified.end())
            files.push_back(f + " (read)");
    if (files.size() > 2 * kList)
        files.erase(files.begin() + std::ptrdiff_t(2 * kList), files.end());
    sec["files"] = files;
    sec["errors"] = lastItems(errorLines(d));
    std::vector<std::string> solving;
    for (const auto &[i, text] : d.assistantResponses)
        solving.push_back(text);
    sec["problemSolving"] = lastItems(solving, 8);
    sec["userMessages"] = lastItems(users, 50);
    sec["pendingTasks"] = pendingFrom(r, d);
    sec["currentWork"] = currentFrom(r, d);
    sec["nextStep"] = d.userInputs.empty() ? std::string() : "Continue with the latest request, quoted: \""
                                                                 + clipLine(d.userInputs.back().second, 400) + "\"";
    sec["commands"] = lastItems(d.commands, 10);
    if (!r.instructions.empty())
        sec["compactInstructions"] = r.instructions;
    const auto kept = preserved(r);
    std::string t =
        "This session continues an earlier conversation that ran out of context. The earlier part is summarized "
        "below; carry on from where it stopped, without asking the user to repeat anything.\n\n";
    if (!r.instructions.empty())
        t += "Compact instructions from the user (followed when writing this summary): " + r.instructions + "\n\n";
    t += "Summary:\n";
    t += "1. Primary Request and Intent:\n   " + sec["primaryRequest"].get<std::string>() + "\n";
    t += "2. Key Technical Concepts:\n" + bulletList(sec["keyConcepts"]);
    if (!d.commands.empty())
        t += "   Commands run:\n" + bulletList(sec["commands"]);
    t += "3. Files and Code Sections:\n" + bulletList(files);
    t += "4. Errors and fixes:\n" + bulletList(sec["errors"], "no failed tool calls");
    t += "5. Problem Solving:\n" + bulletList(sec["problemSolving"]);
    t += "6. All user messages:\n" + bulletList(sec["userMessages"]);
    t += "7. Pending Tasks:\n   - " + sec["pendingTasks"].get<std::string>() + "\n";
    t += "8. Current Work:\n   " + sec["currentWork"].get<std::string>() + "\n";
    t += "9. Optional Next Step:\n   " + (sec["nextStep"].get<std::string>().empty() ? std::string("(none)")
                                                                                   : sec["nextStep"].get<std::string>())
         + "\n";
    for (const auto &k : kept)
        t += "\n" + k + "\n";
    s.text = std::move(t);
    finish(s, {{"primaryRequest", "request"}, {"files", "files"}, {"errors", "errors"}, {"pendingTasks", "pending"},
               {"currentWork", "current work"}});
    return s;
}

Summary summarizeGemini(const SummaryRequest &r, const Digest &d)
{
    Summary s;
    auto &sec = s.sections;
    sec["overall_goal"] = d.userInputs.empty() ? std::string("(no user goal in the compressed part)")
                                               : clipLine(d.userInputs.front().second, 600);
    sec["active_constraints"] = lastItems(constraints(d));
    std::vector<std::string> knowledge;
    for (const auto &c : d.commands)
        knowledge.push_back("command used: " + c);
    for (const auto &e : errorLines(d))
        knowledge.push_back("failure seen: " + e);
    if (r.analysis)
        for (const auto &c : r.analysis->critical)
            knowledge.push_back("critical " + c.category + ": " + c.toolName + " (" + c.reason + ")");
    sec["key_knowledge"] = lastItems(knowledge);
    std::vector<std::string> artifacts;
    Block storage;
    for (const auto &c : d.toolCalls)
        if (c.kind == analysis::ToolKind::Write || c.kind == analysis::ToolKind::Edit || c.kind == analysis::ToolKind::Delete)
            for (const auto &p : analysis::toolPaths(c.use(storage)))
                artifacts.push_back(p + ": " + c.name);
    sec["artifact_trail"] = lastItems(artifacts);
    std::vector<std::string> fs;
    for (const auto &f : d.filesModified)
        fs.push_back("MODIFIED: " + f);
    for (const auto &f : d.filesRead)
        fs.push_back("READ: " + f);
    sec["file_system_state"] = lastItems(fs, 2 * kList);
    sec["recent_actions"] = lastItems(recentActions(d));
    sec["task_state"] = "current request: " + pendingFrom(r, d) + "; last step: " + currentFrom(r, d);
    auto tag = [&](const char *name) {
        const auto &v = sec[name];
        std::string body = v.is_string() ? "    " + v.get<std::string>() + "\n" : bulletList(v);
        return "    <" + std::string(name) + ">\n" + body + "    </" + std::string(name) + ">\n";
    };
    s.text = "<state_snapshot>\n";
    for (const char *name : {"overall_goal", "active_constraints", "key_knowledge", "artifact_trail",
                             "file_system_state", "recent_actions", "task_state"})
        s.text += tag(name);
    s.text += "</state_snapshot>";
    finish(s, {{"overall_goal", "goal"}, {"active_constraints", "constraints"}, {"file_system_state", "files"},
               {"task_state", "task"}});
    return s;
}

Summary summarizeCodex(const SummaryRequest &r, const Digest &d)
{
    Summary s;
    auto &sec = s.sections;
    sec["goal"] = d.userInputs.empty() ? std::string("(no user request in the compacted part)")
                                       : clipLine(d.userInputs.front().second, 600);
    std::vector<std::string> progress;
    for (const auto &f : d.filesModified)
        progress.push_back("changed " + f);
    for (const auto &[i, text] : d.assistantResponses)
        progress.push_back(text);
    sec["progress"] = lastItems(progress);
    sec["constraints"] = lastItems(constraints(d));
    sec["remaining"] = pendingFrom(r, d);
    std::vector<std::string> critical;
    for (const auto &f : d.filesRead)
        critical.push_back("file: " + f);
    for (const auto &c : d.commands)
        critical.push_back("command: " + c);
    for (const auto &e : errorLines(d))
        critical.push_back("error: " + e);
    for (const auto &k : preserved(r))
        critical.push_back(k);
    sec["criticalData"] = lastItems(critical, 2 * kList);
    s.text = "## Goal\n" + sec["goal"].get<std::string>() + "\n\n## Progress and decisions\n" + bulletList(sec["progress"])
             + "\n## Constraints and preferences\n" + bulletList(sec["constraints"])
             + "\n## What remains\n" + sec["remaining"].get<std::string>() + "\n\n## Critical data\n"
             + bulletList(sec["criticalData"]);
    finish(s, {{"goal", "goal"}, {"progress", "progress"}, {"remaining", "remaining"}, {"criticalData", "data"}});
    return s;
}

Summary summarizeOpenHands(const SummaryRequest &r, const Digest &d)
{
    Summary s;
    auto &sec = s.sections;
    sec["USER_CONTEXT"] = d.userInputs.empty() ? std::string("(no user message in the forgotten events)")
                                               : clipLine(d.userInputs.front().second, 600);
    std::vector<std::string> done;
    for (const auto &a : recentActions(d, kList))
        done.push_back(a);
    sec["COMPLETED"] = lastItems(done);
    sec["PENDING"] = pendingFrom(r, d);
    sec["CURRENT_STATE"] = currentFrom(r, d);
    std::vector<std::string> code;
    for (const auto &f : d.filesModified)
        code.push_back(f);
    sec["CODE_STATE"] = lastItems(code);
    std::vector<std::string> tests;
    for (const auto &c : d.commands)
        if (c.find("test") != std::string::npos || c.find("pytest") != std::string::npos || c.find("ctest") != std::string::npos)
            tests.push_back(c);
    sec["TESTS"] = lastItems(tests, 10);
    sec["ERRORS"] = lastItems(errorLines(d), 10);
    s.text = "Condensed history of " + std::to_string(r.messages.size()) + " forgotten events.\n";
    for (const char *key : {"USER_CONTEXT", "COMPLETED", "PENDING", "CURRENT_STATE", "CODE_STATE", "TESTS", "ERRORS"}) {
        const auto &v = sec[key];
        s.text += std::string(key) + ":" + (v.is_string() ? " " + v.get<std::string>() + "\n" : "\n" + bulletList(v));
    }
    finish(s, {{"USER_CONTEXT", "user context"}, {"PENDING", "pending"}, {"CURRENT_STATE", "state"}});
    return s;
}

} // namespace cl::strategy
