// SPDX-License-Identifier: MIT
// Claude Code session JSONL: loading (grouping, compaction, sidechains, subagents, bad input) and
// writing (byte-exact round trips, edits, deletions, insertions, conversion). The active branch and
// the validity of real sessions' shapes: tst_claudebranch.cpp.
#include "core/formats/formats.h"
#include "core/io/loader.h"
#include "core/io/validity.h"
#include "core/io/writer.h"

#include "claudecode_fixture.h"
#include "test_support.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace cl;
using namespace claudecode_fixture;

class TestClaudeCode : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void samplesLoadAndRoundTrip_data();
    void samplesLoadAndRoundTrip();
    void viewerSmallCounts();
    void viewerEditsSidechains();
    void compactionFixture();
    void grouping();
    void sidechainInline();
    void subagents();
    void badLines();
    void hugeLineAndDeepNesting();
    void threadsAgree();
    void editedMessageWrite();
    void deleteAndInsertWrite();
    void conversionReloads();
};

void TestClaudeCode::samplesLoadAndRoundTrip_data()
{
    QTest::addColumn<QString>("file");
    for (const char *f : {"viewer-sample-small.jsonl", "viewer-sample-edits.jsonl", "fixture-compaction.jsonl",
                          "fixture-schema-drift.jsonl"})
        QTest::newRow(f) << QString::fromUtf8(f);
}

void TestClaudeCode::samplesLoadAndRoundTrip()
{
    QFETCH(QString, file);
    const std::string path = std::string(CL_SAMPLES_DIR) + "/claude-code/" + file.toStdString();
    CL_REQUIRE(QFileInfo::exists(QString::fromStdString(path)), "samples not available");
    auto t = loadPath(path);
    QVERIFY(t);
    QCOMPARE(t->format, Format::ClaudeCode);
    QCOMPARE(errors(*t), 0);
    const std::string bytes = readAll(path);
    QCOMPARE(writeTranscript(*t, Format::ClaudeCode).bytes, bytes);
    // The format's own writer (not just the no-edit shortcut) must also reproduce the file.
    QCOMPARE(formats::inMemory(formats::writeClaudeCode, *t).bytes, bytes);
    std::string joined;
    for (const auto &r : t->records)
        joined += t->recordBytes(r);
    QCOMPARE(joined, bytes);

    // Every message re-serialized: the conversation must survive (same roles and blocks).
    Transcript edited = *t;
    for (auto &m : edited.messages)
        m.edited = true;
    auto back = reload(formats::inMemory(formats::writeClaudeCode, edited));
    QVERIFY(back);
    QCOMPARE(errors(*back), 0);
    auto conv = [](const Transcript &x) {
        std::vector<std::string> out;
        for (const auto &m : x.messages) {
            std::string s = std::string(roleName(m.role)) + ":" + std::string(messageKindName(m.kind));
            for (const auto &b : m.blocks)
                s += "|" + std::string(blockTypeName(b.type)) + ":" + b.text + b.toolId + std::to_string(b.pairMessage);
            out.push_back(s);
        }
        return out;
    };
    QCOMPARE(conv(*back), conv(*t));
}

void TestClaudeCode::viewerSmallCounts()
{
    const std::string path = std::string(CL_SAMPLES_DIR) + "/claude-code/viewer-sample-small.jsonl";
    CL_REQUIRE(QFileInfo::exists(QString::fromStdString(path)), "samples not available");
    auto t = loadPath(path);
    // Counted by hand from the file: 29 lines; assistant responses (message.id) on lines 3-4, 6-10,
    // 16-18, 22, 24-25, 27, 29 -> 7 messages; 14 user lines (2 prompts, 12 tool results).
    QCOMPARE(t->records.size(), std::size_t(29));
    QCOMPARE(count(*t, Role::Assistant), 7);
    QCOMPARE(count(*t, Role::User), 14);
    QCOMPARE(t->messages.size(), std::size_t(21));
    QCOMPARE(pairs(*t), 12);
    QCOMPARE(t->offBranchMessages, std::size_t(0));
    // The 5-line response (lines 6-10) is one message with 5 tool calls and the records of all lines.
    const Message &five = t->messages[size_t(t->records[5].message)];
    QCOMPARE(five.records.size(), std::size_t(5));
    QCOMPARE(five.blocks.size(), std::size_t(5));
    QCOMPARE(t->records[9].message, t->records[5].message);
    QCOMPARE(five.line, 6u);
    QCOMPARE(t->header.value("sessionId", ""), std::string("1af7fc5e-8455-4414-9ccd-011d40f70b2a"));
    QVERIFY(t->messages[0].timeMs != kNoTime);
}

