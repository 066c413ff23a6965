// SPDX-License-Identifier: MIT
#pragma once

// Builders shared by the strategy tests, split along the strategy families: tierfix for the seed 003
// tiers (tst_tierstrategies, tst_tiermanager), peerfix for the peer policies (tst_peerstrategies,
// tst_peerclaude). Each test file uses one of them.

#include "core/strategy/strategy.h"
#include "core/strategy/editor.h"
#include "core/tokens/estimator.h"
#include "core/model/transcript.h"
#include "core/strategies/registry.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace cl::test::tierfix {

using namespace cl;
using namespace cl::strategy;

// Distinct words so the estimator's repetition discount stays out of the way.
inline std::string prose(std::size_t chars, std::uint32_t seed)
{
    static const char *words[] = {"parser", "config", "schema", "value", "token", "module", "render", "buffer",
                                  "stream", "queue", "index", "vector", "signal", "thread", "socket", "layout"};
    std::string s;
    std::uint32_t x = seed * 2654435761u + 1;
    std::size_t line = 0;
    while (s.size() < chars) {
        x = x * 1664525u + 1013904223u;
        s += words[(x >> 16) % 16];
        s += (x >> 8) % 11 == 0 ? "\n" + std::to_string(++line) + " " : std::string(" ");
    }
    s.resize(chars);
    return s;
}

inline Block use(std::string name, nlohmann::json input, std::string id = "call_1")
{
    Block b;
    b.type = BlockType::ToolUse;
    b.toolName = std::move(name);
    b.input = std::move(input);
    b.toolId = std::move(id);
    return b;
}

inline Block result(std::string text, bool error = false, std::string id = "call_1")
{
    Block b;
    b.type = BlockType::ToolResult;
    b.text = std::move(text);
    b.isError = error;
    b.toolId = std::move(id);
    return b;
}

// OpenAI chat transcript builder: system prompt, then turns.
struct Builder {
    Transcript t;
    int calls = 0;
    Builder() { t.format = Format::OpenAIChat; }
    std::size_t text(Role r, std::string s)
    {
        Message m = makeTextMessage(r, std::move(s));
        m.edited = false;
        t.messages.push_back(std::move(m));
        return t.messages.size() - 1;
    }
    // assistant call + tool result; returns the result's index
    std::size_t tool(std::string name, nlohmann::json input, std::string out, bool error = false)
    {
        const std::string id = "call_" + std::to_string(++calls);
        Message a;
        a.role = Role::Assistant;
        a.type = "assistant";
        a.blocks.push_back(use(std::move(name), std::move(input), id));
        t.messages.push_back(std::move(a));
        Message r;
        r.role = Role::Tool;
        r.type = "tool";
        r.blocks.push_back(result(std::move(out), error, id));
        t.messages.push_back(std::move(r));
        return t.messages.size() - 1;
    }
    Transcript &done()
    {
        linkToolPairs(t);
        return t;
    }
};

inline std::int64_t est(const Message &m)
{
    m.cache.tokenEstimate = -1;
    return tokens::estimateMessage(m);
}

inline std::int64_t total(const Transcript &t)
{
    std::int64_t n = 0;
    for (const auto &m : t.messages)
        n += est(m);
    return n;
}

inline Message withText(const Message &m, std::size_t block, std::string text)
{
    Message c = m;
    c.blocks[block].text = std::move(text);
    c.cache.tokenEstimate = -1;
    return c;
}

inline std::string hundredLines(const std::string &first)
{
    std::string s = first;
    for (int k = 0; k < 99; ++k)
        s += "\nline " + std::to_string(k);
    return s;
}

// system + 8 turns of [request, Read call, 15 000-character result, 6 000-character answer].
// system + 8 turns of [request, Read call, 15 000-character result, 6 000-character answer].
struct SeedScenario {
    Transcript t;
    std::vector<std::size_t> results, turnStart;
    SeedScenario()
    {
        Builder b;
        b.text(Role::System, "You are a coding agent.");
        for (int k = 0; k < 8; ++k) {
            turnStart.push_back(b.text(Role::User, "Step " + std::to_string(k)));
            results.push_back(b.tool("Read", {{"file_path", "/src/m" + std::to_string(k) + ".py"}},
                                     prose(15000, 100 + std::uint32_t(k))));
            b.text(Role::Assistant, prose(6000, 200 + std::uint32_t(k)));
        }
        t = b.done();
    }
};

} // namespace cl::test::tierfix

namespace cl::test::peerfix {

using namespace cl;
using namespace cl::strategy;

inline Message text(Role r, std::string s)
{
    Message m;
    m.role = r;
    m.type = std::string(roleName(r));
    Block b;
    b.type = BlockType::Text;
    b.text = std::move(s);
    m.blocks.push_back(std::move(b));
    return m;
}

inline Message call(std::string id, std::string name, nlohmann::json input, std::string prose = {})
{
    Message m;
    m.role = Role::Assistant;
    m.type = "assistant";
    if (!prose.empty()) {
        Block t;
        t.type = BlockType::Text;
        t.text = std::move(prose);
        m.blocks.push_back(std::move(t));
    }
    Block b;
    b.type = BlockType::ToolUse;
    b.toolId = std::move(id);
    b.toolName = std::move(name);
    b.input = std::move(input);
    m.blocks.push_back(std::move(b));
    return m;
}

// Anthropic-style result: a user message with a tool_result block.
inline Message result(std::string id, std::string out, bool error = false)
{
    Message m;
    m.role = Role::User;
    m.type = "user";
    Block b;
    b.type = BlockType::ToolResult;
    b.toolId = std::move(id);
    b.text = std::move(out);
    b.isError = error;
    m.blocks.push_back(std::move(b));
    return m;
}

inline Transcript make(Format f, std::vector<Message> ms)
{
    Transcript t;
    t.format = f;
    t.buffer = std::make_shared<const std::string>();
    t.messages = std::move(ms);
    linkToolPairs(t);
    return t;
}

inline analysis::AnalysisOptions window(std::int64_t w)
{
    analysis::AnalysisOptions o;
    o.contextWindow = w;
    return o;
}

inline Result runNamed(const char *name, const Input &in, const nlohmann::json &params = nlohmann::json::object())
{
    const Strategy *s = find(name);
    if (!s)
        qFatal("strategy %s is not registered", name);
    std::string err;
    Result r = run(*s, in, params, {}, &err);
    if (!err.empty())
        qWarning("%s: %s", name, err.c_str());
    return r;
}

inline std::int64_t est(const Transcript &t, std::size_t i)
{
    return tokens::estimateMessage(t.messages[i]);
}

// Texts of the result's messages, in order.
inline std::vector<const Message *> resultMessages(const Result &r, const Transcript &t)
{
    std::vector<const Message *> out;
    for (std::size_t s = 0; s < r.slots.size(); ++s)
        out.push_back(&r.message(t, s));
    return out;
}

inline std::string repeatLines(const char *word, int n)
{
    std::string s;
    for (int k = 0; k < n; ++k)
        s += std::string(word) + " line " + std::to_string(k) + " of the file, distinct text " + std::to_string(k * 7) + "\n";
    return s;
}

} // namespace cl::test::peerfix
