// SPDX-License-Identifier: MIT
#pragma once

// Reading a transcript's bytes from a file descriptor into one string, with the padding the JSON
// parser needs after them (core/model/buffer.h).

#include "core/model/buffer.h"

#include <atomic>
#include <cstddef>
#include <string>

namespace cl {

constexpr std::size_t kMaxFileBytes = 0xFFFFFFF0ul - kBufferPadding; // record offsets are 32-bit

// A regular file whose size is known: read in one allocation. A file that shrank while being read
// gives what was there; one that grew gives its first `size` bytes (a live session: what was there
// when we looked). A large file is read by two threads, each first mapping its half of the memory
// in one call: on the reference machine a fresh 800 MB buffer took 740-890 ms filled by one thread
// (mostly page faults), 300-330 ms this way.
bool readWholeFile(int fd, std::size_t size, std::string &bytes, std::string &error);

// A pipe, FIFO or terminal, to its end. Waits for data in short polls so that a cancel (the GUI's)
// ends the wait on a FIFO nobody writes to.
bool readUntilEnd(int fd, std::string &bytes, std::string &error, const std::atomic_bool *cancel, bool &cancelled);

} // namespace cl