void TestClaudeCode::viewerEditsSidechains()
{
    const std::string path = std::string(CL_SAMPLES_DIR) + "/claude-code/viewer-sample-edits.jsonl";
    CL_REQUIRE(QFileInfo::exists(QString::fromStdString(path)), "samples not available");
    auto t = loadPath(path);
    // By hand: 53 lines; main chain lines 1-15, 23-25, 41-53; two inline sidechains (16-22, 26-40).
    // Responses: 10 main, 10 sidechain; users: 15 main, 10 sidechain; 13 + 8 tool pairs.
    QCOMPARE(t->records.size(), std::size_t(53));
    QCOMPARE(t->messages.size(), std::size_t(45));
    QCOMPARE(t->offBranchMessages, std::size_t(0));
    int side = 0;
    for (const auto &m : t->messages)
        side += m.sidechain;
    QCOMPARE(side, 20);
    QCOMPARE(pairs(*t), 21);
    QVERIFY(t->messages[size_t(t->records[15].message)].sidechain);
}

void TestClaudeCode::compactionFixture()
{
    const std::string path = std::string(CL_SAMPLES_DIR) + "/claude-code/fixture-compaction.jsonl";
    CL_REQUIRE(QFileInfo::exists(QString::fromStdString(path)), "samples not available");
    auto t = loadPath(path);
    QCOMPARE(t->records.size(), std::size_t(89));
    // The early lines (1-22) are mostly isSidechain:true: they still show, in file order.
    const Message &hello = t->messages[size_t(t->records[6].message)];
    QCOMPARE(hello.plainText(), std::string("Hello"));
    QVERIFY(hello.sidechain);
    // Line 21: compact_boundary without a parentUuid key (drifted) is still shown, with metadata.
    QVERIFY(t->records[20].message >= 0);
    const Message &cb = t->messages[size_t(t->records[20].message)];
    QCOMPARE(cb.kind, MessageKind::CompactBoundary);
    QCOMPARE(cb.meta.value("preTokens", 0), 120000);
    QCOMPARE(cb.meta.value("trigger", ""), std::string("auto"));
    QCOMPARE(t->messages[size_t(t->records[21].message)].kind, MessageKind::CompactSummary);
    // Lines 42-89 all carry the uuid "[trimmed for fixture]": parents resolve to the latest earlier
    // line, so the active chain is lines 63-89 (63 has parentUuid null); 42-62 and the non-sidechain
    // nested branch 29-41 are rewound (off-branch): 1 (line 5) + 13 + 4 + 16 = 34 lines.
    QVERIFY(hasDiag(*t, 43, "duplicate uuid"));
    QCOMPARE(t->offBranchMessages, std::size_t(34));
    QCOMPARE(t->records[62].type, std::string("user"));
    QVERIFY(t->records[62].message >= 0);
    QCOMPARE(t->records[61].message, -1);
    // Lines 77 and 78 are one response (same message.id, adjacent): one message, deduped block.
    QCOMPARE(t->records[76].message, t->records[77].message);
    QCOMPARE(t->messages[size_t(t->records[76].message)].blocks.size(), std::size_t(1));
    QCOMPARE(t->messages[size_t(t->records[1].message)].kind, MessageKind::Meta);
    QCOMPARE(t->header.value("customTitle", ""), std::string("Stage0 small fixture"));
    QCOMPARE(t->header.value("title", ""), std::string("Stage0 small fixture"));
    QCOMPARE(t->messages[0].type, std::string("system/session_start"));
    QCOMPARE(t->records[4].message, -1); // line 5: non-sidechain child of a sidechain line, not on the chain
}

