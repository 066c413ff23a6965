// SPDX-License-Identifier: MIT
// Codex CLI rollout loader and writer: the real fixture, a hand-written rollout whose numbers are
// worked out by hand below, bad input, same-format edits and conversion from a hand-built transcript.
#include "core/formats/formats.h"
#include "core/util/json.h"
#include "core/io/loader.h"
#include "core/io/validity.h"
#include "core/io/writer.h"
#include "core/strategies/registry.h"
#include "core/tokens/estimator.h"

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

std::shared_ptr<Transcript> load(std::string bytes, std::optional<Format> format = Format::Codex)
{
    LoadOptions opts;
    opts.format = format;
    auto r = loadBytes(std::move(bytes), "test.jsonl", opts);
    return r.transcript;
}

int countDiag(const Transcript &t, Diagnostic::Severity s)
{
    int n = 0;
    for (const auto &d : t.diagnostics)
        n += d.severity == s;
    return n;
}

bool hasDiagOnLine(const Transcript &t, std::uint32_t line)
{
    for (const auto &d : t.diagnostics)
        if (d.line == line && d.severity != Diagnostic::Severity::Info)
            return true;
    return false;
}

// Conversation blocks as comparable text: the role a block is spoken in (results are always "tool",
// whichever message carries them), its type and its payload.
QStringList flatten(const Transcript &t)
{
    QStringList out;
    for (const auto &m : t.messages) {
        if (!m.isConversation())
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

const std::string kData = CL_TEST_DATA_DIR "/codex/";
const std::string kSamples = CL_SAMPLES_DIR;

} // namespace

class TestCodex : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void handWrittenRollout();
    void tokenCountUsage();
    void compactedMarker();
    void sampleFixture();
    void webSearchIsServerSide();
    void longOutputsCountAsSent();
    void badInput();
    void editRewritesOnlyThatLine();
    void removedMessageDropsItsLine();
    void convertFromHandBuilt();
};

