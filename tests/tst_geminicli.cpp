// SPDX-License-Identifier: MIT
// Gemini CLI session loader and writer: the recorded-session JSONL ($set, $rewindTo, repeated ids),
// the legacy ConversationRecord JSON, /chat checkpoints, bad input, edits and conversion.
#include "core/formats/formats.h"
#include "core/util/json.h"
#include "core/io/loader.h"
#include "core/io/writer.h"

#include "test_support.h"

#include <QtTest>

#include <fstream>
#include <sstream>

using namespace cl;

namespace {

std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::shared_ptr<Transcript> load(std::string bytes, std::optional<Format> format = Format::GeminiCli)
{
    LoadOptions opts;
    opts.format = format;
    return loadBytes(std::move(bytes), "session.jsonl", opts).transcript;
}

int countDiag(const Transcript &t, Diagnostic::Severity s)
{
    int n = 0;
    for (const auto &d : t.diagnostics)
        n += d.severity == s;
    return n;
}

bool warnedOnLine(const Transcript &t, std::uint32_t line)
{
    for (const auto &d : t.diagnostics)
        if (d.line == line && d.severity == Diagnostic::Severity::Warning)
            return true;
    return false;
}

const Message *byId(const Transcript &t, const std::string &id)
{
    for (const auto &m : t.messages)
        if (m.id == id)
            return &m;
    return nullptr;
}

QStringList flatten(const Transcript &t)
{
    QStringList out;
    for (const auto &m : t.messages) {
        if (!m.isConversation() || m.role == Role::System)
            continue;
        for (const auto &b : m.blocks) {
            QString role = QString::fromUtf8(roleName(m.role).data());
            if (b.type == BlockType::ToolResult)
                role = QStringLiteral("tool");
            QString payload = QString::fromStdString(b.text);
            if (b.type == BlockType::ToolUse)
                payload = QString::fromStdString(b.toolId + " " + b.toolName + " " + json::dump(b.input));
            if (b.type == BlockType::ToolResult)
                payload = QString::fromStdString(b.toolId + " " + b.text + (b.isError ? " [error]" : ""));
            out << role + QLatin1Char('|') + QString::fromUtf8(blockTypeName(b.type).data()) + QLatin1Char('|') + payload;
        }
    }
    return out;
}

const std::string kData = CL_TEST_DATA_DIR "/geminicli/";
const std::string kSamples = CL_SAMPLES_DIR;

} // namespace

class TestGeminiCli : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void sampleSession();
    void sampleLegacy();
    void setAndRewind();
    void rewindToUnknownId();
    void legacyEditKeepsOtherElements();
    void jsonlEditAndRemoval();
    void badInput();
    void checkpoint();
    void convertFromHandBuilt();
};

