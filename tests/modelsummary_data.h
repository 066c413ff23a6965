// SPDX-License-Identifier: MIT
#pragma once

// Provider answers for tst_modelsummary (kept out of the test file: moc does not parse raw strings).

namespace cl::test::answers {

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
