// SPDX-License-Identifier: MIT
// The status line's session file access and the state it keeps between calls.

#include "core/sessions/statusline_internal.h"

#include "core/util/json.h"

#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cl::statusline::detail {

namespace fs = std::filesystem;

MappedFile::~MappedFile()
{
    if (m_data)
        ::munmap(const_cast<char *>(m_data), m_size);
    if (m_fd >= 0)
        ::close(m_fd);
}

bool MappedFile::open(const std::string &path, std::string &error)
{
    m_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (m_fd < 0 || ::fstat(m_fd, &st) != 0) {
        error = path + ": " + std::strerror(errno);
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        error = path + ": not a regular file";
        return false;
    }
    inode = std::uint64_t(st.st_ino);
    device = std::uint64_t(st.st_dev);
    mtimeNs = std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    m_size = std::size_t(st.st_size);
    if (m_size == 0)
        return true;
    void *p = ::mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE, m_fd, 0);
    if (p == MAP_FAILED) {
        error = path + ": " + std::strerror(errno);
        m_size = 0;
        return false;
    }
    m_data = static_cast<const char *>(p);
    return true;
}

namespace {

// Claude Code writes compact JSON: inside a string the quotes would be escaped, so this sequence only
// occurs as a real "subtype" key.
constexpr std::string_view kNeedle = R"("subtype":"compact_boundary")";
constexpr std::size_t kChunk = std::size_t(1) << 20;
constexpr std::size_t kMaxBoundaryLine = std::size_t(1) << 20;

bool isMainBoundary(std::string_view line)
{
    if (line.size() > kMaxBoundaryLine)
        return false;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object())
        return false;
    return json::str(j, "type") == "system" && json::str(j, "subtype") == "compact_boundary" && !json::boolean(j, "isSidechain");
}

} // namespace

std::optional<std::size_t> lastBoundary(std::string_view bytes, std::size_t from)
{
    std::size_t hi = bytes.size();
    while (hi > from) {
        const std::size_t lo = hi - std::min(hi - from, kChunk);
        // The window reaches past hi by the needle's length less one so that a hit across chunks is seen.
        const std::size_t end = std::min(bytes.size(), hi + kNeedle.size() - 1);
        std::size_t last = std::string_view::npos;
        for (std::size_t at = lo; at < end;) {
            const void *p = ::memmem(bytes.data() + at, end - at, kNeedle.data(), kNeedle.size());
            if (!p)
                break;
            const std::size_t pos = std::size_t(static_cast<const char *>(p) - bytes.data());
            if (pos < hi)
                last = pos;
            at = pos + 1;
        }
        while (last != std::string_view::npos) {
            const std::size_t nl = bytes.rfind('\n', last);
            const std::size_t start = nl == std::string_view::npos ? 0 : nl + 1;
            const std::size_t stop = bytes.find('\n', last);
            const std::string_view line = bytes.substr(start, stop == std::string_view::npos ? std::string_view::npos : stop - start);
            if (start >= from && isMainBoundary(line))
                return start;
            // An earlier hit in the same window.
            std::size_t prev = std::string_view::npos;
            for (std::size_t at = lo; at < last;) {
                const void *p = ::memmem(bytes.data() + at, last - at, kNeedle.data(), kNeedle.size());
                if (!p)
                    break;
                prev = std::size_t(static_cast<const char *>(p) - bytes.data());
                at = prev + 1;
            }
            last = prev;
        }
        hi = lo;
    }
    return std::nullopt;
}

std::uint64_t fnv1a(std::string_view bytes)
{
    std::uint64_t h = 1469598103934665603ull;
    for (const char c : bytes) {
        h ^= std::uint8_t(c);
        h *= 1099511628211ull;
    }
    return h;
}

std::uint64_t headHash(std::string_view bytes)
{
    return fnv1a(bytes.substr(0, 4096));
}

std::uint64_t edgeHash(std::string_view bytes, std::size_t offset)
{
    const std::size_t from = offset > 4096 ? offset - 4096 : 0;
    return fnv1a(bytes.substr(from, std::min<std::size_t>(bytes.size() - std::min(bytes.size(), from), offset - from + 512)));
}

