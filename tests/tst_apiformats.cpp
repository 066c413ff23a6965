// SPDX-License-Identifier: MIT
// Loaders and same-format writers of the four API request formats, on the hand-written requests
// in tests/data/api (every block kind of each format) and on broken input written here.
#include "core/formats/api/common.h"
#include "core/util/json.h"
#include "core/io/loader.h"
#include "core/io/writer.h"

#include <QtTest>

#include <fstream>
#include <sstream>

using namespace cl;

namespace {

std::string dataFile(const char *name)
{
    return std::string(CL_TEST_DATA_DIR) + "/api/" + name;
}

std::string readAll(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::shared_ptr<Transcript> load(const std::string &path, Format f)
{
    LoadOptions o;
    o.format = f;
    return loadFile(path, o).transcript;
}

std::shared_ptr<Transcript> loadText(std::string bytes, Format f)
{
    LoadOptions o;
    o.format = f;
    return loadBytes(std::move(bytes), "test.json", o).transcript;
}

std::vector<Role> roles(const Transcript &t)
{
    std::vector<Role> out;
    for (const auto &m : t.messages)
        out.push_back(m.role);
    return out;
}

std::vector<BlockType> kinds(const Message &m)
{
    std::vector<BlockType> out;
    for (const auto &b : m.blocks)
        out.push_back(b.type);
    return out;
}

std::size_t countSeverity(const Transcript &t, Diagnostic::Severity s)
{
    std::size_t n = 0;
    for (const auto &d : t.diagnostics)
        n += d.severity == s;
    return n;
}

bool hasDiagnosticAt(const Transcript &t, std::uint32_t line, const char *needle)
{
    for (const auto &d : t.diagnostics)
        if (d.line == line && d.message.find(needle) != std::string::npos)
            return true;
    return false;
}

// Every record of a JSON-document format must be exactly one element's bytes.
// `side` leading records hold values outside the array (system prompt, instructions).
void checkRecordsAreElements(const Transcript &t, const nlohmann::json &array, std::size_t side = 0)
{
    std::size_t element = 0;
    for (std::size_t i = side; i < t.records.size(); ++i) {
        const Record &r = t.records[i];
        nlohmann::json parsed;
        std::string err;
        QVERIFY(json::parse(t.recordBytes(r), parsed, err) != json::ParseStatus::Failed);
        QVERIFY(element < array.size());
        QCOMPARE(parsed, array[element]);
        ++element;
    }
    QCOMPARE(element, array.size());
}

} // namespace

class TestApiFormats : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void openaiChat()
    {
        const auto path = dataFile("openai-chat.json");
        const auto t = load(path, Format::OpenAIChat);
        QVERIFY(t);
        QCOMPARE(countSeverity(*t, Diagnostic::Severity::Error) + countSeverity(*t, Diagnostic::Severity::Warning), 0u);
        using R = Role;
        const std::vector<Role> expected{R::System, R::System, R::User, R::Assistant, R::Tool, R::Tool, R::Assistant,
                                         R::Tool, R::Assistant, R::User, R::Assistant, R::Tool, R::Assistant};
        QVERIFY(roles(*t) == expected);
        QCOMPARE(t->records.size(), 13u);
        QCOMPARE(t->records[0].line, 6u);
        QCOMPARE(t->records[2].line, 8u);
        QCOMPARE(t->records[3].line, 12u);
        QCOMPARE(t->messages[3].line, 12u);
        checkRecordsAreElements(*t, nlohmann::json::parse(readAll(path))["messages"]);

        QCOMPARE(t->messages[1].type, std::string("developer"));
        const Message &user = t->messages[2];
        QVERIFY(kinds(user) == (std::vector<BlockType>{BlockType::Text, BlockType::Image}));
        QCOMPARE(user.blocks[1].mediaType, std::string("image/png"));
        QCOMPARE(user.blocks[1].dataSize, std::size_t(12));
        const Message &calls = t->messages[3];
        QVERIFY(kinds(calls) == (std::vector<BlockType>{BlockType::Text, BlockType::ToolUse, BlockType::ToolUse}));
        QCOMPARE(calls.blocks[1].toolId, std::string("call_paris"));
        QCOMPARE(calls.blocks[1].input, nlohmann::json({{"city", "Paris"}}));
        QCOMPARE(calls.blocks[2].pairMessage, 5);
        QCOMPARE(t->messages[4].blocks[0].text, std::string("18C, cloudy"));
        QCOMPARE(t->messages[4].blocks[0].pairMessage, 3);
        QCOMPARE(t->messages[4].blocks[0].toolName, std::string("get_weather"));
        QCOMPARE(t->messages[5].blocks[0].text, std::string("25C, sunny"));
        QVERIFY(kinds(t->messages[6]) == (std::vector<BlockType>{BlockType::ToolUse})); // content null
        // Legacy function_call / role function pair by name.
        QCOMPARE(t->messages[10].blocks[0].toolName, std::string("get_time"));
        QCOMPARE(t->messages[11].blocks[0].pairMessage, 10);
        QCOMPARE(t->messages[11].blocks[0].text, std::string("12:00"));
        QCOMPARE(json::str(t->header, "model"), std::string("gpt-4o"));
        QVERIFY(t->header.contains("tools") && !t->header.contains("messages"));
    }