void TestCodex::handWrittenRollout()
{
    const std::string bytes = readFile(kData + "turns.jsonl");
    QVERIFY(!bytes.empty());
    QCOMPARE(detectFormat(bytes, "rollout-x.jsonl"), Format::Codex);
    auto t = load(bytes);
    QVERIFY(t);
    QCOMPARE(countDiag(*t, Diagnostic::Severity::Error), 0);
    QCOMPARE(countDiag(*t, Diagnostic::Severity::Warning), 0);
    QCOMPARE(t->records.size(), std::size_t(19));
    // One message per line, and the compacted line's two replacement-history items.
    QCOMPARE(t->messages.size(), std::size_t(21));
    std::string concat;
    for (const auto &r : t->records)
        concat += t->recordBytes(r);
    QCOMPARE(concat, bytes);

    QCOMPARE(json::str(t->header, "id"), std::string("sess-1"));
    QCOMPARE(json::str(t->header, "cli_version"), std::string("0.40.0"));
    QCOMPARE(json::str(t->header, "model"), std::string("gpt-5-codex"));
    QCOMPARE(json::str(*json::object(t->header, "git"), "branch"), std::string("main"));

    int conv = 0, sys = 0, user = 0, asst = 0, tool = 0, events = 0, meta = 0;
    for (const auto &m : t->messages) {
        if (m.kind == MessageKind::Event)
            ++events;
        if (m.kind == MessageKind::Meta)
            ++meta;
        if (m.kind != MessageKind::Conversation || m.type.rfind("compacted/", 0) == 0)
            continue;
        ++conv;
        sys += m.role == Role::System;
        user += m.role == Role::User;
        asst += m.role == Role::Assistant;
        tool += m.role == Role::Tool;
    }
    QCOMPARE(conv, 11);
    QCOMPARE(sys, 1); // developer message
    QCOMPARE(user, 2);
    QCOMPARE(asst, 5); // reasoning, function_call A, local_shell_call, function_call C, final message
    QCOMPARE(tool, 3);
    QCOMPARE(events, 5); // user_message, 2 token_count, agent_message, context_compacted
    QCOMPARE(meta, 2);

    const auto &m = t->messages;
    QCOMPARE(m[2].type, std::string("response_item/message"));
    QCOMPARE(m[2].role, Role::System);
    QCOMPARE(t->records[6].type, std::string("response_item"));
    QCOMPARE(m[5].blocks.at(0).type, BlockType::Thinking);
    QCOMPARE(m[5].blocks.at(0).text, std::string("**Running tests**"));
    QCOMPARE(m[6].blocks.at(0).type, BlockType::ToolUse);
    QCOMPARE(m[6].blocks[0].toolId, std::string("call_A"));
    QCOMPARE(m[6].blocks[0].input["command"][1].get<std::string>(), std::string("test"));
    QCOMPARE(m[6].model, std::string("gpt-5-codex"));
    QCOMPARE(m[6].timeMs, parseTimestamp("2025-09-01T10:00:03.100Z"));
    // {"output","metadata":{"exit_code":2}} string: text unwrapped, failure seen.
    QCOMPARE(m[8].blocks.at(0).text, std::string("2 failed"));
    QVERIFY(m[8].blocks[0].isError);
    QCOMPARE(m[8].blocks[0].pairMessage, 6);
    QCOMPARE(m[9].blocks.at(0).toolName, std::string("local_shell"));
    QCOMPARE(json::dump(m[9].blocks[0].input), std::string(R"({"command":["cat","log.txt"],"timeout_ms":1000})"));
    QVERIFY(!m[10].blocks.at(0).isError);                           // "Exit code: 0"
    QCOMPARE(m[10].blocks[0].toolName, std::string("local_shell")); // copied by pairing
    // arguments that are not JSON stay a string, with an Info diagnostic on line 12.
    QVERIFY(m[11].blocks.at(0).input.is_string());
    QCOMPARE(m[11].blocks[0].input.get<std::string>(), std::string("not json"));
    bool info12 = false;
    for (const auto &d : t->diagnostics)
        info12 = info12 || (d.line == 12 && d.severity == Diagnostic::Severity::Info);
    QVERIFY(info12);
    QCOMPARE(m[12].blocks.at(0).text, std::string("refused"));
    QVERIFY(m[12].blocks[0].isError); // success:false
    QCOMPARE(m[20].blocks.size(), std::size_t(2));
    QCOMPARE(m[20].blocks[1].type, BlockType::Image);
    QCOMPARE(m[20].blocks[1].mediaType, std::string("image/png"));
    QCOMPARE(m[20].blocks[1].dataSize, std::size_t(12));
    // The duplicate event_msg copies are events, not conversation.
    QCOMPARE(m[4].kind, MessageKind::Event);
    QCOMPARE(m[14].kind, MessageKind::Event);

    QCOMPARE(writeTranscript(*t, Format::Codex).bytes, bytes);
    QCOMPARE(formats::inMemory(formats::writeCodex, *t).bytes, bytes); // the record walk, too
}

void TestCodex::tokenCountUsage()
{
    auto t = load(readFile(kData + "turns.jsonl"));
    const auto &m = t->messages;
    // Line 8 follows function_call A (line 7): input 5000 of which 4000 cached.
    QVERIFY(m[6].usage);
    QCOMPARE(m[6].usage->inputTokens, std::int64_t(1000));
    QCOMPARE(m[6].usage->cacheReadTokens, std::int64_t(4000));
    QCOMPARE(m[6].usage->outputTokens, std::int64_t(50));
    QCOMPARE(m[6].usage->reasoningTokens, std::int64_t(20));
    QCOMPARE(m[6].usage->contextWindow, std::int64_t(272000));
    QCOMPARE(m[6].usage->contextTokens(), std::int64_t(5000));
    // Line 16 uses last_token_usage (6200 / 4960 cached), not the running total, on the final message.
    QVERIFY(m[13].usage);
    QCOMPARE(m[13].usage->inputTokens, std::int64_t(1240));
    QCOMPARE(m[13].usage->cacheReadTokens, std::int64_t(4960));
    QCOMPARE(m[13].usage->outputTokens, std::int64_t(40));
    int withUsage = 0;
    for (const auto &msg : m)
        withUsage += msg.usage.has_value();
    QCOMPARE(withUsage, 2);
    QCOMPARE(m[7].kind, MessageKind::Event); // the token_count line stays an event
}

