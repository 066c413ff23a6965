// SPDX-License-Identifier: MIT
// Tools Anthropic runs itself (web search, web fetch): a server_tool_use and its result block
// (web_search_tool_result, ...) in the same assistant message, in a Claude Code session and in an
// Anthropic API history. They count as a tool call and a tool result with their real size, pair up,
// go back to the file exactly as they were read, and no strategy edits them (their encrypted
// content cannot be rewritten); other formats leave the pair out with a note.
#include "core/formats/formats.h"
#include "core/io/loader.h"
#include "core/io/validity.h"
#include "core/io/writer.h"
#include "core/io/export.h"
#include "core/model/servertools.h"
#include "core/report/report.h"
#include "core/report/reportdata.h"
#include "core/strategies/registry.h"
#include "core/strategy/strategy.h"
#include "core/tokens/estimator.h"
#include "claudecode_fixture.h"
#include "test_support.h"

#include <QtTest>

#include <map>

using namespace cl;
using namespace claudecode_fixture;

namespace {

struct Found {
    std::size_t message = SIZE_MAX, block = SIZE_MAX;
};

Found findServer(const Transcript &t, BlockType type, const std::string &id)
{
    for (std::size_t i = 0; i < t.messages.size(); ++i)
        for (std::size_t k = 0; k < t.messages[i].blocks.size(); ++k) {
            const Block &b = t.messages[i].blocks[k];
            if (b.type == type && b.serverSide && b.toolId == id)
                return {i, k};
        }
    return {};
}

std::string originalResultLine()
{
    const std::string all = readAll(fixture("server-tools.jsonl"));
    const auto at = all.find("\"type\":\"web_search_tool_result\"");
    const auto begin = all.rfind('\n', at) + 1;
    return all.substr(begin, all.find('\n', at) - begin);
}

// An Anthropic Messages API request whose assistant turn searched the web (three results of ~6 KB
// encrypted content each) and then ran a client tool.
std::string apiHistory()
{
    std::string encrypted;
    for (int i = 0; encrypted.size() < 8000; ++i)
        encrypted += char("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[(i * 37 + i / 7) % 64]);
    nlohmann::json results = nlohmann::json::array();
    for (int k = 0; k < 3; ++k)
        results.push_back({{"type", "web_search_result"}, {"url", "https://example.org/" + std::to_string(k)}, {"title", "Result " + std::to_string(k)}, {"encrypted_content", encrypted.substr(k * 10)}});
    nlohmann::json doc = {
        {"model", "claude-x"},
        {"max_tokens", 1024},
        {"messages",
         {{{"role", "user"}, {"content", {{{"type", "text"}, {"text", "What changed in the last release?"}}}}},
          {{"role", "assistant"},
           {"content",
            {{{"type", "server_tool_use"}, {"id", "srvtoolu_A"}, {"name", "web_search"}, {"input", {{"query", "release notes"}}}},
             {{"type", "web_search_tool_result"}, {"tool_use_id", "srvtoolu_A"}, {"content", results}},
             {{"type", "text"}, {"text", "Checking the local copy too."}},
             {{"type", "tool_use"}, {"id", "toolu_B"}, {"name", "Bash"}, {"input", {{"command", "cat CHANGES"}}}}}}},
          {{"role", "user"}, {"content", {{{"type", "tool_result"}, {"tool_use_id", "toolu_B"}, {"content", "4.2.1: overflow fixed"}}}}},
          {{"role", "assistant"}, {"content", {{{"type", "text"}, {"text", "4.2.1 fixed the overflow."}}}}}}}};
    return doc.dump(1);
}

std::shared_ptr<Transcript> loadApi(std::string bytes)
{
    LoadOptions o;
    o.format = Format::Anthropic;
    return loadBytes(std::move(bytes), "history.json", o).transcript;
}

} // namespace

class TestServerTools : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void claudeCodeSessionCountsThem();
    void claudeCodeWritesThemBack();
    void strategiesLeaveThem();
    void anthropicHistory();
    void otherFormatsLeaveThemOut();
};