void TestGeminiCli::sampleSession()
{
    const std::string path = kSamples + "/gemini/fixture-session.jsonl";
    CL_REQUIRE(QFileInfo::exists(QString::fromStdString(path)), "samples not available");
    auto r = loadFile(path);
    QVERIFY(r.ok());
    const Transcript &t = *r.transcript;
    QCOMPARE(t.format, Format::GeminiCli);
    QCOMPARE(countDiag(t, Diagnostic::Severity::Error), 0);
    QCOMPARE(countDiag(t, Diagnostic::Severity::Warning), 0);
    // 5 lines: metadata, user, $set, gemini with one tool call + result, gemini text.
    QCOMPARE(t.records.size(), std::size_t(5));
    QCOMPARE(t.messages.size(), std::size_t(6)); // the tool call line yields a second (tool) message
    QCOMPARE(json::str(t.header, "sessionId"), std::string("gemini_stage0_jsonl"));
    QCOMPARE(json::str(t.header, "lastUpdated"), std::string("2026-04-29T21:39:33.156Z")); // from $set
    const Message *a1 = byId(t, "g-assistant-1");
    QVERIFY(a1);
    QCOMPARE(a1->role, Role::Assistant);
    QCOMPARE(a1->blocks.size(), std::size_t(1)); // empty content, no thoughts: just the call
    QCOMPARE(a1->blocks[0].toolName, std::string("run_shell_command"));
    QCOMPARE(a1->blocks[0].input["command"].get<std::string>(), std::string("ls -F"));
    QVERIFY(a1->usage);
    QCOMPARE(a1->usage->inputTokens, std::int64_t(11855));
    QCOMPARE(a1->usage->outputTokens, std::int64_t(81));
    QCOMPARE(a1->model, std::string("gemini-3-flash-preview"));
    const Message &res = t.messages[std::size_t(a1 - t.messages.data()) + 1];
    QCOMPARE(res.role, Role::Tool);
    QCOMPARE(res.kind, MessageKind::Conversation);
    QCOMPARE(res.records, a1->records); // both from line 4
    QCOMPARE(t.records[3].message, std::int32_t(a1 - t.messages.data()));
    QCOMPARE(res.blocks.at(0).text, std::string("Output: AgentSessions/\nREADME.md\nProcess Group PGID: 12345"));
    QVERIFY(!res.blocks[0].isError);
    QCOMPARE(res.blocks[0].pairMessage, std::int32_t(a1 - t.messages.data()));
    const Message *a2 = byId(t, "g-assistant-2");
    QVERIFY(a2 && a2->usage);
    QCOMPARE(a2->usage->inputTokens, std::int64_t(12069 - 11502));
    QCOMPARE(a2->usage->cacheReadTokens, std::int64_t(11502));
    QCOMPARE(a2->usage->outputTokens, std::int64_t(147));
    QCOMPARE(a2->plainText(), std::string("Hello! I listed the files."));

    const std::string bytes = readFile(path);
    QCOMPARE(writeTranscript(t, Format::GeminiCli).bytes, bytes);
    QCOMPARE(formats::inMemory(formats::writeGeminiCli, t).bytes, bytes); // the record walk, too
}

void TestGeminiCli::sampleLegacy()
{
    const std::string path = kSamples + "/gemini/fixture-legacy.json";
    CL_REQUIRE(QFileInfo::exists(QString::fromStdString(path)), "samples not available");
    auto r = loadFile(path);
    QVERIFY(r.ok());
    const Transcript &t = *r.transcript;
    QCOMPARE(t.format, Format::GeminiCli);
    QCOMPARE(countDiag(t, Diagnostic::Severity::Error), 0);
    // messages: m1 user, m2 gemini + call, m2b gemini + call, m3 info, m4 model, m5 user, m6 model.
    QCOMPARE(t.records.size(), std::size_t(7));
    QCOMPARE(t.messages.size(), std::size_t(9));
    int user = 0, asst = 0, tool = 0, events = 0;
    for (const auto &m : t.messages) {
        user += m.role == Role::User;
        asst += m.role == Role::Assistant;
        tool += m.role == Role::Tool;
        events += m.kind == MessageKind::Event;
    }
    QCOMPARE(user, 2);
    QCOMPARE(asst, 4);
    QCOMPARE(tool, 2);
    QCOMPARE(events, 1);
    QCOMPARE(json::str(t.header, "sessionId"), std::string("session-2025-12-16T23-47-b4f17607"));
    QVERIFY(!t.header.contains("messages"));
    const Message *m2 = byId(t, "m2");
    QVERIFY(m2 && m2->usage);
    QCOMPARE(m2->blocks.at(0).type, BlockType::Thinking);
    QCOMPARE(m2->blocks[0].text, std::string("Placeholder thoughts for schema coverage."));
    QCOMPARE(m2->usage->inputTokens, std::int64_t(100));
    QCOMPARE(m2->line, std::uint32_t(15)); // the element's opening brace
    const Message *m4 = byId(t, "m4");
    QVERIFY(m4);
    QCOMPARE(m4->role, Role::Assistant); // "type": "model" with "parts"
    QCOMPARE(m4->plainText(), std::string("Captured multiline output."));
    const std::string bytes = readFile(path);
    QCOMPARE(writeTranscript(t, Format::GeminiCli).bytes, bytes);
    QCOMPARE(formats::inMemory(formats::writeGeminiCli, t).bytes, bytes);
}

