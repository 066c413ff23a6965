// SPDX-License-Identifier: MIT
// GitHub Copilot CLI events.jsonl: loading (messages, usage, the system prompt, compactions), the
// byte-identical round trip, edits, compacted exports, conversions both ways, bad lines, detection
// and the session scan. The fixtures are Copilot CLI 1.0.102 recordings (tests/agents, fake model
// server) reduced by tests/data/copilotcli/reduce.py.
#include "core/cost/sessioncost.h"
#include "core/formats/formats.h"
#include "core/io/loader.h"
#include "core/io/validity.h"
#include "core/io/writer.h"
#include "core/sessions/sessions.h"
#include "core/tokens/fixedpart.h"
#include "core/util/json.h"

#include "test_support.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

using namespace cl;

namespace {

const std::string kData = CL_TEST_DATA_DIR "/copilotcli/";

std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::shared_ptr<Transcript> load(std::string bytes, std::optional<Format> format = Format::CopilotCli)
{
    LoadOptions opts;
    opts.format = format;
    return loadBytes(std::move(bytes), "events.jsonl", opts).transcript;
}

std::vector<std::string> lines(const std::string &bytes)
{
    std::vector<std::string> out;
    std::istringstream in(bytes);
    for (std::string l; std::getline(in, l);)
        out.push_back(l);
    return out;
}

nlohmann::json parse(const std::string &line)
{
    return nlohmann::json::parse(line, nullptr, false);
}

int warnings(const Transcript &t)
{
    int n = 0;
    for (const auto &d : t.diagnostics)
        n += d.severity != Diagnostic::Severity::Info;
    return n;
}

std::size_t indexOfType(const Transcript &t, const std::string &type, std::size_t nth = 0)
{
    for (std::size_t i = 0; i < t.messages.size(); ++i)
        if (t.messages[i].type == type && nth-- == 0)
            return i;
    return t.messages.size();
}

bool isUuid(const std::string &s)
{
    static const std::regex re("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
    return std::regex_match(s, re);
}

std::string describe(const std::vector<Violation> &v)
{
    std::string s;
    for (const auto &x : v)
        s += std::to_string(x.message) + ": " + x.reason + "\n";
    return s;
}

} // namespace

class TestCopilotCli : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void recordedSession();
    void detection();
    void compaction();
    void failedCompactionIsNoBoundary();
    void editsKeepOtherLines();
    void summaryBecomesCompaction();
    void convertToCopilot_data();
    void convertToCopilot();
    void convertFromCopilot();
    void badLines();
    void sessionScan();
};