void TestServerTools::claudeCodeSessionCountsThem()
{
    const auto t = loadPath(fixture("server-tools.jsonl"));
    QVERIFY(t);
    QCOMPARE(errors(*t), 0);
    const Found call = findServer(*t, BlockType::ToolUse, "srvtoolu_01");
    const Found result = findServer(*t, BlockType::ToolResult, "srvtoolu_01");
    QVERIFY(call.message != SIZE_MAX && result.message != SIZE_MAX);
    QCOMPARE(result.message, call.message); // one assistant message holds the call and its result
    const Message &m = t->messages[call.message];
    QCOMPARE(m.blocks[call.block].toolName, std::string("web_search"));
    QCOMPARE(m.blocks[call.block].input["query"], nlohmann::json("parser library overflow fix release"));
    const Block &r = m.blocks[result.block];
    QCOMPARE(r.pairMessage, std::int32_t(call.message));
    QCOMPARE(r.pairBlock, std::int32_t(call.block));
    QCOMPARE(r.toolName, std::string("web_search"));
    QVERIFY(!r.isError);
    QVERIFY(r.text.find("encrypted_content") != std::string::npos);
    const Found fetch = findServer(*t, BlockType::ToolResult, "srvtoolu_02");
    QVERIFY(fetch.message != SIZE_MAX);
    QVERIFY(t->messages[fetch.message].blocks[fetch.block].isError); // web_fetch_tool_error
    QCOMPARE(serverResultSummary(t->messages[fetch.message].blocks[fetch.block]), std::string("error: url_not_accessible"));
    QCOMPARE(serverResultSummary(r).substr(0, 72),
             std::string("3 results: Release notes part 0 (https://example.org/notes/0); Release n"));

    // The ~24 KB of search results the model read count by their size (they were 10 tokens).
    const std::int64_t resultTokens = tokens::estimateBlock(r);
    QVERIFY2(resultTokens > 4000, std::to_string(resultTokens).c_str());
    QVERIFY(tokens::estimateMessage(m) > resultTokens);
    // Two server calls and the Bash call are tool calls; none is reported unanswered.
    report::ReportOptions none;
    none.strategies = std::vector<std::string>{};
    const report::Figures f = report::collect(*t, none).figures;
    QCOMPARE(f.toolCalls, std::size_t(3));
    QCOMPARE(f.failedToolCalls, std::size_t(1));
    QVERIFY(validate(*t, Format::ClaudeCode).empty());
}

void TestServerTools::claudeCodeWritesThemBack()
{
    const std::string path = fixture("server-tools.jsonl");
    const auto t = loadPath(path);
    QCOMPARE(formats::inMemory(formats::writeClaudeCode, *t).bytes, readAll(path));
    // The message re-serialized (as an edit elsewhere in it would): each block goes back as it was.
    Transcript e = *t;
    const Found result = findServer(e, BlockType::ToolResult, "srvtoolu_01");
    Message &m = e.messages[result.message];
    m.blocks.front().text = "Searching the web.";
    m.edited = true;
    const WriteResult w = formats::inMemory(formats::writeClaudeCode, e);
    QVERIFY(w.ok);
    QVERIFY(w.bytes.find("Searching the web.") != std::string::npos);
    const auto back = reload(w);
    QCOMPARE(errors(*back), 0);
    const Found again = findServer(*back, BlockType::ToolResult, "srvtoolu_01");
    QVERIFY(again.message != SIZE_MAX);
    QCOMPARE(back->messages[again.message].blocks[again.block].text, m.blocks[result.block].text);
    QVERIFY(findServer(*back, BlockType::ToolUse, "srvtoolu_02").message != SIZE_MAX);
    QVERIFY(validate(*back, Format::ClaudeCode).empty());
}

