// SPDX-License-Identifier: MIT
#pragma once

// The Claude Code JSONL writer of the session generator. Not a public API.

#include "core/generator/internal.h"

#include <map>
#include <string>

namespace cl::gen::detail {

class ClaudeSink final : public Sink
{
public:
    static constexpr const char *kVersion = "2.0.76";

    ClaudeSink(std::uint64_t seed, const Project &p, std::string sessionId, Stats &stats);
    void add(Event &&e) override;
    std::size_t bytes() const override { return m_out.size(); }
    std::string take() { return std::move(m_out); }
    void reserve(std::size_t n) { m_out.reserve(n); }

private:
    ojson envelope(const std::string &type);
    void finish(ojson &j, const std::string &uuid, std::int64_t timeMs);
    void line(const ojson &j);
    // Lines are written in order, so their timestamps never go back even when a response's blocks
    // streamed for longer than the script's clock assumed.
    std::int64_t clock(std::int64_t want)
    {
        m_lastTime = want > m_lastTime ? want : m_lastTime + 1;
        return m_lastTime;
    }

    Rng m_rng;
    const Project &m_p;
    std::string m_sessionId;
    Stats &m_stats;
    std::string m_out;
    std::string m_lastUuid;
    std::int64_t m_lastTime = 0;
    std::map<std::string, std::string> m_toolSource; // tool_use id -> uuid of the line that issued it
};

} // namespace cl::gen::detail