void TestCopilotCli::recordedSession()
{
    const std::string bytes = readFile(kData + "session.jsonl");
    QVERIFY(!bytes.empty());
    const auto t = load(bytes, std::nullopt);
    QVERIFY(t);
    QCOMPARE(t->format, Format::CopilotCli);
    QCOMPARE(warnings(*t), 0);
    QCOMPARE(t->records.size(), std::size_t(14));
    QCOMPARE(t->messages.size(), std::size_t(14)); // one message per event, none dropped
    QCOMPARE(json::str(t->header, "sessionId"), std::string("c8de7095-2435-40ef-ab74-56024f0d608e"));
    QCOMPARE(json::str(t->header, "cwd"), std::string("/tmp/cp/work"));
    QCOMPARE(json::str(t->header, "model"), std::string("gpt-4.1"));

    // The system prompt comes first, as the model gets it (the file writes it after the request).
    const Message &system = t->messages[1];
    QCOMPARE(system.type, std::string("system.message"));
    QCOMPARE(system.role, Role::System);
    QVERIFY(system.isConversation());
    QVERIFY(system.plainText().rfind("You are a terminal assistant", 0) == 0);
    QCOMPARE(system.records, std::vector<std::uint32_t>{2});
    QCOMPARE(t->records[2].message, std::int32_t(1));

    const Message &user = t->messages[2];
    QCOMPARE(user.role, Role::User);
    QCOMPARE(user.plainText(), std::string("<current_datetime>2026-12-01T02:37:57.616+00:00</current_datetime>\n\nCreate a.txt with hello"));
    QCOMPARE(json::str(user.meta, "content"), std::string("Create a.txt with hello"));

    const std::size_t call = indexOfType(*t, "assistant.message");
    QVERIFY(call < t->messages.size());
    const Message &a1 = t->messages[call];
    QCOMPARE(a1.role, Role::Assistant);
    QCOMPARE(a1.blocks.size(), std::size_t(1)); // empty content: just the call
    QCOMPARE(a1.blocks[0].type, BlockType::ToolUse);
    QCOMPARE(a1.blocks[0].toolId, std::string("call_fake0926777430001"));
    QCOMPARE(a1.blocks[0].toolName, std::string("bash"));
    QCOMPARE(json::str(a1.blocks[0].input, "command"), std::string("echo hello > a.txt"));
    QVERIFY(a1.usage);
    QCOMPARE(a1.usage->inputTokens, std::int64_t(12097));
    QCOMPARE(a1.usage->outputTokens, std::int64_t(20));
    QCOMPARE(a1.usage->contextWindow, std::int64_t(64000));
    QCOMPARE(a1.model, std::string("gpt-4.1"));

    const std::size_t result = indexOfType(*t, "tool.execution_complete");
    const Message &r = t->messages[result];
    QCOMPARE(r.role, Role::Tool);
    QCOMPARE(r.blocks.at(0).type, BlockType::ToolResult);
    QCOMPARE(r.blocks[0].text, std::string("\n<shellId: 0 completed with exit code 0>"));
    QVERIFY(!r.blocks[0].isError);
    QCOMPARE(r.blocks[0].pairMessage, std::int32_t(call));
    QCOMPARE(r.blocks[0].toolName, std::string("bash"));

    const Message &a2 = t->messages[indexOfType(*t, "assistant.message", 1)];
    QCOMPARE(a2.plainText(), std::string("Created a.txt."));
    QVERIFY(a2.usage);
    QCOMPARE(a2.usage->inputTokens, std::int64_t(12184));
    for (const char *event : {"assistant.turn_start", "session.usage_record", "tool.execution_start", "session.shutdown"})
        QVERIFY2(t->messages[indexOfType(*t, event)].isEvent(), event);

    // Usage: each model call once, from its usage record.
    const cost::SessionUsage u = cost::readUsage(*t);
    QCOMPARE(u.responses.size(), std::size_t(2));
    // The fixed part: the tool definitions as the agent counted them; the system prompt is a message.
    const tokens::FixedPart fixed = tokens::fixedPart(*t);
    QCOMPARE(fixed.source, tokens::FixedPart::Source::Recorded);
    QCOMPARE(fixed.tokens, std::int64_t(5748));

    QVERIFY2(validate(*t, Format::CopilotCli).empty(), describe(validate(*t, Format::CopilotCli)).c_str());
    const WriteResult w = writeTranscript(*t, Format::CopilotCli);
    QVERIFY(w.ok);
    QCOMPARE(w.bytes, bytes); // untouched: the original bytes
    // Nothing edited but written through the writer: still every line as it was.
    Transcript same = *t;
    same.messages[call].edited = true;
    same.messages[call].blocks[0].input["command"] = "echo hello > a.txt";
    const std::string rewritten = formats::inMemory(formats::writeCopilotCli, same).bytes;
    QCOMPARE(lines(rewritten).size(), lines(bytes).size());
}

void TestCopilotCli::detection()
{
    const std::string bytes = readFile(kData + "session.jsonl");
    QCOMPARE(detectFormat(bytes, "x.jsonl"), Format::CopilotCli);
    // One line is enough: the session.start names its producer.
    QCOMPARE(detectFormat(lines(bytes)[0] + "\n", "x.jsonl"), Format::CopilotCli);
    // Any event line of the envelope, without a session.start.
    QCOMPARE(detectFormat(lines(bytes)[1] + "\n" + lines(bytes)[3] + "\n", "x.jsonl"), Format::CopilotCli);
    // The other JSONL formats are not taken for it.
    for (const char *other : {"/codex/turns.jsonl", "/geminicli/rewind.jsonl"}) {
        const std::string o = readFile(CL_TEST_DATA_DIR + std::string(other));
        QVERIFY(!o.empty());
        QVERIFY(detectFormat(o, "x.jsonl") != Format::CopilotCli);
    }
    // An unreadable first line of a file in the agent's folder: the path decides.
    QCOMPARE(detectFormat("not json\n", "/home/u/.copilot/session-state/x/events.jsonl"), Format::CopilotCli);
    QCOMPARE(formatFromName("copilot-cli"), std::optional<Format>(Format::CopilotCli));
    QVERIFY(isJsonLines(Format::CopilotCli));
}

