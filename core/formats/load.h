// SPDX-License-Identifier: MIT
#pragma once

// What a load asks for and what it gives back (core/io/loader.h loads files with them; the format
// loaders see the options through their LoadContext).

#include "core/model/transcript.h"
#include "core/util/parallel.h"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace cl {

struct LoadOptions {
    std::optional<Format> format;         // explicit override; auto-detect when empty
    bool loadSubagents = true;            // Claude Code: <session>/subagents/*.jsonl
    bool wholeHistory = false;            // true: no message is history (markLiveContext not called)
    int threads = util::defaultThreads(); // parsing and token estimation
    std::size_t request = 0;              // a recording: which request (1-based; 0: the last of the agent's loop)
    std::function<void(double)> progress; // 0..1, may be called from worker threads
    const std::atomic_bool *cancel = nullptr;
};

struct LoadResult {
    std::shared_ptr<Transcript> transcript; // null only on failure (unreadable file, cancelled)
    bool cancelled = false;
    std::string error; // why it failed
    bool ok() const { return transcript != nullptr; }
};

} // namespace cl
