// SPDX-License-Identifier: MIT
#pragma once
// Follows a session file its agent is still writing. Each poll reads only the bytes appended since
// the last one; complete new lines of a Claude Code or Codex session are parsed with the current turn
// (core/io/appendlines.h), a line still being written waits for its end. A file that shrank or was
// replaced (another inode), and the one-document formats (Gemini CLI rewrites its chat file whole),
// are read again in full, and the update says so. A file rewritten in place (same inode: `cp other.jsonl
// watched.jsonl`) is told by its first bytes and the bytes before the old end, kept from what was read
// and compared on every poll: when they differ the file is read again in full. Only regular files are
// followed (a FIFO or a device would block or never end); a file that is missing says so (`missing`),
// its agent or a rotation may bring it back.

#include "core/formats/load.h"
#include "core/io/appendlines.h"

#include <cstdint>
#include <memory>
#include <string>

namespace cl {

class LiveTail
{
public:
    // `loaded`: the transcript loadFile(path, opts) gave; its buffer holds the bytes read then.
    LiveTail(std::string path, std::shared_ptr<const Transcript> loaded, LoadOptions opts = {});

    struct Update {
        enum class Kind : std::uint8_t {
            Unchanged, // nothing new
            Partial,   // bytes arrived, but no complete line yet
            Appended,  // new lines parsed incrementally
            Reparsed,  // new lines, but the whole buffer was parsed again (note says why); file not re-read
            Reloaded,  // the whole file was read again (note says why)
            Failed     // the file is gone or unreadable (note); the transcript stays as it was
        };
        Kind kind = Kind::Unchanged;
        std::shared_ptr<const Transcript> transcript; // the new transcript (Appended, Reparsed, Reloaded)
        std::uint64_t bytesRead = 0;                  // read from the file by this poll
        std::int64_t newMessages = 0;                 // messages added (negative when a reload dropped some)
        // Appended: the first messages of the new transcript that are the version before's, as they
        // were (their blocks may have been paired with new results, or become history after a new
        // compaction); 0 otherwise.
        std::size_t keptMessages = 0;
        std::string note;
        bool missing = false; // Failed: there is no file at the path (it may come back)
        bool changed() const { return transcript != nullptr; }
    };
    Update poll();

    const std::shared_ptr<const Transcript> &current() const { return m_current; }
    const std::string &path() const { return m_path; }
    std::uint64_t fileSize() const { return m_size; }

    struct Stats {
        std::uint64_t polls = 0, appends = 0, reparses = 0, reloads = 0;
        std::uint64_t inPlace = 0;   // appends grown in the version before, which no one else held
        std::uint64_t bytesRead = 0; // by polls, the first load not included
    };
    const Stats &stats() const { return m_stats; }

private:
    Update reload(std::string note);
    Update applied(std::shared_ptr<const Transcript> t, Update::Kind kind, std::uint64_t read, std::string note);
    void rememberEdges(std::string_view whole);    // the file's bytes as taken in, from the start
    void rememberAppended(std::string_view added); // bytes just read past the old end
    bool edgesChanged(int fd) const;               // the bytes remembered differ from the file's now

    std::string m_path;
    std::shared_ptr<const Transcript> m_current;
    LoadOptions m_opts;
    std::uint64_t m_size = 0;  // bytes of the file taken in (parsed or pending)
    std::uint64_t m_inode = 0; // the file's identity when it was read
    std::uint64_t m_device = 0;
    std::string m_pending;    // the start of a line still being written
    bool m_wholeFile = false; // UTF-16: its buffer (decoded) does not map to the file's bytes
    std::string m_head;       // the file's first bytes taken in (up to kEdgeBytes)
    std::string m_tail;       // the last bytes taken in, ending at m_size (up to kEdgeBytes)
    // Kept between appends so that each costs what was appended: the earlier lines' ids, and the
    // version before the current one, which the next append grows in place once the caller has let
    // go of it (the window keeps only the newest). Reset when the file is read or parsed again.
    AppendState m_append;
    Stats m_stats;
};

std::string_view liveUpdateKindName(LiveTail::Update::Kind k);

} // namespace cl