void TestCopilotCli::compaction()
{
    // Copilot CLI compacted in the background (80 % of a 16 000-token limit), a shell call ran while
    // the summary was written, then the session was resumed once.
    const std::string bytes = readFile(kData + "compacted.jsonl");
    const auto t = load(bytes);
    QVERIFY(t);
    QCOMPARE(warnings(*t), 0);
    QCOMPARE(t->records.size(), std::size_t(43));
    const std::size_t start = indexOfType(*t, "session.compaction_start");
    QVERIFY(start < t->messages.size());
    const Message &boundary = t->messages[start];
    QCOMPARE(boundary.kind, MessageKind::CompactBoundary);
    QCOMPARE(json::str(boundary.meta, "trigger"), std::string("threshold"));
    QCOMPARE(json::num(boundary.meta, "messagesRemoved"), std::int64_t(4));
    const std::size_t done = indexOfType(*t, "session.compaction_complete");
    const Message &summary = t->messages[done];
    QCOMPARE(summary.kind, MessageKind::CompactSummary);
    QCOMPARE(summary.role, Role::User);
    QVERIFY(summary.plainText().find("CTXLENS-SUMMARY-7F3A") != std::string::npos);
    QVERIFY(summary.isConversation());
    // The truncation only shortened one request: an event, no boundary.
    QCOMPARE(t->messages[indexOfType(*t, "session.truncation")].kind, MessageKind::Event);

    // Before the start is history; the call made while the summary was written stays live (Copilot
    // CLI resumes with it after the summary).
    for (std::size_t i = 0; i < start; ++i)
        QVERIFY2(t->messages[i].history, t->messages[i].type.c_str());
    bool catLive = false;
    for (std::size_t i = start + 1; i < done; ++i)
        for (const auto &b : t->messages[i].blocks)
            if (b.type == BlockType::ToolUse && json::str(b.input, "command") == "cat a.txt")
                catLive = !t->messages[i].history;
    QVERIFY(catLive);

    // Two system.message lines (one per user message): the later one is the live system prompt,
    // placed right after the boundary; the earlier one is superseded metadata.
    const std::size_t firstSystem = indexOfType(*t, "system.message");
    const std::size_t secondSystem = indexOfType(*t, "system.message", 1);
    QVERIFY(secondSystem < t->messages.size());
    QCOMPARE(t->messages[firstSystem].kind, MessageKind::Meta);
    QCOMPARE(secondSystem, start + 1);
    QVERIFY(t->messages[secondSystem].isConversation());
    QVERIFY(t->messages[secondSystem].records.front() > t->messages[done].records.front()); // written later
    QVERIFY2(validate(*t, Format::CopilotCli).empty(), describe(validate(*t, Format::CopilotCli)).c_str());
    QCOMPARE(writeTranscript(*t, Format::CopilotCli).bytes, bytes);
    // The records still point at their messages after the reordering.
    for (std::size_t r = 0; r < t->records.size(); ++r)
        if (t->records[r].message >= 0) {
            const auto &recs = t->messages[std::size_t(t->records[r].message)].records;
            QVERIFY(std::find(recs.begin(), recs.end(), std::uint32_t(r)) != recs.end());
        }
}

