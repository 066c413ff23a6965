// SPDX-License-Identifier: MIT
#include "core/llm/answer.h"

#include "core/strategy/factmatch.h"
#include "core/util/spaces.h"

#include <algorithm>
#include <cctype>

namespace cl::llm {

namespace {

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

std::string trim(std::string_view s)
{
    return std::string(util::trimSpaces(s));
}

// Text between open and close (the last such pair when the model repeated it); npos when absent.
bool between(const std::string &s, const std::string &open, const std::string &close, std::string &out)
{
    const std::size_t a = s.rfind(open);
    if (a == std::string::npos)
        return false;
    const std::size_t from = a + open.size();
    const std::size_t b = s.find(close, from);
    out = s.substr(from, b == std::string::npos ? std::string::npos : b - from); // unclosed: to the end
    return true;
}

bool hasContent(std::string_view s)
{
    return std::any_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) || c >= 0x80; });
}

} // namespace

ParsedSummary parseAnswer(const Preset &p, const std::string &answer)
{
    ParsedSummary out;
    std::string text = answer;
    if (!p.scratchOpen.empty()) // the thinking part goes, closed or not
        for (std::size_t a = text.find(p.scratchOpen); a != std::string::npos; a = text.find(p.scratchOpen)) {
            const std::size_t b = text.find(p.scratchClose, a);
            text.erase(a, b == std::string::npos ? std::string::npos : b + p.scratchClose.size() - a);
        }
    std::string inner;
    if (!p.openTag.empty() && between(text, p.openTag, p.closeTag, inner)) {
        out.wrapped = true;
        out.summary = trim(inner);
    } else {
        out.summary = trim(text);
    }
    if (p.openTag == "<state_snapshot>") // the snapshot keeps its wrapper, as the agent stores it
        out.summary = "<state_snapshot>\n" + out.summary + "\n</state_snapshot>";
    // Sections: each heading in order; its content runs to the next heading found.
    const std::string low = lower(out.summary);
    std::vector<std::pair<std::size_t, std::size_t>> found; // position, section index
    for (std::size_t k = 0; k < p.sections.size(); ++k) {
        const std::size_t at = low.find(lower(p.sections[k].heading));
        if (at == std::string::npos)
            out.missing.push_back(p.sections[k].heading);
        else
            found.emplace_back(at, k);
    }
    std::sort(found.begin(), found.end());
    for (std::size_t j = 0; j < found.size(); ++j) {
        const Section &sec = p.sections[found[j].second];
        std::size_t from = found[j].first + sec.heading.size();
        std::size_t to = out.summary.size();
        if (j + 1 < found.size()) { // up to the line of the next heading ("3. Files ..." is not content)
            to = found[j + 1].first;
            if (const std::size_t eol = out.summary.rfind('\n', to); eol != std::string::npos && eol >= from)
                to = eol;
        }
        if (sec.heading.front() == '<') { // an XML element: up to its closing tag
            const std::string close = "</" + sec.heading.substr(1);
            if (const std::size_t c = low.find(lower(close), from); c != std::string::npos)
                to = std::min(to, c);
        } else {
            // "1. Primary Request and Intent:" — skip the rest of the heading's line up to a colon.
            const std::size_t colon = out.summary.find(':', from);
            const std::size_t eol = out.summary.find('\n', from);
            if (colon != std::string::npos && (eol == std::string::npos || colon < eol))
                from = colon + 1;
        }
        if (to <= from || !hasContent(std::string_view(out.summary).substr(from, to - from)))
            out.empty.push_back(sec.heading);
    }
    return out;
}

Retention retention(const Transcript &t, const std::vector<std::size_t> &messages, const std::string &summary)
{
    Retention r;
    std::vector<strategy::Fact> facts = strategy::collectFacts(t, &messages);
    const strategy::FactMatcher matcher(facts, strategy::sessionCwd(t));
    const strategy::FactText text(summary);
    for (std::size_t i = 0; i < facts.size(); ++i)
        (matcher.mentions(i, text) ? r.kept : r.dropped).push_back(std::move(facts[i]));
    return r;
}

std::string droppedFactsAppendix(const std::vector<strategy::Fact> &dropped)
{
    if (dropped.empty())
        return {};
    std::string s = "\n\nFacts of the summarized history the summary above does not mention (listed by ContextLens):\n";
    for (const auto &f : dropped)
        s += "- " + std::string(strategy::factKindName(f.kind)) + ": " + f.text + "\n";
    return s;
}

} // namespace cl::llm