void TestGeminiCli::setAndRewind()
{
    const std::string bytes = readFile(kData + "rewind.jsonl");
    auto t = load(bytes, std::nullopt);
    QCOMPARE(t->format, Format::GeminiCli);
    QCOMPARE(countDiag(*t, Diagnostic::Severity::Warning), 0);
    QCOMPARE(t->records.size(), std::size_t(13));
    // u2 and a2 (+ its tool message) rewound, the first a3 replaced by its update: 4 messages off.
    QCOMPARE(t->offBranchMessages, std::size_t(4));
    QCOMPARE(t->records[4].message, -1); // u2
    QCOMPARE(t->records[5].message, -1); // a2
    QCOMPARE(t->records[8].message, -1); // first a3
    QVERIFY(!byId(*t, "u2") && !byId(*t, "a2"));
    QStringList order;
    for (const auto &m : t->messages)
        order << QString::fromStdString(m.type + ":" + m.id);
    QCOMPARE(order, QStringList({QStringLiteral("metadata:"), QStringLiteral("user:u1"), QStringLiteral("gemini:a1"),
                                 QStringLiteral("$set:"), QStringLiteral("$rewindTo:"), QStringLiteral("user:u3"),
                                 QStringLiteral("gemini:a3"), QStringLiteral("gemini/tool_results:a3/results"),
                                 QStringLiteral("warning:w1"), QStringLiteral("gemini:a4"), QStringLiteral("$set:")}));
    const Message *a3 = byId(*t, "a3");
    QCOMPARE(a3->records, std::vector<std::uint32_t>{9}); // the later line (line 10)
    const Message &a3res = t->messages[std::size_t(a3 - t->messages.data()) + 1];
    QCOMPARE(a3res.blocks.at(0).text, std::string("exit 1"));
    QVERIFY(a3res.blocks[0].isError);
    const Message *a1 = byId(*t, "a1");
    QCOMPARE(a1->blocks.at(0).type, BlockType::Thinking);
    QCOMPARE(a1->blocks[0].text, std::string("Thinking\nabout it"));
    QCOMPARE(a1->usage->inputTokens, std::int64_t(400));
    QCOMPARE(a1->usage->cacheReadTokens, std::int64_t(600));
    QCOMPARE(a1->usage->reasoningTokens, std::int64_t(7));
    QCOMPARE(byId(*t, "w1")->kind, MessageKind::Event);
    QCOMPARE(json::str(t->header, "summary"), std::string("A test session"));
    QCOMPARE(json::str(t->header, "lastUpdated"), std::string("2026-01-01T00:00:09.000Z"));
    QCOMPARE(json::str(t->header, "sessionId"), std::string("s-rw"));
    QCOMPARE(formats::inMemory(formats::writeGeminiCli, *t).bytes, bytes); // off-branch lines are kept as they were
}

void TestGeminiCli::rewindToUnknownId()
{
    const std::string bytes = R"({"sessionId":"s","projectHash":"p"})"
                              "\n"
                              R"({"id":"x1","type":"user","content":"a"})"
                              "\n"
                              R"({"id":"x2","type":"gemini","content":"b"})"
                              "\n"
                              R"({"$rewindTo":"nope"})"
                              "\n"
                              R"({"id":"x3","type":"user","content":"c"})"
                              "\n";
    auto t = load(bytes);
    QCOMPARE(t->offBranchMessages, std::size_t(2)); // Gemini CLI clears everything when the id is unknown
    QVERIFY(!byId(*t, "x1") && !byId(*t, "x2"));
    QVERIFY(byId(*t, "x3"));
}