void TestCodex::compactedMarker()
{
    auto t = load(readFile(kData + "turns.jsonl"));
    const Message &c = t->messages[16];
    QCOMPARE(c.kind, MessageKind::CompactBoundary);
    QCOMPARE(c.type, std::string("compacted"));
    QCOMPARE(json::str(c.meta, "message"), std::string("Summary: tests were run, two fail."));
    QCOMPARE(json::num(c.meta, "replacement_history"), std::int64_t(2));
    // The replacement history is what the model sees from here on: messages of the compacted line.
    QCOMPARE(t->messages[17].type, std::string("compacted/message"));
    QCOMPARE(t->messages[17].role, Role::User);
    QCOMPARE(t->messages[17].plainText(), std::string("Run the tests"));
    QCOMPARE(t->messages[18].role, Role::Assistant);
    QCOMPARE(t->messages[17].records, std::vector<std::uint32_t>{16});
    QCOMPARE(t->records[16].message, 16);
    QCOMPARE(t->messages[19].kind, MessageKind::Event); // context_compacted
    // Everything before the compacted line is history; the replacement history is live.
    QCOMPARE(liveStart(*t), std::size_t(16));
    QVERIFY(!t->messages[15].isConversation());
    QVERIFY(t->messages[17].isConversation() && t->messages[18].isConversation());
}

void TestCodex::sampleFixture()
{
    const std::string path = kSamples + "/codex/fixture-rollout.jsonl";
    CL_REQUIRE(QFileInfo::exists(QString::fromStdString(path)), "samples not available");
    auto r = loadFile(path);
    QVERIFY(r.ok());
    const Transcript &t = *r.transcript;
    QCOMPARE(t.format, Format::Codex);
    QCOMPARE(countDiag(t, Diagnostic::Severity::Error), 0);
    QCOMPARE(t.records.size(), std::size_t(118));
    // One message per line, and 159 items of the six compacted lines' replacement histories.
    QCOMPARE(t.messages.size(), std::size_t(118 + 159));
    // Counted by hand from the file: response_item message lines 6 (user), 23 (assistant),
    // 98 (developer); reasoning 7, 39; calls 9, 10, 12, 14, 43, 103, 114; outputs 11, 13, 21, 28,
    // 105, 115; compacted 26, 47, 69, 81, 89, 111.
    int user = 0, asst = 0, sys = 0, tool = 0, uses = 0, results = 0, compacted = 0;
    for (const auto &m : t.messages) {
        compacted += m.kind == MessageKind::CompactBoundary;
        if (m.kind != MessageKind::Conversation || m.type.rfind("compacted/", 0) == 0)
            continue;
        user += m.role == Role::User;
        asst += m.role == Role::Assistant;
        sys += m.role == Role::System;
        tool += m.role == Role::Tool;
        for (const auto &b : m.blocks) {
            uses += b.type == BlockType::ToolUse;
            results += b.type == BlockType::ToolResult;
        }
    }
    QCOMPARE(user, 1);
    QCOMPARE(sys, 1);
    QCOMPARE(asst, 10);
    QCOMPARE(tool, 6);
    QCOMPARE(uses, 7);
    QCOMPARE(results, 6);
    QCOMPARE(compacted, 6);
    QCOMPARE(json::str(t.header, "id"), std::string("019fc8be-3658-7ca3-9e29-000000000000"));
    QCOMPARE(json::str(t.header, "cli_version"), std::string("0.146.0"));
    // token_count on line 22 (16341 input, 3584 cached) goes to the web_search_call on line 14; the
    // all-zero one on line 87 and the info:null one on line 86 attach nothing.
    int withUsage = 0;
    for (const auto &m : t.messages) {
        if (!m.usage)
            continue;
        ++withUsage;
        QCOMPARE(m.line, std::uint32_t(14));
        QCOMPARE(m.usage->inputTokens, std::int64_t(16341 - 3584));
        QCOMPARE(m.usage->cacheReadTokens, std::int64_t(3584));
        QCOMPARE(m.usage->outputTokens, std::int64_t(81));
        QCOMPARE(m.usage->reasoningTokens, std::int64_t(63));
        QCOMPARE(m.usage->contextWindow, std::int64_t(258400));
    }
    QCOMPARE(withUsage, 1);
    // call-2 (line 10) is answered by line 11, whose output is an {type,text} object.
    QCOMPARE(t.messages[10].blocks.at(0).text, std::string("a.txt\n"));
    QCOMPARE(t.messages[10].blocks[0].pairMessage, 9);

    const std::string bytes = readFile(path);
    QCOMPARE(writeTranscript(t, Format::Codex).bytes, bytes);
    QCOMPARE(formats::inMemory(formats::writeCodex, t).bytes, bytes);
}

