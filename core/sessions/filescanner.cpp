// SPDX-License-Identifier: MIT
// One file read into a padded buffer and handed to the scanner of its agent. Where a file lies
// says what it is (an agent's own layout); a file of an added folder is recognised by the project's
// format detection, and formats without a fast scanner (raw API histories) go through the loader.
#include "core/sessions/ondemand_internal.h"

#include "core/io/loader.h"
#include "core/io/textencoding.h"
#include "core/util/regularfile.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cl::sessions::detail {

namespace {

// The whole of a regular file: a FIFO or a device found under a session's name (a FIFO named
// *.jsonl, a link to /dev/zero) is refused at once, never waited for or read without end.
bool readAll(const std::string &path, PaddedBytes &out, std::string &why)
{
    util::ReadResult opened;
    const int fd = util::openRegularFile(path, opened);
    if (fd < 0) {
        why = path + ": " + opened.why;
        return false;
    }
    struct stat st = {};
    if (::fstat(fd, &st) != 0) {
        why = path + ": " + std::strerror(errno);
        ::close(fd);
        return false;
    }
    // Room for what the file holds now plus some growth (an agent may be writing it), then padding.
    std::size_t capacity = std::size_t(st.st_size) + 4096;
    out.storage.resize(capacity + simdjson::SIMDJSON_PADDING);
    std::size_t size = 0;
    for (;;) {
        if (size == capacity) {
            capacity *= 2;
            out.storage.resize(capacity + simdjson::SIMDJSON_PADDING);
        }
        const ssize_t n = ::read(fd, out.storage.data() + size, capacity - size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            why = path + ": " + std::strerror(errno);
            ::close(fd);
            return false;
        }
        if (n == 0)
            break;
        size += std::size_t(n);
    }
    ::close(fd);
    out.size = size;
    out.storage.resize(size + simdjson::SIMDJSON_PADDING);
    std::fill(out.storage.begin() + std::ptrdiff_t(size), out.storage.end(), ' ');
    return true;
}

// Formats without a fast scanner: the loader's transcript, reduced to the same figures.
void summarizeLoaded(const Transcript &t, Session &out)
{
    out.format = t.format;
    for (const auto &m : t.messages) {
        if (m.timeMs != kNoTime) {
            if (out.startMs == kNoTime || m.timeMs < out.startMs)
                out.startMs = m.timeMs;
            if (out.lastMs == kNoTime || m.timeMs > out.lastMs)
                out.lastMs = m.timeMs;
        }
        if (m.kind == MessageKind::CompactBoundary)
            ++out.compactions;
        if (!m.isTurn() || m.sidechain)
            continue;
        ++out.messages;
        if (m.usage)
            out.peakContext = std::max(out.peakContext, m.usage->contextTokens());
        if (m.role == Role::Assistant && !m.model.empty())
            out.model = m.model;
        if (m.role == Role::User && out.firstRequest.empty() && m.kind == MessageKind::Conversation && !m.isMeta)
            out.firstRequest = firstLine(typedRequest(m.plainText()));
    }
    if (const std::string cwd = json::str(t.header, "cwd"); !cwd.empty() && out.project.empty())
        out.project = cwd;
    if (const std::string id = json::str(t.header, "sessionId"); !id.empty() && out.sessionId.empty())
        out.sessionId = id;
    if (out.model.empty() && t.header.is_object())
        if (const auto it = t.header.find("model"); it != t.header.end() && it->is_string())
            out.model = it->get<std::string>();
    out.usage = usageByModel(cost::readUsage(t));
}

} // namespace

struct FileScanner::Impl {
    OnDemand parser;
    PaddedBytes bytes;

    void scanAs(Format format, const std::string &path, Session &out)
    {
        switch (format) {
        case Format::ClaudeCode: scanClaudeCode(parser, bytes, out); return;
        case Format::Codex: scanCodex(parser, bytes, out); return;
        case Format::CopilotCli: scanCopilot(parser, bytes, out); return;
        case Format::GeminiCli:
            // A recorded session is JSON lines; a legacy record or a checkpoint one document.
            if (std::string_view(path).ends_with(".jsonl") || !scanGeminiDocument(parser, bytes, out)) {
                out = Session();
                scanGeminiLines(parser, bytes, out);
            }
            return;
        default: loadAs(format, path, out); return;
        }
    }

    void loadAs(Format format, const std::string &path, Session &out)
    {
        LoadOptions options;
        options.format = format;
        options.loadSubagents = false;
        options.threads = 1;
        const LoadResult r = loadBytes(std::string(bytes.view()), path, options);
        if (r.ok())
            summarizeLoaded(*r.transcript, out);
    }
};

FileScanner::FileScanner()
    : d(std::make_unique<Impl>())
{}
FileScanner::~FileScanner() = default;

bool FileScanner::scan(const Candidate &c, Session &out, std::string &why)
{
    out = Session();
    if (!readAll(c.path, d->bytes, why))
        return false;
    switch (c.origin) {
    case Origin::ClaudeProjects: d->scanAs(Format::ClaudeCode, c.path, out); break;
    case Origin::CodexSessions: d->scanAs(Format::Codex, c.path, out); break;
    case Origin::CopilotSessions: d->scanAs(Format::CopilotCli, c.path, out); break;
    case Origin::GeminiChat:
    case Origin::GeminiCheckpoint: d->scanAs(Format::GeminiCli, c.path, out); break;
    case Origin::QwenProjects: d->scanAs(Format::QwenCode, c.path, out); break;
    case Origin::Folder: {
        const std::string_view view = d->bytes.view();
        const Format format = detectFormat(view, c.path, simdjson::SIMDJSON_PADDING);
        if (format == Format::Unknown)
            break;
        // The fast scanners read UTF-8; the loader decodes the UTF-16 an editor may have saved.
        if (isApiFormat(format) || text::sniff(view).encoding != text::Encoding::Utf8)
            d->loadAs(format, c.path, out);
        else
            d->scanAs(format, c.path, out);
        break;
    }
    }
    if (c.origin == Origin::GeminiCheckpoint)
        out.checkpoint = true;
    // A Claude Code session's subagents were paid for with it: their usage counts in its cost. A file
    // that cannot be read adds nothing and is reported: the session's cost is then incomplete.
    if (out.format == Format::ClaudeCode)
        for (const std::string &path : c.subagentPaths) {
            std::string subWhy;
            if (!readAll(path, d->bytes, subWhy)) {
                out.unreadSubagents.push_back(subWhy);
                continue;
            }
            Session sub;
            scanClaudeCode(d->parser, d->bytes, sub);
            for (const ModelUsage &u : sub.usage)
                addUsage(out.usage, u.model, u.tokens, u.responses);
            out.subagents.push_back(subagentUsage(path, std::move(sub.usage)));
        }
    return true;
}

} // namespace cl::sessions::detail
