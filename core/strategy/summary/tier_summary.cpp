// SPDX-License-Identifier: MIT
// Seed 003 auto-compact summary (docs/design/mechanisms.md §9.4), rule-based:
//
//   [Conversation History Summary]
//   Compacted N messages (...statistics...)
//   Decisions and rationale:            sentences of user requests and assistant responses that state a
//                                       decision or its reason (kDecisionWords), the newest 6, in order
//   Files modified and key changes:     per path: edits (+added/−removed lines), writes, deletions
//   Current task status and next steps: the latest requests, the latest progress, the next step (a
//                                       sentence of the last response with kNextWords, else "continue")
//   Errors and resolutions:             failed calls with their first error line; "resolved" when a
//                                       later call of the same tool succeeded within the summarized part
//   [End Summary — recent messages follow]
//
// maxChars (when set) bounds the whole text, markers included: lines are dropped from the end of
// the longest section until it fits, so the end marker always survives.
#include "core/strategy/summary/summary.h"

#include "core/analysis/toolpaths.h"
#include "core/strategy/summary/tooldigest.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace cl::strategy {

namespace {

constexpr std::string_view kHeader = "[Conversation History Summary]";
constexpr std::string_view kFooter = "[End Summary — recent messages follow]";
constexpr std::string_view kDecisionWords[] = {"decided", "decision", "i'll ", "i will ", "we'll ", "we will ",
                                               "let's ", "instead", "because", "chose ", "rather than", "so that", "决定", "因为", "改用", "选择", "所以"};
constexpr std::string_view kNextWords[] = {"next", "then ", "todo", "remaining", "still need", "接下来", "下一步", "然后"};

std::string cut(std::string_view s, std::size_t max)
{
    const auto b = s.find_first_not_of(" \t\r\n#>*-");
    if (b == std::string_view::npos)
        return {};
    s.remove_prefix(b);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\r' || s.back() == '\n'))
        s.remove_suffix(1);
    if (s.size() <= max)
        return std::string(s);
    std::size_t n = max;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80)
        --n;
    return std::string(s.substr(0, n)) + "…";
}

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

template <std::size_t N> bool containsAny(std::string_view text, const std::string_view (&words)[N])
{
    const std::string l = lower(text);
    return std::any_of(std::begin(words), std::end(words), [&](std::string_view w) { return l.find(w) != std::string::npos; });
}

// Sentences: split at line breaks, ". ", "? ", "! " and "。"; at most the first 4 KB of a text.
std::vector<std::string_view> sentences(std::string_view text)
{
    text = text.substr(0, 4096);
    std::vector<std::string_view> out;
    std::size_t start = 0;
    auto push = [&](std::size_t end) {
        if (end > start)
            out.push_back(text.substr(start, end - start));
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\n') {
            push(i);
            start = i + 1;
        } else if ((text[i] == '.' || text[i] == '?' || text[i] == '!') && i + 1 < text.size() && text[i + 1] == ' ') {
            push(i + 1);
            start = i + 2;
        } else if (text.substr(i, 3) == "。") {
            push(i + 3);
            start = i + 3;
        }
    }
    push(text.size());
    return out;
}

struct Section {
    std::string title;
    std::vector<std::string> lines;
};

std::vector<std::string> decisions(const Digest &d)
{
    // The last six decision sentences in message order, duplicates dropped. Both lists are in
    // message order (and never share a message: one holds user, the other assistant messages), so
    // they are walked newest first until six are found: a long history is not split into
    // sentences only to be thrown away.
    constexpr std::size_t kShown = 6;
    std::vector<std::string> newest; // newest first
    std::vector<std::string> lines;
    auto scan = [&](std::string_view text, std::string_view who) {
        lines.clear();
        for (const std::string_view s : sentences(text))
            if (containsAny(s, kDecisionWords))
                if (std::string line = cut(s, 160); line.size() > 8)
                    lines.push_back(std::string(who) + line);
        for (auto it = lines.rbegin(); it != lines.rend() && newest.size() < kShown; ++it)
            newest.push_back(std::move(*it));
    };
    std::size_t u = d.userInputs.size(), a = d.assistantResponses.size();
    while ((u > 0 || a > 0) && newest.size() < kShown) {
        if (a == 0 || (u > 0 && d.userInputs[u - 1].first > d.assistantResponses[a - 1].first))
            scan(d.userInputs[--u].second, "user: ");
        else
            scan(d.assistantResponses[--a].second, "");
    }
    std::vector<std::string> out;
    std::unordered_set<std::string> seen;
    for (auto it = newest.rbegin(); it != newest.rend(); ++it)
        if (seen.insert(*it).second)
            out.push_back(std::move(*it));
    return out;
}

