// SPDX-License-Identifier: MIT
#include "core/writer.h"

#include "core/formats/formats.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cl {

WriteResult writeTranscript(const Transcript &t, Format target)
{
    if (t.format == target && !t.hasEdits() && t.buffer)
        return WriteResult{*t.buffer, {}, true, {}};
    switch (target) {
    case Format::ClaudeCode: return formats::writeClaudeCode(t);
    case Format::Codex: return formats::writeCodex(t);
    case Format::GeminiCli: return formats::writeGeminiCli(t);
    case Format::OpenAIChat: return formats::writeOpenAIChat(t);
    case Format::OpenAIResponses: return formats::writeOpenAIResponses(t);
    case Format::Anthropic: return formats::writeAnthropic(t);
    case Format::Gemini: return formats::writeGemini(t);
    case Format::Unknown: break;
    }
    WriteResult r;
    r.ok = false;
    r.error = "unknown target format";
    return r;
}

bool writeFileAtomic(const std::string &path, std::string_view bytes, std::string *error)
{
    auto fail = [&](const std::string &what) {
        if (error)
            *error = path + ": " + what + ": " + std::strerror(errno);
        return false;
    };
    std::string tmp = path + ".XXXXXX";
    const int fd = ::mkstemp(tmp.data());
    if (fd < 0)
        return fail("cannot create temporary file");
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            ::close(fd);
            ::unlink(tmp.c_str());
            return fail("write failed");
        }
        done += std::size_t(n);
    }
    ::fchmod(fd, 0644);
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        ::unlink(tmp.c_str());
        return fail("flush failed");
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        ::unlink(tmp.c_str());
        return fail("rename failed");
    }
    return true;
}

} // namespace cl
