// SPDX-License-Identifier: MIT
#pragma once

// Timestamped backups of session files that ContextLens writes over (save in place, restore). They
// live outside the agents' folders (an agent that lists its sessions must not find them): under a
// root folder (defaultRoot(): $XDG_DATA_HOME/contextlens/backups, else ~/.local/share/…), one folder
// per original file named by a hash of its absolute path, holding `origin` (the original's path, one
// line) and one copy per backup, `<UTC stamp>-<file name>`. The newest `keep` are kept, newest by
// the copy's modification time (a stamp from a clock that ran ahead does not make a copy new); the one
// just made is never dropped, and files not named like a backup are left alone.

#include <cstdint>
#include <string>
#include <vector>

namespace cl::backups {

struct Entry {
    std::string path;     // the copy
    std::string original; // the file it is a copy of (absolute)
    std::string stamp;    // "20261128T071502.123Z" (UTC), sortable
    std::uint64_t size = 0;
    std::int64_t mtimeNs = 0; // when the copy was made (its modification time)
};

constexpr std::size_t kKeep = 10;

std::string defaultRoot();
// The stamp of a moment (milliseconds since the epoch, UTC): "20261128T071502.123Z".
std::string stampAt(std::int64_t msSinceEpoch);
// The folder holding the backups of `original` under `root`.
std::string folderFor(const std::string &root, const std::string &original);
// The backups of `original`, newest first (by modification time, then stamp).
std::vector<Entry> list(const std::string &root, const std::string &original);
// Copies `original` as a new backup and drops the oldest beyond `keep`. false with *error when it
// cannot (then nothing should be written over the original).
bool create(const std::string &root, const std::string &original, Entry *made = nullptr, std::string *error = nullptr,
            std::size_t keep = kKeep);
// Puts a backup's bytes back over its original (atomically, keeping the file's mode), after backing up
// what the original holds now (so a restore can itself be undone). *previous: that new backup.
// Refused when the original is read-only or an agent is running it (core/io/runningagent.h).
bool restore(const std::string &root, const Entry &backup, std::string *error = nullptr, Entry *previous = nullptr);
// "latest", a stamp or a 1-based position in list() ("1" = newest); null when none matches.
const Entry *find(const std::vector<Entry> &entries, const std::string &which);

} // namespace cl::backups