std::vector<std::string> filesModified(const Digest &d, const std::unordered_set<std::string_view> &failed)
{
    // Only the first kShown paths (in first-seen order) are described, so a call's line delta is
    // computed only when it touches one of them; the others are only counted as distinct paths.
    constexpr std::size_t kShown = 12;
    struct Change {
        std::size_t edits = 0, writes = 0, deletes = 0, added = 0, removed = 0, written = 0;
    };
    std::unordered_map<std::string_view, std::size_t> slot; // path -> first-seen position
    std::vector<std::string_view> order;
    std::vector<Change> changes;
    for (const auto &c : d.toolCalls) {
        if (c.kind != analysis::ToolKind::Edit && c.kind != analysis::ToolKind::Write && c.kind != analysis::ToolKind::Delete)
            continue;
        if (failed.count(c.id))
            continue;
        const Block &use = c.use();
        bool haveDelta = false;
        std::pair<std::size_t, std::size_t> delta{0, 0};
        analysis::forEachToolPath(use, [&](std::string_view path) {
            const auto [it, fresh] = slot.try_emplace(path, order.size());
            if (fresh)
                order.push_back(path);
            if (it->second >= kShown)
                return;
            if (changes.size() <= it->second)
                changes.resize(it->second + 1);
            if (!haveDelta) {
                delta = tooldigest::lineDelta(use);
                haveDelta = true;
            }
            Change &ch = changes[it->second];
            if (c.kind == analysis::ToolKind::Edit) {
                ++ch.edits;
                ch.added += delta.first;
                ch.removed += delta.second;
            } else if (c.kind == analysis::ToolKind::Write) {
                ++ch.writes;
                ch.written += delta.first;
            } else {
                ++ch.deletes;
            }
        });
    }
    std::vector<std::string> out;
    for (std::size_t k = 0; k < order.size() && k < kShown; ++k) {
        const Change &ch = changes[k];
        std::string line = std::string(order[k]) + ":";
        if (ch.writes)
            line += " written" + (ch.writes > 1 ? " " + std::to_string(ch.writes) + "×" : std::string()) + " ("
                    + std::to_string(ch.written) + " lines)";
        if (ch.edits)
            line += std::string(ch.writes ? "," : "") + " edited" + (ch.edits > 1 ? " " + std::to_string(ch.edits) + "×" : "")
                    + " (+" + std::to_string(ch.added) + "/−" + std::to_string(ch.removed) + " lines)";
        if (ch.deletes)
            line += std::string(ch.writes || ch.edits ? "," : "") + " deleted";
        out.push_back(std::move(line));
    }
    if (order.size() > kShown)
        out.push_back("+" + std::to_string(order.size() - kShown) + " more files");
    return out;
}

std::vector<std::string> status(const Digest &d)
{
    std::vector<std::string> out;
    if (!d.userInputs.empty()) {
        const std::size_t n = d.userInputs.size();
        if (n > 1) {
            std::string earlier = "Earlier requests:";
            for (std::size_t k = n > 4 ? n - 4 : 0; k + 1 < n; ++k)
                earlier += " \"" + cut(d.userInputs[k].second.substr(0, d.userInputs[k].second.find('\n')), 80) + "\";";
            earlier.pop_back();
            out.push_back(std::move(earlier));
        }
        out.push_back("Latest request: " + cut(d.userInputs.back().second.substr(0, d.userInputs.back().second.find('\n')), 200));
    }
    std::string next;
    if (!d.assistantResponses.empty()) {
        const std::string_view last = d.assistantResponses.back().second;
        out.push_back("Latest progress: " + cut(last.substr(0, last.find('\n')), 200));
        for (const std::string_view s : sentences(last))
            if (containsAny(s, kNextWords))
                next = cut(s, 200);
    }
    out.push_back("Next step: " + (next.empty() ? std::string("continue from the recent messages below") : next));
    if (!d.commands.empty())
        out.push_back(std::to_string(d.commands.size()) + " distinct command(s) run, last: " + cut(d.commands.back(), 120));
    return out;
}