// Codex's built-in web search runs on OpenAI's side: the rollout has a web_search_call item without a
// call_id (real 0.169 rollouts have no id either) and never an output for it. It is a call, but
// not an unanswered one.
void TestCodex::webSearchIsServerSide()
{
    const std::string bytes =
        R"({"timestamp":"2026-08-03T10:00:00.000Z","type":"session_meta","payload":{"id":"s-ws","timestamp":"2026-08-03T10:00:00.000Z","cwd":"/tmp","cli_version":"0.169.0"}})"
        "\n"
        R"({"timestamp":"2026-08-03T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"what is new in Qt 6.8?"}]}})"
        "\n"
        R"({"timestamp":"2026-08-03T10:00:02.000Z","type":"response_item","payload":{"type":"web_search_call","status":"completed","action":{"type":"search","query":"Qt 6.8 release"}}})"
        "\n"
        R"({"timestamp":"2026-08-03T10:00:03.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Qt 6.8 is an LTS release."}]}})"
        "\n";
    auto t = load(bytes);
    QVERIFY(t);
    const Block *search = nullptr;
    for (const auto &m : t->messages)
        for (const auto &b : m.blocks)
            if (b.type == BlockType::ToolUse)
                search = &b;
    QVERIFY(search);
    QCOMPARE(search->toolName, std::string("web_search"));
    QVERIFY(search->serverSide);
    QVERIFY(search->toolId.empty());
    QVERIFY(validate(*t, Format::Codex).empty());
    QCOMPARE(writeTranscript(*t, Format::Codex).bytes, bytes);
    // Strategy results are checked on their shape: the search stays server-side there too.
    const strategy::Input in(*t);
    for (const strategy::Strategy *s : strategy::all()) {
        nlohmann::json params = nlohmann::json::object();
        for (const auto &spec : s->params())
            if (spec.name == "force")
                params["force"] = true;
        std::string error;
        const strategy::Result r = strategy::run(*s, in, params, {}, &error);
        QVERIFY2(error.empty(), error.c_str());
        QVERIFY2(r.violations.empty(), std::string(s->name()).c_str());
    }
}

