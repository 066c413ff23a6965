// SPDX-License-Identifier: MIT
#pragma once

#include "core/formats/load.h"
#include "core/model/buffer.h"
#include "core/model/transcript.h"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace cl {

// Guesses the format from the content (and the file name as a hint). Unknown when nothing fits.
// readableAfter: bytes readable past the end of `bytes` (a padded buffer lets a big one-document file
// be parsed in place; see json::parse).
Format detectFormat(std::string_view bytes, std::string_view path = {}, std::size_t readableAfter = 0);

LoadResult loadFile(const std::string &path, const LoadOptions &opts = {});
LoadResult loadBytes(std::string bytes, std::string path, const LoadOptions &opts = {});

} // namespace cl
