// SPDX-License-Identifier: MIT
#include "core/io/requestsession.h"

#include "core/formats/recording/answer.h"
#include "core/util/spaces.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <system_error>
#include <unordered_map>

namespace cl {

namespace fs = std::filesystem;

std::string findAgentSession(const std::string &sessionId, const std::string &home)
{
    // An id is a file name's part, never a path.
    if (sessionId.empty() || home.empty() || sessionId.find('/') != std::string::npos || sessionId.find("..") != std::string::npos)
        return {};
    std::error_code ec;
    for (fs::directory_iterator it(fs::path(home) / ".claude" / "projects", ec), end; !ec && it != end; it.increment(ec)) {
        const fs::path candidate = it->path() / (sessionId + ".jsonl");
        if (fs::is_regular_file(candidate, ec))
            return candidate.string();
    }
    ec.clear();
    const std::string suffix = "-" + sessionId + ".jsonl";
    for (fs::recursive_directory_iterator it(fs::path(home) / ".codex" / "sessions", ec), end; !ec && it != end; it.increment(ec)) {
        if (it.depth() > 3) {
            it.disable_recursion_pending();
            continue;
        }
        const std::string name = it->path().filename().string();
        if (name.starts_with("rollout-") && name.ends_with(suffix) && it->is_regular_file(ec))
            return it->path().string();
    }
    return {};
}

std::string sessionIdOf(const RecordingSummary &summary)
{
    for (const RequestSummary &r : summary.requests)
        if (!r.session.empty())
            return r.session;
    return {};
}

std::size_t linkToSession(RecordingSummary &summary, const recording::Recording &rec, const Transcript &session)
{
    std::unordered_map<std::string, std::size_t> byId, byTool;
    std::multimap<std::string, std::size_t> byText; // in message order for each text
    for (std::size_t i = 0; i < session.messages.size(); ++i) {
        const Message &m = session.messages[i];
        if (m.role != Role::Assistant)
            continue;
        if (!m.apiMessageId.empty())
            byId.emplace(m.apiMessageId, i); // a response split over lines: its first
        for (const Block &b : m.blocks)
            if (b.type == BlockType::ToolUse && !b.toolId.empty()) {
                byTool.emplace(b.toolId, i);
                // Gemini CLI writes the call id the model gave it after the tool's name: "NAME__ID".
                if (const std::size_t sep = b.toolId.rfind("__"); sep != std::string::npos && sep + 2 < b.toolId.size())
                    byTool.emplace(b.toolId.substr(sep + 2), i);
            }
        if (std::string text(util::trimSpaces(m.plainText())); !text.empty())
            byText.emplace(std::move(text), i);
    }
    std::size_t linked = 0;
    const std::size_t n = std::min(summary.requests.size(), rec.exchanges.size());
    for (std::size_t k = 0; k < n; ++k) {
        const recording::Exchange &e = rec.exchanges[k];
        RequestSummary &s = summary.requests[k];
        s.sessionMessage = -1;
        if (!e.isModelCall() || e.responseLine == 0)
            continue;
        const recording::Answer a = recording::readAnswer(e.api, e.responseBody);
        if (!a.decoded)
            continue;
        if (const auto it = byId.find(a.message.apiMessageId); !a.message.apiMessageId.empty() && it != byId.end())
            s.sessionMessage = std::int64_t(it->second);
        for (const Block &b : a.message.blocks)
            if (s.sessionMessage < 0 && b.type == BlockType::ToolUse && !b.toolId.empty())
                if (const auto it = byTool.find(b.toolId); it != byTool.end())
                    s.sessionMessage = std::int64_t(it->second);
        if (s.sessionMessage < 0) {
            const std::string text(util::trimSpaces(a.message.plainText()));
            const auto it = text.empty() ? byText.end() : byText.lower_bound(text); // the first of equals
            if (it != byText.end() && it->first == text) {
                s.sessionMessage = std::int64_t(it->second);
                byText.erase(it); // the same words answered twice are two messages
            }
        }
        linked += s.sessionMessage >= 0 ? 1 : 0;
    }
    return linked;
}

} // namespace cl
