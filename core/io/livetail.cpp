// SPDX-License-Identifier: MIT
#include "core/io/livetail.h"

#include "core/io/appendlines.h"
#include "core/io/loader.h"

#include <algorithm>

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cl {

namespace {

// How many bytes at the start of the file and before its old end are kept to tell a rewrite in place.
constexpr std::size_t kEdgeBytes = 4096;

bool lineBased(Format f)
{
    return f == Format::ClaudeCode || f == Format::Codex;
}

// Reads [from, from + count) of the file; false when it cannot.
bool readRange(int fd, std::uint64_t from, std::uint64_t count, std::string &out)
{
    out.resize(count);
    std::uint64_t done = 0;
    while (done < count) {
        const ssize_t n = ::pread(fd, out.data() + done, count - done, off_t(from + done));
        if (n < 0)
            return false;
        if (n == 0)
            break; // shrank meanwhile: take what is there
        done += std::uint64_t(n);
    }
    out.resize(done);
    return true;
}

// A file decoded from UTF-16 has other offsets than its buffer: it is read whole on every change.
bool decodedFromUtf16(const Transcript &t)
{
    for (const Diagnostic &d : t.diagnostics)
        if (d.line == 0 && d.message.find("decoded to UTF-8") != std::string::npos)
            return true;
    return false;
}

} // namespace

std::string_view liveUpdateKindName(LiveTail::Update::Kind k)
{
    using K = LiveTail::Update::Kind;
    switch (k) {
    case K::Unchanged: return "unchanged";
    case K::Partial: return "partial";
    case K::Appended: return "appended";
    case K::Reparsed: return "reparsed";
    case K::Reloaded: return "reloaded";
    case K::Failed: return "failed";
    }
    return "unchanged";
}

LiveTail::LiveTail(std::string path, std::shared_ptr<const Transcript> loaded, LoadOptions opts)
    : m_path(std::move(path))
    , m_current(std::move(loaded))
    , m_opts(std::move(opts))
{
    m_opts.progress = nullptr;
    m_opts.cancel = nullptr;
    m_size = m_current && m_current->buffer ? m_current->buffer->size() : 0;
    m_wholeFile = m_current && decodedFromUtf16(*m_current);
    struct stat st {};
    if (::stat(m_path.c_str(), &st) == 0) {
        m_inode = std::uint64_t(st.st_ino);
        m_device = std::uint64_t(st.st_dev);
        if (m_wholeFile)
            m_size = std::uint64_t(st.st_size);
    }
    if (!m_wholeFile && m_current && m_current->buffer)
        rememberEdges(std::string_view(*m_current->buffer).substr(0, m_size));
    // A partly written last line was loaded as it was; its end arrives with the next lines, and the
    // current turn (parsed again with them) takes it in.
}

void LiveTail::rememberEdges(std::string_view whole)
{
    m_head.assign(whole.substr(0, kEdgeBytes));
    m_tail.assign(whole.substr(whole.size() - std::min(whole.size(), kEdgeBytes)));
}

void LiveTail::rememberAppended(std::string_view added)
{
    if (m_wholeFile)
        return;
    if (m_head.size() < kEdgeBytes)
        m_head.append(added.substr(0, kEdgeBytes - m_head.size()));
    m_tail.append(added);
    if (m_tail.size() > kEdgeBytes)
        m_tail.erase(0, m_tail.size() - kEdgeBytes);
}

bool LiveTail::edgesChanged(int fd) const
{
    if (m_wholeFile)
        return false;
    std::string now;
    if (!readRange(fd, 0, m_head.size(), now) || now != m_head)
        return true;
    return !readRange(fd, m_size - m_tail.size(), m_tail.size(), now) || now != m_tail;
}

LiveTail::Update LiveTail::applied(std::shared_ptr<const Transcript> t, Update::Kind kind, std::uint64_t read, std::string note)
{
    Update u;
    u.kind = kind;
    u.bytesRead = read;
    u.note = std::move(note);
    u.newMessages = std::int64_t(t->messages.size()) - std::int64_t(m_current ? m_current->messages.size() : 0);
    m_current = std::move(t);
    u.transcript = m_current;
    m_stats.bytesRead += read;
    return u;
}

LiveTail::Update LiveTail::reload(std::string note)
{
    LoadResult r = loadFile(m_path, m_opts);
    if (!r.ok()) {
        Update u;
        u.kind = Update::Kind::Failed;
        u.note = r.error.empty() ? "cannot read " + m_path : r.error;
        return u;
    }
    struct stat st {};
    const bool stated = ::stat(m_path.c_str(), &st) == 0;
    if (stated) {
        m_inode = std::uint64_t(st.st_ino);
        m_device = std::uint64_t(st.st_dev);
    }
    m_wholeFile = decodedFromUtf16(*r.transcript);
    m_size = m_wholeFile && stated ? std::uint64_t(st.st_size) : r.transcript->buffer ? r.transcript->buffer->size()
                                                                                      : 0;
    m_head.clear();
    m_tail.clear();
    if (!m_wholeFile && r.transcript->buffer)
        rememberEdges(std::string_view(*r.transcript->buffer).substr(0, m_size));
    m_pending.clear();
    m_append = {};
    ++m_stats.reloads;
    return applied(std::move(r.transcript), Update::Kind::Reloaded, m_size, std::move(note));
}

LiveTail::Update LiveTail::poll()
{
    ++m_stats.polls;
    Update u;
    // Never blocks: a FIFO put at the path would wait for a writer in a plain open().
    const int fd = ::open(m_path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        u.kind = Update::Kind::Failed;
        u.missing = errno == ENOENT;
        u.note = u.missing ? m_path + " is missing" : "cannot open " + m_path;
        return u;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        ::close(fd);
        u.kind = Update::Kind::Failed;
        u.note = "cannot read " + m_path;
        return u;
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        u.kind = Update::Kind::Failed;
        u.note = m_path + " is not a regular file (a FIFO, a device or a folder is not followed)";
        return u;
    }
    const auto size = std::uint64_t(st.st_size);
    const bool replaced = std::uint64_t(st.st_ino) != m_inode || std::uint64_t(st.st_dev) != m_device;
    // Rewritten in place (same inode, the bytes taken in are not there any more): read again.
    const bool rewritten = !replaced && size >= m_size && edgesChanged(fd);
    if (!replaced && !rewritten && size == m_size) {
        ::close(fd);
        return u;
    }
    if (replaced || rewritten || size < m_size || !m_current || !lineBased(m_current->format) || m_wholeFile) {
        ::close(fd);
        if (replaced)
            return reload("the file was replaced: read again");
        if (rewritten)
            return reload("the file was rewritten: read again");
        if (size < m_size)
            return reload("the file shrank: read again");
        if (m_wholeFile)
            return reload("a UTF-16 file is decoded whole: read again");
        return reload("a one-document session is rewritten whole: read again");
    }
    std::string added;
    const bool ok = readRange(fd, m_size, size - m_size, added);
    ::close(fd);
    if (!ok) {
        u.kind = Update::Kind::Failed;
        u.note = "cannot read " + m_path;
        return u;
    }
    m_size += added.size();
    rememberAppended(added);
    m_pending += added;
    const std::uint64_t read = added.size();
    const std::size_t end = m_pending.rfind('\n');
    if (end == std::string::npos) {
        u.kind = Update::Kind::Partial;
        u.bytesRead = read;
        m_stats.bytesRead += read;
        return u;
    }
    const std::string lines = m_pending.substr(0, end + 1);
    m_pending.erase(0, end + 1);
    AppendResult appended = appendLines(*m_current, lines, m_opts, &m_append);
    if (appended.transcript) {
        ++m_stats.appends;
        m_stats.inPlace += appended.inPlace ? 1 : 0;
        m_append.spare = m_current;
        m_append.spareMessages = appended.keptMessages;
        m_append.spareRecords = appended.keptRecords;
        m_append.spareBytes = appended.reparsedFrom;
        Update grown = applied(std::move(appended.transcript), Update::Kind::Appended, read, {});
        grown.keptMessages = appended.keptMessages;
        return grown;
    }
    m_append = {};
    // Parse the whole buffer again (the file is not read again).
    std::string whole;
    whole.reserve(m_current->buffer->size() + lines.size());
    whole.append(*m_current->buffer).append(lines);
    LoadResult r = loadBytes(std::move(whole), m_current->path, m_opts);
    if (!r.ok()) {
        u.kind = Update::Kind::Failed;
        u.note = r.error;
        m_stats.bytesRead += read;
        return u;
    }
    ++m_stats.reparses;
    return applied(std::move(r.transcript), Update::Kind::Reparsed, read, appended.reason);
}

} // namespace cl
