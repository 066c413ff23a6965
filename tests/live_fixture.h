// SPDX-License-Identifier: MIT
#pragma once
// Sessions for the live-watch tests (tst_livetail, tst_livegui).
#include <nlohmann/json.hpp>

#include <string>

namespace cl::test {

// A Claude Code session of `turns` requests, each answered once with the recorded context
// step × (turn + 1) input tokens (10,000 by default) and 100 output tokens.
inline std::string growingSession(int turns, int step = 10000)
{
    std::string out;
    std::string parent;
    for (int k = 1; k <= turns; ++k) {
        const std::string u = "u" + std::to_string(k), a = "a" + std::to_string(k);
        nlohmann::json user = {{"type", "user"}, {"uuid", u}, {"parentUuid", parent.empty() ? nlohmann::json() : nlohmann::json(parent)}, {"sessionId", "s"}, {"timestamp", "2026-11-28T10:00:00.000Z"}, {"message", {{"role", "user"}, {"content", "request " + std::to_string(k)}}}};
        nlohmann::json assistant = {
            {"type", "assistant"},
            {"uuid", a},
            {"parentUuid", u},
            {"sessionId", "s"},
            {"timestamp", "2026-11-28T10:00:01.000Z"},
            {"message", {{"id", "msg_" + std::to_string(k)}, {"role", "assistant"}, {"model", "claude-sonnet-4-5"}, {"content", {{{"type", "text"}, {"text", "answer " + std::to_string(k)}}}}, {"usage", {{"input_tokens", step * (k + 1)}, {"output_tokens", 100}, {"cache_creation_input_tokens", 0}, {"cache_read_input_tokens", 0}}}}}};
        out += user.dump() + "\n" + assistant.dump() + "\n";
        parent = a;
    }
    return out;
}

} // namespace cl::test
