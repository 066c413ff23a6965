// SPDX-License-Identifier: MIT
#pragma once

// Model answers kept on disk, so that re-opening a preview costs nothing: one JSON file per answer in
// a folder, named by a 128-bit hash of provider, base URL, model, output limit, temperature and the
// whole prompt. The API key is never part of the key or the file.

#include "core/llm/provider.h"

#include <optional>
#include <string>

namespace cl::llm {

std::string cacheKey(const Config &c, const Prompt &p);

struct CachedAnswer {
    std::string text;
    Usage usage;
    std::string model;
};
std::optional<CachedAnswer> readCache(const std::string &dir, const std::string &key);
bool writeCache(const std::string &dir, const std::string &key, const CachedAnswer &a);

} // namespace cl::llm
