// SPDX-License-Identifier: MIT
#include "core/io/saveinplace.h"

#include "core/io/export.h"
#include "core/io/loader.h"
#include "core/tokens/counts.h"
#include "core/util/bytesink.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

std::string whyNotWritable(const std::string &path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        return "cannot read it any more";
    char mode[16];
    std::snprintf(mode, sizeof mode, "%04o", unsigned(st.st_mode & 07777));
    const std::string what = "it is read-only (mode " + std::string(mode) + ")";
    if ((st.st_mode & 0222) == 0)
        return what + ": make it writable first (chmod u+w) if you mean to replace it";
    if (::access(path.c_str(), W_OK) != 0)
        return what + " for you: it belongs to another user, or its permissions do not let you write it";
    return {};
}

namespace {

// The original, kept open through the save: its size after the rename tells whether anything was
// written to it in the meantime.
struct OpenFile {
    int fd = -1;
    explicit OpenFile(const std::string &path)
        : fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC))
    {}
    ~OpenFile()
    {
        if (fd >= 0)
            ::close(fd);
    }
    OpenFile(const OpenFile &) = delete;
    OpenFile &operator=(const OpenFile &) = delete;
    std::uint64_t size() const
    {
        struct stat st {};
        return ::fstat(fd, &st) == 0 ? std::uint64_t(st.st_size) : 0;
    }
};

bool sameInode(int fd, const std::string &path)
{
    struct stat a {
    }, b{};
    return ::fstat(fd, &a) == 0 && ::stat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// Bytes [from, end) of a descriptor.
std::string readFrom(int fd, std::uint64_t from)
{
    std::string out;
    char buf[65536];
    for (off_t at = off_t(from);;) {
        const ssize_t n = ::pread(fd, buf, sizeof buf, at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        out.append(buf, std::size_t(n));
        at += n;
    }
    return out;
}

bool appendTo(const std::string &path, std::string_view bytes)
{
    const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool ok = true;
    for (std::size_t done = 0; done < bytes.size();) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            ok = false;
            break;
        }
        done += std::size_t(n);
    }
    return ::fsync(fd) == 0 && ::close(fd) == 0 && ok;
}

bool writeAll(int fd, std::string_view bytes, std::string &why)
{
    for (std::size_t done = 0; done < bytes.size();) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            why = std::string("write failed: ") + std::strerror(errno);
            return false;
        }
        done += std::size_t(n);
    }
    return true;
}

} // namespace

