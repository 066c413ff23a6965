// SPDX-License-Identifier: MIT
#pragma once

// Whether a text mentions a fact (strategy.h Fact), as a summary writes it. The strategy metrics
// (fact retention of a result) and the compaction audit (llm::retention on the text an agent kept)
// both decide with this one matcher:
// - paths: the path as recorded, its absolute form, its form relative to the session's working
//   directory (also written "./x"), and its basename when no other path fact of the list has the
//   same one. A form of one component counts when it names a file ("router.ex", "Makefile"), a
//   folder only written as one ("src/"). Matches start and end on path-component boundaries: "a.ex"
//   is not in "data.ex", "router.ex" not in "router.exs", a relative "mix.exs" not in
//   "deps/mix.exs" (unless its basename is unique).
// - commands: whitespace runs collapsed, a leading `cd DIR && ` ignored, not inside a longer word.
// - requests and errors: ASCII case ignored, whitespace runs collapsed.
// The needles are built once per fact list; a FactText normalises its text once, on first need.

#include "core/model/transcript.h"
#include "core/strategy/strategy.h"

#include <string>
#include <string_view>
#include <vector>

namespace cl::strategy {

// The working directory the session records, without a trailing slash ("" when none): the header's
// "cwd" (Claude Code lines, Codex session_meta), else a message's meta "cwd" (Codex turn_context),
// else the directory a Gemini CLI session context names.
std::string sessionCwd(const Transcript &t);

// A text searched for facts. Holds a view: the text must outlive it.
class FactText
{
public:
    explicit FactText(std::string_view text)
        : m_raw(text)
    {
    }
    std::string_view raw() const { return m_raw; }
    const std::string &spaced() const; // whitespace runs as one space, trimmed
    const std::string &folded() const; // spaced(), ASCII lower case
    bool hasSpaced() const { return m_hasSpaced; }
    bool hasFolded() const { return m_hasFolded; }

private:
    std::string_view m_raw;
    mutable std::string m_spaced, m_folded;
    mutable bool m_hasSpaced = false, m_hasFolded = false;
};

// One form a fact may be written in (FactMatcher's).
struct FactMatcherNeedle {
    std::string text;
    bool afterSlash = false; // paths: may follow a '/' ("x/lib/a.ex" mentions "lib/a.ex")
    bool folder = false;     // paths: counts only followed by a '/' ("src/")
};

class FactMatcher
{
public:
    // `facts`: the list the basename rule counts over (the session's or the replaced history's).
    FactMatcher(const std::vector<Fact> &facts, std::string_view cwd);

    std::size_t size() const { return m_facts.size(); }
    // Whether `text` mentions facts[fact] (the list given to the constructor).
    bool mentions(std::size_t fact, const FactText &text) const;

private:
    using Needle = FactMatcherNeedle;
    struct Entry {
        Fact::Kind kind = Fact::Kind::Request;
        std::string name;            // paths: the last component, which every form ends with
        std::vector<Needle> needles; // any one is a mention
    };
    std::vector<Entry> m_facts;
};

} // namespace cl::strategy
