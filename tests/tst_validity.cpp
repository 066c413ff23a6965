// SPDX-License-Identifier: MIT
// Each validity rule of formats.md: a minimal violating request (violation on the right message)
// and a valid request with no violations. Every check also validates the transcript's shape (what
// strategy::run() validates instead of a full copy) and fails when that finds anything else.
#include "core/io/loader.h"
#include "core/strategy/strategy.h"
#include "core/io/validity.h"

#include <QtTest>

using namespace cl;

namespace {

std::string describe(const std::vector<Violation> &v)
{
    std::string s;
    for (const auto &x : v)
        s += "[" + std::to_string(x.message) + "] " + x.reason + "; ";
    return s;
}

std::vector<Violation> check(const std::string &doc, Format f)
{
    LoadOptions o;
    o.format = f;
    const auto r = loadBytes(doc, "rule.json", o);
    if (!r.transcript)
        return {{-1, "load failed"}};
    std::vector<Violation> full = validate(*r.transcript, f);
    const std::vector<Violation> shaped = validate(strategy::unchanged(*r.transcript).shape(*r.transcript), f);
    if (describe(shaped) != describe(full))
        full.push_back({-2, "the shape's violations differ: " + describe(shaped)});
    return full;
}

// Exactly one violation, on `message`, whose reason mentions `needle`.
void expectOne(const std::vector<Violation> &v, int message, const char *needle)
{
    QVERIFY2(v.size() == 1, describe(v).c_str());
    QCOMPARE(v[0].message, message);
    QVERIFY2(v[0].reason.find(needle) != std::string::npos, v[0].reason.c_str());
}

const char *kUser = R"({"role": "user", "content": "hi"})";

std::string anthropic(std::initializer_list<std::string> messages)
{
    std::string s = R"({"model": "claude-x", "max_tokens": 10, "messages": [)";
    bool first = true;
    for (const auto &m : messages) {
        s += (first ? "" : ",") + m;
        first = false;
    }
    return s + "]}";
}

std::string list(std::initializer_list<std::string> items)
{
    std::string s = "[";
    bool first = true;
    for (const auto &m : items) {
        s += (first ? "" : ",") + m;
        first = false;
    }
    return s + "]";
}

std::string contents(std::initializer_list<std::string> items)
{
    return "{\"contents\": " + list(items) + "}";
}

} // namespace

