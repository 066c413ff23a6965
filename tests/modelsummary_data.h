// SPDX-License-Identifier: MIT
#pragma once

// Shared by tst_llmformats and tst_modelsummary: provider answers (kept out of the test files: moc
// does not parse raw strings), a test key, a Claude Code style answer and the session it summarizes.

#include "core/strategy/summary/summary.h"
#include "core/tokens/estimator.h"

#include "strategy_fixture.h"

namespace cl::test::answers {

using cl::test::tierfix::Builder;
using cl::test::tierfix::prose;

inline const char *const kKey = "sk-test-SECRET-4711";

inline const char *const kClaudeAnswer =
    "<analysis>Going through it in order.</analysis>\n<summary>\n"
    "1. Primary Request and Intent: Fix the parser in the project.\n"
    "2. Key Technical Concepts: Python, pytest\n"
    "3. Files and Code Sections: /src/a.py, the parser\n"
    "4. Errors and fixes: a failing test, fixed\n"
    "5. Problem Solving: ran pytest -q tests/test_parser.py\n"
    "6. All user messages: Fix the parser in the project.\n"
    "7. Pending Tasks: none\n"
    "8. Current Work: the parser is fixed\n"
    "9. Optional Next Step: none\n</summary>";

// System prompt, two requests, reads, a failing test run, an edit (facts: 2 requests, 2 paths,
// 1 command, 1 error).
struct Session {
    Transcript t;
    std::vector<std::size_t> messages; // everything but the system prompt
    Session()
    {
        Builder b;
        b.text(Role::System, "You are a coding agent.");
        b.text(Role::User, "Fix the parser in the project.");
        b.tool("Read", {{"file_path", "/src/a.py"}}, prose(6000, 1));
        b.tool("Bash", {{"command", "pytest -q tests/test_parser.py"}}, "FAILED tests/test_parser.py::test_empty - ValueError", true);
        b.tool("Edit", {{"file_path", "/src/a.py"}, {"old_string", "a"}, {"new_string", "b"}}, "The file was updated.");
        b.text(Role::Assistant, "Fixed the empty-input case.");
        b.text(Role::User, "Now update /src/b.py docs.");
        b.tool("Read", {{"file_path", "/src/b.py"}}, prose(6000, 2));
        t = b.done();
        for (std::size_t i = 1; i < t.messages.size(); ++i)
            messages.push_back(i);
    }
    strategy::SummaryRequest request(const std::string &style = "claude-code") const
    {
        strategy::SummaryRequest r;
        r.transcript = &t;
        r.messages = messages;
        r.style = style;
        for (const std::size_t i : messages)
            r.tokensBefore += tokens::estimateMessage(t.messages[i]);
        return r;
    }
};

inline const char *const kBody0 = R"({"content":[{"type":"text","text":"Hi"}],"stop_reason":"refusal","usage":{"input_tokens":5,"output_tokens":2}})";
inline const char *const kBody1 = R"({"choices":[{"message":{"content":"x"},"finish_reason":"length"}]})";
inline const char *const kBody2 = R"({"status":"completed","output":[{"type":"message","content":[{"type":"refusal","refusal":"no"}]}]})";
inline const char *const kBody3 = R"({"promptFeedback":{"blockReason":"SAFETY"}})";
inline const char *const kBody4 = R"({"error":{"type":"overloaded_error","message":"Overloaded"}})";
inline const char *const kBody5 = R"([{"error":{"code":429,"message":"Quota","status":"RESOURCE_EXHAUSTED"}}])";
inline const char *const kBody6 = R"({"models":[{"match":"qwen2.5","input":0,"output":0}]})";

inline const char *const kAnthropicStream =
    "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":7}}}\n\n"
    ": keep-alive\n\n"
    "event: content_block_delta\r\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":\"Hel\"}}\r\n\r\n"
    "data: {\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":\"lo\"}}\n\n"
    "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":3}}\n\n"
    "data: {\"type\":\"message_stop\"}";

} // namespace cl::test::answers