void TestGeminiCli::legacyEditKeepsOtherElements()
{
    const std::string bytes = readFile(kData + "legacy.json");
    auto t = load(bytes, std::nullopt);
    QCOMPARE(t->format, Format::GeminiCli);
    QCOMPARE(countDiag(*t, Diagnostic::Severity::Warning), 0);
    QCOMPARE(t->records.size(), std::size_t(4));
    QCOMPARE(t->messages.size(), std::size_t(5));
    Message *l2 = const_cast<Message *>(byId(*t, "l2"));
    QVERIFY(l2 && l2->usage);
    QCOMPARE(l2->usage->inputTokens, std::int64_t(400));
    Message &res = t->messages[std::size_t(l2 - t->messages.data()) + 1];
    QCOMPARE(res.blocks.at(0).text, std::string("a.txt\nb.txt"));
    res.blocks[0].text = "[2 entries]";
    res.edited = true;
    const std::string out = writeTranscript(*t, Format::GeminiCli).bytes;
    nlohmann::json doc = nlohmann::json::parse(out); // still one valid document
    QCOMPARE(doc["sessionId"].get<std::string>(), std::string("legacy-1"));
    QCOMPARE(doc["messages"].size(), std::size_t(4));
    QCOMPARE(doc["messages"][1]["toolCalls"][0]["result"][0]["functionResponse"]["response"]["output"].get<std::string>(),
             std::string("[2 entries]"));
    QCOMPARE(doc["messages"][1]["tokens"]["input"].get<int>(), 500); // untouched fields survive
    // The prefix, the untouched elements and the suffix are the original bytes.
    for (std::size_t r : {std::size_t(0), std::size_t(2), std::size_t(3)})
        QVERIFY(out.find(std::string(t->recordBytes(t->records[r]))) != std::string::npos);
    QCOMPARE(out.substr(0, t->records[0].offset), bytes.substr(0, t->records[0].offset));
    QVERIFY(out.size() > 12 && out.substr(out.size() - 12) == bytes.substr(bytes.size() - 12));
    auto re = load(out);
    QCOMPARE(re->messages.size(), std::size_t(5));
    QCOMPARE(re->messages[2].blocks.at(0).text, std::string("[2 entries]"));

    // Removing the info element (and editing another) drops exactly that element.
    t->messages.erase(t->messages.begin() + 3);
    const std::string out2 = formats::inMemory(formats::writeGeminiCli, *t).bytes;
    doc = nlohmann::json::parse(out2);
    QCOMPARE(doc["messages"].size(), std::size_t(3));
    QCOMPARE(doc["messages"][2]["id"].get<std::string>(), std::string("l4"));
}

void TestGeminiCli::jsonlEditAndRemoval()
{
    const std::string bytes = readFile(kData + "rewind.jsonl");
    auto t = load(bytes);
    Message *a1 = const_cast<Message *>(byId(*t, "a1"));
    a1->blocks.erase(a1->blocks.begin()); // drop the thought
    a1->blocks[0].text = "short answer";
    a1->edited = true;
    const std::string out = writeTranscript(*t, Format::GeminiCli).bytes;
    const auto before = json::splitLines(bytes);
    const auto after = json::splitLines(out);
    QCOMPARE(after.size(), before.size());
    for (std::size_t i = 0; i < before.size(); ++i)
        if (i != 2)
            QCOMPARE(out.substr(after[i].offset, after[i].length), bytes.substr(before[i].offset, before[i].length));
    const auto line = nlohmann::json::parse(out.substr(after[2].offset, after[2].contentLength));
    QCOMPARE(line["content"].get<std::string>(), std::string("short answer"));
    QCOMPARE(line["thoughts"].size(), std::size_t(0));
    QCOMPARE(line["tokens"]["input"].get<int>(), 1000);
    QVERIFY(out.substr(after[2].offset).rfind(R"({"id":"a1","timestamp")", 0) == 0); // key order kept

    // Editing the tool result of a3 rewrites only its (later) line, keeping status and args.
    auto t2 = load(bytes);
    Message *a3 = const_cast<Message *>(byId(*t2, "a3"));
    Message &res = t2->messages[std::size_t(a3 - t2->messages.data()) + 1];
    res.blocks[0].text = "cleared";
    res.edited = true;
    const std::string out2 = writeTranscript(*t2, Format::GeminiCli).bytes;
    auto re = load(out2);
    QCOMPARE(re->messages.size(), t2->messages.size());
    const Message *a3b = byId(*re, "a3");
    const Message &res2 = re->messages[std::size_t(a3b - re->messages.data()) + 1];
    QCOMPARE(res2.blocks.at(0).text, std::string("cleared"));
    QVERIFY(res2.blocks[0].isError); // status "error" kept
    QCOMPARE(a3b->blocks.at(0).input["command"].get<std::string>(), std::string("false"));
}