class TestValidity : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void anthropicRules()
    {
        const std::string use = R"({"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]})";
        const std::string result = R"({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]})";
        const std::string answer = R"({"role": "assistant", "content": "done"})";
        const std::string valid = R"({"model": "claude-x", "max_tokens": 10, "system": "be brief", "messages": [)" + std::string(kUser)
                                  + "," + use + "," + result + "," + answer + "]}";
        QVERIFY2(check(valid, Format::Anthropic).empty(), describe(check(valid, Format::Anthropic)).c_str());

        expectOne(check(anthropic({answer, kUser}), Format::Anthropic), 0, "first message");
        expectOne(check(anthropic({kUser, kUser, answer}), Format::Anthropic), 1, "alternate");
        expectOne(check(anthropic({kUser, use, R"({"role": "user", "content": "no result"})"}), Format::Anthropic), 1,
                  "not answered");
        expectOne(check(anthropic({kUser, answer, result}), Format::Anthropic), 2, "does not answer");
        expectOne(check(anthropic({kUser, R"({"role": "assistant", "content": []})"}), Format::Anthropic), 1,
                  "empty content");
        expectOne(check(anthropic({R"({"role": "user", "content": [{"type": "thinking", "thinking": "x", "signature": "s"}, {"type": "text", "text": "q"}]})", answer}),
                        Format::Anthropic),
                  0, "thinking");
        expectOne(check(anthropic({kUser, R"({"role": "system", "content": "x"})", answer}), Format::Anthropic), 1,
                  "not allowed");
        QCOMPARE(check(R"({"model": "x", "messages": []})", Format::Anthropic).size(), 1u);
    }

    void openaiChatRules()
    {
        const std::string calls = R"({"role": "assistant", "content": null, "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}},
            {"id": "b", "type": "function", "function": {"name": "g", "arguments": "{}"}}]})";
        const std::string toolA = R"({"role": "tool", "tool_call_id": "a", "content": "A"})";
        const std::string toolB = R"({"role": "tool", "tool_call_id": "b", "content": "B"})";
        const std::string answer = R"({"role": "assistant", "content": "done"})";
        const std::string sys = R"({"role": "system", "content": "sys"})";
        const std::string valid = list({sys, kUser, calls, toolA, toolB, answer});
        QVERIFY2(check(valid, Format::OpenAIChat).empty(), describe(check(valid, Format::OpenAIChat)).c_str());

        expectOne(check(list({kUser, toolA}), Format::OpenAIChat), 1, "without a preceding assistant");
        expectOne(check(list({kUser, calls, toolA, kUser}), Format::OpenAIChat), 1, "tool call b is not answered");
        expectOne(check(list({kUser, calls, toolA, toolB, R"({"role": "tool", "tool_call_id": "zzz", "content": "?"})"}),
                        Format::OpenAIChat),
                  4, "did not issue");
        // A tool reply separated from its call by another message is not in the call's tool block.
        const auto late = check(list({kUser, calls, toolA, answer, toolB}), Format::OpenAIChat);
        QCOMPARE(late.size(), 2u);
        QCOMPARE(late[0].message, 1); // b unanswered before the next non-tool message
        QCOMPARE(late[1].message, 4); // tool message with no call before it
        expectOne(check(list({kUser, R"({"role": "assistant", "content": null})"}), Format::OpenAIChat), 1,
                  "neither content nor tool_calls");
        expectOne(check(list({kUser, calls, toolA}), Format::OpenAIChat), 1, "b"); // request ends unanswered
    }

    void openaiResponsesRules()
    {
        const std::string user = R"({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]})";
        const std::string reasoning = R"({"type": "reasoning", "id": "rs", "summary": [{"type": "summary_text", "text": "think"}]})";
        const std::string call = R"({"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"})";
        const std::string output = R"({"type": "function_call_output", "call_id": "c1", "output": "ok"})";
        const std::string answer = R"({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]})";
        const std::string valid = "{\"instructions\": \"sys\", \"input\": " + list({user, reasoning, call, output, answer}) + "}";
        QVERIFY2(check(valid, Format::OpenAIResponses).empty(), describe(check(valid, Format::OpenAIResponses)).c_str());

        expectOne(check(list({user, output}), Format::OpenAIResponses), 1, "no earlier function_call");
        expectOne(check(list({user, call, user}), Format::OpenAIResponses), 1, "no function_call_output");
        expectOne(check(list({user, reasoning, user}), Format::OpenAIResponses), 1, "reasoning");
        expectOne(check(list({user, call, output, reasoning}), Format::OpenAIResponses), 3, "reasoning");
    }

    void geminiRules()
    {
        const std::string user = R"({"role": "user", "parts": [{"text": "hi"}]})";
        const std::string call = R"({"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "f", "args": {}}}]})";
        const std::string response = R"({"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "f", "response": {"output": "ok"}}}]})";
        const std::string answer = R"({"role": "model", "parts": [{"text": "done"}]})";
        const std::string valid = R"({"systemInstruction": {"parts": [{"text": "sys"}]}, "contents": )"
                                  + list({user, call, response, answer}) + "}";
        QVERIFY2(check(valid, Format::Gemini).empty(), describe(check(valid, Format::Gemini)).c_str());

        expectOne(check(contents({answer, user}), Format::Gemini), 0, "first content");
        expectOne(check(contents({user, answer, R"({"role": "function", "parts": [{"text": "x"}]})"}), Format::Gemini), 2,
                  "not allowed");
        expectOne(check(contents({user, call, user}), Format::Gemini), 1, "not answered");
        expectOne(check(contents({response, answer}), Format::Gemini), 0, "does not answer");
        // Without ids the response pairs by name, as Gemini does.
        const std::string anonCall = R"({"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]})";
        const std::string anonResp = R"({"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {}}}]})";
        QVERIFY(check(contents({user, anonCall, anonResp, answer}), Format::Gemini).empty());
        expectOne(check(contents({user, R"({"role": "model", "parts": []})"}), Format::Gemini), 1, "no parts");
    }

    void sessionToolPairing()
    {
        Transcript t;
        t.format = Format::ClaudeCode;
        auto msg = [&](Role r, BlockType bt, const char *id) {
            Message m;
            m.role = r;
            Block b;
            b.type = bt;
            b.toolId = id;
            b.toolName = "Read";
            m.blocks.push_back(b);
            t.messages.push_back(m);
        };
        msg(Role::Assistant, BlockType::ToolUse, "u1");
        msg(Role::User, BlockType::ToolResult, "u1");
        msg(Role::Assistant, BlockType::ToolUse, "u2");  // never answered
        msg(Role::User, BlockType::ToolResult, "ghost"); // answers nothing
        linkToolPairs(t);
        for (Format f : {Format::ClaudeCode, Format::Codex, Format::GeminiCli, Format::CopilotCli}) {
            const auto v = validate(t, f);
            QCOMPARE(v.size(), 2u);
            QCOMPARE(v[0].message, 2);
            QCOMPARE(v[1].message, 3);
        }
        t.messages.resize(2);
        linkToolPairs(t);
        QVERIFY(validate(t, Format::ClaudeCode).empty());
    }

    // Built by hand (the loaders drop empty text blocks): the shape keeps a text's emptiness.
    void emptyTextBlockInTheShape()
    {
        Transcript t;
        t.format = Format::Anthropic;
        for (const char *text : {"hello", ""}) {
            Message m;
            m.role = t.messages.empty() ? Role::User : Role::Assistant;
            m.blocks.push_back(Block{});
            m.blocks.back().text = text;
            t.messages.push_back(m);
        }
        const auto full = validate(t, Format::Anthropic);
        QCOMPARE(full.size(), 1u);
        QCOMPARE(full[0].message, 1);
        QCOMPARE(full[0].reason, std::string("empty text block"));
        QCOMPARE(describe(validate(strategy::unchanged(t).shape(t), Format::Anthropic)), describe(full));
    }

    void validateConvertedRepairs()
    {
        // Two user messages in a row and an unanswered call: invalid as loaded ...
        const std::string doc = anthropic({kUser, kUser,
                                           R"({"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]})"});
        LoadOptions o;
        o.format = Format::Anthropic;
        const auto t = loadBytes(doc, "in.json", o).transcript;
        QCOMPARE(validate(*t, Format::Anthropic).size(), 2u);
        // ... untouched same-format export gives the original bytes back, so it stays invalid,
        QCOMPARE(validateConverted(*t, Format::Anthropic).size(), 2u);
        // ... while every conversion is repaired.
        for (Format f : {Format::OpenAIChat, Format::OpenAIResponses, Format::Gemini}) {
            const auto v = validateConverted(*t, f);
            QVERIFY2(v.empty(), describe(v).c_str());
        }
        QCOMPARE(validateConverted(*t, Format::Unknown).size(), 1u);
        QCOMPARE(validateConverted(*t, Format::Unknown)[0].message, -1);
    }
};

QTEST_GUILESS_MAIN(TestValidity)
#include "tst_validity.moc"