    void openaiResponses()
    {
        const auto path = dataFile("openai-responses.json");
        const auto t = load(path, Format::OpenAIResponses);
        QVERIFY(t);
        QCOMPARE(t->messages.size(), 8u);
        QCOMPARE(t->records.size(), 8u);
        QCOMPARE(t->records[0].type, std::string("instructions"));
        QCOMPARE(t->messages[0].role, Role::System);
        QCOMPARE(t->messages[0].plainText(), std::string("You are a coding agent."));
        checkRecordsAreElements(*t, nlohmann::json::parse(readAll(path))["input"], 1);
        QVERIFY(kinds(t->messages[1]) == (std::vector<BlockType>{BlockType::Text, BlockType::Image}));
        QCOMPARE(t->messages[1].blocks[1].mediaType, std::string("image/jpeg"));
        QCOMPARE(t->messages[2].role, Role::Assistant);
        QCOMPARE(t->messages[2].blocks[0].type, BlockType::Thinking);
        QCOMPARE(t->messages[2].blocks[0].text, std::string("Need to run ls."));
        QCOMPARE(json::str(t->messages[2].blocks[0].input, "encrypted_content"), std::string("gAAAA"));
        const Block &call = t->messages[3].blocks[0];
        QCOMPARE(call.type, BlockType::ToolUse);
        QCOMPARE(call.toolId, std::string("call_ls"));
        QCOMPARE(call.toolName, std::string("shell"));
        QCOMPARE(call.input, nlohmann::json::parse(R"({"cmd":["ls"]})"));
        QCOMPARE(json::str(t->messages[3].meta, "id"), std::string("fc_1"));
        QCOMPARE(t->messages[4].role, Role::Tool);
        QCOMPARE(t->messages[4].blocks[0].text, std::string("a.txt\nb.txt"));
        QCOMPARE(t->messages[4].blocks[0].pairMessage, 3);
        QCOMPARE(t->messages[5].plainText(), std::string("Two files: a.txt and b.txt."));
        QCOMPARE(t->messages[6].kind, MessageKind::Event);
        QCOMPARE(t->messages[6].blocks[0].type, BlockType::Raw);
        QCOMPARE(t->messages[7].role, Role::User);

        // input as a plain string: one user message over the string value.
        const auto s = loadText("{\"model\": \"m\",\n \"input\": \"hello there\"}", Format::OpenAIResponses);
        QCOMPARE(s->messages.size(), 1u);
        QCOMPARE(s->messages[0].role, Role::User);
        QCOMPARE(s->messages[0].plainText(), std::string("hello there"));
        QCOMPARE(std::string(s->recordBytes(s->records[0])), std::string("\"hello there\""));
        QCOMPARE(s->records[0].line, 2u);
    }

    void anthropic()
    {
        const auto path = dataFile("anthropic.json");
        const auto t = load(path, Format::Anthropic);
        QVERIFY(t);
        QCOMPARE(countSeverity(*t, Diagnostic::Severity::Warning), 0u);
        QCOMPARE(t->messages.size(), 9u);
        QCOMPARE(t->records[0].type, std::string("system"));
        QCOMPARE(t->records[0].line, 4u);
        QCOMPARE(t->messages[0].role, Role::System);
        QCOMPARE(t->messages[0].plainText(), std::string("You are a careful assistant."));
        checkRecordsAreElements(*t, nlohmann::json::parse(readAll(path))["messages"], 1);
        QCOMPARE(t->messages[1].plainText(), std::string("Read notes.txt please."));
        const Message &a = t->messages[2];
        QVERIFY(kinds(a) == (std::vector<BlockType>{BlockType::Thinking, BlockType::Text, BlockType::ToolUse}));
        QCOMPARE(json::str(a.blocks[0].input, "signature"), std::string("sig-1"));
        QCOMPARE(a.blocks[2].toolId, std::string("toolu_01"));
        QCOMPARE(a.blocks[2].pairMessage, 3);
        QVERIFY(kinds(t->messages[3]) == (std::vector<BlockType>{BlockType::ToolResult, BlockType::Text}));
        QCOMPARE(t->messages[3].blocks[0].text, std::string("buy milk"));
        QVERIFY(kinds(t->messages[4]) == (std::vector<BlockType>{BlockType::RedactedThinking, BlockType::ToolUse}));
        const Block &err = t->messages[5].blocks[0];
        QVERIFY(err.isError);
        QCOMPARE(err.text, std::string("no such file"));
        QCOMPARE(err.pairMessage, 4);
        QVERIFY(kinds(t->messages[7])
                == (std::vector<BlockType>{BlockType::Image, BlockType::Document, BlockType::Text}));
        QCOMPARE(t->messages[7].blocks[1].mediaType, std::string("application/pdf"));
        QCOMPARE(json::num(t->header, "max_tokens"), 2048);
        QVERIFY(!t->header.contains("system") && t->header.contains("thinking"));
    }