void TestGeminiCli::badInput()
{
    const std::string bytes =
        R"({"sessionId":"s","projectHash":"p","startTime":"2026-01-01T00:00:00Z"})"
        "\n"
        R"({"id":"u1","type":"user","content":"hello"})"
        "\n"
        "{this is not json\n"
        R"({"id":"g1","type":"gemini","content":5,"toolCalls":"x","tokens":5,"thoughts":{"a":1}})"
        "\n"
        R"({"id":"g2","type":"gemini","content":"ok","toolCalls":[{"id":"c","name":"n","args":"str","result":[{"text":"r"}],"status":"cancelled"}]})"
        "\n"
        R"({"$set":[1]})"
        "\n"
        R"({"id":"u2","type":"user","content":[{"text":"after the bad lines"}]})"
        "\n"
        R"({"id":"u3","type":"user","cont)";
    auto t = load(bytes);
    QVERIFY(t);
    QCOMPARE(t->records.size(), std::size_t(8));
    QVERIFY(!t->records[2].parsed);
    QVERIFY(warnedOnLine(*t, 3));
    QVERIFY(warnedOnLine(*t, 4)); // content, toolCalls, tokens, thoughts of wrong types
    QVERIFY(warnedOnLine(*t, 5)); // args not an object
    QVERIFY(warnedOnLine(*t, 6)); // $set not an object
    QVERIFY(warnedOnLine(*t, 8)); // truncated
    QVERIFY(!t->records[7].parsed);
    const Message *g1 = byId(*t, "g1");
    QVERIFY(g1 && g1->blocks.empty() && !g1->usage);
    const Message *g2 = byId(*t, "g2");
    QVERIFY(g2);
    QVERIFY(g2->blocks.back().input.is_object());
    const Message &g2res = t->messages[std::size_t(g2 - t->messages.data()) + 1];
    QCOMPARE(g2res.blocks.at(0).text, std::string("r"));
    QVERIFY(g2res.blocks[0].isError); // cancelled
    QCOMPARE(byId(*t, "u2")->plainText(), std::string("after the bad lines"));
    QCOMPARE(formats::inMemory(formats::writeGeminiCli, *t).bytes, bytes);
}

void TestGeminiCli::checkpoint()
{
    auto t = load(readFile(kData + "checkpoint.json"), std::nullopt);
    QVERIFY(t);
    QCOMPARE(t->format, Format::GeminiCli);
    QCOMPARE(countDiag(*t, Diagnostic::Severity::Error), 0);
    int user = 0, asst = 0;
    for (const auto &m : t->messages) {
        user += m.role == Role::User;
        asst += m.role == Role::Assistant;
    }
    QCOMPARE(user, 1);
    QCOMPARE(asst, 1);
}