void TestClaudeCode::grouping()
{
    auto t = loadPath(fixture("grouping.jsonl"));
    QVERIFY(t);
    QCOMPARE(errors(*t), 0);
    QCOMPARE(t->messages.size(), std::size_t(5)); // prompt, response A, result 1, result 2, response B
    const Message &a = t->messages[1];
    QCOMPARE(a.role, Role::Assistant);
    QCOMPARE(a.apiMessageId, std::string("msg_A"));
    QCOMPARE(a.records, (std::vector<std::uint32_t>{1, 2, 3, 5}));
    // The snapshot line 3 repeats the thinking block of line 2: kept once.
    QCOMPARE(a.blocks.size(), std::size_t(4));
    QCOMPARE(a.blocks[0].type, BlockType::Thinking);
    QCOMPARE(a.blocks[1].text, std::string("Reading both."));
    QCOMPARE(a.blocks[3].toolId, std::string("toolu_2"));
    // Usage of the last line only (never the sum 5+20+40+77 output tokens).
    QVERIFY(a.usage);
    QCOMPARE(a.usage->outputTokens, std::int64_t(77));
    QCOMPARE(a.usage->cacheCreationTokens, std::int64_t(50));
    QCOMPARE(a.usage->contextTokens(), std::int64_t(1150));
    QCOMPARE(a.id, std::string("a4"));
    QCOMPARE(a.parentId, std::string("u1"));
    QCOMPARE(a.model, std::string("claude-x"));
    QCOMPARE(t->records[5].message, 1);
    QCOMPARE(t->messages[2].blocks[0].pairMessage, 1);
    QCOMPARE(t->messages[3].blocks[0].text, std::string("beta"));
    QCOMPARE(t->messages[3].blocks[0].toolName, std::string("Read"));
    QCOMPARE(pairs(*t), 2);
    QCOMPARE(t->messages[4].usage->inputTokens, std::int64_t(300));
    QCOMPARE(t->messages[0].timeMs, parseTimestamp("2026-01-01T10:00:00.000Z"));
}

void TestClaudeCode::sidechainInline()
{
    auto t = loadPath(fixture("sidechain.jsonl"));
    QCOMPARE(errors(*t), 0);
    QCOMPARE(t->messages.size(), std::size_t(6));
    QCOMPARE(t->offBranchMessages, std::size_t(0));
    QVERIFY(!t->messages[1].sidechain);
    QVERIFY(t->messages[2].sidechain);
    QVERIFY(t->messages[3].sidechain);
    QVERIFY(!t->messages[5].sidechain);
    QCOMPARE(t->messages[1].blocks[0].pairMessage, 4);
}

