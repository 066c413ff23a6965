// SPDX-License-Identifier: MIT
#pragma once

// Reading a small file that only names or configures something (a price table, a Gemini CLI
// .project_root or projects.json, a cache): only a regular file, never more than a cap. A symlink to
// /dev/zero would otherwise be read until memory runs out, and a FIFO would block the open() or the
// read() for ever; the file is opened with O_NONBLOCK and checked with fstat() before any read.

#include <cstddef>
#include <string>

namespace cl::util {

enum class ReadStatus {
    Ok,
    Missing,    // no such file
    NotRegular, // a FIFO, a device, a folder, a socket
    TooLarge,   // more than the cap
    Failed,     // cannot be opened or read (permissions, I/O)
};

struct ReadResult {
    ReadStatus status = ReadStatus::Failed;
    std::string why; // "not a regular file", "larger than 1 MiB", strerror(); "" when Ok
    bool ok() const { return status == ReadStatus::Ok; }
};

// Reads the whole of a regular file of at most maxBytes into text.
ReadResult readRegularFile(const std::string &path, std::string &text, std::size_t maxBytes);

// Opens a file for reading only when it is a regular file (O_NONBLOCK, then fstat); the descriptor,
// or -1 with why set. The caller closes it.
int openRegularFile(const std::string &path, ReadResult &why);

} // namespace cl::util
