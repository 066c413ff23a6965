// SPDX-License-Identifier: MIT
#include "core/io/saveinplace.h"

#include "core/io/export.h"
#include "core/io/loader.h"
#include "core/tokens/counts.h"
#include "core/util/bytesink.h"

#include <sys/stat.h>

namespace cl {

namespace {

std::vector<std::size_t> conversation(const Transcript &t)
{
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < t.messages.size(); ++i)
        if (t.messages[i].isConversation())
            out.push_back(i);
    return out;
}

std::string describeChange(const FileStamp &loaded, const FileStamp &now)
{
    if (now.size > loaded.size)
        return "it grew from " + std::to_string(loaded.size) + " to " + std::to_string(now.size)
               + " bytes since it was loaded: the agent may still be writing it. Reload it, then save again";
    return "it changed on disk since it was loaded (" + std::to_string(loaded.size) + " -> " + std::to_string(now.size)
           + " bytes). Reload it, then save again";
}

} // namespace

std::optional<FileStamp> stampOf(const std::string &path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        return std::nullopt;
    FileStamp s;
    s.size = std::uint64_t(st.st_size);
    s.mtimeNs = std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    return s;
}

std::string liveContextDifference(const Transcript &expected, const Transcript &actual)
{
    const std::vector<std::size_t> a = conversation(expected), b = conversation(actual);
    const std::size_t n = std::min(a.size(), b.size());
    for (std::size_t k = 0; k < n; ++k) {
        const Message &x = expected.messages[a[k]], &y = actual.messages[b[k]];
        if (x.role != y.role || tokencount::contentHash(x) != tokencount::contentHash(y))
            return "conversation message " + std::to_string(k + 1) + " differs after reloading";
    }
    if (a.size() != b.size())
        return std::to_string(a.size()) + " conversation messages before writing, " + std::to_string(b.size())
               + " after reloading";
    return {};
}

SaveInPlaceResult saveInPlace(const Transcript &working, const std::string &path, const FileStamp &loaded,
                              const SaveInPlaceOptions &options)
{
    SaveInPlaceResult r;
    const std::optional<FileStamp> before = stampOf(path);
    if (!before) {
        r.error = path + ": cannot read it any more";
        return r;
    }
    if (!(*before == loaded)) {
        r.changedOnDisk = true;
        r.error = path + ": " + describeChange(loaded, *before);
        return r;
    }
    ExportOptions eo;
    eo.preTokens = options.preTokens;
    eo.origin = options.origin;
    WriteResult encoded = exportTranscript(working, working.format, eo);
    if (!encoded.ok) {
        r.error = path + ": cannot encode the transcript: " + encoded.error;
        return r;
    }
    r.notes = encoded.notes;
    LoadOptions lo;
    lo.format = working.format;
    lo.loadSubagents = false;
    const LoadResult back = loadBytes(encoded.bytes, path, lo);
    if (!back.ok()) {
        r.error = path + ": not saved: what would be written does not load back (" + back.error + ")";
        return r;
    }
    if (const std::string diff = liveContextDifference(working, *back.transcript); !diff.empty()) {
        r.error = path + ": not saved: what would be written does not give the same live context (" + diff + ")";
        return r;
    }
    if (!backups::create(options.backupRoot, path, &r.backup, &r.error)) {
        r.error = "not saved: no backup could be made: " + r.error;
        return r;
    }
    std::string error;
    const bool written = writeFileAtomic(
        path, [&](int fd, std::string &why) {
            ByteSink sink(fd);
            sink += encoded.bytes;
            if (!sink.flush()) {
                why = sink.error();
                return false;
            }
            // The last moment before the rename: an agent that appended meanwhile keeps its lines.
            const std::optional<FileStamp> now = stampOf(path);
            if (!now || !(*now == loaded)) {
                r.changedOnDisk = true;
                why = now ? describeChange(loaded, *now) : std::string("it disappeared");
                return false;
            }
            return true;
        },
        &error);
    if (!written) {
        r.error = error; // "path: why"; the backup stays (it is the file as it still is)
        return r;
    }
    r.ok = true;
    return r;
}

} // namespace cl