    void gemini()
    {
        const auto path = dataFile("gemini.json");
        const auto t = load(path, Format::Gemini);
        QVERIFY(t);
        QCOMPARE(countSeverity(*t, Diagnostic::Severity::Warning), 0u);
        QCOMPARE(t->messages.size(), 9u);
        QCOMPARE(t->records[0].type, std::string("systemInstruction"));
        QCOMPARE(t->messages[0].plainText(), std::string("You are a file helper."));
        checkRecordsAreElements(*t, nlohmann::json::parse(readAll(path))["contents"], 1);
        QVERIFY(kinds(t->messages[2]) == (std::vector<BlockType>{BlockType::Thinking, BlockType::ToolUse}));
        QCOMPARE(t->messages[2].role, Role::Assistant);
        QCOMPARE(t->messages[2].blocks[1].toolId, std::string("call-1"));
        QCOMPARE(t->messages[3].role, Role::User); // functionResponse-only content stays user
        QCOMPARE(t->messages[3].blocks[0].pairMessage, 2);
        // Calls without ids: synthesized, distinct, paired in order with same-name responses.
        const Message &calls = t->messages[4];
        QVERIFY(calls.blocks[0].toolId != calls.blocks[1].toolId);
        QVERIFY(!calls.blocks[0].toolId.empty());
        const Message &results = t->messages[5];
        QCOMPARE(results.blocks[0].toolId, calls.blocks[0].toolId);
        QCOMPARE(results.blocks[1].toolId, calls.blocks[1].toolId);
        QCOMPARE(results.blocks[0].text, std::string("log A"));
        QVERIFY(results.blocks[1].isError);
        QCOMPARE(results.blocks[1].text, std::string("b.log not found"));
        QCOMPARE(calls.blocks[1].pairMessage, 5);
        QCOMPARE(calls.blocks[1].pairBlock, 1);
        QVERIFY(kinds(t->messages[7]) == (std::vector<BlockType>{BlockType::Image, BlockType::Document, BlockType::Text}));
        QCOMPARE(t->messages[7].blocks[1].mediaType, std::string("application/pdf"));
        QVERIFY(t->header.contains("generationConfig") && !t->header.contains("contents"));
    }

    void geminiContentArrayForCheckpoints()
    {
        // The Gemini CLI loader calls this for /chat save checkpoints {history: Content[]}.
        auto t = std::make_shared<Transcript>();
        t->buffer = std::make_shared<const std::string>(
            "{\"history\": [\n {\"role\": \"user\", \"parts\": [{\"text\": \"hi\"}]},\n"
            " {\"role\": \"model\", \"parts\": [{\"functionCall\": {\"name\": \"ls\", \"args\": {}}}]},\n"
            " {\"role\": \"user\", \"parts\": [{\"functionResponse\": {\"name\": \"ls\", \"response\": {\"output\": \"x\"}}}]},\n"
            " 7\n], \"authType\": \"oauth\"}");
        const auto range = json::topLevelValue(*t->buffer, "history");
        LoadOptions o;
        formats::loadGeminiContentArray(*t, range.begin, formats::LoadContext{o, {}});
        QCOMPARE(t->records.size(), 4u);
        QCOMPARE(t->messages.size(), 3u);
        QCOMPARE(t->records[1].line, 3u);
        QVERIFY(!t->records[3].parsed);
        QVERIFY(hasDiagnosticAt(*t, 5, "not an object"));
        QCOMPARE(t->messages[2].blocks[0].toolId, t->messages[1].blocks[0].toolId);

        std::vector<std::string> notes;
        const auto contents = formats::encodeGeminiContents(*t, notes);
        QCOMPARE(contents.size(), 3u);
        QCOMPARE(contents[1]["role"], "model");
        QVERIFY(contents[2]["parts"][0].contains("functionResponse"));
    }