void TestCopilotCli::failedCompactionIsNoBoundary()
{
    // A compaction the end of the run cancelled (as Copilot CLI records it in -p mode) changes nothing.
    std::string bytes = readFile(kData + "session.jsonl");
    const auto lastLine = lines(bytes).back();
    bytes += R"({"type":"session.compaction_start","data":{"compactionAttemptId":"a1","trigger":"threshold"},"id":"11111111-1111-4111-8111-111111111111","timestamp":"2026-12-01T02:37:58.100Z","parentId":"a0591dae-4ff4-4836-8e6d-00ce9e206c5d"})"
             "\n"
             R"({"type":"session.compaction_complete","data":{"success":false,"error":"Compaction Cancelled","outcome":"cancelled","compactionAttemptId":"a1"},"id":"11111111-1111-4111-8111-111111111112","timestamp":"2026-12-01T02:37:58.200Z","parentId":"11111111-1111-4111-8111-111111111111"})"
             "\n";
    const auto t = load(bytes);
    for (const auto &m : t->messages) {
        QVERIFY(m.kind != MessageKind::CompactBoundary && m.kind != MessageKind::CompactSummary);
        QVERIFY(!m.history);
    }
    QCOMPARE(t->messages.back().type, std::string("session.compaction_complete"));
    QCOMPARE(t->messages.back().kind, MessageKind::Event);
    // A successful one without its start event: boundary and summary from the one line.
    bytes += R"({"type":"session.compaction_complete","data":{"success":true,"summaryContent":"<overview>SUMMARY-X</overview>"},"id":"11111111-1111-4111-8111-111111111113","timestamp":"2026-12-01T02:37:58.300Z","parentId":"11111111-1111-4111-8111-111111111112"})"
             "\n";
    const auto t2 = load(bytes);
    QCOMPARE(t2->messages.size(), t->messages.size() + 2);
    // boundary, the live system prompt (moved after it), the summary
    const Message &boundary = t2->messages[t2->messages.size() - 3];
    QCOMPARE(boundary.kind, MessageKind::CompactBoundary);
    QCOMPARE(t2->messages[t2->messages.size() - 2].type, std::string("system.message"));
    QVERIFY(t2->messages[t2->messages.size() - 2].isConversation());
    QCOMPARE(t2->messages.back().kind, MessageKind::CompactSummary);
    QCOMPARE(t2->messages.back().plainText(), std::string("<overview>SUMMARY-X</overview>"));
    QCOMPARE(t2->messages.back().records, boundary.records);
    QVERIFY(t2->messages[indexOfType(*t2, "user.message")].history);
    QCOMPARE(writeTranscript(*t2, Format::CopilotCli).bytes, bytes);
}

void TestCopilotCli::editsKeepOtherLines()
{
    const std::string bytes = readFile(kData + "session.jsonl");
    const auto orig = lines(bytes);
    Transcript t = *load(bytes);
    const std::size_t a2 = indexOfType(t, "assistant.message", 1);
    const std::size_t result = indexOfType(t, "tool.execution_complete");
    const std::size_t user = indexOfType(t, "user.message");
    t.messages[a2].blocks[0].text = "Created a.txt (edited).";
    t.messages[a2].edited = true;
    t.messages[result].blocks[0].text = "[trimmed]";
    t.messages[result].blocks[0].isError = true;
    t.messages[result].edited = true;
    t.messages[user].blocks[0].text = "<current_datetime>2026-12-01T02:37:57.616+00:00</current_datetime>\n\nCreate b.txt";
    t.messages[user].edited = true;
    // Remove the shutdown event; insert a user request before the last turn_end.
    t.messages.erase(t.messages.begin() + std::ptrdiff_t(indexOfType(t, "session.shutdown")));
    Message extra;
    extra.role = Role::User;
    extra.blocks.push_back(makeBlock(BlockType::Text, "An inserted request"));
    t.messages.insert(t.messages.begin() + std::ptrdiff_t(indexOfType(t, "assistant.turn_end", 1)), extra);

    const WriteResult w = writeTranscript(t, Format::CopilotCli);
    QVERIFY2(w.ok, w.error.c_str());
    const auto out = lines(w.bytes);
    QCOMPARE(out.size(), orig.size()); // one removed, one inserted
    // Untouched lines byte for byte, in order.
    const std::set<std::size_t> changed{1, 7, 11, 13};
    std::size_t k = 0;
    for (std::size_t i = 0; i < orig.size(); ++i) {
        if (changed.count(i))
            continue;
        while (k < out.size() && out[k] != orig[i])
            ++k;
        QVERIFY2(k < out.size(), ("line " + std::to_string(i + 1) + " lost").c_str());
    }
    // Edited lines: the same envelope and unknown fields, the new content.
    const auto u = parse(out[1]);
    QCOMPARE(u["id"], parse(orig[1])["id"]);
    QCOMPARE(u["data"]["content"].get<std::string>(), std::string("Create b.txt")); // the date wrapper taken off
    QCOMPARE(u["data"]["interactionId"], parse(orig[1])["data"]["interactionId"]);
    const auto r = parse(out[7]);
    QCOMPARE(r["data"]["result"]["content"].get<std::string>(), std::string("[trimmed]"));
    QCOMPARE(r["data"]["success"].get<bool>(), false);
    QCOMPARE(r["data"]["toolTelemetry"], parse(orig[7])["data"]["toolTelemetry"]);
    const auto a = parse(out[11]);
    QCOMPARE(a["data"]["content"].get<std::string>(), std::string("Created a.txt (edited)."));
    QCOMPARE(a["data"]["apiCallId"], parse(orig[11])["data"]["apiCallId"]);
    // The inserted line: a fresh UUID, chained to the line before it.
    const auto ins = parse(out[12]);
    QCOMPARE(ins["type"].get<std::string>(), std::string("user.message"));
    QVERIFY(isUuid(ins["id"].get<std::string>()));
    QCOMPARE(ins["parentId"], parse(out[11])["id"]);
    QCOMPARE(ins["data"]["transformedContent"].get<std::string>(), std::string("An inserted request"));
    for (const auto &l : out)
        QVERIFY(l.find("session.shutdown") == std::string::npos);

    const auto back = load(w.bytes);
    QCOMPARE(warnings(*back), 0);
    QVERIFY2(validate(*back, Format::CopilotCli).empty(), describe(validate(*back, Format::CopilotCli)).c_str());
    QCOMPARE(back->messages[indexOfType(*back, "assistant.message", 1)].plainText(), std::string("Created a.txt (edited)."));
    QVERIFY(back->messages[indexOfType(*back, "tool.execution_complete")].blocks[0].isError);
}

