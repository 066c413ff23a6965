// SPDX-License-Identifier: MIT
#pragma once

// A small Claude Code session whose cost tst_cost computes by hand, and the price table it is priced
// with (made-up model names, so that no change to the shipped table moves the figures).

#include "core/io/loader.h"
#include "core/llm/pricing.h"

#include "test_support.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <memory>
#include <string>

namespace cl::test::costfix {

using nlohmann::json;

// $ per million tokens. acme-large: input 3, output 15, 5-minute write 3.75, 1-hour write 6, read 0.3;
// acme-small: input 1, output 5, 5-minute write 1.25, 1-hour write 2, read 0.1.
inline const char *const kPrices = R"({"models": [
  {"match": "acme-large", "input": 3, "output": 15, "cacheWrite5m": 3.75, "cacheWrite1h": 6, "cacheRead": 0.3},
  {"match": "acme-small", "input": 1, "output": 5, "cacheWrite5m": 1.25, "cacheWrite1h": 2, "cacheRead": 0.1}
]})";

inline std::string line(const json &fields)
{
    json o = {{"isSidechain", false}, {"userType", "external"}, {"cwd", "/w"}, {"sessionId", "s1"}, {"version", "2.1.100"}};
    o.update(fields);
    return o.dump() + "\n";
}

inline json usage(int input, int written, int read, int output, const json &split = nullptr)
{
    json u = {{"input_tokens", input}, {"cache_creation_input_tokens", written}, {"cache_read_input_tokens", read}, {"output_tokens", output}};
    if (!split.is_null())
        u["cache_creation"] = split;
    return u;
}

inline std::string user(const char *uuid, const char *parent, const json &content)
{
    return line({{"type", "user"}, {"uuid", uuid}, {"parentUuid", parent ? json(parent) : json(nullptr)}, {"timestamp", "2025-12-01T09:00:00.000Z"}, {"message", {{"role", "user"}, {"content", content}}}});
}

// One line of response `id`: one content block and the usage as that line repeats it.
inline std::string assistant(const char *uuid, const char *parent, const char *id, const char *model, const json &block,
                             const json &u, const json &extra = json::object())
{
    json o = {{"type", "assistant"}, {"uuid", uuid}, {"parentUuid", parent}, {"timestamp", "2025-12-01T09:00:01.000Z"}, {"message", {{"id", id}, {"type", "message"}, {"role", "assistant"}, {"model", model}, {"content", json::array({block})}, {"usage", u}}}};
    o.update(extra);
    return line(o);
}

inline json text(const char *s)
{
    return {{"type", "text"}, {"text", s}};
}

// The responses, in order (hand computation in tst_cost.cpp):
//   msg_C acme-small-1, 1 line:  input 100, no cache, output 50
//   msg_A acme-large-2025, 3 lines (intermediate snapshots first): final input 10, cache write 2000
//         of which 1500 for 5 minutes and 500 for 1 hour, cache read 30000, output 400
//   msg_B acme-large-2025, 2 lines: input 5, cache write 1000 (no TTL split: 5 minutes), cache read
//         32000, output 250
//   a "<synthetic>" line (Claude Code's own message, no model call): not a response
// `costUsd` adds costUSD (older Claude Code) to msg_A's last line.
inline std::string session(bool costUsd = false)
{
    const json splitA = {{"ephemeral_5m_input_tokens", 1500}, {"ephemeral_1h_input_tokens", 500}};
    const json toolUse = {{"type", "tool_use"}, {"id", "toolu_1"}, {"name", "Read"}, {"input", {{"file_path", "/src/a.py"}}}};
    const json toolResult = json::array({{{"type", "tool_result"}, {"tool_use_id", "toolu_1"}, {"content", "def parse(): pass"}}});
    return user("u1", nullptr, "Hello, which files are here?")
           + assistant("c1", "u1", "msg_C", "acme-small-1", text("Let me look."), usage(100, 0, 0, 50))
           + user("u2", "c1", "Fix the parser in /src/a.py")
           + assistant("a1", "u2", "msg_A", "acme-large-2025", {{"type", "thinking"}, {"thinking", "Read it first."}, {"signature", "x"}}, usage(10, 2000, 30000, 1, splitA))
           + assistant("a2", "a1", "msg_A", "acme-large-2025", text("Reading the file."), usage(10, 2000, 30000, 7, splitA))
           + assistant("a3", "a2", "msg_A", "acme-large-2025", toolUse, usage(10, 2000, 30000, 400, splitA),
                       costUsd ? json{{"costUSD", 0.03}} : json::object())
           + user("u3", "a3", toolResult)
           + assistant("b1", "u3", "msg_B", "acme-large-2025", text("The parser is empty."), usage(5, 1000, 32000, 3))
           + assistant("b2", "b1", "msg_B", "acme-large-2025", text("I will fill it in."), usage(5, 1000, 32000, 250))
           + assistant("s1", "b2", "msg_S", "<synthetic>", text("No response requested."), usage(0, 0, 0, 0));
}

inline bool near(double a, double b)
{
    return std::fabs(a - b) < 1e-9;
}

inline std::shared_ptr<Transcript> load(const std::string &bytes)
{
    return loadBytes(bytes, "session.jsonl").transcript;
}

// The shipped table with kPrices merged over it.
inline llm::PriceTable testPrices()
{
    llm::PriceTable p;
    std::string error;
    if (!p.merge(kPrices, &error, "test"))
        qFatal("test prices: %s", error.c_str());
    return p;
}

inline std::string writeTemp(const QTemporaryDir &dir, const char *name, const std::string &bytes)
{
    const std::string path = dir.filePath(QString::fromUtf8(name)).toStdString();
    cl::test::writeFile(path, bytes);
    return path;
}

} // namespace cl::test::costfix

// Dollars equal within 1e-9, both values shown when not.
#define CL_COMPARE_DOLLARS(actual, expected)                \
    QVERIFY2(cl::test::costfix::near((actual), (expected)), \
             qPrintable(QStringLiteral("%1 != %2").arg((actual), 0, 'g', 12).arg((expected), 0, 'g', 12)))