namespace {
constexpr int kStateVersion = 2;
}

bool loadState(const std::string &file, State &out)
{
    std::ifstream in(file, std::ios::binary);
    if (!in)
        return false;
    std::stringstream ss;
    ss << in.rdbuf();
    const nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
    if (!j.is_object() || j.value("version", 0) != kStateVersion)
        return false;
    try {
        out.path = j.at("path").get<std::string>();
        out.format = j.at("format").get<std::string>();
        out.inode = j.at("inode").get<std::uint64_t>();
        out.device = j.at("device").get<std::uint64_t>();
        out.liveOffset = j.at("liveOffset").get<std::uint64_t>();
        out.liveLine = j.at("liveLine").get<std::uint64_t>();
        out.headHash = j.at("headHash").get<std::uint64_t>();
        out.edgeHash = j.at("edgeHash").get<std::uint64_t>();
        out.liveUsable = j.at("liveUsable").get<bool>();
        const nlohmann::json &c = j.at("calibration");
        out.carried.factor = c.at("factor").get<double>();
        out.carried.pairs = c.at("pairs").get<std::size_t>();
        out.carried.fixed = c.at("fixed").get<std::int64_t>();
        out.carried.how = c.at("how").get<std::string>();
        out.carried.fixedHow = c.at("fixedHow").get<std::string>();
        out.prefixDollars = j.at("prefixDollars").get<double>();
        out.prefixUnpriced = j.at("prefixUnpriced").get<std::int64_t>();
        out.subagents.clear();
        for (const nlohmann::json &s : j.at("subagents"))
            out.subagents.push_back({s.at("path").get<std::string>(), s.at("size").get<std::uint64_t>(),
                                     s.at("mtimeNs").get<std::int64_t>(), s.at("dollars").get<double>(),
                                     s.at("unpriced").get<std::int64_t>()});
    } catch (const nlohmann::json::exception &) {
        return false;
    }
    return true;
}

bool saveState(const std::string &file, const State &s)
{
    nlohmann::json subs = nlohmann::json::array();
    for (const SubagentState &a : s.subagents)
        subs.push_back({{"path", a.path}, {"size", a.size}, {"mtimeNs", a.mtimeNs}, {"dollars", a.dollars}, {"unpriced", a.unpriced}});
    const nlohmann::json j = {{"version", kStateVersion},
                              {"path", s.path},
                              {"format", s.format},
                              {"inode", s.inode},
                              {"device", s.device},
                              {"liveOffset", s.liveOffset},
                              {"liveLine", s.liveLine},
                              {"headHash", s.headHash},
                              {"edgeHash", s.edgeHash},
                              {"liveUsable", s.liveUsable},
                              {"calibration",
                               {{"factor", s.carried.factor},
                                {"pairs", s.carried.pairs},
                                {"fixed", s.carried.fixed},
                                {"how", s.carried.how},
                                {"fixedHow", s.carried.fixedHow}}},
                              {"prefixDollars", s.prefixDollars},
                              {"prefixUnpriced", s.prefixUnpriced},
                              {"subagents", subs}};
    std::error_code ec;
    fs::create_directories(fs::path(file).parent_path(), ec);
    // Written beside and renamed: two calls at once (the agent does not wait) never see half a file.
    const std::string tmp = file + ".tmp" + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace);
        if (!out.flush())
            return false;
    }
    if (std::rename(tmp.c_str(), file.c_str()) != 0) {
        std::remove(tmp.c_str());
        return false;
    }
    return true;
}

std::string stateFileFor(const std::string &dir, const std::string &sessionId, const std::string &path)
{
    const bool plain = !sessionId.empty() && sessionId.size() <= 64
                       && sessionId.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
                              == std::string::npos;
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(fnv1a(path)));
    // The id and the path's hash: a session copied elsewhere (a fork, a fixture) keeps its id.
    return (fs::path(dir) / ((plain ? sessionId + "-" : std::string()) + hash + ".json")).string();
}

} // namespace cl::statusline::detail
