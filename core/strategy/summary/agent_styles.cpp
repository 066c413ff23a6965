// SPDX-License-Identifier: MIT
// Rule-based summaries in the layouts real agents use (Claude Code, gemini-cli, Codex, OpenHands),
// filled deterministically from the Digest of the summarized messages and, when given, the
// analysis of the whole transcript (facts, critical tools). Wording is ours; the section structure
// follows each agent's compaction prompt. Every list is capped so that a summary of 100 000
// messages stays a few KB.
#include "core/strategy/summary/summary.h"

#include "core/analysis/toolpaths.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace cl::strategy {

namespace {

constexpr std::size_t kItem = 240; // bytes of one quoted line
constexpr std::size_t kList = 20;  // items of one list

std::string clipLine(std::string_view s, std::size_t max = kItem)
{
    return clipFirstLine(s, max);
}

// The last `max` of `total` items (with a count of the earlier ones), each clipped. item(k) gives
// item k; only the shown ones are asked for, so a list over 50 000 messages builds 20 strings.
template <class F> nlohmann::json lastItemsOf(std::size_t total, F &&item, std::size_t max = kList)
{
    nlohmann::json out = nlohmann::json::array();
    const std::size_t from = total > max ? total - max : 0;
    if (from)
        out.push_back("(" + std::to_string(from) + " earlier not listed)");
    for (std::size_t k = from; k < total; ++k)
        out.push_back(clipLine(item(k)));
    return out;
}

template <class List> nlohmann::json lastItems(const List &items, std::size_t max = kList)
{
    return lastItemsOf(
        items.size(), [&items](std::size_t k) { return std::string_view(items[k]); }, max);
}

// An item of a list made of several parts in a row (files, then commands, then errors, ...):
// part p holds sizes[p] items, given by the p-th function.
template <class... F> std::string partItem(std::size_t k, const std::size_t (&sizes)[sizeof...(F)], F &&...parts)
{
    std::string out;
    std::size_t p = 0;
    bool done = false;
    auto one = [&](auto &&f) {
        const std::size_t n = sizes[p++];
        if (done)
            return;
        if (k < n) {
            out = f(k);
            done = true;
        } else {
            k -= n;
        }
    };
    (one(parts), ...);
    return out;
}

// User lines that state a rule or preference ("must", "never", "don't", ...): their positions in
// d.userInputs. The test reads the first 2000 bytes, lower-cased into a buffer on the stack.
std::vector<std::size_t> constraints(const Digest &d)
{
    static constexpr std::string_view words[] = {"must", "never", "always", "don't", "do not", "should", "avoid",
                                                 "only", "prefer", "make sure", "必须", "不要", "记住"};
    std::vector<std::size_t> out;
    char lowerOf[256]; // std::tolower of the ASCII bytes, asked once
    for (int c = 0; c < 256; ++c)
        lowerOf[c] = static_cast<char>(c < 0x80 ? std::tolower(c) : c);
    char buf[2000];
    for (std::size_t k = 0; k < d.userInputs.size(); ++k) {
        const std::string_view text = d.userInputs[k].second.substr(0, sizeof buf);
        for (std::size_t j = 0; j < text.size(); ++j)
            buf[j] = lowerOf[static_cast<unsigned char>(text[j])];
        const std::string_view lower(buf, text.size());
        for (const std::string_view w : words)
            if (lower.find(w) != std::string_view::npos) {
                out.push_back(k);
                break;
            }
    }
    return out;
}

// lastItems(constraint lines): each line clipped, as the list it replaces held them.
nlohmann::json constraintItems(const Digest &d)
{
    const std::vector<std::size_t> at = constraints(d);
    std::string line;
    return lastItemsOf(at.size(), [&](std::size_t k) -> std::string_view {
        line = clipLine(d.userInputs[at[k]].second);
        return line;
    });
}

std::vector<std::string> toolUsage(const Digest &d)
{
    // Counted by view (a handful of names), then in name order as a std::map<std::string> gave
    // them, so that the (unstable) sort by count sees the same sequence.
    std::unordered_map<std::string_view, std::size_t> count;
    for (const auto &c : d.toolCalls)
        ++count[c.name];
    const std::map<std::string_view, std::size_t> byName(count.begin(), count.end());
    std::vector<std::pair<std::size_t, std::string>> sorted;
    for (const auto &[name, n] : byName)
        sorted.emplace_back(n, std::string(name));
    std::sort(sorted.begin(), sorted.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
    std::vector<std::string> out;
    for (const auto &[n, name] : sorted)
        out.push_back(name + " x" + std::to_string(n));
    return out;
}

// "tool: first error line" of d.errors[k].
std::string errorLine(const Digest &d, std::size_t k)
{
    const auto &e = d.errors[k];
    std::string out = e.toolName.empty() ? std::string("tool") : std::string(e.toolName);
    return out.append(": ").append(e.error);
}

std::vector<std::string> recentActions(const Digest &d, std::size_t max = 10)
{
    std::vector<std::string> out;
    const std::size_t from = d.toolCalls.size() > max ? d.toolCalls.size() - max : 0;
    for (std::size_t k = from; k < d.toolCalls.size(); ++k) {
        const auto &c = d.toolCalls[k];
        std::string what(c.name);
        if (const auto paths = analysis::toolPaths(c.use()); !paths.empty())
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

std::string lastOr(const std::vector<std::pair<std::size_t, std::string_view>> &v, std::string_view fallback)
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

std::string claudeCodePreamble(const std::string &instructions)
{
    std::string t = "This session continues an earlier conversation that ran out of context. The earlier part is "
                    "summarized below; carry on from where it stopped, without asking the user to repeat anything.\n\n";
    if (!instructions.empty())
        t += "Compact instructions from the user (followed when writing this summary): " + instructions + "\n\n";
    return t;
}

Summary summarizeClaudeCode(const SummaryRequest &r, const Digest &d)
{
    Summary s;
    auto &sec = s.sections;
    sec["primaryRequest"] = d.userInputs.empty() ? std::string("(no user request in the compacted part)")
                                                 : clipLine(d.userInputs.front().second, 600);
    sec["keyConcepts"] = lastItems(toolUsage(d));
    nlohmann::json files = nlohmann::json::array();
    // The first 2 x kList of: modified files, then read files not modified.
    for (const auto &f : d.filesModified) {
        if (files.size() >= 2 * kList)
            break;
        files.push_back(std::string(f) + " (modified)");
    }
    for (const auto &f : d.filesRead) {
        if (files.size() >= 2 * kList)
            break;
        if (std::find(d.filesModified.begin(), d.filesModified.end(), f) == d.filesModified.end())
            files.push_back(std::string(f) + " (read)");
    }
    sec["files"] = files;
    sec["errors"] = lastItemsOf(d.errors.size(), [&d](std::size_t k) { return errorLine(d, k); });
    sec["problemSolving"] = lastItemsOf(
        d.assistantResponses.size(), [&d](std::size_t k) { return d.assistantResponses[k].second; }, 8);
    sec["userMessages"] = lastItemsOf(
        d.userInputs.size(), [&d](std::size_t k) { return d.userInputs[k].second; }, 50);
    sec["pendingTasks"] = pendingFrom(r, d);
    sec["currentWork"] = currentFrom(r, d);
    sec["nextStep"] = d.userInputs.empty() ? std::string() : "Continue with the latest request, quoted: \"" + clipLine(d.userInputs.back().second, 400) + "\"";
    sec["commands"] = lastItems(d.commands, 10);
    if (!r.instructions.empty())
        sec["compactInstructions"] = r.instructions;
    const auto kept = preserved(r);
    std::string t = claudeCodePreamble(r.instructions) + "Summary:\n";
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
    t += "9. Optional Next Step:\n   " + (sec["nextStep"].get<std::string>().empty() ? std::string("(none)") : sec["nextStep"].get<std::string>())
         + "\n";
    for (const auto &k : kept)
        t += "\n" + k + "\n";
    s.text = std::move(t);
    finish(s, {{"primaryRequest", "request"}, {"files", "files"}, {"errors", "errors"}, {"pendingTasks", "pending"}, {"currentWork", "current work"}});
    return s;
}

Summary summarizeGemini(const SummaryRequest &r, const Digest &d)
{
    Summary s;
    auto &sec = s.sections;
    sec["overall_goal"] = d.userInputs.empty() ? std::string("(no user goal in the compressed part)")
                                               : clipLine(d.userInputs.front().second, 600);
    sec["active_constraints"] = constraintItems(d);
    // Commands, then failures, then the analysis' critical results.
    static const std::vector<analysis::CriticalTool> noCritical;
    const auto &critical = r.analysis ? r.analysis->critical : noCritical;
    const std::size_t knowledge[] = {d.commands.size(), d.errors.size(), critical.size()};
    sec["key_knowledge"] = lastItemsOf(knowledge[0] + knowledge[1] + knowledge[2], [&](std::size_t k) {
        return partItem(
            k, knowledge, [&](std::size_t j) { return "command used: " + std::string(d.commands[j]); },
            [&](std::size_t j) { return "failure seen: " + errorLine(d, j); },
            [&](std::size_t j) {
                const auto &c = critical[j];
                return "critical " + c.category + ": " + c.toolName + " (" + c.reason + ")";
            });
    });
    // Paths written, edited or deleted: counted, and built only for the last kList.
    auto changes = [](const Digest::Call &c) {
        return c.kind == analysis::ToolKind::Write || c.kind == analysis::ToolKind::Edit || c.kind == analysis::ToolKind::Delete;
    };
    std::size_t artifactCount = 0;
    for (const auto &c : d.toolCalls)
        if (changes(c))
            analysis::forEachToolPath(c.use(), [&](std::string_view) { ++artifactCount; });
    std::vector<std::string> artifacts; // the shown ones
    const std::size_t artifactFrom = artifactCount > kList ? artifactCount - kList : 0;
    std::size_t seen = 0;
    for (const auto &c : d.toolCalls)
        if (changes(c))
            analysis::forEachToolPath(c.use(), [&](std::string_view p) {
                if (seen++ >= artifactFrom)
                    artifacts.push_back(std::string(p).append(": ").append(c.name));
            });
    sec["artifact_trail"] = lastItemsOf(artifactCount, [&](std::size_t k) { return std::string_view(artifacts[k - artifactFrom]); });
    const std::size_t fs[] = {d.filesModified.size(), d.filesRead.size()};
    sec["file_system_state"] = lastItemsOf(
        fs[0] + fs[1],
        [&](std::size_t k) {
            return partItem(
                k, fs, [&](std::size_t j) { return "MODIFIED: " + std::string(d.filesModified[j]); },
                [&](std::size_t j) { return "READ: " + std::string(d.filesRead[j]); });
        },
        2 * kList);
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
    finish(s, {{"overall_goal", "goal"}, {"active_constraints", "constraints"}, {"file_system_state", "files"}, {"task_state", "task"}});
    return s;
}

Summary summarizeCodex(const SummaryRequest &r, const Digest &d)
{
    Summary s;
    auto &sec = s.sections;
    sec["goal"] = d.userInputs.empty() ? std::string("(no user request in the compacted part)")
                                       : clipLine(d.userInputs.front().second, 600);
    const std::size_t progress[] = {d.filesModified.size(), d.assistantResponses.size()};
    sec["progress"] = lastItemsOf(progress[0] + progress[1], [&](std::size_t k) {
        return partItem(
            k, progress, [&](std::size_t j) { return "changed " + std::string(d.filesModified[j]); },
            [&](std::size_t j) { return std::string(d.assistantResponses[j].second); });
    });
    sec["constraints"] = constraintItems(d);
    sec["remaining"] = pendingFrom(r, d);
    const auto kept = preserved(r);
    const std::size_t critical[] = {d.filesRead.size(), d.commands.size(), d.errors.size(), kept.size()};
    sec["criticalData"] = lastItemsOf(
        critical[0] + critical[1] + critical[2] + critical[3],
        [&](std::size_t k) {
            return partItem(
                k, critical, [&](std::size_t j) { return "file: " + std::string(d.filesRead[j]); },
                [&](std::size_t j) { return "command: " + std::string(d.commands[j]); },
                [&](std::size_t j) { return "error: " + errorLine(d, j); }, [&](std::size_t j) { return kept[j]; });
        },
        2 * kList);
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
    sec["CODE_STATE"] = lastItems(d.filesModified);
    std::vector<std::string_view> tests;
    for (const auto &c : d.commands)
        if (c.find("test") != std::string::npos || c.find("pytest") != std::string::npos || c.find("ctest") != std::string::npos)
            tests.push_back(c);
    sec["TESTS"] = lastItems(tests, 10);
    sec["ERRORS"] = lastItemsOf(
        d.errors.size(), [&d](std::size_t k) { return errorLine(d, k); }, 10);
    s.text = "Condensed history of " + std::to_string(r.messages.size()) + " forgotten events.\n";
    for (const char *key : {"USER_CONTEXT", "COMPLETED", "PENDING", "CURRENT_STATE", "CODE_STATE", "TESTS", "ERRORS"}) {
        const auto &v = sec[key];
        s.text += std::string(key) + ":" + (v.is_string() ? " " + v.get<std::string>() + "\n" : "\n" + bulletList(v));
    }
    finish(s, {{"USER_CONTEXT", "user context"}, {"PENDING", "pending"}, {"CURRENT_STATE", "state"}});
    return s;
}

} // namespace cl::strategy