SaveInPlaceResult saveInPlace(const Transcript &working, const std::string &requested, const FileStamp &loaded,
                              const SaveInPlaceOptions &options)
{
    SaveInPlaceResult r;
    if (!working.recording.is_null()) {
        r.error = requested + ": not saved: a request of a recording is not a session file (export it instead)";
        return r;
    }
    // A symbolic link is followed: the file it names is replaced, the link stays.
    std::string path = requested;
    if (char *real = ::realpath(requested.c_str(), nullptr)) {
        path = real;
        std::free(real);
    }
    const std::optional<FileStamp> before = stampOf(path);
    if (!before) {
        r.error = requested + ": cannot read it any more";
        return r;
    }
    if (!(*before == loaded)) {
        r.changedOnDisk = true;
        r.error = requested + ": " + describeChange(loaded, *before);
        return r;
    }
    if (const std::string why = whyNotWritable(path); !why.empty()) {
        r.error = requested + ": not saved: " + why;
        return r;
    }
    auto runningAgent = [&]() -> bool {
        if (!options.checkRunningAgent)
            return false;
        r.agent = running::find(path, options.running);
        if (r.agent)
            r.error = requested + ": not saved: " + running::refusal(*r.agent, options.then);
        return r.agent.has_value();
    };
    if (runningAgent())
        return r;
    ExportOptions eo;
    eo.preTokens = options.preTokens;
    eo.origin = options.origin;
    WriteResult encoded = exportTranscript(working, working.format, eo);
    if (!encoded.ok) {
        r.error = requested + ": cannot encode the transcript: " + encoded.error;
        return r;
    }
    r.notes = encoded.notes;
    LoadOptions lo;
    lo.format = working.format;
    lo.loadSubagents = false;
    const LoadResult back = loadBytes(encoded.bytes, path, lo);
    if (!back.ok()) {
        r.error = requested + ": not saved: what would be written does not load back (" + back.error + ")";
        return r;
    }
    if (const std::string diff = liveContextDifference(working, *back.transcript); !diff.empty()) {
        r.error = requested + ": not saved: what would be written does not give the same live context (" + diff + ")";
        return r;
    }
    const OpenFile original(path);
    if (original.fd < 0) {
        r.error = requested + ": cannot read it: " + std::strerror(errno);
        return r;
    }
    if (!backups::create(options.backupRoot, path, &r.backup, &r.error)) {
        r.error = "not saved: no backup could be made: " + r.error;
        return r;
    }
    // The new file beside the original, with its mode (and owner, where allowed).
    struct stat old {};
    if (::fstat(original.fd, &old) != 0) {
        r.error = requested + ": cannot read it: " + std::strerror(errno);
        return r;
    }
    std::string tmp = path + ".XXXXXX";
    const int fd = ::mkstemp(tmp.data());
    if (fd < 0) {
        r.error = requested + ": cannot create a temporary file beside it: " + std::strerror(errno);
        return r;
    }
    auto abandon = [&](const std::string &why) {
        ::unlink(tmp.c_str());
        r.error = requested + ": " + why;
        return r;
    };
    std::string why;
    if (!writeAll(fd, encoded.bytes, why)) {
        ::close(fd);
        return abandon(why);
    }
    if (::fchmod(fd, old.st_mode & 07777) != 0) {
        const int e = errno;
        ::close(fd);
        return abandon(std::string("cannot set the file mode: ") + std::strerror(e));
    }
    if ((old.st_uid != ::geteuid() || old.st_gid != ::getegid()) && ::fchown(fd, old.st_uid, old.st_gid) != 0) {
        // Best effort: an unprivileged process keeps its own owner.
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        const int e = errno;
        return abandon(std::string("flush failed: ") + std::strerror(e));
    }
    if (options.testHook)
        options.testHook(SaveStep::BeforeFinalCheck);
    // The last moment before the rename: the file is still the one loaded, and nobody writes it.
    const std::optional<FileStamp> now = stampOf(path);
    if (!now || !(*now == loaded) || original.size() != loaded.size || !sameInode(original.fd, path)) {
        r.changedOnDisk = true;
        return abandon(now ? describeChange(loaded, *now) : std::string("it disappeared"));
    }
    if (options.checkRunningAgent)
        if (auto writer = running::writerOf(path, options.running)) {
            r.agent = writer;
            ::unlink(tmp.c_str());
            r.error = requested + ": not saved: " + running::refusal(*writer, options.then);
            return r;
        }
    // A second name for the original, so that it can be put back whole (with whatever an agent writes
    // to it meanwhile) if it grows during the rename. Hidden, and not named like a session.
    const std::string dir = path.substr(0, path.rfind('/') + 1);
    std::string keep = dir + "." + path.substr(dir.size()) + ".contextlens-rollback-" + std::to_string(::getpid());
    if (::link(path.c_str(), keep.c_str()) != 0)
        keep.clear(); // no hard links here: what is written meanwhile is carried over instead
    if (options.testHook)
        options.testHook(SaveStep::BeforeRename);
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        const int e = errno;
        if (!keep.empty())
            ::unlink(keep.c_str());
        return abandon(std::string("rename failed: ") + std::strerror(e));
    }
    const std::uint64_t grownTo = original.size();
    if (grownTo <= loaded.size) {
        if (!keep.empty())
            ::unlink(keep.c_str());
        r.ok = true;
        return r;
    }
    const std::uint64_t extra = grownTo - loaded.size;
    if (!keep.empty()) {
        // Roll back: the original (the file the writer holds) goes back in place; anything appended
        // by path to the new file since the rename goes after it.
        const OpenFile written(path);
        const std::string late = written.fd >= 0 ? readFrom(written.fd, encoded.bytes.size()) : std::string();
        if (std::rename(keep.c_str(), path.c_str()) == 0) {
            if (!late.empty())
                appendTo(path, late);
            r.rolledBack = true;
            r.changedOnDisk = true;
            r.error = requested + ": not saved: " + std::to_string(extra)
                      + " bytes were written to it while it was being replaced (an agent is still running this "
                        "session); it was put back as it was, with those bytes. Quit the agent, reload, then "
                      + options.then;
            return r;
        }
        ::unlink(keep.c_str());
    }
    // Carry over: the bytes written to the original meanwhile go after the saved transcript.
    if (!appendTo(path, readFrom(original.fd, loaded.size))) {
        r.error = requested + ": saved, but " + std::to_string(extra)
                  + " bytes written to it while it was being saved could not be appended to it: "
                  + std::strerror(errno);
        return r;
    }
    r.carriedOver = extra;
    r.notes.push_back(std::to_string(extra)
                      + " bytes written to the file while it was being saved were appended after the saved transcript");
    r.ok = true;
    return r;
}

} // namespace cl
