// SPDX-License-Identifier: MIT
#pragma once

// Writing the working transcript over the session file it was loaded from (docs/design/saving.md):
// 1. refuse when the file changed since it was loaded (it grew: the agent is still writing it);
// 2. encode the working transcript the way its agent resumes from it (core/io/export.h);
// 3. load those bytes back and refuse unless they give the same live context (the same
//    conversation messages, role by role and content by content);
// 4. back the original up (core/io/backups.h; refuse when that fails);
// 5. replace the file atomically (its mode kept), checking once more that it did not change.

#include "core/io/backups.h"
#include "core/model/transcript.h"

#include <cstdint>
#include <optional>
#include <string>

namespace cl {

// What a file looked like when it was read.
struct FileStamp {
    std::uint64_t size = 0;
    std::int64_t mtimeNs = 0;
    bool operator==(const FileStamp &o) const { return size == o.size && mtimeNs == o.mtimeNs; }
};
std::optional<FileStamp> stampOf(const std::string &path);

struct SaveInPlaceOptions {
    std::string backupRoot = backups::defaultRoot();
    std::int64_t preTokens = -1; // the export's compactMetadata.preTokens (-1: the transcript's estimate)
    // The export's compactMetadata.contextlens (core/io/export.h).
    nlohmann::json origin = nlohmann::json::object();
};

struct SaveInPlaceResult {
    bool ok = false;
    bool changedOnDisk = false; // refused: the file is not what was loaded (reload it)
    std::string error;
    backups::Entry backup; // the copy of what the file held
    std::vector<std::string> notes;
};

// The first conversation message where two transcripts' live contexts differ ("" when they are the same).
std::string liveContextDifference(const Transcript &expected, const Transcript &actual);

SaveInPlaceResult saveInPlace(const Transcript &working, const std::string &path, const FileStamp &loaded,
                              const SaveInPlaceOptions &options = {});

} // namespace cl