void TestGeminiCli::convertFromHandBuilt()
{
    Transcript t;
    t.format = Format::ClaudeCode;
    auto add = [&](Role role, std::vector<Block> blocks) -> Message & {
        Message m;
        m.role = role;
        m.blocks = std::move(blocks);
        m.id = "same-id"; // ids that collide must still come back as distinct messages
        m.timeMs = parseTimestamp("2025-05-05T05:05:05.000Z") + std::int64_t(t.messages.size()) * 1000;
        t.messages.push_back(std::move(m));
        return t.messages.back();
    };
    auto text = [](BlockType type, std::string s) {
        Block b;
        b.type = type;
        b.text = std::move(s);
        return b;
    };
    auto use = [](std::string id, std::string name, nlohmann::json input) {
        Block b;
        b.type = BlockType::ToolUse;
        b.toolId = std::move(id);
        b.toolName = std::move(name);
        b.input = std::move(input);
        return b;
    };
    auto result = [](std::string id, std::string s, bool error) {
        Block b;
        b.type = BlockType::ToolResult;
        b.toolId = std::move(id);
        b.text = std::move(s);
        b.isError = error;
        return b;
    };
    add(Role::System, {text(BlockType::Text, "system prompt (not carried)")});
    add(Role::User, {text(BlockType::Text, "hi")});
    Message &a1 = add(Role::Assistant, {text(BlockType::Thinking, "plan"), text(BlockType::Text, "Let me look"),
                                        use("t1", "read_file", {{"path", "a.txt"}}),
                                        use("t2", "run_shell_command", {{"command", "false"}})});
    a1.usage = Usage{10, 5, 0, 90, 2, 0};
    a1.model = "claude-x";
    add(Role::User, {result("t1", "contents of a", false)});
    add(Role::Tool, {result("t2", "boom", true)});
    add(Role::Assistant, {text(BlockType::Text, "done")});
    add(Role::User, {text(BlockType::Text, "thanks")});
    linkToolPairs(t);

    const WriteResult w = writeTranscript(t, Format::GeminiCli);
    QVERIFY(w.ok);
    QCOMPARE(detectFormat(w.bytes, "session.jsonl"), Format::GeminiCli);
    auto re = load(w.bytes, std::nullopt);
    QCOMPARE(re->format, Format::GeminiCli);
    QCOMPARE(countDiag(*re, Diagnostic::Severity::Error), 0);
    QCOMPARE(countDiag(*re, Diagnostic::Severity::Warning), 0);
    QCOMPARE(re->offBranchMessages, std::size_t(0));
    QCOMPARE(flatten(*re), flatten(t));
    // Both results are answered inside the turn that made the calls, as Gemini CLI records them.
    int toolMessages = 0;
    for (const auto &m : re->messages) {
        if (m.role == Role::Tool) {
            ++toolMessages;
            QCOMPARE(m.blocks.size(), std::size_t(2));
            QCOMPARE(m.records, re->messages[std::size_t(&m - re->messages.data()) - 1].records);
        }
        for (const auto &b : m.blocks)
            if (b.type == BlockType::ToolUse || b.type == BlockType::ToolResult)
                QVERIFY(b.pairMessage >= 0);
        if (m.usage) {
            QCOMPARE(m.usage->inputTokens, std::int64_t(10));
            QCOMPARE(m.usage->cacheReadTokens, std::int64_t(90));
            QCOMPARE(m.usage->outputTokens, std::int64_t(5));
            QCOMPARE(m.usage->reasoningTokens, std::int64_t(2));
            QCOMPARE(m.model, std::string("claude-x"));
        }
    }
    QCOMPARE(toolMessages, 1);
    QVERIFY(!w.notes.empty()); // the system prompt was not carried
    QCOMPARE(writeTranscript(t, Format::GeminiCli).bytes, w.bytes);
}

QTEST_GUILESS_MAIN(TestGeminiCli)
#include "tst_geminicli.moc"
