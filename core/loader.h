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
Format detectFormat(std::string_view bytes, std::string_view path = {});

LoadResult loadFile(const std::string &path, const LoadOptions &opts = {});
LoadResult loadBytes(std::string bytes, std::string path, const LoadOptions &opts = {});

} // namespace cl