void TestClaudeCode::subagents()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string root = dir.path().toStdString();
    auto write = [](const std::string &p, const std::string &s) { std::ofstream(p, std::ios::binary) << s; };
    const std::string main = userLine("u1", "", R"("go")") + assistantLine("a1", "u1", "done");
    write(root + "/sess1.jsonl", main);
    QVERIFY(QDir().mkpath(QString::fromStdString(root + "/sess1/subagents")));
    write(root + "/sess1/subagents/agent-abc123.jsonl",
          R"({"parentUuid":null,"isSidechain":true,"agentId":"abc123","sessionId":"s","type":"user","message":{"role":"user","content":"sub task"},"uuid":"x1","timestamp":"2026-01-01T00:00:00.000Z"})"
          "\n");
    write(root + "/sess1/subagents/agent-abc123.meta.json", "{}");
    // Older layout: beside the session, kept only when its lines carry the same sessionId ("s").
    write(root + "/agent-old1.jsonl", userLine("y1", "", R"("old sub")"));
    write(root + "/agent-other.jsonl",
          R"({"parentUuid":null,"sessionId":"someone-else","type":"user","message":{"role":"user","content":"x"},"uuid":"z1"})"
          "\n");
    auto t = loadPath(root + "/sess1.jsonl", true);
    QCOMPARE(t->subagents.size(), std::size_t(2));
    const Transcript &sub = *t->subagents[0];
    QCOMPARE(sub.messages.size(), std::size_t(1));
    QVERIFY(sub.messages[0].sidechain);
    QCOMPARE(sub.messages[0].agentId, std::string("abc123"));
    QCOMPARE(t->subagents[1]->messages[0].agentId, std::string("old1"));
    QCOMPARE(t->subagents[1]->messages[0].plainText(), std::string("old sub"));
    QCOMPARE(loadPath(root + "/sess1.jsonl", false)->subagents.size(), std::size_t(0));
    // A session without any subagent folder is fine.
    write(root + "/lonely.jsonl", R"({"parentUuid":null,"sessionId":"q","type":"user","message":{"role":"user","content":"x"},"uuid":"q1"})"
                                  "\n");
    QCOMPARE(loadPath(root + "/lonely.jsonl", true)->subagents.size(), std::size_t(0));
}

void TestClaudeCode::badLines()
{
    std::string text = userLine("u1", "", R"("ok")");
    text += "{\"type\":\"user\", this is not json}\n";                                   // 2
    text += "\n";                                                                        // 3
    text += userLine("u2", "u1", "42");                                                  // 4: content a number
    text += userLine("u3", "u2", R"(["just a string", {"type":"text","text":"fine"}])"); // 5: block not an object
    text += userLine("u4", "u3", "\"bad \xC3\x28 utf8\"");                               // 6: invalid UTF-8
    text += R"({"parentUuid":"u4","type":"assistant","message":"not an object","uuid":"a5"})"
            "\n";                                                                // 7
    text += R"({"parentUuid":"u4","type":"user","message":{"role":"user","con)"; // 8: truncated
    auto t = loadText(text);
    QVERIFY(t);
    QCOMPARE(t->records.size(), std::size_t(8));
    QVERIFY(hasDiag(*t, 2, "invalid JSON"));
    QVERIFY(!t->records[1].parsed);
    QCOMPARE(t->records[1].type, std::string());
    QVERIFY(hasDiag(*t, 3, "empty line"));
    QVERIFY(hasDiag(*t, 4, "message.content is number"));
    QVERIFY(hasDiag(*t, 5, "content block is not an object"));
    QVERIFY(hasDiag(*t, 6, "invalid UTF-8"));
    QVERIFY(hasDiag(*t, 7, "\"message\" is string"));
    QVERIFY(hasDiag(*t, 8, "truncated last line"));
    const Message &num = t->messages[size_t(t->records[3].message)];
    QCOMPARE(num.blocks.size(), std::size_t(1));
    QCOMPARE(num.blocks[0].type, BlockType::Raw);
    QCOMPARE(num.blocks[0].text, std::string("42"));
    const Message &mixed = t->messages[size_t(t->records[4].message)];
    QCOMPARE(mixed.blocks[0].type, BlockType::Raw);
    QCOMPARE(mixed.blocks[1].text, std::string("fine"));
    QVERIFY(t->messages[size_t(t->records[5].message)].plainText().find("\xEF\xBF\xBD") != std::string::npos);
    QCOMPARE(t->messages.back().line, 7u); // the lines after the bad ones still load
    // Raw lines are written back unchanged even when other messages were edited.
    Transcript edited = *t;
    edited.messages[0].blocks[0].text = "changed";
    edited.messages[0].edited = true;
    const std::string out = formats::inMemory(formats::writeClaudeCode, edited).bytes;
    QVERIFY(out.find("{\"type\":\"user\", this is not json}\n\n") != std::string::npos);
    QVERIFY(out.find("changed") != std::string::npos);
    QVERIFY(out.size() > 40 && out.substr(out.size() - 20) == text.substr(text.size() - 20));
}

