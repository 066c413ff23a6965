// SPDX-License-Identifier: MIT
// The session generator: determinism, size targets, Claude Code realism (line structure, uuid
// chain, usage, timestamps), and that its output loads cleanly with the numbers it claims.
#include "core/generator/generator.h"
#include "core/io/loader.h"
#include "core/io/writer.h"

#include <QtTest>

#include <map>
#include <nlohmann/json.hpp>

using namespace cl;
using nlohmann::json;

namespace {

std::vector<json> parseLines(const std::string &bytes)
{
    std::vector<json> out;
    std::size_t pos = 0;
    while (pos < bytes.size()) {
        std::size_t nl = bytes.find('\n', pos);
        if (nl == std::string::npos)
            nl = bytes.size();
        out.push_back(json::parse(bytes.substr(pos, nl - pos)));
        pos = nl + 1;
    }
    return out;
}

} // namespace

class TestGenerator : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void deterministicPerSeed()
    {
        gen::Options o;
        o.messages = 120;
        o.seed = 42;
        const std::string a = gen::generate(o);
        const std::string b = gen::generate(o);
        QVERIFY(!a.empty());
        QVERIFY(a == b);
        o.seed = 43;
        QVERIFY(gen::generate(o) != a);
    }

    void messageCount()
    {
        for (std::size_t n : {10u, 57u, 150u}) {
            gen::Options o;
            o.messages = n;
            gen::Stats s;
            QVERIFY(!gen::generate(o, &s).empty());
            QVERIFY2(s.messages == n || s.messages + 1 == n, std::to_string(s.messages).c_str());
            QCOMPARE(s.toolResults, s.toolCalls);
            QVERIFY(s.assistantResponses >= s.userPrompts);
        }
    }

    void sizeTargetWithinTenPercent()
    {
        for (std::size_t target : {200'000u, 1'000'000u, 4'000'000u}) {
            gen::Options o;
            o.targetBytes = target;
            o.seed = target;
            gen::Stats s;
            const std::string bytes = gen::generate(o, &s);
            const double ratio = double(bytes.size()) / double(target);
            QVERIFY2(ratio > 0.9 && ratio < 1.1, (std::to_string(target) + " -> " + std::to_string(bytes.size())).c_str());
            QCOMPARE(s.bytes, bytes.size());
        }
    }

    void claudeCodeLineStructure()
    {
        gen::Options o;
        o.targetBytes = 3'000'000; // big enough for compactions
        o.seed = 5;
        gen::Stats s;
        const std::string bytes = gen::generate(o, &s);
        const auto lines = parseLines(bytes);
        QCOMPARE(lines.size(), s.lines);
        QVERIFY(s.compactions >= 1);
        QVERIFY(s.gaps >= 1);
        QVERIFY(s.parallelRounds >= 1);
        QVERIFY(s.failedToolCalls >= 1);
        QVERIFY(s.thinkingBlocks >= 1);

        std::string lastUuid;
        std::string lastTime;
        std::map<std::string, std::string> requestOf; // message.id -> requestId
        std::map<std::string, std::size_t> linesOf;   // message.id -> lines
        std::size_t toolUses = 0, errors = 0, boundaries = 0, summaries = 0, snapshots = 0, prompts = 0;
        bool chinese = false, bigGap = false;
        std::int64_t prevMs = 0;
        for (const auto &l : lines) {
            const std::string type = l.value("type", "");
            if (type == "file-history-snapshot") {
                ++snapshots;
                QVERIFY(!l.contains("uuid"));
                continue;
            }
            QVERIFY(l.contains("uuid"));
            QCOMPARE(l.value("sessionId", "").size(), std::size_t(36));
            if (type == "system") {
                QCOMPARE(l.value("subtype", ""), std::string("compact_boundary"));
                QVERIFY(l["parentUuid"].is_null());
                QCOMPARE(l.value("logicalParentUuid", ""), lastUuid);
                QVERIFY(l["compactMetadata"]["preTokens"].get<std::int64_t>() > 100000);
                ++boundaries;
            } else {
                QCOMPARE(l["parentUuid"].is_null() ? std::string() : l["parentUuid"].get<std::string>(), lastUuid);
            }
            const std::string ts = l.value("timestamp", "");
            QVERIFY2(ts > lastTime, ts.c_str()); // ISO strings of one format order like the times
            const std::int64_t ms = parseTimestamp(ts);
            if (prevMs && ms - prevMs > 5 * 60 * 1000)
                bigGap = true;
            prevMs = ms;
            lastTime = ts;
            lastUuid = l["uuid"].get<std::string>();
            if (type == "assistant") {
                const auto &m = l["message"];
                const std::string id = m["id"];
                auto [it, fresh] = requestOf.emplace(id, l.value("requestId", ""));
                QCOMPARE(it->second, l.value("requestId", ""));
                Q_UNUSED(fresh);
                ++linesOf[id];
                QCOMPARE(m["content"].size(), std::size_t(1));
                const auto &u = m["usage"];
                QVERIFY(u["input_tokens"].get<int>() > 0);
                QVERIFY(u.contains("cache_read_input_tokens") && u.contains("cache_creation_input_tokens"));
                if (m["content"][0]["type"] == "tool_use")
                    ++toolUses;
            } else if (type == "user") {
                if (l.value("isCompactSummary", false)) {
                    ++summaries;
                    continue;
                }
                const auto &c = l["message"]["content"];
                if (c.is_string()) {
                    ++prompts;
                    const std::string text = c;
                    for (unsigned char ch : text)
                        chinese = chinese || (ch >= 0xE4 && ch <= 0xE9);
                } else {
                    QCOMPARE(c.size(), std::size_t(1));
                    QCOMPARE(c[0]["type"].get<std::string>(), std::string("tool_result"));
                    QVERIFY(l.contains("toolUseResult"));
                    errors += c[0].value("is_error", false);
                }
            }
        }
        QCOMPARE(toolUses, s.toolCalls);
        QCOMPARE(errors, s.failedToolCalls);
        QCOMPARE(boundaries, s.compactions);
        QCOMPARE(summaries, s.compactions);
        QCOMPARE(snapshots, s.snapshots);
        QCOMPARE(prompts, s.userPrompts);
        QCOMPARE(requestOf.size(), s.assistantResponses);
        std::size_t assistantLines = 0;
        for (const auto &[id, n] : linesOf)
            assistantLines += n;
        QCOMPARE(assistantLines, s.assistantLines);
        QVERIFY(assistantLines > requestOf.size()); // some responses span several lines
        QVERIFY(chinese);
        QVERIFY(bigGap);
    }

    void claudeCodeLoadsCleanly()
    {
        gen::Options o;
        o.targetBytes = 2'500'000;
        o.seed = 11;
        gen::Stats s;
        LoadResult r = loadBytes(gen::generate(o, &s), "generated.jsonl");
        QVERIFY(r.ok());
        const Transcript &t = *r.transcript;
        QCOMPARE(t.format, Format::ClaudeCode);
        for (const auto &d : t.diagnostics)
            QVERIFY2(d.severity == Diagnostic::Severity::Info, d.toString().c_str());
        std::size_t uses = 0, results = 0, rounds = 0, boundaries = 0, responses = 0, paired = 0;
        std::int64_t prevTime = 0;
        std::int64_t prevContext = 0;
        for (const auto &m : t.messages) {
            bool hasUse = false;
            for (const auto &b : m.blocks) {
                uses += b.type == BlockType::ToolUse;
                results += b.type == BlockType::ToolResult;
                hasUse = hasUse || b.type == BlockType::ToolUse;
                paired += b.type == BlockType::ToolUse && b.pairMessage >= 0;
            }
            rounds += hasUse && m.role == Role::Assistant;
            if (m.kind == MessageKind::CompactBoundary) {
                ++boundaries;
                prevContext = 0;
            }
            if (m.role == Role::Assistant && m.usage) {
                ++responses;
                // Within a compaction segment the measured context only grows.
                QVERIFY(m.usage->contextTokens() >= prevContext);
                prevContext = m.usage->contextTokens();
            }
            if (m.timeMs != kNoTime) {
                QVERIFY(m.timeMs >= prevTime);
                prevTime = m.timeMs;
            }
        }
        QCOMPARE(uses, s.toolCalls);
        QCOMPARE(results, s.toolResults);
        QCOMPARE(paired, s.toolCalls);
        QCOMPARE(rounds, s.toolRounds);
        QCOMPARE(boundaries, s.compactions);
        QCOMPARE(responses, s.assistantResponses);
        QCOMPARE(t.records.size(), s.lines);
    }

    void neutralModel()
    {
        gen::Options o;
        o.format = Format::Anthropic;
        o.messages = 80;
        gen::Stats s;
        const Transcript t = gen::generateTranscript(o, &s);
        QCOMPARE(t.messages.front().role, Role::System);
        QCOMPARE(t.messages.size(), s.messages + 1);
        std::size_t uses = 0;
        for (std::size_t i = 0; i < t.messages.size(); ++i) {
            const Message &m = t.messages[i];
            for (const auto &b : m.blocks) {
                if (b.type != BlockType::ToolUse)
                    continue;
                ++uses;
                QVERIFY(b.input.is_object());
                // Every call is answered in the very next message, as the API formats require.
                QVERIFY(i + 1 < t.messages.size());
                bool answered = false;
                for (const auto &r : t.messages[i + 1].blocks)
                    answered = answered || (r.type == BlockType::ToolResult && r.toolId == b.toolId);
                QVERIFY(answered);
            }
            if (i > 1)
                QVERIFY(m.timeMs >= t.messages[i - 1].timeMs);
        }
        QCOMPARE(uses, s.toolCalls);
    }

    void everyFormatWhenItsWriterExists()
    {
        for (Format f : allFormats()) {
            if (f == Format::ClaudeCode)
                continue;
            gen::Options o;
            o.format = f;
            o.messages = 60;
            std::string error;
            const std::string bytes = gen::generate(o, nullptr, &error);
            if (bytes.empty()) {
                QVERIFY(!error.empty());
                qInfo("%s: %s", std::string(formatName(f)).c_str(), error.c_str());
                continue; // writer not there yet
            }
            QVERIFY(bytes == gen::generate(o));
            gen::Stats s;
            gen::generate(o, &s);
            LoadOptions lo;
            lo.format = f;
            LoadResult r = loadBytes(bytes, "generated", lo);
            QVERIFY(r.ok());
            const std::string name(formatName(f));
            QCOMPARE(detectFormat(bytes), f);
            for (const auto &d : r.transcript->diagnostics)
                QVERIFY2(d.severity == Diagnostic::Severity::Info, (name + ": " + d.toString()).c_str());
            std::size_t uses = 0, paired = 0;
            for (const auto &m : r.transcript->messages)
                for (const auto &b : m.blocks) {
                    uses += b.type == BlockType::ToolUse;
                    paired += b.type == BlockType::ToolUse && b.pairMessage >= 0;
                }
            QVERIFY2(uses == s.toolCalls && paired == uses, name.c_str());

            // Size targets hold through the writer too.
            gen::Options sized;
            sized.format = f;
            sized.targetBytes = 600'000;
            const double ratio = double(gen::generate(sized).size()) / 600'000.0;
            QVERIFY2(ratio > 0.9 && ratio < 1.1, (name + " " + std::to_string(ratio)).c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestGenerator)
#include "tst_generator.moc"