void TestCopilotCli::summaryBecomesCompaction()
{
    // What a summarizing strategy leaves: the conversation before the last answer removed, a
    // summary inserted in its place. Written as Copilot CLI's own compaction, which it resumes from.
    const std::string bytes = readFile(kData + "session.jsonl");
    Transcript t = *load(bytes);
    const std::size_t last = indexOfType(t, "assistant.message", 1);
    std::vector<Message> kept;
    for (std::size_t i = 0; i < t.messages.size(); ++i) {
        const Message &m = t.messages[i];
        if (i == last) {
            Message s;
            s.role = Role::User;
            s.kind = MessageKind::CompactSummary;
            s.blocks.push_back(makeBlock(BlockType::Text, "SUMMARY: a.txt was created."));
            kept.push_back(s);
        }
        if (i < last && (m.role == Role::User || m.role == Role::Tool || m.role == Role::Assistant) && m.isConversation())
            continue; // summarized
        kept.push_back(m);
    }
    t.messages = std::move(kept);
    const WriteResult w = writeTranscript(t, Format::CopilotCli);
    QVERIFY2(w.ok, w.error.c_str());
    const auto out = lines(w.bytes);
    std::size_t startAt = out.size(), doneAt = out.size();
    for (std::size_t i = 0; i < out.size(); ++i) {
        const auto j = parse(out[i]);
        if (j["type"] == "session.compaction_start")
            startAt = i;
        if (j["type"] == "session.compaction_complete") {
            doneAt = i;
            QCOMPARE(j["data"]["summaryContent"].get<std::string>(), std::string("SUMMARY: a.txt was created."));
            QCOMPARE(j["data"]["success"].get<bool>(), true);
            QCOMPARE(j["data"]["compactionAttemptId"], parse(out[startAt])["data"]["compactionAttemptId"]);
            QCOMPARE(j["parentId"], parse(out[startAt])["id"]);
        }
        QVERIFY(j["type"] != "user.message"); // the summarized request's line is gone
    }
    QCOMPARE(doneAt, startAt + 1);
    QVERIFY(parse(out[doneAt + 1])["type"] == "assistant.message"); // then the kept answer, as it was
    const auto back = load(w.bytes);
    QCOMPARE(warnings(*back), 0);
    QVERIFY2(validate(*back, Format::CopilotCli).empty(), describe(validate(*back, Format::CopilotCli)).c_str());
    std::size_t live = 0;
    for (const auto &m : back->messages)
        live += m.isConversation();
    QCOMPARE(live, std::size_t(3)); // the system prompt, the summary, the last answer
    QCOMPARE(back->messages[indexOfType(*back, "session.compaction_start")].kind, MessageKind::CompactBoundary);
}

