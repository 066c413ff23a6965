// SPDX-License-Identifier: MIT
// The active branch of a Claude Code session (rewinds, compactions, duplicate and repeated uuids,
// cycles, parallel responses through progress lines) and the validity of a session still running.
#include "core/io/validity.h"

#include "claudecode_fixture.h"
#include "test_support.h"

#include <QtTest>

using namespace cl;
using namespace claudecode_fixture;

class TestClaudeBranch : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void rewindAndCompaction();
    void uuidProblems();
    void resumedRepeatsAndProgressParents();
    void runningSessionIsValid();
};

void TestClaudeBranch::rewindAndCompaction()
{
    auto t = loadPath(fixture("rewind-compaction.jsonl"));
    QCOMPARE(errors(*t), 0);
    std::vector<std::string> texts;
    for (const auto &m : t->messages)
        if (m.kind != MessageKind::Meta)
            texts.push_back(m.plainText());
    // "first try" / "abandoned answer" were rewound; the walk crosses the boundary via logicalParentUuid.
    const std::vector<std::string> expected{"hello", "hi", "second try", "kept answer", "Conversation compacted",
                                            "This session is being continued from a previous conversation. Summary: greeted twice.", "and now?", "continuing"};
    QCOMPARE(texts, expected);
    QCOMPARE(t->offBranchMessages, std::size_t(2));
    QCOMPARE(t->records[2].message, -1);
    QCOMPARE(t->records[3].message, -1);
    const Message &cb = t->messages[size_t(t->records[7].message)];
    QCOMPARE(cb.kind, MessageKind::CompactBoundary);
    QCOMPARE(cb.type, std::string("system/compact_boundary"));
    QCOMPARE(cb.meta.value("preTokens", 0), 12345);
    QCOMPARE(cb.meta.value("trigger", ""), std::string("manual"));
    QCOMPARE(cb.parentId, std::string("a2"));
    QCOMPARE(t->messages[size_t(t->records[8].message)].kind, MessageKind::CompactSummary);
    QCOMPARE(t->messages[size_t(t->records[6].message)].kind, MessageKind::Meta);
    QCOMPARE(t->header.value("title", ""), std::string("Greetings"));
    QCOMPARE(t->header.value("cwd", ""), std::string("/w"));
    QCOMPARE(t->header.value("version", ""), std::string("2.1.100"));
}

void TestClaudeBranch::uuidProblems()
{
    // Duplicate uuid, a two-line cycle (forward reference), a self-parent and a dangling parent.
    std::string text = userLine("u1", "", R"("a")") + assistantLine("a1", "u1", "b") + assistantLine("a1", "a1", "dup")
                       + userLine("c1", "c2", R"("cycle one")") + userLine("c2", "c1", R"("cycle two")")
                       + userLine("self", "self", R"("me")") + userLine("d1", "nowhere", R"("dangling")");
    auto t = loadText(text);
    QVERIFY(hasDiag(*t, 3, "duplicate uuid a1"));
    QVERIFY(hasDiag(*t, 0, "cycle"));
    QVERIFY(hasDiag(*t, 6, "names itself"));
    QVERIFY(hasDiag(*t, 7, "not found"));
    QCOMPARE(t->messages.back().plainText(), std::string("dangling")); // the last leaf is the active end
    // A pure cycle as the last lines must not hang either.
    auto c = loadText(userLine("p", "q", R"("p")") + userLine("q", "p", R"("q")"));
    QVERIFY(hasDiag(*c, 0, "cycle"));
    QVERIFY(!c->messages.empty());
}

// Two lines of one parallel response, the second hanging off a progress line; results for both;
// then a resumed session writing a result line again, byte for byte. Every call keeps its result,
// nothing is duplicated, and the file is valid.
void TestClaudeBranch::resumedRepeatsAndProgressParents()
{
    auto call = [](const std::string &uuid, const std::string &parent, const std::string &id) {
        return R"({"parentUuid":")" + parent + R"(","isSidechain":false,"sessionId":"s","type":"assistant","message":{"id":"msg_R","role":"assistant","content":[{"type":"tool_use","id":")"
               + id + R"(","name":"Read","input":{"file_path":"/w/)" + id + R"("}}]},"uuid":")" + uuid
               + R"(","timestamp":"2026-01-01T00:00:01.000Z"})" + "\n";
    };
    auto result = [](const std::string &uuid, const std::string &parent, const std::string &id) {
        return userLine(uuid, parent, R"([{"type":"tool_result","tool_use_id":")" + id + R"(","content":"text of )" + id + R"("}])");
    };
    const std::string progress = R"({"parentUuid":"a1","isSidechain":false,"sessionId":"s","type":"progress","data":{"type":"hook_progress"},"uuid":"p1","timestamp":"2026-01-01T00:00:01.500Z"})"
                                 "\n";
    const std::string r1 = result("r1", "a2", "t1");
    const std::string text = userLine("u1", "", R"("read both")") + call("a1", "u1", "t1") + progress + call("a2", "p1", "t2")
                             + r1 + result("r2", "r1", "t2") + r1 + assistantLine("a3", "r2", "both read");
    auto t = loadText(text);
    QCOMPARE(t->offBranchMessages, std::size_t(1)); // one copy of the repeated line
    int uses = 0, results = 0;
    for (const auto &m : t->messages)
        for (const auto &b : m.blocks) {
            uses += b.type == BlockType::ToolUse;
            results += b.type == BlockType::ToolResult;
        }
    QCOMPARE(uses, 2);
    QCOMPARE(results, 2);
    QCOMPARE(pairs(*t), 2);
    QVERIFY(validate(*t, Format::ClaudeCode).empty());
    QVERIFY(hasDiag(*t, 7, "repeats line 5"));
    for (const auto &d : t->diagnostics)
        QVERIFY2(d.severity == Diagnostic::Severity::Info, d.toString().c_str());
    QCOMPARE(writeTranscript(*t, Format::ClaudeCode).bytes, text); // still written back unchanged
}

// A session that is still running ends inside a tool call: that call is in progress, not a
// violation; the same call followed by a user message is unanswered.
void TestClaudeBranch::runningSessionIsValid()
{
    const std::string use = R"({"parentUuid":"u1","isSidechain":false,"sessionId":"s","type":"assistant","message":{"id":"msg_x","role":"assistant","content":[{"type":"tool_use","id":"t9","name":"Bash","input":{"command":"make"}}]},"uuid":"a1","timestamp":"2026-01-01T00:00:01.000Z"})"
                            "\n";
    auto running = loadText(userLine("u1", "", R"("build it")") + use);
    QVERIFY(validate(*running, Format::ClaudeCode).empty());
    auto abandoned = loadText(userLine("u1", "", R"("build it")") + use + userLine("u2", "a1", R"("never mind")"));
    const auto v = validate(*abandoned, Format::ClaudeCode);
    QCOMPARE(v.size(), std::size_t(1));
    QVERIFY(v[0].reason.find("t9") != std::string::npos);
}

QTEST_GUILESS_MAIN(TestClaudeBranch)
#include "tst_claudebranch.moc"