void TestServerTools::strategiesLeaveThem()
{
    const auto t = loadPath(fixture("server-tools.jsonl"));
    const Found result = findServer(*t, BlockType::ToolResult, "srvtoolu_01");
    const std::string searched = t->messages[result.message].blocks[result.block].text;
    struct Case {
        const char *strategy;
        nlohmann::json params;
    };
    for (const Case &c : {Case{"openhands-observation-masking", {{"attentionWindow", 0}}},
                          Case{"snip", {{"snipMaxChars", 200}}},
                          Case{"anthropic-clear-tool-uses", {{"triggerToolUses", 1}, {"keep", 0}}}}) {
        const strategy::Strategy *s = strategy::find(c.strategy);
        QVERIFY2(s, c.strategy);
        strategy::Input in(*t);
        const strategy::Result r = strategy::run(*s, in, c.params);
        QVERIFY2(r.changed, (std::string(c.strategy) + ": " + r.note).c_str());
        const Transcript out = r.materialize(*t);
        const Found kept = findServer(out, BlockType::ToolResult, "srvtoolu_01");
        QVERIFY2(kept.message != SIZE_MAX, c.strategy);
        QCOMPARE(out.messages[kept.message].blocks[kept.block].text, searched);
        // The Bash result was the one edited (its middle lines are gone).
        bool bashChanged = false;
        for (const auto &m : out.messages)
            for (const auto &b : m.blocks)
                bashChanged = bashChanged || (b.type == BlockType::ToolResult && b.toolId == "toolu_01" && b.text.find("pkg40-helper") == std::string::npos);
        QVERIFY2(bashChanged, c.strategy);
        QVERIFY2(validate(out, Format::ClaudeCode).empty(), c.strategy);
        const WriteResult w = formats::inMemory(formats::writeClaudeCode, out);
        QVERIFY(w.ok);
        QVERIFY2(w.bytes.find(originalResultLine()) != std::string::npos, c.strategy);
        // Exported as Claude Code writes its own compactions (what the agent resumes): every line is
        // one JSON object, the call and its result (one message, lines of their own) renamed alike.
        // Their shared id was replaced twice on each line, which wrote the line's tail again after it
        // (Claude Code 2.1.328 then resumed without the export's context).
        const WriteResult e = exportTranscript(out, Format::ClaudeCode);
        QVERIFY2(e.ok, c.strategy);
        const std::string original = readAll(fixture("server-tools.jsonl"));
        QVERIFY(e.bytes.compare(0, original.size(), original) == 0);
        std::map<std::string, int> calls, results; // renamed id -> blocks
        std::size_t at = original.size();
        while (at < e.bytes.size()) {
            const std::size_t end = e.bytes.find('\n', at);
            const std::string line = e.bytes.substr(at, end - at);
            at = end == std::string::npos ? e.bytes.size() : end + 1;
            const auto j = nlohmann::json::parse(line, nullptr, false);
            QVERIFY2(!j.is_discarded(), (std::string(c.strategy) + ": " + line.substr(0, 200)).c_str());
            if (!j.contains("message") || !j["message"].is_object() || !j["message"].contains("content")
                || !j["message"]["content"].is_array())
                continue;
            for (const auto &part : j["message"]["content"]) {
                const std::string type = part.value("type", "");
                if (type == "server_tool_use")
                    ++calls[part.value("id", "")];
                else if (type.find("_tool_result") != std::string::npos && type != "tool_result")
                    ++results[part.value("tool_use_id", "")];
            }
        }
        QVERIFY2(calls.size() == 2, c.strategy); // the search and the fetch, each renamed once
        QCOMPARE(calls, results);
        for (const auto &[id, n] : calls)
            QVERIFY2(id.rfind("srvtoolu_0", 0) == 0 && id.find("_cl") != std::string::npos && n == 1, id.c_str());
    }
}

void TestServerTools::anthropicHistory()
{
    const std::string bytes = apiHistory();
    const auto t = loadApi(bytes);
    QVERIFY(t);
    const Found call = findServer(*t, BlockType::ToolUse, "srvtoolu_A");
    const Found result = findServer(*t, BlockType::ToolResult, "srvtoolu_A");
    QVERIFY(call.message != SIZE_MAX && result.message == call.message);
    QCOMPARE(t->messages[result.message].blocks[result.block].pairBlock, std::int32_t(call.block));
    QVERIFY(tokens::estimateBlock(t->messages[result.message].blocks[result.block]) > 4000);
    QVERIFY(validate(*t, Format::Anthropic).empty());
    QCOMPARE(writeTranscript(*t, Format::Anthropic).bytes, bytes);

    // Every message re-encoded: the request the API gets is the one read.
    Transcript e = *t;
    for (auto &m : e.messages)
        m.edited = true;
    const WriteResult w = formats::inMemory(formats::writeAnthropic, e);
    QVERIFY(w.ok);
    QCOMPARE(nlohmann::json::parse(w.bytes)["messages"], nlohmann::json::parse(bytes)["messages"]);
}

void TestServerTools::otherFormatsLeaveThemOut()
{
    const auto t = loadApi(apiHistory());
    for (const Format f : {Format::OpenAIChat, Format::Gemini}) {
        const WriteResult w = writeTranscript(*t, f);
        QVERIFY(w.ok);
        QVERIFY(w.bytes.find("encrypted_content") == std::string::npos);
        QVERIFY(w.bytes.find("srvtoolu_A") == std::string::npos);
        QVERIFY(w.bytes.find("cat CHANGES") != std::string::npos); // the client tool call stays
        bool noted = false;
        for (const auto &n : w.notes)
            noted = noted || n.find("provider's own tools") != std::string::npos;
        QVERIFY(noted);
        LoadOptions o;
        o.format = f;
        const auto back = loadBytes(w.bytes, "converted.json", o).transcript;
        QVERIFY(back);
        QVERIFY(validate(*back, f).empty());
    }
}

QTEST_GUILESS_MAIN(TestServerTools)
#include "tst_servertools.moc"
