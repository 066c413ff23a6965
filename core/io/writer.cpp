// SPDX-License-Identifier: MIT
#include "core/io/writer.h"

#include "core/formats/formats.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cl {

namespace {

WriteResult writeUnguarded(const Transcript &t, Format target, ByteSink &out)
{
    switch (target) {
    case Format::ClaudeCode: return formats::writeClaudeCode(t, out);
    case Format::Codex: return formats::writeCodex(t, out);
    case Format::GeminiCli: return formats::writeGeminiCli(t, out);
    case Format::QwenCode: return formats::writeQwenCode(t, out);
    case Format::CopilotCli: return formats::writeCopilotCli(t, out);
    case Format::OpenAIChat: return formats::writeOpenAIChat(t, out);
    case Format::OpenAIResponses: return formats::writeOpenAIResponses(t, out);
    case Format::Anthropic: return formats::writeAnthropic(t, out);
    case Format::Gemini: return formats::writeGemini(t, out);
    case Format::Unknown: break;
    }
    WriteResult r;
    r.ok = false;
    r.error = "unknown target format";
    return r;
}

} // namespace

WriteResult failedWrite(Format target, const std::exception &e)
{
    WriteResult r;
    r.ok = false;
    r.error = "internal error while writing " + std::string(formatName(target)) + ": " + e.what();
    return r;
}

WriteResult finishWrite(WriteResult r, ByteSink &out)
{
    if (r.ok && !out.flush()) {
        r.ok = false;
        r.error = out.error();
    }
    r.size = out.size();
    return r;
}

WriteResult writeTranscript(const Transcript &t, Format target, ByteSink &out)
{
    if (t.format == target && !t.hasEdits() && t.buffer) {
        out += *t.buffer;
        return finishWrite(WriteResult{}, out);
    }
    // The writers read fields of the original records as the loaders do, tolerating wrong types; this
    // is the last guard, so that a case they missed costs the user an error message, not the session.
    try {
        return finishWrite(writeUnguarded(t, target, out), out);
    } catch (const std::exception &e) {
        return failedWrite(target, e);
    }
}

WriteResult writeTranscript(const Transcript &t, Format target)
{
    ByteSink sink;
    WriteResult r = writeTranscript(t, target, sink);
    r.bytes = sink.take();
    return r;
}

namespace {

// The process's umask without changing it (umask() would race with other threads creating files).
mode_t currentUmask()
{
    if (std::FILE *f = std::fopen("/proc/self/status", "r")) {
        char line[256];
        while (std::fgets(line, sizeof line, f)) {
            unsigned mask = 0;
            if (std::sscanf(line, "Umask: %o", &mask) == 1) {
                std::fclose(f);
                return mode_t(mask);
            }
        }
        std::fclose(f);
    }
    const mode_t mask = ::umask(022);
    ::umask(mask);
    return mask;
}

} // namespace

bool writeFileAtomic(const std::string &requested, std::string_view bytes, std::string *error)
{
    return writeFileAtomic(
        requested, [&](int fd, std::string &why) {
            std::size_t done = 0;
            while (done < bytes.size()) {
                const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
                if (n < 0) {
                    if (errno == EINTR)
                        continue;
                    why = std::string("write failed: ") + std::strerror(errno);
                    return false;
                }
                done += std::size_t(n);
            }
            return true;
        },
        error);
}

bool writeFileAtomic(const std::string &requested, const std::function<bool(int fd, std::string &why)> &fill,
                     std::string *error)
{
    // A symbolic link is followed: the file it names is replaced, the link stays.
    std::string path = requested;
    if (char *real = ::realpath(requested.c_str(), nullptr)) {
        path = real;
        std::free(real);
    }
    auto fail = [&](const std::string &what) {
        if (error)
            *error = requested + ": " + what;
        return false;
    };
    // Transcripts hold secrets: a new file gets the mode the umask gives (0600 under umask 077); a
    // replaced one keeps its own mode, and its owner where the process may set it.
    struct stat old {};
    const bool replacing = ::stat(path.c_str(), &old) == 0;
    if (replacing && S_ISDIR(old.st_mode))
        return fail("is a directory");
    // A device or a FIFO (`-o /dev/null`, a link to one) is never replaced by a file: as root the
    // rename would put a regular file in place of /dev/null for every program.
    if (replacing && !S_ISREG(old.st_mode))
        return fail("not a regular file; not replaced");
    const mode_t mode = replacing ? (old.st_mode & 07777) : (0666 & ~currentUmask());

    std::string tmp = path + ".XXXXXX";
    const int fd = ::mkstemp(tmp.data());
    if (fd < 0)
        return fail(std::string("cannot create a temporary file beside it: ") + std::strerror(errno));
    std::string why;
    if (!fill(fd, why)) {
        ::close(fd);
        ::unlink(tmp.c_str());
        return fail(why);
    }
    if (::fchmod(fd, mode) != 0) {
        const int e = errno;
        ::close(fd);
        ::unlink(tmp.c_str());
        return fail(std::string("cannot set the file mode: ") + std::strerror(e));
    }
    if (replacing && (old.st_uid != ::geteuid() || old.st_gid != ::getegid()) && ::fchown(fd, old.st_uid, old.st_gid) != 0) {
        // Best effort: an unprivileged process keeps its own owner.
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        const int e = errno;
        ::unlink(tmp.c_str());
        return fail(std::string("flush failed: ") + std::strerror(e));
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        const int e = errno;
        ::unlink(tmp.c_str());
        return fail(std::string("rename failed: ") + std::strerror(e));
    }
    return true;
}

} // namespace cl