// Codex records each tool output whole but sends at most its truncation policy's bytes of it (head
// and tail): the result's estimate is that of the sent text, the file keeps (and writes) all of it.
void TestCodex::longOutputsCountAsSent()
{
    const auto rollout = [](const std::string &policy, const std::string &output) {
        nlohmann::json out = {{"timestamp", "2026-08-03T10:00:03.000Z"},
                              {"type", "response_item"},
                              {"payload", {{"type", "function_call_output"}, {"call_id", "c1"}, {"output", output}}}};
        return R"({"timestamp":"2026-08-03T10:00:00.000Z","type":"session_meta","payload":{"id":"s-cut","timestamp":"2026-08-03T10:00:00.000Z","cwd":"/tmp","cli_version":"0.169.0"}})"
               "\n"
               R"({"timestamp":"2026-08-03T10:00:00.500Z","type":"turn_context","payload":{"cwd":"/tmp","model":"gpt-5-codex")"
               + policy + R"(}})"
                          "\n"
                          R"({"timestamp":"2026-08-03T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"show the log"}]}})"
                          "\n"
                          R"({"timestamp":"2026-08-03T10:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"cat\",\"log\"]}","call_id":"c1"}})"
                          "\n"
               + out.dump() + "\n";
    };
    const auto resultOf = [](const Transcript &t) -> const Block * {
        for (const auto &m : t.messages)
            for (const auto &b : m.blocks)
                if (b.type == BlockType::ToolResult)
                    return &b;
        return nullptr;
    };
    std::string log;
    for (int i = 0; i < 4000; ++i)
        log += "line " + std::to_string(10000 + i) + " of the build log, nothing to see\n"; // 44 bytes a line
    QCOMPARE(log.size(), std::size_t(4000 * 44));

    // No policy recorded (Codex 0.16x): 10 000 bytes + a fifth.
    const std::string bytes = rollout("", log);
    auto t = load(bytes);
    QVERIFY(t);
    const Block *r = resultOf(*t);
    QVERIFY(r);
    QCOMPARE(r->text, log); // the file's output, whole
    QCOMPARE(r->sentLimit, std::uint32_t(12000));
    std::string storage;
    const std::string_view sent = sentResultText(*r, storage);
    QVERIFY(sent.size() <= 12000 + 64 && sent.size() >= 11000);
    QVERIFY(sent.substr(0, 21) == std::string_view("line 10000 of the bui"));
    QVERIFY(log.ends_with(std::string(sent.substr(sent.size() - 44))));
    QVERIFY(sent.find("bytes not sent") != std::string_view::npos);
    const std::size_t marker = sent.find("[...");
    QVERIFY(marker != std::string_view::npos && marker % 44 == 0); // the head ends at a line end
    const std::int64_t sentEstimate = tokens::kToolResultOverhead + tokens::estimateText(sent);
    QVERIFY(sentEstimate * 8 < tokens::estimateText(log));
    QCOMPARE(tokens::estimateBlock(*r), sentEstimate);
    QCOMPARE(writeTranscript(*t, Format::Codex).bytes, bytes);

    // The policy a turn context records: tokens x 4 bytes, plus a fifth.
    t = load(rollout(R"(,"truncation_policy":{"mode":"tokens","limit":10000})", log));
    QCOMPARE(resultOf(*t)->sentLimit, std::uint32_t(48000));
    t = load(rollout(R"(,"truncation_policy":{"mode":"bytes","limit":5000})", log));
    QCOMPARE(resultOf(*t)->sentLimit, std::uint32_t(6000));

    // One long line of two-byte characters: cut between characters, never inside one.
    std::string wide = "x"; // the head's cut at 6 000 falls inside a character
    for (int i = 0; i < 20001; ++i)
        wide += "\xC3\xA9"; // é
    t = load(rollout("", wide));
    const std::string_view cut = sentResultText(*resultOf(*t), storage);
    QVERIFY(cut.size() < 12100);
    const QString decoded = QString::fromUtf8(cut.data(), qsizetype(cut.size()));
    QVERIFY(!decoded.contains(QChar::ReplacementCharacter));
    QVERIFY(decoded.startsWith(QStringLiteral("x\u00e9")) && decoded.endsWith(QStringLiteral("\u00e9\u00e9")));
    // A short output is sent as it is.
    t = load(rollout("", "ok\n"));
    QCOMPARE(sentResultText(*resultOf(*t), storage), std::string_view("ok\n"));
}

