// SPDX-License-Identifier: MIT
#include "core/io/filebytes.h"

#include "core/util/parallel.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

namespace cl {

namespace {

// Below this a second thread costs more than it saves.
constexpr std::size_t kTwoThreadBytes = std::size_t(32) << 20;

// Reads [from, to) of the file into out + from; returns how many bytes it got (fewer when the file
// is shorter now), or -1 with `error` set to the errno of the failed read (errno is the thread's own).
std::int64_t readRange(int fd, char *out, std::size_t from, std::size_t to, int &error)
{
    std::size_t done = from;
    while (done < to) {
        const ssize_t n = ::pread(fd, out + done, to - done, off_t(done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            error = errno;
            return -1;
        }
        if (n == 0)
            break;
        done += std::size_t(n);
    }
    return std::int64_t(done - from);
}

// Asks the kernel to map writable pages for the whole pages inside [p, p + n) now, in one call,
// instead of one fault per page as they are first written. Only a hint: where the kernel does not
// know the request (before Linux 5.14) the pages are faulted in as they are written.
void prefault(char *p, std::size_t n)
{
#ifdef MADV_POPULATE_WRITE
    const auto page = std::uintptr_t(::sysconf(_SC_PAGESIZE));
    const std::uintptr_t begin = (std::uintptr_t(p) + page - 1) & ~(page - 1);
    const std::uintptr_t end = (std::uintptr_t(p) + n) & ~(page - 1);
    if (end > begin)
        ::madvise(reinterpret_cast<void *>(begin), end - begin, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)n;
#endif
}

} // namespace

bool readWholeFile(int fd, std::size_t size, std::string &bytes, std::string &error)
{
    bytes.reserve(size + kBufferPadding);
    const bool twoThreads = size >= kTwoThreadBytes && util::defaultThreads() >= 2;
    const std::size_t half = size / 2;
    if (twoThreads) // the reserved memory is the string's own; prefaulting it changes no byte
        onTwoThreads([&](std::size_t k) { k == 0 ? prefault(bytes.data(), half) : prefault(bytes.data() + half, bytes.capacity() - half); });
    bytes.resize(size);
    std::int64_t got[2] = {0, 0};
    int failed[2] = {0, 0};
    if (twoThreads)
        onTwoThreads([&](std::size_t k) { got[k] = readRange(fd, bytes.data(), k == 0 ? 0 : half, k == 0 ? half : size, failed[k]); });
    else
        got[0] = readRange(fd, bytes.data(), 0, size, failed[0]);
    if (got[0] < 0 || got[1] < 0) {
        error = std::string("read error: ") + std::strerror(got[0] < 0 ? failed[0] : failed[1]);
        return false;
    }
    // The first part short: the file ends there (the second part read nothing past that end).
    bytes.resize(twoThreads && std::size_t(got[0]) == half ? half + std::size_t(got[1]) : std::size_t(got[0]));
    return true;
}

bool readUntilEnd(int fd, std::string &bytes, std::string &error, const std::atomic_bool *cancel, bool &cancelled)
{
    std::vector<char> chunk(std::size_t(1) << 20);
    for (;;) {
        if (cancel && cancel->load()) {
            cancelled = true;
            return false;
        }
        pollfd p{fd, POLLIN, 0};
        const int ready = ::poll(&p, 1, 100);
        if (ready < 0 && errno != EINTR) {
            error = std::string("read error: ") + std::strerror(errno);
            return false;
        }
        if (ready <= 0)
            continue;
        const ssize_t n = ::read(fd, chunk.data(), chunk.size());
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n < 0) {
            error = std::string("read error: ") + std::strerror(errno);
            return false;
        }
        if (n == 0)
            return true;
        if (bytes.size() + std::size_t(n) > kMaxFileBytes) {
            error = "input larger than 4 GiB is not supported";
            return false;
        }
        bytes.append(chunk.data(), std::size_t(n));
    }
}

} // namespace cl