    void untouchedRoundTrip_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("format");
        QTest::newRow("openai-chat") << "openai-chat.json" << int(Format::OpenAIChat);
        QTest::newRow("openai-responses") << "openai-responses.json" << int(Format::OpenAIResponses);
        QTest::newRow("anthropic") << "anthropic.json" << int(Format::Anthropic);
        QTest::newRow("gemini") << "gemini.json" << int(Format::Gemini);
    }
    void untouchedRoundTrip()
    {
        QFETCH(QString, file);
        QFETCH(int, format);
        const auto path = dataFile(file.toUtf8().constData());
        const auto t = load(path, Format(format));
        QVERIFY(t);
        const std::string original = readAll(path);
        QCOMPARE(writeTranscript(*t, Format(format)).bytes, original);
        // The rebuild path itself (used once anything is edited) also reproduces every byte.
        WriteResult direct;
        ByteSink sink;
        switch (Format(format)) {
        case Format::OpenAIChat: direct = formats::writeOpenAIChat(*t, sink); break;
        case Format::OpenAIResponses: direct = formats::writeOpenAIResponses(*t, sink); break;
        case Format::Anthropic: direct = formats::writeAnthropic(*t, sink); break;
        default: direct = formats::writeGemini(*t, sink); break;
        }
        QVERIFY(direct.ok);
        QCOMPARE(sink.take(), original);
    }

    void editedRebuildKeepsUntouchedBytes()
    {
        const auto path = dataFile("anthropic.json");
        auto t = load(path, Format::Anthropic);
        Message &m = t->messages[6];
        m.blocks = {makeBlock(BlockType::Text, "shortened answer")};
        m.edited = true;
        // Delete the last exchange (image question and its answer).
        t->messages.erase(t->messages.begin() + 7, t->messages.end());
        const WriteResult w = writeTranscript(*t, Format::Anthropic);
        QVERIFY(w.ok);
        const std::string original = readAll(path);
        for (std::size_t i = 0; i < 6; ++i) // system + five untouched messages, byte for byte
            QVERIFY(w.bytes.find(t->recordBytes(t->records[i])) != std::string::npos);
        const std::size_t arrayStart = original.find("\"messages\": [");
        QCOMPARE(w.bytes.substr(0, arrayStart), original.substr(0, arrayStart));
        QVERIFY(w.bytes.find("What are these?") == std::string::npos);
        const auto re = loadText(w.bytes, Format::Anthropic);
        QCOMPARE(re->messages.size(), 7u);
        QCOMPARE(re->messages[6].plainText(), std::string("shortened answer"));
        QCOMPARE(re->messages[2].blocks[0].type, BlockType::Thinking);

        // Editing the system prompt (outside the array) re-encodes the request from its header.
        t->messages[0].blocks = {makeBlock(BlockType::Text, "new system")};
        t->messages[0].edited = true;
        const auto re2 = loadText(writeTranscript(*t, Format::Anthropic).bytes, Format::Anthropic);
        QCOMPARE(re2->messages[0].plainText(), std::string("new system"));
        QCOMPARE(re2->messages.size(), 7u);
        QCOMPARE(json::str(re2->header, "model"), std::string("claude-sonnet-4-5"));
        QVERIFY(re2->header.contains("tools"));
    }

    void editedGeminiReencodesWithoutSynthesizedIds()
    {
        auto t = load(dataFile("gemini.json"), Format::Gemini);
        t->messages[4].edited = true; // the two id-less read_file calls
        const std::string bytes = writeTranscript(*t, Format::Gemini).bytes;
        QVERIFY(bytes.find("synth_") == std::string::npos);
        const auto re = loadText(bytes, Format::Gemini);
        QCOMPARE(re->messages.size(), 9u);
        QCOMPARE(re->messages[5].blocks[1].pairMessage, 4);
        QCOMPARE(re->messages[4].blocks[1].input, nlohmann::json({{"path", "/tmp/b.log"}}));
    }

    void editedBareArrayKeepsRawElements()
    {
        const std::string chat = "[\n  {\"role\": \"user\", \"content\": \"one\"},\n  42,\n"
                                 "  {\"role\": \"assistant\", \"content\": \"two\"}\n]\n";
        auto t = loadText(chat, Format::OpenAIChat);
        QCOMPARE(t->messages.size(), 2u);
        t->messages[1].blocks[0].text = "TWO";
        t->messages[1].edited = true;
        const std::string expected = "[\n  {\"role\": \"user\", \"content\": \"one\"},\n  42,\n"
                                     "  {\"content\":\"TWO\",\"role\":\"assistant\"}\n]\n";
        QCOMPARE(writeTranscript(*t, Format::OpenAIChat).bytes, expected);
        // A deleted first message: the raw element keeps its place before the next message.
        t->messages.erase(t->messages.begin());
        QCOMPARE(writeTranscript(*t, Format::OpenAIChat).bytes,
                 std::string("[\n  42,\n  {\"content\":\"TWO\",\"role\":\"assistant\"}\n]\n"));

        // A string input edited: no array to splice into, the request is re-encoded.
        auto s = loadText("{\"model\": \"m\", \"input\": \"hello\"}", Format::OpenAIResponses);
        s->messages[0].blocks[0].text = "bye";
        s->messages[0].edited = true;
        const auto re = loadText(writeTranscript(*s, Format::OpenAIResponses).bytes, Format::OpenAIResponses);
        QCOMPARE(re->messages.size(), 1u);
        QCOMPARE(re->messages[0].plainText(), std::string("bye"));
        QCOMPARE(json::str(re->header, "model"), std::string("m"));
    }

    void badInputKeepsGoing()
    {
        const std::string chat = "[\n{\"role\": \"user\", \"content\": \"hi\"},\n42,\n"
                                 "{\"role\": \"assistant\", \"content\": null, \"tool_calls\": [{\"id\": \"c1\", "
                                 "\"type\": \"function\", \"function\": {\"name\": \"f\", \"arguments\": \"{not json\"}}]},\n"
                                 "{\"role\": \"tool\", \"tool_call_id\": \"c1\", \"content\": \"ok\"},\n"
                                 "{\"role\": \"robot\", \"content\": 5}\n]";
        const auto t = loadText(chat, Format::OpenAIChat);
        QCOMPARE(t->records.size(), 5u);
        QCOMPARE(t->messages.size(), 4u);
        QVERIFY(!t->records[1].parsed);
        QVERIFY(hasDiagnosticAt(*t, 3, "not an object"));
        QVERIFY(hasDiagnosticAt(*t, 4, "not valid JSON"));
        QCOMPARE(t->messages[1].blocks[0].input, nlohmann::json("{not json"));
        QVERIFY(hasDiagnosticAt(*t, 6, "unknown role"));
        QVERIFY(hasDiagnosticAt(*t, 6, "neither a string"));
        QCOMPARE(writeTranscript(*t, Format::OpenAIChat).bytes, chat);

        const std::string anth = "{\"messages\": [\n{\"role\": \"user\", \"content\": {\"x\": 1}},\n"
                                 "{\"role\": \"assistant\"}\n]}";
        const auto a = loadText(anth, Format::Anthropic);
        QCOMPARE(a->messages.size(), 2u);
        QVERIFY(hasDiagnosticAt(*a, 2, "neither a string"));
        QVERIFY(hasDiagnosticAt(*a, 3, "no content"));

        const auto g = loadText("{\"contents\": [\n{\"role\": \"user\", \"parts\": \"hi\"},\n{\"role\": \"user\", "
                                "\"parts\": [3, {\"text\": \"ok\"}]}]}",
                                Format::Gemini);
        QCOMPARE(g->messages.size(), 2u);
        QVERIFY(hasDiagnosticAt(*g, 2, "no parts"));
        QVERIFY(hasDiagnosticAt(*g, 3, "part is not an object"));
        QCOMPARE(g->messages[1].plainText(), std::string("ok"));

        // A broken document: diagnostics, one raw record, the bytes come back unchanged.
        const std::string broken = "{\"input\": [{\"type\": \"message\", \"role\": \"user\", \"content\": \"hi\"}, {\"ty";
        for (Format f : {Format::OpenAIChat, Format::OpenAIResponses, Format::Anthropic, Format::Gemini}) {
            const auto b = loadText(broken, f);
            QVERIFY(b);
            QCOMPARE(countSeverity(*b, Diagnostic::Severity::Error), 1u);
            QCOMPARE(b->records.size(), 1u);
            QVERIFY(!b->records[0].parsed);
            QCOMPARE(writeTranscript(*b, f).bytes, broken);
        }
        // Wrong top-level shapes never throw.
        for (const char *doc : {"42", "\"text\"", "null", "{\"messages\": 5, \"contents\": {}, \"input\": 7}", "[1,2]"})
            for (Format f : {Format::OpenAIChat, Format::OpenAIResponses, Format::Anthropic, Format::Gemini})
                QVERIFY(loadText(doc, f));
    }
};

QTEST_GUILESS_MAIN(TestApiFormats)
#include "tst_apiformats.moc"