void TestCodex::badInput()
{
    const std::string bytes =
        R"({"timestamp":"2025-01-01T00:00:00Z","type":"session_meta","payload":{"id":"b"}})"
        "\n"
        "{not json at all\n"
        R"({"timestamp":"2025-01-01T00:00:01Z","type":"response_item","payload":"oops"})"
        "\n"
        R"({"timestamp":"2025-01-01T00:00:02Z","type":"response_item","payload":{"type":"function_call","name":7,"arguments":42,"call_id":"c1"}})"
        "\n"
        R"({"timestamp":"2025-01-01T00:00:03Z","type":"response_item","payload":{"type":"message","role":"user","content":5}})"
        "\n"
        "[1,2]\r\n"
        "\n"
        R"({"timestamp":"2025-01-01T00:00:04Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"still here"}]}})"
        "\n"
        R"({"timestamp":"2025-01-01T00:00:05Z","type":"response_item","payl)";
    auto t = load(bytes);
    QVERIFY(t);
    QCOMPARE(t->records.size(), std::size_t(9));
    QVERIFY(!t->records[1].parsed);
    QVERIFY(hasDiagOnLine(*t, 2));
    QVERIFY(hasDiagOnLine(*t, 3));  // payload not an object
    QVERIFY(hasDiagOnLine(*t, 5));  // content of a wrong type
    QVERIFY(hasDiagOnLine(*t, 6));  // not an object
    QVERIFY(!hasDiagOnLine(*t, 7)); // blank line: nothing to report
    QVERIFY(!t->records[8].parsed);
    bool truncated = false;
    for (const auto &d : t->diagnostics)
        truncated = truncated || (d.line == 9 && d.message.find("truncated") != std::string::npos);
    QVERIFY(truncated);
    // Wrong types read as absent: the call keeps its id, name is empty, input an empty object.
    const Message *call = nullptr;
    const Message *still = nullptr;
    for (const auto &m : t->messages) {
        if (m.line == 4)
            call = &m;
        if (m.line == 8)
            still = &m;
    }
    QVERIFY(call && still);
    QCOMPARE(call->blocks.at(0).toolId, std::string("c1"));
    QVERIFY(call->blocks[0].toolName.empty());
    QVERIFY(call->blocks[0].input.is_object());
    QCOMPARE(still->plainText(), std::string("still here"));
    QCOMPARE(formats::inMemory(formats::writeCodex, *t).bytes, bytes);

    // An edit elsewhere keeps every broken line byte-for-byte.
    const_cast<Message *>(still)->blocks[0].text = "edited";
    const_cast<Message *>(still)->edited = true;
    const std::string out = writeTranscript(*t, Format::Codex).bytes;
    QVERIFY(out.find("{not json at all\n") != std::string::npos);
    QVERIFY(out.find("[1,2]\r\n\n") != std::string::npos);
    QVERIFY(out.size() > 40 && out.substr(out.size() - 40) == bytes.substr(bytes.size() - 40));
    QVERIFY(out.find("\"edited\"") != std::string::npos);
}

void TestCodex::editRewritesOnlyThatLine()
{
    const std::string bytes = readFile(kData + "turns.jsonl");
    auto t = load(bytes);
    Message &result = t->messages[8]; // function_call_output of call_A, line 9
    result.blocks[0].text = "[cleared]";
    result.edited = true;
    const WriteResult w = writeTranscript(*t, Format::Codex);
    QVERIFY(w.ok);
    const auto before = json::splitLines(bytes);
    const auto after = json::splitLines(w.bytes);
    QCOMPARE(after.size(), before.size());
    for (std::size_t i = 0; i < before.size(); ++i) {
        const auto a = std::string_view(bytes).substr(before[i].offset, before[i].length);
        const auto b = std::string_view(w.bytes).substr(after[i].offset, after[i].length);
        if (i != 8)
            QCOMPARE(b, a);
    }
    const std::string edited = w.bytes.substr(after[8].offset, after[8].contentLength);
    // Envelope kept, in Codex's key order; the payload keeps its call_id.
    QVERIFY(edited.rfind(R"({"timestamp":"2025-09-01T10:00:05.000Z","type":"response_item","payload":)", 0) == 0);
    auto re = load(w.bytes);
    QCOMPARE(re->messages.size(), t->messages.size());
    QCOMPARE(re->messages[8].blocks.at(0).text, std::string("[cleared]"));
    QVERIFY(re->messages[8].blocks[0].isError); // the failure survives the edit
    QCOMPARE(re->messages[8].blocks[0].pairMessage, 6);

    // Editing the text of a message keeps its image part in place.
    auto t2 = load(bytes);
    t2->messages[20].blocks[0].text = "Fix them now";
    t2->messages[20].edited = true;
    auto re2 = load(writeTranscript(*t2, Format::Codex).bytes);
    QCOMPARE(re2->messages.size(), std::size_t(21));
    QCOMPARE(re2->messages[20].plainText(), std::string("Fix them now"));
    QCOMPARE(re2->messages[20].blocks.size(), std::size_t(2));
    QCOMPARE(re2->messages[20].blocks[1].type, BlockType::Image);
    QCOMPARE(re2->messages[20].blocks[1].dataSize, std::size_t(12));
}