void TestCopilotCli::convertToCopilot_data()
{
    QTest::addColumn<QString>("file");
    QTest::newRow("codex") << QStringLiteral("codex/turns.jsonl");
    QTest::newRow("gemini-cli") << QStringLiteral("geminicli/rewind.jsonl");
    QTest::newRow("claude-code") << QStringLiteral("robustness/own-claude.jsonl");
    QTest::newRow("openai-chat") << QStringLiteral("robustness/own-chat.json");
    QTest::newRow("anthropic") << QStringLiteral("robustness/own-anthropic.json");
    QTest::newRow("codex compacted") << QStringLiteral("codex/live-compacted.jsonl");
}

void TestCopilotCli::convertToCopilot()
{
    QFETCH(QString, file);
    const LoadResult src = loadFile(CL_TEST_DATA_DIR "/" + file.toStdString());
    QVERIFY(src.ok());
    const WriteResult w = writeTranscript(*src.transcript, Format::CopilotCli);
    QVERIFY2(w.ok, w.error.c_str());
    QCOMPARE(detectFormat(w.bytes, "events.jsonl"), Format::CopilotCli);
    const auto out = lines(w.bytes);
    QVERIFY(!out.empty());
    const auto first = parse(out[0]);
    QCOMPARE(first["type"].get<std::string>(), std::string("session.start"));
    QCOMPARE(first["data"]["producer"].get<std::string>(), std::string("copilot-agent"));
    QVERIFY(isUuid(first["data"]["sessionId"].get<std::string>()) || first["data"]["sessionId"].get<std::string>().size() == 36);
    // Every line an event of the envelope, chained to the one before it.
    std::string previous;
    for (const auto &l : out) {
        const auto j = parse(l);
        QVERIFY(j.is_object());
        QVERIFY(isUuid(j["id"].get<std::string>()));
        QCOMPARE(j["parentId"].is_null() ? std::string() : j["parentId"].get<std::string>(), previous);
        previous = j["id"].get<std::string>();
    }
    const auto back = load(w.bytes);
    QCOMPARE(warnings(*back), 0);
    QVERIFY2(validate(*back, Format::CopilotCli).empty(), (describe(validate(*back, Format::CopilotCli)) + w.bytes).c_str());
    // The calls and their results survive, ids and names included.
    std::vector<std::string> before, after;
    for (const auto *t : {src.transcript.get(), back.get()})
        for (const auto &m : t->messages)
            if (m.isConversation())
                for (const auto &b : m.blocks)
                    if (b.type == BlockType::ToolUse || b.type == BlockType::ToolResult)
                        (t == back.get() ? after : before).push_back(b.toolId + "|" + b.toolName);
    QCOMPARE(after, before);
    // The live conversation's text survives.
    for (const auto &m : src.transcript->messages)
        if (m.isConversation() && m.role == Role::User && m.kind == MessageKind::Conversation)
            for (const auto &b : m.blocks)
                if (b.type == BlockType::Text && !b.text.empty())
                    QVERIFY2(w.bytes.find(json::dump(b.text).substr(1, 20)) != std::string::npos, b.text.c_str());
}

void TestCopilotCli::convertFromCopilot()
{
    const auto t = load(readFile(kData + "compacted.jsonl"));
    for (Format to : {Format::OpenAIChat, Format::Anthropic, Format::OpenAIResponses, Format::Gemini, Format::ClaudeCode, Format::Codex, Format::GeminiCli}) {
        const std::vector<Violation> v = validateConverted(*t, to);
        QVERIFY2(v.empty(), (std::string(formatName(to)) + ": " + describe(v)).c_str());
    }
    // The system prompt stays the system prompt.
    const WriteResult w = writeTranscript(*t, Format::Anthropic);
    const auto doc = parse(w.bytes);
    QVERIFY(doc["system"].dump().find("You are a terminal assistant") != std::string::npos);
    QVERIFY(w.bytes.find("[system]") == std::string::npos);
}

