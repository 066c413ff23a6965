// SPDX-License-Identifier: MIT
// Rule-based summaries in the seeds' layouts (seed 001 createSummary, seed 004; seed 003's lives in
// strategy/summary/tier_summary.cpp).
//
// Seed 001 (§5) builds four parts, in order: a system summary (header, compacted messages and time
// span, the six group statistics, token reduction), a tool-usage summary (frequency, common
// patterns, notable results; only with preserveToolCalls), a conversation narrative (user topics,
// actions, key points, resolved problems by error type) and the critical information (results of
// critical tools quoted verbatim). Each part is also a string in Summary::sections.
//
// Definitions the seed leaves open:
// - Topic: the first line of a user input (at most 100 bytes), duplicates dropped.
// - Key point: the first line of an assistant response (at most 160 bytes). Responses that state
//   an outcome (contain one of kOutcomeWords) come first, newest first; the rest follow, newest first.
// - Common pattern: a pair of consecutive calls (by tool name) seen at least twice ("Read -> Edit"),
//   and a file the calls touched at least twice.
// - Error type: by the first matching phrase of the error's first line (not found, permission,
//   syntax, test failure, timeout, type error), else "other".
#include "core/strategy/summary/summary.h"

#include "core/analysis/toolpaths.h"
#include "core/tokens/estimator.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace cl::strategy {

