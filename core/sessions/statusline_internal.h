// SPDX-License-Identifier: MIT
#pragma once

// Internals of the status line (core/sessions/statusline.h): the session file as mapped, where its
// live part starts, and the state kept between calls.

#include "core/model/transcript.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cl::statusline::detail {

// A regular file mapped read-only; empty view when it is empty.
class MappedFile
{
public:
    MappedFile() = default;
    ~MappedFile();
    MappedFile(const MappedFile &) = delete;
    MappedFile &operator=(const MappedFile &) = delete;
    bool open(const std::string &path, std::string &error);
    std::string_view bytes() const { return {m_data, m_size}; }
    std::uint64_t inode = 0, device = 0;
    std::int64_t mtimeNs = 0;

private:
    int m_fd = -1;
    const char *m_data = nullptr;
    std::size_t m_size = 0;
};

// The start of the last Claude Code compaction boundary line ({"type":"system",
// "subtype":"compact_boundary"} of the main chain) that starts in [from, bytes.size()); none when there
// is none. Reads backwards from the end, so only the live part is touched.
std::optional<std::size_t> lastBoundary(std::string_view bytes, std::size_t from);

std::uint64_t fnv1a(std::string_view bytes);

struct SubagentState {
    std::string path;
    std::uint64_t size = 0;
    std::int64_t mtimeNs = 0;
    double dollars = 0;
    std::int64_t unpriced = 0;
};

struct State {
    std::string path;
    std::string format; // formatName() of the file as the first call detected it
    std::uint64_t inode = 0, device = 0;
    std::uint64_t liveOffset = 0;         // the last boundary line's start (0: none)
    std::uint64_t liveLine = 0;           // lines before it
    std::uint64_t headHash = 0;           // the file's first bytes
    std::uint64_t edgeHash = 0;           // the bytes around liveOffset
    bool liveUsable = true;               // the live part alone gave the whole file's figure
    Transcript::TokenCalibration carried; // factor, pairs, fixed part of the whole file
    double prefixDollars = 0;             // the history before liveOffset, main file
    std::int64_t prefixUnpriced = 0;
    std::vector<SubagentState> subagents;
};

// Hashes of the bytes a state is checked against.
std::uint64_t headHash(std::string_view bytes);
std::uint64_t edgeHash(std::string_view bytes, std::size_t offset);

bool loadState(const std::string &file, State &out);
bool saveState(const std::string &file, const State &s);
// The state file of a session: by its id when it is a plain name, else by the hash of its path.
std::string stateFileFor(const std::string &dir, const std::string &sessionId, const std::string &path);

} // namespace cl::statusline::detail
