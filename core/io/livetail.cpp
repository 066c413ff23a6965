// SPDX-License-Identifier: MIT
#include "core/io/livetail.h"

#include "core/io/appendlines.h"
#include "core/io/loader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cl {

namespace {

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
    // A partly written last line was loaded as it was; its end arrives with the next lines, and the
    // current turn (parsed again with them) takes it in.
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
    m_pending.clear();
    ++m_stats.reloads;
    return applied(std::move(r.transcript), Update::Kind::Reloaded, m_size, std::move(note));
}

LiveTail::Update LiveTail::poll()
{
    ++m_stats.polls;
    Update u;
    const int fd = ::open(m_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        u.kind = Update::Kind::Failed;
        u.note = "cannot open " + m_path;
        return u;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        ::close(fd);
        u.kind = Update::Kind::Failed;
        u.note = "cannot read " + m_path;
        return u;
    }
    const auto size = std::uint64_t(st.st_size);
    const bool replaced = std::uint64_t(st.st_ino) != m_inode || std::uint64_t(st.st_dev) != m_device;
    if (!replaced && size == m_size) {
        ::close(fd);
        return u;
    }
    if (replaced || size < m_size || !m_current || !lineBased(m_current->format) || m_wholeFile) {
        ::close(fd);
        if (replaced)
            return reload("the file was replaced: read again");
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
    AppendResult appended = appendLines(*m_current, lines, m_opts);
    if (appended.transcript) {
        ++m_stats.appends;
        return applied(std::move(appended.transcript), Update::Kind::Appended, read, {});
    }
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