void TestCopilotCli::badLines()
{
    std::string bytes = readFile(kData + "session.jsonl");
    auto ls = lines(bytes);
    ls[3] = "{not json";
    ls[8] = "[1,2]";
    ls[9] = R"({"type":"assistant.turn_start","id":"x"})";
    std::string broken;
    for (const auto &l : ls)
        broken += l + "\n";
    broken += R"({"type":"user.message","data":{"content":"cut)"; // truncated last line
    const auto t = load(broken);
    QVERIFY(t);
    std::set<std::uint32_t> lineWarned;
    for (const auto &d : t->diagnostics)
        if (d.severity == Diagnostic::Severity::Warning)
            lineWarned.insert(d.line);
    QCOMPARE(lineWarned, (std::set<std::uint32_t>{4, 9, 10, 15}));
    QCOMPARE(t->records.size(), std::size_t(15));
    QCOMPARE(t->messages[indexOfType(*t, "assistant.message", 1)].plainText(), std::string("Created a.txt."));
    QCOMPARE(writeTranscript(*t, Format::CopilotCli).bytes, broken); // kept, byte for byte
    // Wrong types read as absent.
    const auto odd = load(R"({"type":"assistant.message","data":{"content":7,"toolRequests":"no"},"id":"a","parentId":null})"
                          "\n");
    QCOMPARE(odd->messages.size(), std::size_t(1));
    QCOMPARE(odd->messages[0].kind, MessageKind::Event); // nothing said, nothing called
}

void TestCopilotCli::sessionScan()
{
    QTemporaryDir home;
    namespace fs = std::filesystem;
    const fs::path root = fs::path(home.path().toStdString()) / ".copilot" / "session-state";
    for (const auto &[id, file] : {std::pair{"c8de7095-2435-40ef-ab74-56024f0d608e", "session.jsonl"},
                                   std::pair{"34952dc6-1fb6-49a4-92bb-49db1bde6ce2", "compacted.jsonl"}}) {
        fs::create_directories(root / id);
        std::ofstream(root / id / "events.jsonl", std::ios::binary) << readFile(kData + file);
        std::ofstream(root / id / "workspace.yaml") << "id: " << id << "\n";
    }
    sessions::ScanOptions options;
    options.home = home.path().toStdString();
    const sessions::ScanResult r = sessions::scan(options);
    QCOMPARE(r.sessions.size(), std::size_t(2));
    const sessions::Session *plain = nullptr, *compacted = nullptr;
    for (const auto &s : r.sessions)
        (s.sessionId.rfind("c8de", 0) == 0 ? plain : compacted) = &s;
    QVERIFY(plain && compacted);
    QCOMPARE(plain->format, Format::CopilotCli);
    QCOMPARE(plain->agent, sessions::Agent::Copilot);
    QCOMPARE(std::string(sessions::agentName(plain->agent)), std::string("copilot"));
    QCOMPARE(plain->project, std::string("/tmp/cp/work"));
    QCOMPARE(plain->firstRequest, std::string("Create a.txt with hello"));
    QCOMPARE(plain->model, std::string("gpt-4.1"));
    QCOMPARE(plain->messages, std::size_t(4)); // request, call, result, answer
    QCOMPARE(plain->peakContext, std::int64_t(12184));
    QCOMPARE(plain->compactions, std::size_t(0));
    QCOMPARE(plain->startMs, parseTimestamp("2026-12-01T02:37:57.047Z"));
    QCOMPARE(plain->usage.size(), std::size_t(1));
    QCOMPARE(plain->usage[0].responses, std::size_t(2));
    QCOMPARE(compacted->compactions, std::size_t(1));
    QCOMPARE(compacted->firstRequest, std::string("Create a.txt with hello"));
    // The compaction's own model call is no response (the loader does not count it either).
    const auto t = load(readFile(kData + "compacted.jsonl"));
    QCOMPARE(compacted->usage.at(0).responses, cost::readUsage(*t).responses.size());
    sessions::Agent a;
    QVERIFY(sessions::agentFromName("copilot-cli", a));
    QCOMPARE(a, sessions::Agent::Copilot);
}

QTEST_GUILESS_MAIN(TestCopilotCli)
#include "tst_copilotcli.moc"
