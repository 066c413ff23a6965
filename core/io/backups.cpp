// SPDX-License-Identifier: MIT
#include "core/io/backups.h"

#include "core/io/runningagent.h"
#include "core/io/saveinplace.h"
#include "core/io/writer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include <sys/stat.h>

namespace cl::backups {

namespace fs = std::filesystem;

std::string stampAt(std::int64_t msSinceEpoch)
{
    const std::time_t secs = std::time_t(msSinceEpoch / 1000);
    std::tm utc{};
    gmtime_r(&secs, &utc);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d%02d%02dT%02d%02d%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                  utc.tm_hour, utc.tm_min, utc.tm_sec, int((msSinceEpoch % 1000 + 1000) % 1000));
    return buf;
}

namespace {

std::string absolute(const std::string &path)
{
    std::error_code ec;
    fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
    return ec ? fs::absolute(path).lexically_normal().string() : p.string();
}

std::string hashName(const std::string &text)
{
    std::uint64_t h = 0xCBF29CE484222325ull;
    for (unsigned char c : text)
        h = (h ^ c) * 0x100000001B3ull;
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

std::string nowStamp()
{
    return stampAt(std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

// "20261128T071502.123Z": the shape stampAt() writes.
bool isStamp(std::string_view s)
{
    if (s.size() != 20 || s[8] != 'T' || s[15] != '.' || s[19] != 'Z')
        return false;
    for (std::size_t k = 0; k < 19; ++k)
        if (k != 8 && k != 15 && (s[k] < '0' || s[k] > '9'))
            return false;
    return true;
}

// Drops the oldest copies beyond `keep` in all, never one of `spare` (they count among the kept).
void prune(const std::string &root, const std::string &original, std::size_t keep, const std::vector<std::string> &spare)
{
    std::error_code ec;
    const std::size_t total = std::max<std::size_t>(keep, 1);
    std::size_t room = total > spare.size() ? total - spare.size() : 0;
    for (const Entry &e : list(root, original)) {
        if (std::find(spare.begin(), spare.end(), e.path) != spare.end())
            continue;
        if (room > 0) {
            --room;
            continue;
        }
        fs::remove(e.path, ec);
    }
}

bool createSparing(const std::string &root, const std::string &original, Entry *made, std::string *error,
                   std::size_t keep, std::vector<std::string> spare);

bool readAll(const std::string &path, std::string &out, std::string *error)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        if (error)
            *error = path + ": cannot read it";
        return false;
    }
    std::ostringstream s;
    s << in.rdbuf();
    out = std::move(s).str();
    return true;
}

} // namespace

std::string defaultRoot()
{
    if (const char *data = std::getenv("XDG_DATA_HOME"); data && *data)
        return (fs::path(data) / "contextlens" / "backups").string();
    const char *home = std::getenv("HOME");
    return (fs::path(home && *home ? home : ".") / ".local" / "share" / "contextlens" / "backups").string();
}

std::string folderFor(const std::string &root, const std::string &original)
{
    return (fs::path(root) / hashName(absolute(original))).string();
}

std::vector<Entry> list(const std::string &root, const std::string &original)
{
    std::vector<Entry> out;
    const std::string folder = folderFor(root, original);
    const std::string name = fs::path(original).filename().string();
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(folder, ec)) {
        const std::string file = e.path().filename().string();
        // "<stamp>-<name>": the stamp is 20 characters. A link or any other name is not ours.
        if (!e.is_regular_file(ec) || e.is_symlink(ec) || file.size() <= 21 || file.compare(21, std::string::npos, name) != 0
            || file[20] != '-' || !isStamp(std::string_view(file).substr(0, 20)))
            continue;
        struct stat st {};
        if (::lstat(e.path().c_str(), &st) != 0)
            continue;
        Entry b;
        b.mtimeNs = std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
        b.path = e.path().string();
        b.original = absolute(original);
        b.stamp = file.substr(0, 20);
        b.size = std::uint64_t(e.file_size(ec));
        out.push_back(std::move(b));
    }
    std::sort(out.begin(), out.end(), [](const Entry &a, const Entry &b) {
        return a.mtimeNs != b.mtimeNs ? a.mtimeNs > b.mtimeNs : a.stamp > b.stamp;
    });
    return out;
}

bool create(const std::string &root, const std::string &original, Entry *made, std::string *error, std::size_t keep)
{
    return createSparing(root, original, made, error, keep, {});
}

namespace {

bool createSparing(const std::string &root, const std::string &original, Entry *made, std::string *error,
                   std::size_t keep, std::vector<std::string> spare)
{
    std::string bytes;
    if (!readAll(original, bytes, error))
        return false;
    const std::string folder = folderFor(root, original);
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) {
        if (error)
            *error = folder + ": " + ec.message();
        return false;
    }
    {
        std::ofstream origin(fs::path(folder) / "origin", std::ios::binary | std::ios::trunc);
        origin << absolute(original) << '\n';
    }
    std::string stamp = nowStamp();
    const std::string name = fs::path(original).filename().string();
    // Two backups in the same millisecond: the later one waits for the next stamp.
    while (fs::exists(fs::path(folder) / (stamp + "-" + name), ec))
        stamp = nowStamp();
    Entry b;
    b.path = (fs::path(folder) / (stamp + "-" + name)).string();
    b.original = absolute(original);
    b.stamp = stamp;
    b.size = bytes.size();
    if (!writeFileAtomic(b.path, bytes, error))
        return false;
    struct stat st {};
    if (::stat(b.path.c_str(), &st) == 0)
        b.mtimeNs = std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    spare.push_back(b.path);
    prune(root, original, keep, spare);
    if (made)
        *made = std::move(b);
    return true;
}

} // namespace

bool restore(const std::string &root, const Entry &backup, std::string *error, Entry *previous)
{
    std::string bytes;
    if (!readAll(backup.path, bytes, error))
        return false;
    std::error_code ec;
    Entry made;
    if (fs::exists(backup.original, ec)) {
        if (const std::string why = whyNotWritable(backup.original); !why.empty()) {
            if (error)
                *error = backup.original + ": not restored: " + why;
            return false;
        }
        if (auto agent = running::find(backup.original)) {
            if (error)
                *error = backup.original + ": not restored: " + running::refusal(*agent, "restore again");
            return false;
        }
        // The backup being restored survives the pruning, as does the new one.
        if (!createSparing(root, backup.original, &made, error, kKeep, {backup.path}))
            return false;
    }
    if (!writeFileAtomic(backup.original, bytes, error))
        return false;
    std::vector<std::string> spare{backup.path};
    if (!made.path.empty())
        spare.push_back(made.path);
    prune(root, backup.original, kKeep, spare);
    if (previous)
        *previous = std::move(made);
    return true;
}

const Entry *find(const std::vector<Entry> &entries, const std::string &which)
{
    if (entries.empty())
        return nullptr;
    if (which == "latest")
        return &entries.front();
    for (const Entry &e : entries)
        if (e.stamp == which)
            return &e;
    char *end = nullptr;
    const long n = std::strtol(which.c_str(), &end, 10);
    if (end && *end == '\0' && n >= 1 && std::size_t(n) <= entries.size())
        return &entries[std::size_t(n - 1)];
    return nullptr;
}

} // namespace cl::backups
