// SPDX-License-Identifier: MIT
#pragma once

#include "core/transcript.h"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace cl {

// Transcript::buffer always has at least this many readable bytes of capacity after its end, all
// initialized (spaces), so that SIMD parsers may read past the last line in place.
constexpr std::size_t kBufferPadding = 64;
// Adds that padding to bytes (without a copy when their capacity already allows it).
void padBuffer(std::string &bytes);
// Bytes readable after `text`, a view into `buffer`: the rest of the buffer, and its padding when it
// has one (for parsers that read past the end of what they parse).
inline std::size_t readableAfter(const std::string &buffer, std::string_view text)
{
    const std::size_t end = std::size_t(text.data() + text.size() - buffer.data());
    const std::size_t limit = buffer.size() + (buffer.capacity() >= buffer.size() + kBufferPadding ? kBufferPadding : 0);
    return end <= limit ? limit - end : 0;
}

struct LoadOptions {
    std::optional<Format> format;            // explicit override; auto-detect when empty
    bool loadSubagents = true;               // Claude Code: <session>/subagents/*.jsonl
    int threads = 2;                         // parsing and token estimation
    std::function<void(double)> progress;    // 0..1, may be called from worker threads
    const std::atomic_bool *cancel = nullptr;
};

struct LoadResult {
    std::shared_ptr<Transcript> transcript;  // null only on failure (unreadable file, cancelled)
    bool cancelled = false;
    std::string error;                       // why it failed
    bool ok() const { return transcript != nullptr; }
};

// Guesses the format from the content (and the file name as a hint). Unknown when nothing fits.
// readableAfter: bytes readable past the end of `bytes` (a padded buffer lets a big one-document file
// be parsed in place; see json::parse).
Format detectFormat(std::string_view bytes, std::string_view path = {}, std::size_t readableAfter = 0);

LoadResult loadFile(const std::string &path, const LoadOptions &opts = {});
LoadResult loadBytes(std::string bytes, std::string path, const LoadOptions &opts = {});

} // namespace cl
