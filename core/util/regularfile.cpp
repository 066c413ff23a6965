// SPDX-License-Identifier: MIT
#include "core/util/regularfile.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cl::util {

namespace {

std::string sizeText(std::size_t n)
{
    if (n >= (std::size_t(1) << 20) && n % (std::size_t(1) << 20) == 0)
        return std::to_string(n >> 20) + " MiB";
    if (n >= 1024 && n % 1024 == 0)
        return std::to_string(n >> 10) + " KiB";
    return std::to_string(n) + " bytes";
}

} // namespace

int openRegularFile(const std::string &path, ReadResult &why)
{
    // O_NONBLOCK: opening a FIFO without a writer would block; a regular file ignores the flag.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        why.status = errno == ENOENT || errno == ENOTDIR ? ReadStatus::Missing : ReadStatus::Failed;
        why.why = std::strerror(errno);
        return -1;
    }
    struct stat st = {};
    if (::fstat(fd, &st) != 0) {
        why.status = ReadStatus::Failed;
        why.why = std::strerror(errno);
        ::close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        why.status = ReadStatus::NotRegular;
        why.why = "not a regular file";
        ::close(fd);
        return -1;
    }
    // Reads of a regular file never block; a blocking descriptor is what the callers expect.
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0)
        ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    why.status = ReadStatus::Ok;
    why.why.clear();
    return fd;
}

ReadResult readRegularFile(const std::string &path, std::string &text, std::size_t maxBytes)
{
    text.clear();
    ReadResult r;
    const int fd = openRegularFile(path, r);
    if (fd < 0)
        return r;
    struct stat st = {};
    if (::fstat(fd, &st) == 0 && std::uint64_t(st.st_size) > maxBytes) {
        ::close(fd);
        return {ReadStatus::TooLarge, "larger than " + sizeText(maxBytes)};
    }
    text.resize(std::size_t(st.st_size));
    std::size_t size = 0;
    for (;;) {
        if (size == text.size()) {
            // The file may grow while it is read (an agent writing it): up to the cap, then stop.
            if (size > maxBytes) {
                ::close(fd);
                text.clear();
                return {ReadStatus::TooLarge, "larger than " + sizeText(maxBytes)};
            }
            text.resize(std::min(maxBytes + 1, std::max<std::size_t>(size * 2, 4096)));
        }
        const ssize_t n = ::read(fd, text.data() + size, text.size() - size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            const int e = errno;
            ::close(fd);
            text.clear();
            return {ReadStatus::Failed, std::strerror(e)};
        }
        if (n == 0)
            break;
        size += std::size_t(n);
    }
    ::close(fd);
    text.resize(size);
    if (size > maxBytes) {
        text.clear();
        return {ReadStatus::TooLarge, "larger than " + sizeText(maxBytes)};
    }
    return {ReadStatus::Ok, {}};
}

} // namespace cl::util