namespace {

// Markdown markers (headings, quotes, bullets) are not part of the line's text.
std::string markdownFirstLine(std::string_view s, std::size_t max)
{
    return clipFirstLine(s, max, " \t\r\n#>*-");
}

std::string lowerAscii(std::string s)
{
    for (char &c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string isoTime(std::int64_t ms)
{
    if (ms == kNoTime)
        return {};
    const std::time_t secs = static_cast<std::time_t>(ms / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::string duration(std::int64_t ms)
{
    const std::int64_t minutes = ms / 60000;
    if (minutes < 1)
        return std::to_string(ms / 1000) + " s";
    if (minutes < 120)
        return std::to_string(minutes) + " min";
    return std::to_string(minutes / 60) + " h " + std::to_string(minutes % 60) + " min";
}

constexpr const char *kOutcomeWords[] = {"fixed", "found", "created", "added", "updated", "resolved", "done",
                                         "implemented", "the problem", "the issue", "because", "works", "passes", "修复", "完成"};

// The first `shown` topics (distinct first lines of user inputs) and in `count` how many there are.
// Distinct lines are found on views (a line's text and whether "…" follows it), so only the shown
// ones become strings.
std::vector<std::string> topics(const Digest &d, std::size_t shown, std::size_t &count)
{
    constexpr std::string_view kEllipsis = "…";
    struct Key {
        std::string_view text;
        bool ellipsis = false;
        bool operator==(const Key &o) const { return text == o.text && ellipsis == o.ellipsis; }
    };
    struct Hash {
        std::size_t operator()(const Key &k) const { return std::hash<std::string_view>()(k.text) ^ std::size_t(k.ellipsis); }
    };
    std::vector<std::string> out;
    std::unordered_set<Key, Hash> seen;
    count = 0;
    for (const auto &[i, text] : d.userInputs) {
        bool clipped = false;
        Key k{clipFirstLineView(text, 100, clipped, " \t\r\n#>*-"), clipped};
        if (k.text.empty() && !clipped)
            continue;
        // One spelling per line: an unclipped line that ends in "…" equals a clipped one.
        if (!clipped && k.text.size() >= kEllipsis.size() && k.text.substr(k.text.size() - kEllipsis.size()) == kEllipsis) {
            k.text.remove_suffix(kEllipsis.size());
            k.ellipsis = true;
        }
        if (!seen.insert(k).second)
            continue;
        if (++count <= shown)
            out.push_back(std::string(k.text).append(k.ellipsis ? kEllipsis : std::string_view()));
    }
    return out;
}

// The first `max` of: outcome lines (first lines of responses holding kOutcomeWords), newest
// first, then the other lines, newest first; duplicates dropped. A duplicate has its original's
// category, so each category dedups on its own; the walk ends once `max` outcomes are found, and
// other lines beyond `max` are not kept.
std::vector<std::string> keyPoints(const Digest &d, std::size_t max)
{
    std::vector<std::string> outcome, rest;
    std::unordered_set<std::string> seenOutcome, seenRest;
    for (auto it = d.assistantResponses.rbegin(); it != d.assistantResponses.rend() && outcome.size() < max; ++it) {
        std::string line = markdownFirstLine(it->second, 160);
        if (line.empty())
            continue;
        const std::string low = lowerAscii(line);
        const bool isOutcome = std::any_of(std::begin(kOutcomeWords), std::end(kOutcomeWords),
                                           [&](const char *w) { return low.find(w) != std::string::npos; });
        if (isOutcome) {
            if (seenOutcome.insert(line).second)
                outcome.push_back(std::move(line));
        } else if (rest.size() < max && seenRest.insert(line).second) {
            rest.push_back(std::move(line));
        }
    }
    outcome.insert(outcome.end(), rest.begin(), rest.end());
    if (outcome.size() > max)
        outcome.resize(max);
    return outcome;
}

std::string errorType(const std::string &error)
{
    const std::string e = lowerAscii(error);
    static const std::pair<const char *, const char *> types[] = {{"not found", "not found"},
                                                                  {"no such file", "not found"},
                                                                  {"cannot find", "not found"},
                                                                  {"does not exist", "not found"},
                                                                  {"permission", "permission denied"},
                                                                  {"denied", "permission denied"},
                                                                  {"syntax", "syntax error"},
                                                                  {"parse", "syntax error"},
                                                                  {"test", "test failure"},
                                                                  {"assert", "test failure"},
                                                                  {"fail", "test failure"},
                                                                  {"timeout", "timeout"},
                                                                  {"timed out", "timeout"},
                                                                  {"typeerror", "type error"},
                                                                  {"type error", "type error"}};
    for (const auto &[needle, type] : types)
        if (e.find(needle) != std::string::npos)
            return type;
    return "other";
}

// Frequency sorted by count (descending), then name.
std::vector<std::pair<std::string, std::size_t>> frequency(const Digest &d)
{
    std::unordered_map<std::string_view, std::size_t> count;
    for (const auto &c : d.toolCalls)
        ++count[c.name];
    std::vector<std::pair<std::string, std::size_t>> out;
    out.reserve(count.size());
    for (const auto &[name, n] : count)
        out.emplace_back(std::string(name), n);
    std::sort(out.begin(), out.end(), [](const auto &a, const auto &b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    return out;
}

std::string toolSummary(const Digest &d, nlohmann::json &section)
{
    std::string s = "## Tool usage summary\n\n### Frequency\n";
    nlohmann::json freq = nlohmann::json::object();
    for (const auto &[name, n] : frequency(d)) {
        s += "- " + name + ": " + std::to_string(n) + (n == 1 ? " call\n" : " calls\n");
        freq[name] = n;
    }
    // Common patterns: consecutive call pairs seen twice or more, files touched twice or more.
    // Counted by views (no string per call), then ordered by the strings as before.
    std::unordered_map<std::string_view, std::size_t> nameId; // a handful of tool names
    std::vector<std::string_view> names;
    std::unordered_map<std::uint64_t, std::size_t> pairCount; // (id of first << 32) | id of second
    std::unordered_map<std::string_view, std::size_t> fileCount;
    std::uint64_t previous = 0;
    for (std::size_t k = 0; k < d.toolCalls.size(); ++k) {
        const auto &c = d.toolCalls[k];
        const auto [it, fresh] = nameId.try_emplace(c.name, names.size());
        if (fresh)
            names.push_back(c.name);
        const std::uint64_t id = it->second;
        if (k > 0)
            ++pairCount[(previous << 32) | id];
        previous = id;
        analysis::forEachToolPath(c.use(), [&fileCount](std::string_view p) { ++fileCount[p]; });
    }
    std::map<std::string, std::size_t> pairs;
    for (const auto &[key, n] : pairCount)
        pairs[std::string(names[key >> 32]).append(" -> ").append(names[key & 0xffffffffu])] += n;
    // Paths touched twice or more, in the order of a std::map<std::string> (views compare alike).
    std::vector<std::pair<std::string_view, std::size_t>> files;
    for (const auto &[path, n] : fileCount)
        if (n >= 2)
            files.emplace_back(path, n);
    std::sort(files.begin(), files.end());
    // Lines go into the text and are then moved into the section's arrays (not copied).
    nlohmann::json patterns = nlohmann::json::array(), notable = nlohmann::json::array();
    std::string line;
    auto add = [&s, &line](nlohmann::json &list) {
        s.append("- ").append(line).append("\n");
        list.push_back(std::move(line));
        line = std::string();
    };
    for (const auto &[pair, n] : pairs)
        if (n >= 2) {
            if (patterns.empty())
                s += "\n### Common patterns\n";
            line.append(pair).append(": ").append(std::to_string(n)).append(" times");
            add(patterns);
        }
    for (const auto &[file, n] : files) {
        if (patterns.empty())
            s += "\n### Common patterns\n";
        line.append(file).append(" touched ").append(std::to_string(n)).append(" times");
        add(patterns);
    }
    for (const auto &f : d.filesModified) {
        if (notable.empty())
            s += "\n### Notable results\n";
        line.append("modified ").append(f);
        add(notable);
    }
    for (const auto &e : d.errors) {
        if (notable.empty())
            s += "\n### Notable results\n";
        line.append(e.toolName.empty() ? std::string_view("tool") : e.toolName).append(" failed: ").append(e.error);
        add(notable);
    }
    section = nlohmann::json::object();
    section["frequency"] = std::move(freq);
    section["patterns"] = std::move(patterns);
    section["notableResults"] = std::move(notable);
    return s;
}

std::string narrative(const Digest &d, std::vector<std::string> &points)
{
    std::string s = "## Conversation summary\n";
    std::size_t count = 0;
    if (const auto t = topics(d, 5, count); !t.empty()) {
        s += "\n### User requests\n";
        for (const auto &topic : t)
            s += "- " + topic + "\n";
        if (count > 5)
            s += "- ... +" + std::to_string(count - 5) + " more\n";
    }
    if (!d.toolCalls.empty()) {
        s += "\n### Actions performed\n";
        auto list = [](const auto &v) {
            std::string out;
            for (std::size_t k = 0; k < v.size() && k < 5; ++k)
                out.append(k ? ", " : "").append(v[k]);
            return v.size() > 5 ? out + ", +" + std::to_string(v.size() - 5) + " more" : out;
        };
        if (!d.filesRead.empty())
            s += "- read " + std::to_string(d.filesRead.size()) + " file(s): " + list(d.filesRead) + "\n";
        if (!d.filesModified.empty())
            s += "- modified " + std::to_string(d.filesModified.size()) + " file(s): " + list(d.filesModified) + "\n";
        if (!d.commands.empty()) {
            std::vector<std::string> cmds;
            for (const auto &c : d.commands)
                cmds.push_back(markdownFirstLine(c, 80));
            s += "- ran " + std::to_string(d.commands.size()) + " command(s): " + list(cmds) + "\n";
        }
        s += "- " + std::to_string(d.toolCalls.size()) + " tool call(s) in total\n";
    }
    points = keyPoints(d, 7);
    if (!points.empty()) {
        s += "\n### Key points\n";
        for (const auto &p : points)
            s += "- " + p + "\n";
    }
    if (!d.errors.empty()) {
        s += "\n### Resolved problems\n";
        std::map<std::string, std::size_t> types;
        for (const auto &e : d.errors)
            ++types[errorType(e.error)];
        for (const auto &[type, n] : types)
            s += "- " + type + ": " + std::to_string(n) + (n == 1 ? " occurrence\n" : " occurrences\n");
    }
    return s;
}

// Results of the critical tools among r.preserved, verbatim.
std::string criticalInfo(const SummaryRequest &r, nlohmann::json &section)
{
    if (!r.transcript || r.preserved.empty())
        return {};
    std::unordered_map<std::string_view, std::string_view> critical; // tool id -> category (views into the analysis)
    if (r.analysis) {
        critical.reserve(r.analysis->critical.size());
        for (const auto &c : r.analysis->critical)
            critical.emplace(c.toolId, c.category);
    }
    constexpr std::string_view kHeading = "## Critical information\n\n";
    std::string s(kHeading);
    section = nlohmann::json::array();
    for (const std::size_t i : r.preserved) {
        if (i >= r.transcript->messages.size())
            continue;
        for (const auto &b : r.transcript->messages[i].blocks) {
            if (b.type != BlockType::ToolResult)
                continue;
            const auto it = critical.find(b.toolId);
            if (r.analysis && it == critical.end())
                continue;
            const std::string_view category = it == critical.end() ? std::string_view() : it->second;
            // Appended piece by piece: a result can be large, and "a" + b + ... copies it twice.
            s.append("[preserved tool result: ").append(b.toolId).append("]\n").append(b.text).append("\n\n");
            nlohmann::json entry = nlohmann::json::object();
            entry["id"] = b.toolId;
            entry["tool"] = b.toolName;
            entry["category"] = std::string(category);
            entry["message"] = i;
            section.push_back(std::move(entry));
        }
    }
    if (s.size() == kHeading.size())
        return {};
    return s;
}

} // namespace

Summary summarizeSeed001(const SummaryRequest &r, const Digest &d)
{
    Summary out;
    nlohmann::json toolSection, criticalSection;
    std::string tools = r.preserveToolCalls && !d.toolCalls.empty() ? toolSummary(d, toolSection) : std::string();
    std::string story = narrative(d, out.keyPoints);
    std::string critical = criticalInfo(r, criticalSection);

    std::string sys = "# Previous conversation summary\n";
    sys += "Compacted " + std::to_string(r.messages.size()) + " messages";
    if (d.firstTimeMs != kNoTime)
        sys += " from " + isoTime(d.firstTimeMs) + " to " + isoTime(d.lastTimeMs) + " ("
               + duration(d.lastTimeMs - d.firstTimeMs) + ")";
    sys += "\n\n## Statistics\n";
    sys += "- User inputs: " + std::to_string(d.userInputs.size()) + "\n";
    sys += "- Assistant responses: " + std::to_string(d.assistantResponses.size()) + "\n";
    sys += "- Tool calls: " + std::to_string(d.toolCalls.size()) + "\n";
    sys += "- Errors encountered: " + std::to_string(d.errors.size()) + "\n";
    sys += "- Images processed: " + std::to_string(d.images.size()) + "\n";
    sys += "- Documents analysed: " + std::to_string(d.documents.size()) + "\n";
    // The compacted size is the summary's own estimate: the other parts plus this one (~60 tokens
    // of statistics lines), so the figure is known before the text is complete.
    const std::int64_t compacted = tokens::estimateText(tools) + tokens::estimateText(story)
                                   + tokens::estimateText(critical) + tokens::estimateText(sys) + 40;
    sys += "\n## Token reduction\n";
    sys += "- Original: ~" + std::to_string(r.tokensBefore) + " tokens\n";
    sys += "- Compacted to: ~" + std::to_string(compacted) + " tokens\n";
    const long saving = r.tokensBefore > 0 ? std::lround(100.0 * (1.0 - double(compacted) / double(r.tokensBefore))) : 0;
    sys += "- Saving: ~" + std::to_string(std::max(0L, saving)) + "%\n";

    out.text = sys;
    for (const std::string *part : {&tools, &story, &critical})
        if (!part->empty())
            out.text.append("\n").append(*part);
    if (!r.instructions.empty())
        out.text += "\n## Instructions\n" + r.instructions + "\n";
    // The parts are in the text now: they move into the sections (an initializer list would copy).
    out.sections = {{"keyPoints", out.keyPoints},
                    // clang-format off
        {"statistics", {{"userInputs", d.userInputs.size()}, {"assistantResponses", d.assistantResponses.size()},
                        {"toolCalls", d.toolCalls.size()}, {"errors", d.errors.size()}, {"images", d.images.size()},
                        {"documents", d.documents.size()}}},
        {"tokens", {{"original", r.tokensBefore}, {"compacted", compacted}, {"savingPercent", std::max(0L, saving)}}}};
    // clang-format on
    out.sections["system"] = std::move(sys);
    out.sections["narrative"] = std::move(story);
    if (!tools.empty()) {
        out.sections["tools"] = std::move(tools);
        out.sections["toolStats"] = std::move(toolSection);
    }
    if (!critical.empty()) {
        out.sections["critical"] = std::move(critical);
        out.sections["preserved"] = std::move(criticalSection);
    }
    return out;
}

// Seed 004 ContextSummary {timestamp, turnRange, content, keyPoints}: content is one paragraph of
// at most maxChars characters (requests, actions, errors); keyPoints at most 5. The turn range is
// the strategy's (it knows the turn numbering); here it is [1, user inputs] of the range itself.
Summary summarizeSeed004(const SummaryRequest &r, const Digest &d)
{
    Summary out;
    std::string c = "Earlier conversation (" + std::to_string(r.messages.size()) + " messages). ";
    std::size_t count = 0;
    const auto t = topics(d, 3, count);
    if (!t.empty()) {
        c += "User asked: ";
        for (std::size_t k = 0; k < t.size(); ++k)
            c += (k ? "; " : "") + t[k];
        if (count > 3)
            c += " (+" + std::to_string(count - 3) + " more)";
        c += ". ";
    }
    if (!d.filesModified.empty()) {
        c += "Modified: ";
        for (std::size_t k = 0; k < d.filesModified.size() && k < 5; ++k)
            c.append(k ? ", " : "").append(d.filesModified[k]);
        c += ". ";
    }
    if (!d.commands.empty())
        c += "Ran " + std::to_string(d.commands.size()) + " command(s). ";
    if (!d.errors.empty())
        c += std::to_string(d.errors.size()) + " tool error(s). ";
    out.keyPoints = keyPoints(d, 5);
    std::string text = c;
    for (const auto &p : out.keyPoints)
        text += "\n- " + p;
    if (r.maxChars > 0 && text.size() > r.maxChars) {
        std::size_t n = r.maxChars;
        while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80)
            --n;
        text.resize(n);
    }
    out.text = text;
    out.sections = {{"timestamp", d.lastTimeMs == kNoTime ? nlohmann::json(nullptr) : nlohmann::json(d.lastTimeMs)},
                    {"turnRange", {d.userInputs.empty() ? 0 : 1, d.userInputs.size()}},
                    {"content", text},
                    {"keyPoints", out.keyPoints}};
    return out;
}

} // namespace cl::strategy
