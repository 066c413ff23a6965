// SPDX-License-Identifier: MIT
#pragma once

#include "core/formats/writeresult.h"
#include "core/util/bytesink.h"
#include "core/model/transcript.h"

#include <exception>
#include <functional>
#include <string>
#include <vector>

namespace cl {

// Writes t in `target`. Same format with no edits: the original bytes. Otherwise each format's
// writer rebuilds from the neutral model, reusing untouched records byte-for-byte where it can.
// Never throws: a writer's exception (a bug) becomes ok = false with the reason.
WriteResult writeTranscript(const Transcript &t, Format target);
// The same, streamed into out (bytes stays empty). On a sink error the result is not ok.
WriteResult writeTranscript(const Transcript &t, Format target, ByteSink &out);
// The result a writer that threw reports (used by the export path too).
WriteResult failedWrite(Format target, const std::exception &e);
// Flushes out and records its size and any write error in r.
WriteResult finishWrite(WriteResult r, ByteSink &out);

// Writes to a temporary file beside `path` and renames it over; never leaves a partial file. A new
// file gets the mode the umask gives; a replaced file keeps its mode (and owner, where allowed); a
// symbolic link is followed. On failure, error is "path: what went wrong".
bool writeFileAtomic(const std::string &path, std::string_view bytes, std::string *error = nullptr);
// The same, with the content written by fill to the temporary file's descriptor (streaming writers);
// fill returns false with a reason to abandon the file.
bool writeFileAtomic(const std::string &path, const std::function<bool(int fd, std::string &why)> &fill,
                     std::string *error = nullptr);

} // namespace cl
