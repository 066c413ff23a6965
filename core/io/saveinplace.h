// SPDX-License-Identifier: MIT
#pragma once

// Writing the working transcript over the session file it was loaded from (docs/design/saving.md):
// 1. refuse when the file changed since it was loaded (it grew: the agent is still writing it), when
//    it is read-only, or when an agent is running the session (core/io/runningagent.h);
// 2. encode the working transcript the way its agent resumes from it (core/io/export.h);
// 3. load those bytes back and refuse unless they give the same live context (the same
//    conversation messages, role by role and content by content);
// 4. back the original up (core/io/backups.h; refuse when that fails);
// 5. replace the file atomically (its mode kept), checking once more right before the rename that
//    it did not change and nobody has it open for writing; the original stays open, and when it grew
//    in the moment of the rename it is put back (rolled back) with what was written to it.

#include "core/io/backups.h"
#include "core/io/runningagent.h"
#include "core/model/transcript.h"

#include <cstdint>
#include <functional>
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

// "" when the user may replace the file; else why not ("it is read-only (mode 0444)…"). Both
// access(W_OK) and the mode bits: root passes access() on a file nobody may write.
std::string whyNotWritable(const std::string &path);

// The moments of a save a test can act in (SaveInPlaceOptions::testHook).
enum class SaveStep {
    BeforeFinalCheck, // the new file is written and flushed
    BeforeRename,     // the last checks passed; the next step renames the new file over the original
};

struct SaveInPlaceOptions {
    std::string backupRoot = backups::defaultRoot();
    std::int64_t preTokens = -1; // the export's compactMetadata.preTokens (-1: the transcript's estimate)
    bool checkRunningAgent = true;
    running::Options running;               // where the running agents are looked for
    std::string then = "save again";        // what the user does after quitting the agent, for the refusal
    std::function<void(SaveStep)> testHook; // tests only: called at each step
    // The export's compactMetadata.contextlens (core/io/export.h).
    nlohmann::json origin = nlohmann::json::object();
};

struct SaveInPlaceResult {
    bool ok = false;
    bool changedOnDisk = false;                 // refused: the file is not what was loaded (reload it)
    std::optional<running::RunningAgent> agent; // refused: this agent is running the session
    bool rolledBack = false;                    // it grew while being replaced: the original is back, with what was written
    std::uint64_t carriedOver = 0;              // bytes written to the original meanwhile, appended to the saved file
    std::string error;
    backups::Entry backup; // the copy of what the file held
    std::vector<std::string> notes;
};

// The first conversation message where two transcripts' live contexts differ ("" when they are the same).
std::string liveContextDifference(const Transcript &expected, const Transcript &actual);

SaveInPlaceResult saveInPlace(const Transcript &working, const std::string &path, const FileStamp &loaded,
                              const SaveInPlaceOptions &options = {});

} // namespace cl