std::vector<std::string> errors(const Digest &d, const std::unordered_set<std::string_view> &failed)
{
    // Only the first kShown errors are described: their calls are found by a scan of the call
    // list (the first call with the id, as a map from id to position kept), not by indexing
    // every call of a long history.
    constexpr std::size_t kShown = 8;
    std::vector<std::string> out;
    for (std::size_t k = 0; k < d.errors.size() && k < kShown; ++k) {
        const auto &e = d.errors[k];
        std::string line = e.toolName.empty() ? std::string("tool") : std::string(e.toolName);
        std::size_t at = 0;
        while (at < d.toolCalls.size() && d.toolCalls[at].id != e.toolUseId)
            ++at;
        const bool found = at < d.toolCalls.size();
        if (found) {
            const Block &use = d.toolCalls[at].use();
            std::string target = analysis::shellCommand(use);
            if (target.empty())
                if (const auto paths = analysis::toolPaths(use); !paths.empty())
                    target = paths.front();
            if (!target.empty())
                line += " " + cut(target, 80);
        }
        line += ": " + (e.error.empty() ? std::string("failed") : cut(e.error, 160));
        std::string resolution = " — unresolved at this point";
        if (found)
            for (std::size_t j = at + 1; j < d.toolCalls.size(); ++j)
                if (d.toolCalls[j].name == e.toolName && !failed.count(d.toolCalls[j].id)) {
                    resolution = " — resolved: a later " + std::string(e.toolName) + " call succeeded";
                    break;
                }
        out.push_back(line + resolution);
    }
    if (d.errors.size() > kShown)
        out.push_back("+" + std::to_string(d.errors.size() - kShown) + " more errors");
    return out;
}

std::string assemble(const std::string &stats, const std::vector<Section> &sections)
{
    std::string text(kHeader);
    text += "\n" + stats + "\n";
    for (const auto &s : sections) {
        text += s.title + ":\n";
        if (s.lines.empty())
            text += "- none\n";
        for (const auto &l : s.lines)
            text += "- " + l + "\n";
    }
    return text + std::string(kFooter);
}

} // namespace

Summary summarizeSeed003(const SummaryRequest &r, const Digest &d)
{
    std::unordered_set<std::string_view> failed;
    for (const auto &e : d.errors)
        failed.insert(e.toolUseId);
    std::string stats = "Compacted " + std::to_string(r.messages.size()) + " messages (" + std::to_string(d.userInputs.size())
                        + " user requests, " + std::to_string(d.assistantResponses.size()) + " assistant responses, "
                        + std::to_string(d.toolCalls.size()) + " tool calls, " + std::to_string(d.errors.size()) + " errors";
    if (r.tokensBefore > 0)
        stats += ", " + std::to_string(r.tokensBefore) + " tokens";
    stats += ")";
    if (d.firstTimeMs != kNoTime && d.lastTimeMs != kNoTime && d.lastTimeMs >= d.firstTimeMs)
        stats += " over " + std::to_string((d.lastTimeMs - d.firstTimeMs) / 60000) + " min";
    stats += ".";
    if (!r.instructions.empty())
        stats += "\nInstructions: " + cut(r.instructions, 300);

    std::vector<Section> sections{{"Decisions and rationale", decisions(d)},
                                  {"Files modified and key changes", filesModified(d, failed)},
                                  {"Current task status and next steps", status(d)},
                                  {"Errors and resolutions", errors(d, failed)}};
    Summary s;
    s.keyPoints = sections[0].lines;
    s.sections = {{"decisions", sections[0].lines}, {"filesModified", sections[1].lines}, {"status", sections[2].lines}, {"errors", sections[3].lines}, {"statistics", stats}};
    s.text = assemble(stats, sections);
    // Fit maxChars: drop lines from the end of the longest section; the markers always stay.
    while (r.maxChars > 0 && s.text.size() > r.maxChars) {
        auto longest = std::max_element(sections.begin(), sections.end(),
                                        [](const Section &a, const Section &b) { return a.lines.size() < b.lines.size(); });
        if (longest->lines.empty()) {
            stats = cut(stats, stats.size() / 2);
            if (stats.size() < 8) {
                s.text = std::string(kHeader) + "\n" + std::string(kFooter);
                break;
            }
        } else {
            longest->lines.pop_back();
        }
        s.text = assemble(stats, sections);
    }
    return s;
}

} // namespace cl::strategy
