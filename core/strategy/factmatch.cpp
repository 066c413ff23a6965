// SPDX-License-Identifier: MIT
// Fact matching (factmatch.h). A summary rarely copies a fact byte for byte: agents write paths
// relative to the project ("lib/app/router.ex" for /home/u/proj/lib/app/router.ex) or by file name,
// commands without the `cd` in front, a request in other capitals. A plain substring search of the
// recorded text called those facts dropped.
#include "core/strategy/factmatch.h"

#include <algorithm>
#include <unordered_map>

namespace cl::strategy {

namespace {

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool isAlnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// A byte that continues a path component: "a.ex" inside "data.ex" is not a mention.
bool isNameChar(char c)
{
    return isAlnum(c) || c == '_' || c == '-' || c == '.' || c == '~' || c == '@' || c == '+' || c == '%';
}

// Whitespace runs as one space, trimmed; ASCII upper case folded when `fold`. One pass into a buffer
// sized once (the texts are whole summaries).
void appendSpaced(std::string_view s, std::string &out, bool fold = false)
{
    const std::size_t base = out.size();
    out.resize(base + s.size());
    char *o = out.data() + base, *const begin = o;
    bool gap = false;
    for (char c : s) {
        if (isSpace(c)) {
            gap = true;
            continue;
        }
        if (gap && o != begin)
            *o++ = ' ';
        gap = false;
        if (fold && c >= 'A' && c <= 'Z')
            c = char(c - 'A' + 'a');
        *o++ = c;
    }
    out.resize(base + std::size_t(o - begin));
}

std::string spaced(std::string_view s)
{
    std::string out;
    appendSpaced(s, out);
    return out;
}

// A path needle starts on a component boundary. One that may follow a '/' (absolute, several
// components, a unique basename) matches inside a longer path; a single-component relative path
// only as "x" or "./x", not as "sub/x" (another file).
bool pathStartOk(std::string_view text, std::size_t pos, bool afterSlash)
{
    if (pos == 0)
        return true;
    const char c = text[pos - 1];
    if (c != '/')
        return !isNameChar(c);
    if (afterSlash)
        return true;
    return pos >= 2 && text[pos - 2] == '.' && (pos == 2 || (!isNameChar(text[pos - 3]) && text[pos - 3] != '/'));
}

// And ends on one: "router.ex" is not in "router.exs"; a sentence's full stop or a ":42" may follow.
bool pathEndOk(std::string_view text, std::size_t end)
{
    if (end >= text.size())
        return true;
    const char c = text[end];
    if (c == '.')
        return end + 1 == text.size() || !(isAlnum(text[end + 1]) || text[end + 1] == '_');
    return !isNameChar(c);
}

// Every form of a path ends with its last component, so one scan for that finds them all: at each
// occurrence ending on a boundary, each form is compared backwards from there.
bool findPath(std::string_view text, std::string_view name, const std::vector<FactMatcherNeedle> &forms)
{
    for (std::size_t pos = text.find(name); pos != std::string_view::npos; pos = text.find(name, pos + 1)) {
        const std::size_t end = pos + name.size();
        if (pos > 0 && text[pos - 1] != '/' && isNameChar(text[pos - 1]))
            continue; // "a.ex" inside "data.ex": no form ends here
        const bool endOk = pathEndOk(text, end), slashNext = end < text.size() && text[end] == '/';
        for (const FactMatcherNeedle &n : forms) {
            if (n.text.size() > end || !(n.folder ? slashNext : endOk))
                continue;
            const std::size_t start = end - n.text.size();
            if (text.compare(start, n.text.size(), n.text) == 0 && pathStartOk(text, start, n.afterSlash))
                return true;
        }
    }
    return false;
}

// A command is not the tail of a longer word or path ("make" in "cmake"). Its end is not checked:
// the fact is its first 80 bytes, and a summary may go on with the rest of it.
bool findCommand(std::string_view text, std::string_view needle)
{
    for (std::size_t pos = text.find(needle); pos != std::string_view::npos; pos = text.find(needle, pos + 1))
        if (pos == 0 || (!isNameChar(text[pos - 1]) && text[pos - 1] != '/'))
            return true;
    return false;
}

std::string_view basename(std::string_view p)
{
    const auto slash = p.rfind('/');
    return slash == std::string_view::npos ? p : p.substr(slash + 1);
}

// A single path component is evidence of a file when it names one ("router.ex", ".env",
// "Makefile"), not when it is a word any sentence may hold ("src", "test", "build").
bool fileLike(std::string_view name)
{
    if (name.size() < 3)
        return false;
    if (name.back() != '.' && name.find('.') != std::string_view::npos)
        return true;
    return std::any_of(name.begin(), name.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
}

std::string_view stripDotSlash(std::string_view p)
{
    while (p.size() > 2 && p.substr(0, 2) == "./")
        p.remove_prefix(2);
    return p;
}

struct PathForms {
    std::string key;      // the absolute form when known: two facts for one file are one file
    std::string absolute; // "" when unknown
    std::string relative; // to the working directory ("" when outside it or unknown)
    std::string recorded; // as the tool call wrote it, trailing '/' removed
};

PathForms pathForms(std::string_view text, std::string_view cwd)
{
    PathForms f;
    while (text.size() > 1 && text.back() == '/')
        text.remove_suffix(1);
    f.recorded = std::string(text);
    if (!text.empty() && text.front() == '/') {
        f.absolute = f.recorded;
        if (!cwd.empty() && text.size() > cwd.size() + 1 && text.substr(0, cwd.size()) == cwd && text[cwd.size()] == '/')
            f.relative = std::string(stripDotSlash(text.substr(cwd.size() + 1)));
    } else if (!text.empty() && text.front() != '~') {
        f.relative = std::string(stripDotSlash(text));
        if (!cwd.empty() && f.relative != "." && f.relative.rfind("../", 0) != 0)
            f.absolute = std::string(cwd) + '/' + f.relative;
    }
    f.key = f.absolute.empty() ? f.recorded : f.absolute;
    return f;
}

// The command as it ran in the project: whitespace collapsed, a leading `cd DIR && ` dropped
// (agents prefix it; summaries rarely repeat it). Kept whole when the rest would be too short.
std::string commandNeedle(std::string_view command)
{
    std::string s = spaced(command);
    if (s.rfind("cd ", 0) == 0)
        if (const auto amp = s.find(" && "); amp != std::string::npos && s.size() - (amp + 4) >= 3)
            s.erase(0, amp + 4);
    return s;
}

} // namespace

const std::string &FactText::spaced() const
{
    if (!m_hasSpaced) {
        appendSpaced(m_raw, m_spaced);
        m_hasSpaced = true;
    }
    return m_spaced;
}

const std::string &FactText::folded() const
{
    if (!m_hasFolded) {
        appendSpaced(m_raw, m_folded, true);
        m_hasFolded = true;
    }
    return m_folded;
}

std::string sessionCwd(const Transcript &t)
{
    auto usable = [](std::string_view s) {
        while (s.size() > 1 && s.back() == '/')
            s.remove_suffix(1);
        // Absolute only (a trimmed fixture writes a placeholder); "/" relates nothing.
        return s.size() > 1 && s.front() == '/' ? std::string(s) : std::string();
    };
    if (t.header.is_object())
        if (const auto it = t.header.find("cwd"); it != t.header.end() && it->is_string())
            if (std::string s = usable(it->get_ref<const std::string &>()); !s.empty())
                return s;
    for (const Message &m : t.messages)
        if (m.meta.is_object())
            if (const auto it = m.meta.find("cwd"); it != m.meta.end() && it->is_string())
                if (std::string s = usable(it->get_ref<const std::string &>()); !s.empty())
                    return s;
    if (t.format == Format::GeminiCli) {
        // The session context Gemini CLI sends first: "... I'm currently working in the directory: /x".
        constexpr std::string_view kSays = "working in the directory: ";
        std::size_t users = 0;
        for (const Message &m : t.messages) {
            if (m.role != Role::User)
                continue;
            for (const Block &b : m.blocks)
                if (const auto at = b.text.find(kSays); at != std::string::npos) {
                    std::string_view rest = std::string_view(b.text).substr(at + kSays.size());
                    rest = rest.substr(0, rest.find_first_of("\r\n"));
                    while (!rest.empty() && (rest.back() == ' ' || rest.back() == '.'))
                        rest.remove_suffix(1);
                    if (std::string s = usable(rest); !s.empty())
                        return s;
                }
            if (++users == 3)
                break;
        }
    }
    return {};
}

FactMatcher::FactMatcher(const std::vector<Fact> &facts, std::string_view cwd)
{
    m_facts.resize(facts.size());
    // Paths first: the basename rule needs every path of the list.
    std::vector<PathForms> forms(facts.size());
    std::unordered_map<std::string_view, std::size_t> firstWithName; // basename -> fact index (npos: shared)
    for (std::size_t i = 0; i < facts.size(); ++i) {
        if (facts[i].kind != Fact::Kind::Path)
            continue;
        forms[i] = pathForms(facts[i].text, cwd);
        const std::string_view name = basename(forms[i].key);
        const auto [it, fresh] = firstWithName.emplace(name, i);
        if (!fresh && it->second != std::string::npos && forms[it->second].key != forms[i].key)
            it->second = std::string::npos;
    }
    for (std::size_t i = 0; i < facts.size(); ++i) {
        Entry &e = m_facts[i];
        e.kind = facts[i].kind;
        switch (e.kind) {
        case Fact::Kind::Path: {
            const PathForms &f = forms[i];
            auto add = [&e](const std::string &text, bool afterSlash, bool folder = false) {
                if (text.empty())
                    return;
                for (Needle &n : e.needles)
                    if (n.text == text && n.folder == folder) {
                        n.afterSlash = n.afterSlash || afterSlash;
                        return;
                    }
                e.needles.push_back({text, afterSlash, folder});
            };
            // Several components may follow a '/'; a single one must look like a file name, or
            // else be written as a folder ("src/").
            auto addRelative = [&](const std::string &s) {
                const bool several = s.find('/') != std::string::npos;
                if (several || fileLike(s))
                    add(s, several);
                else if (!s.empty() && s != "." && s != "..")
                    add(s, false, true);
            };
            add(f.absolute, true);
            addRelative(f.relative);
            addRelative(f.recorded);
            const std::string_view name = basename(f.key);
            if (const auto it = firstWithName.find(name); it != firstWithName.end() && it->second != std::string::npos && fileLike(name))
                add(std::string(name), true);
            e.name = std::string(name);
            break;
        }
        case Fact::Kind::Command:
            e.needles.push_back({commandNeedle(facts[i].text), false});
            break;
        case Fact::Kind::Request:
        case Fact::Kind::Error: {
            std::string s;
            appendSpaced(facts[i].text, s, true);
            e.needles.push_back({std::move(s), false});
            e.needles.push_back({facts[i].text, false}); // as recorded: found without normalising
            break;
        }
        }
    }
}

bool FactMatcher::mentions(std::size_t fact, const FactText &text) const
{
    const Entry &e = m_facts[fact];
    switch (e.kind) {
    case Fact::Kind::Path:
        return !e.name.empty() && findPath(text.raw(), e.name, e.needles);
    case Fact::Kind::Command:
        // As recorded first (a call's JSON holds it so unless it has quotes or runs of spaces).
        if (e.needles[0].text.empty())
            return false;
        return (!text.hasSpaced() && findCommand(text.raw(), e.needles[0].text)) || findCommand(text.spaced(), e.needles[0].text);
    case Fact::Kind::Request:
    case Fact::Kind::Error:
        // The text as recorded is the common case (a kept or snipped result still starts with its
        // error); only otherwise is the text normalised, once for every fact looked for in it, and
        // from then on only the normalised text is searched.
        if (!text.hasFolded() && text.raw().find(e.needles[1].text) != std::string_view::npos)
            return true;
        return !e.needles[0].text.empty() && text.folded().find(e.needles[0].text) != std::string::npos;
    }
    return false;
}

} // namespace cl::strategy
