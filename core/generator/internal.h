// SPDX-License-Identifier: MIT
#pragma once

// Pieces of the session generator shared by its source files. Not a public API.

#include "core/generator/generator.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cl::gen::detail {

using ojson = nlohmann::ordered_json;

// splitmix64: tiny, fast, and the same on every platform (std distributions are not).
class Rng
{
public:
    explicit Rng(std::uint64_t seed)
        : m_state(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull)
    {}
    std::uint64_t next()
    {
        std::uint64_t z = (m_state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    std::size_t below(std::size_t n) { return n ? std::size_t(next() % n) : 0; }
    int range(int lo, int hi) { return lo + int(below(std::size_t(hi - lo + 1))); } // inclusive
    bool chance(double p) { return double(next() >> 11) * 0x1.0p-53 < p; }
    template <typename T, std::size_t N>
    const T &pick(const T (&items)[N]) { return items[below(N)]; }
    template <typename T>
    const T &pick(const std::vector<T> &items) { return items[below(items.size())]; }

private:
    std::uint64_t m_state;
};

std::string uuid(Rng &rng);
std::string base62(Rng &rng, int n);

struct SourceFile {
    std::string path; // relative to the project root
    std::string lang; // cpp, py, ts, md
    std::uint64_t seed = 0;
    int lines = 0;
    mutable std::string content; // built on first use
};

struct Project {
    std::string name;
    std::string cwd;
    std::string branch;
    std::vector<SourceFile> files;
    std::vector<std::string> symbols; // function / class names used in prose and greps
};

Project makeProject(Rng &rng);
// Deterministic content of a file (by its seed); at most maxLines lines.
std::string fileContent(const SourceFile &f, int maxLines);
// `cat -n` style, as Claude Code's Read returns it: right-aligned number, an arrow, the line.
std::string numbered(std::string_view content, int firstLine);

std::string userPrompt(Rng &rng, const Project &p, bool chinese);
std::string shortIntent(Rng &rng, const Project &p); // "Let me look at ..." before tool calls
std::string answer(Rng &rng, const Project &p);      // final prose: paragraphs, code, URL, list
std::string thinkingText(Rng &rng, const Project &p);
std::string summaryText(Rng &rng, const Project &p);
std::string codeSnippet(Rng &rng, const Project &p, const std::string &lang, int lines);

struct ToolCall {
    std::string name;
    ojson input;
    std::string result; // text the model sees
    bool isError = false;
    ojson toolUseResult; // Claude Code's structured copy
};
// maxBytes bounds the size of the result (so size targets are met closely); exploring favours
// Read / Grep / Glob (the first round of a request).
ToolCall makeToolCall(Rng &rng, const Project &p, const Options &o, std::size_t maxBytes, bool exploring);

// One message of the session plus what only the Claude Code writer needs.
struct Event {
    Message msg;
    std::vector<ojson> inputs;         // per tool_use block, in order (key order as Claude writes it)
    std::vector<ojson> toolUseResults; // per tool_result block
    std::int64_t preTokens = 0;        // compact boundary
};

class Sink
{
public:
    virtual ~Sink() = default;
    virtual void add(Event &&e) = 0;
    virtual std::size_t bytes() const = 0;
};

struct SessionLimits {
    std::size_t messages = 0;
    std::size_t bytes = 0;
    bool compaction = false; // emit compact boundaries (Claude Code) or silently reset the context
};

// Tokens a real tokenizer gives for this many bytes of mixed prose and code (about 3.4 bytes each).
inline std::int64_t approxTokens(std::size_t bytes) { return std::int64_t(bytes * 10 / 34); }

// Runs the session script (prompts, tool rounds, answers, compactions) into the sink.
void runSession(const Options &o, const SessionLimits &limits, Rng &rng, const Project &p, std::int64_t startMs,
                const std::string &model, Sink &sink, Stats &stats);

} // namespace cl::gen::detail