void TestClaudeCode::hugeLineAndDeepNesting()
{
    std::string big(50u << 20, 'x');
    for (std::size_t i = 80; i < big.size(); i += 81)
        big[i] = ' ';
    std::string text = userLine("u1", "", R"("start")");
    text += userLine("u2", "u1", "\"" + big + "\"");
    text += std::string(600, '[') + std::string(600, ']') + "\n";
    text += assistantLine("a3", "u2", "after");
    auto t = loadText(std::move(text));
    QCOMPARE(t->records.size(), std::size_t(4));
    QCOMPARE(t->messages[1].blocks[0].text.size(), big.size());
    QVERIFY(hasDiag(*t, 3, "nested deeper"));
    QVERIFY(!t->records[2].parsed);
    QCOMPARE(t->messages.back().plainText(), std::string("after"));
    QCOMPARE(t->offBranchMessages, std::size_t(0));
}

void TestClaudeCode::threadsAgree()
{
    std::string text;
    std::string parent;
    for (int i = 0; i < 3000; ++i) {
        const std::string u = "u" + std::to_string(i), a = "a" + std::to_string(i);
        text += userLine(u, parent, "\"question " + std::to_string(i) + "\"") + assistantLine(a, u, "answer");
        parent = a;
    }
    auto one = loadText(text, 1);
    auto four = loadText(text, 4);
    QCOMPARE(one->messages.size(), std::size_t(6000));
    QCOMPARE(four->messages.size(), one->messages.size());
    QCOMPARE(four->messages[4321].plainText(), one->messages[4321].plainText());
    QCOMPARE(four->diagnostics.size(), one->diagnostics.size());
    std::atomic_bool cancel{true};
    LoadOptions o;
    o.format = Format::ClaudeCode;
    o.cancel = &cancel;
    QVERIFY(loadBytes(text, "x.jsonl", o).cancelled);
}

void TestClaudeCode::editedMessageWrite()
{
    auto t = loadPath(fixture("grouping.jsonl"));
    Transcript e = *t;
    e.messages[1].blocks[1].text = "Reading both files now.";
    e.messages[1].edited = true;
    const WriteResult w = formats::inMemory(formats::writeClaudeCode, e);
    QVERIFY(w.ok);
    // Four lines of response A became one line in place of the first: 8 - 3 = 5 lines.
    QCOMPARE(std::count(w.bytes.begin(), w.bytes.end(), '\n'), 5);
    QVERIFY(w.bytes.find("\"sig1\"") != std::string::npos); // unchanged thinking kept its signature
    auto back = reload(w);
    QCOMPARE(errors(*back), 0);
    QCOMPARE(back->offBranchMessages, std::size_t(0));
    QCOMPARE(back->messages.size(), std::size_t(5));
    QCOMPARE(back->messages[1].blocks.size(), std::size_t(4));
    QCOMPARE(back->messages[1].blocks[1].text, std::string("Reading both files now."));
    QCOMPARE(back->messages[1].usage->outputTokens, std::int64_t(77));
    QCOMPARE(pairs(*back), 2);
    QVERIFY(!hasDiag(*back, 0, "not found"));
    // Untouched lines are byte-identical.
    const std::string orig = readAll(fixture("grouping.jsonl"));
    const auto firstLineEnd = orig.find('\n') + 1;
    QCOMPARE(w.bytes.substr(0, firstLineEnd), orig.substr(0, firstLineEnd));
}