void TestCodex::removedMessageDropsItsLine()
{
    const std::string bytes = readFile(kData + "turns.jsonl");
    auto t = load(bytes);
    // Drop the reasoning item (line 6) and edit the developer message (line 3).
    t->messages.erase(t->messages.begin() + 5);
    t->messages[2].blocks[0].text = "short";
    t->messages[2].edited = true;
    const std::string out = formats::inMemory(formats::writeCodex, *t).bytes;
    auto re = load(out);
    QCOMPARE(re->records.size(), std::size_t(18));
    QCOMPARE(countDiag(*re, Diagnostic::Severity::Warning), 0);
    QCOMPARE(re->messages[2].plainText(), std::string("short"));
    QCOMPARE(re->messages[2].role, Role::System);
    for (const auto &m : re->messages)
        QVERIFY(m.type != "response_item/reasoning");
}

void TestCodex::convertFromHandBuilt()
{
    Transcript t;
    t.format = Format::Anthropic;
    auto add = [&](Role role, std::vector<Block> blocks) -> Message & {
        Message m;
        m.role = role;
        m.blocks = std::move(blocks);
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
    add(Role::System, {text(BlockType::Text, "You are terse.")});
    add(Role::User, {text(BlockType::Text, "hi")});
    Message &a1 = add(Role::Assistant, {text(BlockType::Thinking, "plan"), text(BlockType::Text, "Let me look"),
                                        use("t1", "Read", {{"path", "a.txt"}})});
    a1.usage = Usage{10, 5, 0, 90, 0, 0};
    add(Role::User, {result("t1", "contents of a", false)});
    add(Role::Assistant, {use("t2", "Bash", {{"cmd", "false"}})});
    add(Role::Tool, {result("t2", "boom", true)});
    add(Role::Assistant, {text(BlockType::Text, "done")});
    Message &ev = add(Role::System, {text(BlockType::Text, "an event")});
    ev.kind = MessageKind::Event;
    linkToolPairs(t);

    const WriteResult w = writeTranscript(t, Format::Codex);
    QVERIFY(w.ok);
    QCOMPARE(detectFormat(w.bytes, "out.jsonl"), Format::Codex);
    auto re = load(w.bytes, std::nullopt);
    QCOMPARE(re->format, Format::Codex);
    QCOMPARE(countDiag(*re, Diagnostic::Severity::Error), 0);
    QCOMPARE(countDiag(*re, Diagnostic::Severity::Warning), 0);
    QCOMPARE(flatten(*re), flatten(t));
    QCOMPARE(re->messages.front().kind, MessageKind::Meta); // session_meta first
    for (const auto &m : re->messages)
        for (const auto &b : m.blocks)
            if (b.type == BlockType::ToolUse || b.type == BlockType::ToolResult)
                QVERIFY(b.pairMessage >= 0);
    // Usage lands on the last item written for that assistant turn (the Read call).
    int withUsage = 0;
    for (const auto &m : re->messages) {
        if (!m.usage)
            continue;
        ++withUsage;
        QVERIFY(m.hasToolUse());
        QCOMPARE(m.usage->inputTokens, std::int64_t(10));
        QCOMPARE(m.usage->cacheReadTokens, std::int64_t(90));
        QCOMPARE(m.usage->outputTokens, std::int64_t(5));
    }
    QCOMPARE(withUsage, 1);
    QVERIFY(!w.notes.empty()); // the event was not carried
    // Deterministic: converting twice gives the same bytes.
    QCOMPARE(writeTranscript(t, Format::Codex).bytes, w.bytes);
}

QTEST_GUILESS_MAIN(TestCodex)
#include "tst_codex.moc"
