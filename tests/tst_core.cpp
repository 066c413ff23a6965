// SPDX-License-Identifier: MIT
// Core building blocks: JSON helpers, timestamps, the seed 001 estimator (hand-computed values),
// format detection and the loader's whole-file failure modes.
#include "core/util/json.h"
#include "core/io/loader.h"
#include "core/tokens/estimator.h"
#include "core/io/writer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace cl;

class TestCore : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void splitLinesKeepsExactBytes()
    {
        const std::string buf = "a\nbb\r\n\nccc";
        const auto lines = json::splitLines(buf);
        QCOMPARE(lines.size(), std::size_t(4));
        QCOMPARE(lines[1].offset, 2u);
        QCOMPARE(lines[1].length, 4u);        // "bb\r\n"
        QCOMPARE(lines[1].contentLength, 2u); // "bb"
        QCOMPARE(lines[2].contentLength, 0u);
        QCOMPARE(lines[3].line, 4u);
        QCOMPARE(lines[3].length, 3u); // no terminator on the last line
        std::string joined;
        for (const auto &l : lines)
            joined += buf.substr(l.offset, l.length);
        QCOMPARE(joined, buf);
    }

    void utf8()
    {
        QVERIFY(json::isValidUtf8("plain ascii text that is long enough for the fast path"));
        QVERIFY(json::isValidUtf8("\xE4\xBD\xA0\xE5\xA5\xBD \xF0\x9F\x98\x80"));
        QVERIFY(!json::isValidUtf8("bad \xC3("));
        QVERIFY(!json::isValidUtf8("\xED\xA0\x80")); // UTF-16 surrogate encoded in UTF-8
        QVERIFY(!json::isValidUtf8("\xC0\xAF"));     // overlong
        QCOMPARE(json::sanitizeUtf8("a\xFF"
                                    "b"),
                 std::string("a\xEF\xBF\xBD"
                             "b"));
    }

    void parseSurvivesBadInput()
    {
        json::json out;
        std::string err;
        QCOMPARE(json::parse(R"({"a":1})", out, err), json::ParseStatus::Ok);
        QCOMPARE(out["a"].get<int>(), 1);
        QCOMPARE(json::parse(R"({"a":)", out, err), json::ParseStatus::Failed);
        QVERIFY(!err.empty());
        QCOMPARE(json::parse("{\"a\":\"x\xFFy\"}", out, err), json::ParseStatus::OkSanitized);
        QCOMPARE(out["a"].get<std::string>(), std::string("x\xEF\xBF\xBDy"));
        const std::string deep = std::string(100000, '[') + std::string(100000, ']');
        QCOMPARE(json::parse(deep, out, err), json::ParseStatus::Failed);
        QVERIFY(err.find("nested") != std::string::npos);
        // Brackets inside strings are not nesting.
        // (an escaped literal: moc mis-parses raw strings with unbalanced braces)
        QCOMPARE(json::nestingDepth("{\"s\":\"[[[[{{{{\"}"), 1);
    }

    // A big text of a few huge values goes to simdjson when it is padded; the DOM it gives must be
    // the one nlohmann's reading gives, and what simdjson refuses falls back to nlohmann's repairs.
    void bigTextParsedInPlace()
    {
        std::string huge;
        for (int i = 0; huge.size() < (std::size_t(5) << 20); ++i)
            huge += "line " + std::to_string(i) + (i % 5000 ? "" : " \\\"quoted\\\"") + " \\u00e9t\\u00e9 \\n\\t tab, caf\xC3\xA9 \xF0\x9F\x98\x80 ";
        const std::string doc = "{\"b\": [1, -2, 3.25, 1e300, 18446744073709551615, true, null, {\"k\": \"v\", \"k\": \"w\"}],"
                                " \"a\": \""
                                + huge + "\", \"nested\": {\"x\": [[], {}]}}";
        std::string padded = doc;
        padBuffer(padded);
        json::json fast, plain;
        std::string e1, e2;
        const std::size_t before = json::inPlaceParses();
        QCOMPARE(json::parse(padded, fast, e1, kBufferPadding), json::ParseStatus::Ok);
        QCOMPARE(json::inPlaceParses(), before + 1);
        QCOMPARE(json::parse(doc, plain, e2), json::ParseStatus::Ok);
        QVERIFY(fast == plain);
        QCOMPARE(json::dump(fast), json::dump(plain));
        // Invalid UTF-8 inside: simdjson refuses, nlohmann's path repairs it.
        std::string bad = doc;
        bad[bad.find("line 7")] = '\xFF';
        padBuffer(bad);
        QCOMPARE(json::parse(bad, fast, e1, kBufferPadding), json::ParseStatus::OkSanitized);
        // A number beyond 64 bits: nlohmann reads it as a double; so must the fast path.
        std::string big = "[\"" + huge + "\", 123456789012345678901234567890]";
        padBuffer(big);
        QCOMPARE(json::parse(big, fast, e1, kBufferPadding), json::ParseStatus::Ok);
        QVERIFY(fast[1].is_number_float());
        QCOMPARE(json::inPlaceParses(), before + 1); // both refused by simdjson, read by nlohmann
        // A Claude Code session is not touched by this (its own decoder); a Codex line is.
        std::string codex = "{\"timestamp\":\"2026-01-01T00:00:00Z\",\"type\":\"session_meta\",\"payload\":{\"id\":\"s\"}}\n"
                            "{\"timestamp\":\"2026-01-01T00:00:00Z\",\"type\":\"response_item\",\"payload\":{\"type\":"
                            "\"function_call_output\",\"call_id\":\"c1\",\"output\":\""
                            + huge + "\"}}\n";
        const LoadResult r = loadBytes(codex, "rollout.jsonl");
        QCOMPARE(r.transcript->format, Format::Codex);
        QCOMPARE(json::inPlaceParses(), before + 2); // the big line
        QCOMPARE(r.transcript->messages.back().blocks.front().text, plain["a"].get<std::string>());
        // Truncated: fails with nlohmann's message.
        std::string cut = doc.substr(0, doc.size() / 2);
        padBuffer(cut);
        QCOMPARE(json::parse(cut, fast, e1, kBufferPadding), json::ParseStatus::Failed);
        QVERIFY(!e1.empty());
    }

    // A Claude Code line beyond the simdjson decoder's own limit (64 MB: one unbroken 70 MB text, a
    // minified file or base64 a user pasted) is still read by simdjson into the DOM, in well under a
    // second, not by nlohmann's lexer (about 12 s per 100 MB); with and without a toolUseResult copy.
    void hugeClaudeCodeLineParsedInPlace()
    {
        const std::string text(std::size_t(70) << 20, 'x');
        for (const bool withResultCopy : {false, true}) {
            std::string session = "{\"type\":\"user\",\"uuid\":\"u1\",\"parentUuid\":null,\"sessionId\":\"s\","
                                  "\"timestamp\":\"2026-01-01T00:00:00Z\",";
            if (withResultCopy)
                session += "\"toolUseResult\":{\"stdout\":\"y\"},";
            session += "\"message\":{\"role\":\"user\",\"content\":\"" + text + "\"}}\n";
            // The answer: a line small enough for the format to be recognised from it.
            session += "{\"type\":\"assistant\",\"uuid\":\"a1\",\"parentUuid\":\"u1\",\"sessionId\":\"s\","
                       "\"timestamp\":\"2026-01-01T00:00:01Z\",\"message\":{\"id\":\"m1\",\"role\":\"assistant\","
                       "\"content\":[{\"type\":\"text\",\"text\":\"Done.\"}]}}\n";
            const std::size_t before = json::inPlaceParses();
            const LoadResult r = loadBytes(std::move(session), "huge.jsonl");
            QCOMPARE(r.transcript->format, Format::ClaudeCode);
            // The line, once: the header fields (session id, cwd) come from that reading (they used to
            // cost a second parse of the 70 MB).
            QCOMPARE(json::inPlaceParses(), before + 1);
            QCOMPARE(QString::fromStdString(json::str(r.transcript->header, "sessionId")), QStringLiteral("s"));
            QCOMPARE(r.transcript->messages.size(), std::size_t(2));
            QCOMPARE(r.transcript->messages.front().blocks.front().text.size(), text.size());
            QVERIFY(r.transcript->messages.front().blocks.front().text == text);
        }
    }

    void tolerantGetters()
    {
        const auto o = json::json::parse(R"({"s":"x","n":5,"f":2.5,"b":true,"wrong":[1]})");
        QCOMPARE(json::str(o, "s"), std::string("x"));
        QCOMPARE(json::str(o, "n", "fb"), std::string("fb"));
        QCOMPARE(json::num(o, "n"), std::int64_t(5));
        QCOMPARE(json::num(o, "f"), std::int64_t(2));
        QCOMPARE(json::num(o, "s", -1), std::int64_t(-1));
        QVERIFY(json::boolean(o, "b"));
        QVERIFY(!json::object(o, "wrong"));
        QVERIFY(json::array(o, "wrong"));
        QVERIFY(!json::child(json::json::array(), "s"));
        QCOMPARE(json::flattenText(json::json::parse(R"([{"type":"text","text":"a"},{"type":"text","text":"b"}])")),
                 std::string("a\nb"));
    }

    void arrayScanner()
    {
        const std::string doc = "{\"model\": \"m\", \"messages\": [ {\"a\": \"],}\"} ,\n  [1,2], 3 ], \"x\": {}}";
        const auto r = json::topLevelValue(doc, "messages");
        QVERIFY(r.end > r.begin);
        QCOMPARE(doc[r.begin], '[');
        const auto items = json::arrayElements(doc, r.begin);
        QCOMPARE(items.size(), std::size_t(3));
        QCOMPARE(doc.substr(items[0].begin, items[0].end - items[0].begin), std::string("{\"a\": \"],}\"}"));
        QCOMPARE(doc.substr(items[1].begin, items[1].end - items[1].begin), std::string("[1,2]"));
        QCOMPARE(doc.substr(items[2].begin, items[2].end - items[2].begin), std::string("3"));
        QCOMPARE(json::topLevelValue(doc, "absent").end, std::size_t(0));
        QVERIFY(json::arrayElements("[1, 2", 0).empty()); // truncated: no partial answer
    }

    void timestamps()
    {
        QCOMPARE(parseTimestamp("2025-09-03T00:47:19.293Z"), std::int64_t(1756860439293));
        QCOMPARE(parseTimestamp("2025-09-03T02:47:19+02:00"), std::int64_t(1756860439000));
        QCOMPARE(parseTimestamp("1999-12-31T23:59:59Z"), std::int64_t(946684799000));
        QCOMPARE(parseTimestamp("1756860439293"), std::int64_t(1756860439293)); // epoch ms
        QCOMPARE(parseTimestamp("1756860439"), std::int64_t(1756860439000));    // epoch s
        QCOMPARE(parseTimestamp("yesterday"), kNoTime);
        QCOMPARE(parseTimestamp("2025-13-01T00:00:00Z"), kNoTime);
        QCOMPARE(parseTimestamp(""), kNoTime);
    }

    // Every expectation below is computed by hand from docs/design/mechanisms.md §2.
    void estimatorText()
    {
        QCOMPARE(tokens::estimateText(""), std::int64_t(0));
        QCOMPARE(tokens::estimateText("hello world"), std::int64_t(3));        // ceil(11/4)
        QCOMPARE(tokens::estimateText("```js\nx\n```"), std::int64_t(3 + 50)); // one fenced pair
        // 99 chars -> 25, one URL -> -10
        QCOMPARE(tokens::estimateText("https://example.com " + std::string(79, 'x')), std::int64_t(15));
        // Never negative: 40 chars (10) with two URLs (-20)
        QCOMPARE(tokens::estimateText("see https://example.com/a and http://x.y"), std::int64_t(0));
        // UTF-16 length: 4 CJK characters = 4 units -> 1; 3 emoji = 6 units -> 2
        QCOMPARE(tokens::estimateText("\xE4\xBD\xA0\xE5\xA5\xBD\xE4\xB8\x96\xE7\x95\x8C"), std::int64_t(1));
        QCOMPARE(tokens::estimateText("\xF0\x9F\x98\x80\xF0\x9F\x98\x80\xF0\x9F\x98\x80"), std::int64_t(2));
    }

    void estimatorRepetition()
    {
        std::string text;
        for (int i = 0; i < 10; ++i)
            text += (i ? "\n" : "") + std::string("repeated line here");
        // 10 qualifying lines, 9 seen before
        QCOMPARE(tokens::repetition(text), 0.9);
        // 189 chars -> 48; discount floor(48 * 0.9 * 0.1) = 4
        QCOMPARE(tokens::estimateText(text), std::int64_t(44));
        QCOMPARE(tokens::repetition("line one is long\nline two is long"), 0.0);
        QCOMPARE(tokens::repetition(std::string(512, 'a')), 63.0 / 64.0); // 64 shingles, 63 repeats
    }

    void estimatorBlocksAndMessages()
    {
        Block use;
        use.type = BlockType::ToolUse;
        use.input = json::json::parse(R"({"path":"/a"})"); // {"path":"/a"} = 13 chars -> 4
        QCOMPARE(tokens::estimateBlock(use), std::int64_t(14));
        Block result;
        result.type = BlockType::ToolResult;
        result.text = "hello world";
        QCOMPARE(tokens::estimateBlock(result), std::int64_t(8));
        Block image;
        image.type = BlockType::Image;
        QCOMPARE(tokens::estimateBlock(image), std::int64_t(765));
        Block doc;
        doc.type = BlockType::Document;
        doc.dataSize = 120000; // ceil(2.4) pages
        QCOMPARE(tokens::estimateBlock(doc), std::int64_t(3000));
        Block raw;
        raw.type = BlockType::Raw;
        QCOMPARE(tokens::estimateBlock(raw), std::int64_t(10));

        Message m;
        m.role = Role::Assistant;
        m.blocks = {result, image};
        QCOMPARE(tokens::estimateMessage(m), std::int64_t(3 + 4 + 8 + 765));
        QCOMPARE(m.cache.tokenEstimate, 780); // cached
        m.cache.tokenEstimate = 1;            // the cache is what is returned
        QCOMPARE(tokens::estimateMessage(m), std::int64_t(1));
    }

    void measuredContextRestartsAtCompaction()
    {
        Transcript t;
        auto add = [&](Role r, MessageKind k, std::int64_t usage) {
            Message m;
            m.role = r;
            m.kind = k;
            m.cache.tokenEstimate = 100;
            if (usage)
                m.usage = Usage{usage, 5, 0, 0, 0, 0};
            t.messages.push_back(m);
        };
        add(Role::User, MessageKind::Conversation, 0);
        add(Role::Assistant, MessageKind::Conversation, 150); // sees 100 estimated
        add(Role::User, MessageKind::Conversation, 0);
        add(Role::System, MessageKind::CompactBoundary, 0);
        add(Role::User, MessageKind::CompactSummary, 0);
        add(Role::Assistant, MessageKind::Conversation, 90); // sees only the summary: 100
        const auto pts = tokens::measuredContext(t);
        QCOMPARE(pts.size(), std::size_t(2));
        QCOMPARE(pts[0].estimated, std::int64_t(100));
        QCOMPARE(pts[0].measured, std::int64_t(150));
        QCOMPARE(pts[1].message, std::size_t(5));
        QCOMPARE(pts[1].estimated, std::int64_t(100));
        const auto err = tokens::estimatorError(t, 0);
        QCOMPARE(err.points, std::size_t(2));
        // |100-150|/150 = 33.33 %, |100-90|/90 = 11.11 % -> mean 22.22 %
        QVERIFY(qAbs(err.meanAbsPercent - 22.2222) < 0.01);
        // Like with like: the fixed part of each request is added to every estimate.
        const auto withFixed = tokens::estimatorError(t, 20);
        // |120-150|/150 = 20 %, |120-90|/90 = 33.33 % -> mean 26.67 %
        QVERIFY(qAbs(withFixed.meanAbsPercent - 26.6667) < 0.01);
        QCOMPARE(withFixed.lastEstimated, std::int64_t(120));
        // History before the compaction keeps its place in the measurement made before it.
        markLiveContext(t);
        QVERIFY(t.messages[0].history && !t.messages[4].history);
        QCOMPARE(tokens::measuredContext(t)[0].estimated, std::int64_t(100));
        QCOMPARE(tokens::totalEstimate(t), std::int64_t(200)); // the live conversation: summary and answer
    }

    void detection_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("claude-code") << QStringLiteral(
            R"({"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"role":"assistant","content":[{"type":"text","text":"yo"}]}})")
                                     << "claude-code";
        QTest::newRow("codex") << QStringLiteral(
            R"({"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x"}}
{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[]}})")
                               << "codex";
        QTest::newRow("qwen-code") << QStringLiteral(
            R"({"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","parts":[{"text":"hi"}]}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","message":{"role":"model","parts":[{"text":"yo"}]}})")
                                   << "qwen-code";
        QTest::newRow("gemini-cli jsonl") << QStringLiteral(
            R"({"sessionId":"s","projectHash":"p","startTime":"2026-01-01T00:00:00Z","kind":"main"}
{"id":"m1","timestamp":"2026-01-01T00:00:00Z","type":"user","content":[{"text":"hi"}]})")
                                          << "gemini-cli";
        QTest::newRow("copilot-cli") << QStringLiteral(
            R"({"type":"session.start","data":{"sessionId":"s","producer":"copilot-agent"},"id":"e1","timestamp":"2026-01-01T00:00:00Z","parentId":null}
{"type":"user.message","data":{"content":"hi"},"id":"e2","timestamp":"2026-01-01T00:00:00Z","parentId":"e1"})")
                                     << "copilot-cli";
        QTest::newRow("gemini-cli legacy") << QStringLiteral(
            R"({"sessionId":"s","messages":[{"id":"m1","type":"user","content":"hi"},{"id":"m2","type":"gemini","content":"yo"}]})")
                                           << "gemini-cli";
        QTest::newRow("gemini-cli checkpoint") << QStringLiteral(R"({"history":[{"role":"user","parts":[{"text":"hi"}]}]})")
                                               << "gemini-cli";
        QTest::newRow("openai-chat array")
            << QStringLiteral(R"([{"role":"system","content":"s"},{"role":"user","content":"hi"}])") << "openai-chat";
        QTest::newRow("openai-chat request") << QStringLiteral(
            R"({"model":"gpt-4o","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[]}]})")
                                             << "openai-chat";
        QTest::newRow("openai-responses") << QStringLiteral(
            R"({"model":"gpt-5","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}]})")
                                          << "openai-responses";
        QTest::newRow("anthropic") << QStringLiteral(
            R"({"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[{"role":"user","content":"hi"}]})")
                                   << "anthropic";
        QTest::newRow("anthropic blocks") << QStringLiteral(
            R"({"messages":[{"role":"user","content":"x"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"n","input":{}}]}]})")
                                          << "anthropic";
        QTest::newRow("openai-chat from a claude source") << QStringLiteral(
            R"({"model":"claude-sonnet-4-5","max_tokens":100,"messages":[{"role":"system","content":"s"},{"role":"user","content":"hi"}]})")
                                                          << "openai-chat";
        QTest::newRow("gemini") << QStringLiteral(R"({"contents":[{"role":"user","parts":[{"text":"hi"}]}]})") << "gemini";
        QTest::newRow("garbage") << QStringLiteral("hello, world\nnot json") << "unknown";
    }

    void detection()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        const std::string bytes = text.toStdString();
        QCOMPARE(QString::fromUtf8(formatName(detectFormat(bytes)).data()), expected);
    }

    void formatNames()
    {
        QCOMPARE(allFormats().size(), std::size_t(9));
        for (Format f : allFormats())
            QCOMPARE(formatFromName(formatName(f)), std::optional<Format>(f));
        QVERIFY(!formatFromName("claude"));
    }

    void loaderWholeFileFailures()
    {
        auto missing = loadFile("/nonexistent/dir/session.jsonl");
        QVERIFY(!missing.ok());
        QVERIFY(missing.error.find("/nonexistent/dir/session.jsonl") != std::string::npos);

        auto empty = loadBytes("", "empty.jsonl");
        QVERIFY(empty.ok());
        QCOMPARE(empty.transcript->messages.size(), std::size_t(0));
        QCOMPARE(empty.transcript->diagnostics.size(), std::size_t(1));
        QCOMPARE(empty.transcript->diagnostics[0].toString(), std::string("empty.jsonl: file is empty"));

        auto binary = loadBytes(std::string("\x7f"
                                            "ELF\0\0\x01\x02",
                                            8),
                                "a.out");
        QVERIFY(binary.ok());
        QCOMPARE(binary.transcript->diagnostics.at(0).severity, Diagnostic::Severity::Error);

        auto unknown = loadBytes("just some text\n", "notes.txt");
        QVERIFY(unknown.ok());
        QCOMPARE(unknown.transcript->format, Format::Unknown);
        QVERIFY(unknown.transcript->diagnostics.at(0).message.find("cannot detect") != std::string::npos);

        std::atomic_bool cancel{true};
        LoadOptions opts;
        opts.cancel = &cancel;
        auto cancelled = loadBytes(R"({"contents":[{"role":"user","parts":[{"text":"hi"}]}]})", "c.json", opts);
        QVERIFY(cancelled.cancelled);
        QVERIFY(!cancelled.ok());
    }

    void atomicWrite()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("out.jsonl")).toStdString();
        std::string err;
        QVERIFY(writeFileAtomic(path, "first\n", &err));
        QVERIFY(writeFileAtomic(path, "second\n", &err));
        std::ifstream in(path);
        std::string line;
        std::getline(in, line);
        QCOMPARE(line, std::string("second"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 1); // no temporary left behind
        QVERIFY(!writeFileAtomic("/nonexistent/dir/x", "x", &err));
        QVERIFY(err.find("/nonexistent/dir/x") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestCore)
#include "tst_core.moc"