void TestClaudeCode::deleteAndInsertWrite()
{
    const std::string text = userLine("u1", "", R"("one")") + assistantLine("a1", "u1", "two")
                             + userLine("u2", "a1", R"("three")") + assistantLine("a2", "u2", "four") + userLine("u3", "a2", R"("five")")
                             + assistantLine("a3", "u3", "six");
    auto t = loadText(text);
    Transcript e = *t;
    e.messages.erase(e.messages.begin() + 2, e.messages.begin() + 4); // drop "three", "four"
    Message note;
    note.role = Role::User;
    note.blocks.push_back(Block{});
    note.blocks[0].text = "inserted";
    note.edited = true;
    e.messages.insert(e.messages.begin() + 2, note); // after "two", before "five"
    const WriteResult w = formats::inMemory(formats::writeClaudeCode, e);
    auto back = reload(w);
    QCOMPARE(errors(*back), 0);
    std::vector<std::string> texts;
    for (const auto &m : back->messages)
        texts.push_back(m.plainText());
    QCOMPARE(texts, (std::vector<std::string>{"one", "two", "inserted", "five", "six"}));
    QCOMPARE(back->offBranchMessages, std::size_t(0));
    QVERIFY(!hasDiag(*back, 0, "not found"));
    QCOMPARE(back->messages[2].parentId, std::string("a1"));
    QCOMPARE(back->messages[3].parentId, back->messages[2].id);
    QCOMPARE(back->header.value("sessionId", ""), std::string("s"));
}

void TestClaudeCode::conversionReloads()
{
    Transcript t;
    t.format = Format::OpenAIChat;
    auto msg = [&](Role r, std::vector<Block> blocks) {
        Message m;
        m.role = r;
        m.blocks = std::move(blocks);
        t.messages.push_back(std::move(m));
    };
    Block text;
    text.text = "You are helpful.";
    msg(Role::System, {text});
    text.text = "list files";
    msg(Role::User, {text});
    Block use;
    use.type = BlockType::ToolUse;
    use.toolId = "call_1";
    use.toolName = "bash";
    use.input = {{"cmd", "ls"}};
    text.text = "Listing.";
    msg(Role::Assistant, {text, use});
    Block result;
    result.type = BlockType::ToolResult;
    result.toolId = "call_1";
    result.text = "a\nb";
    result.isError = true;
    msg(Role::Tool, {result});
    text.text = "Two files.";
    msg(Role::Assistant, {text});
    t.messages.back().usage = Usage{120, 7, 0, 30, 0, 0};
    t.messages.back().model = "gpt-x";
    linkToolPairs(t);

    const WriteResult w = writeTranscript(t, Format::ClaudeCode);
    QVERIFY(w.ok);
    QVERIFY(!w.notes.empty());                                               // the system prompt was skipped
    QCOMPARE(formats::inMemory(formats::writeClaudeCode, t).bytes, w.bytes); // deterministic uuids and session id
    QCOMPARE(detectFormat(w.bytes), Format::ClaudeCode);
    auto back = reload(w);
    QCOMPARE(errors(*back), 0);
    QCOMPARE(back->messages.size(), std::size_t(4));
    QCOMPARE(back->offBranchMessages, std::size_t(0));
    const std::vector<Role> roles{Role::User, Role::Assistant, Role::User, Role::Assistant};
    for (std::size_t i = 0; i < roles.size(); ++i) {
        QCOMPARE(back->messages[i].role, roles[i]);
        QCOMPARE(back->messages[i].blocks.size(), t.messages[i + 1].blocks.size());
        for (std::size_t b = 0; b < back->messages[i].blocks.size(); ++b) {
            QCOMPARE(back->messages[i].blocks[b].type, t.messages[i + 1].blocks[b].type);
            QCOMPARE(back->messages[i].blocks[b].text, t.messages[i + 1].blocks[b].text);
            QCOMPARE(back->messages[i].blocks[b].toolId, t.messages[i + 1].blocks[b].toolId);
        }
    }
    QCOMPARE(back->messages[1].blocks[1].input, use.input);
    QCOMPARE(back->messages[1].blocks[1].pairMessage, 2);
    QVERIFY(back->messages[2].blocks[0].isError);
    QCOMPARE(back->messages[3].usage->cacheReadTokens, std::int64_t(30));
    QCOMPARE(back->messages[3].model, std::string("gpt-x"));
}

QTEST_GUILESS_MAIN(TestClaudeCode)
#include "tst_claudecode.moc"
