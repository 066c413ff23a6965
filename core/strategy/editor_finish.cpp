// SPDX-License-Identifier: MIT
// Editor::finish(): the recorded edits become a Result (tool pairs closed, kept copies completed,
// fillers keeping roles alternating, slots in transcript order). The edits themselves are in
// strategy/editor.cpp.
#include "core/strategy/editor.h"

#include "core/util/parallel.h"

#include <algorithm>

namespace cl::strategy {

// A call and its result live or die together; protected ones pull their partner back in.
void Editor::closePairs()
{
    // The walk below acts only on partners in removed messages: with none removed it has nothing to
    // do, and on a large transcript the walk is not free.
    if (std::find(m_removed.begin(), m_removed.end(), char(1)) == m_removed.end())
        return;
    const Transcript &t = m_in.transcript;
    // A message restored for a protected partner must stay too (it pulls back its other partners
    // instead of being removed again); without this a call with several results, one protected,
    // was restored and removed in turn forever.
    std::vector<char> anchored(t.messages.size(), 0);
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t i = 0; i < t.messages.size(); ++i) {
            if (m_removed[i])
                continue;
            const Message &m = t.messages[i];
            for (std::size_t b = 0; b < m.blocks.size(); ++b) {
                const Block &blk = m.blocks[b];
                if ((blk.type != BlockType::ToolUse && blk.type != BlockType::ToolResult) || blk.pairMessage < 0)
                    continue;
                if (m_edited[i] && !m_fates[i].blocks.empty() && m_fates[i].blocks[b] == Fate::Removed)
                    continue;
                const auto p = static_cast<std::size_t>(blk.pairMessage);
                if (p >= t.messages.size() || !m_removed[p])
                    continue;
                if (isProtected(i) || anchored[i] || m_in.isPinned(p)) {
                    restore(p);
                    anchored[p] = 1;
                    log("kept message " + std::to_string(p) + ": its tool partner at " + std::to_string(i)
                        + " is protected");
                } else {
                    remove(i, "its tool " + std::string(blk.type == BlockType::ToolUse ? "result" : "call")
                                  + " (message " + std::to_string(p) + ") was removed");
                }
                changed = true;
                break;
            }
        }
    }
}

void Editor::fillKept(const std::vector<MessageFate> &fates)
{
    // The header, the unchanged blocks' text and input, and the deferred splices of every kept
    // copy, now that no strategy step can replace them (a removed block is never written). Each
    // copy on one thread.
    constexpr std::size_t kMinCopies = 256, kChunk = 16;
    std::vector<std::size_t> todo;
    for (std::size_t i = 0; i < m_edited.size(); ++i)
        if (m_edited[i] && m_pending[i] && !m_removed[i])
            todo.push_back(i);
    parallelFor(todo.size(), kChunk, kMinCopies, [&](std::size_t j) {
        const std::size_t i = todo[j];
        const std::vector<Fate> &blocks = fates[i].blocks;
        fillHeader(i);
        for (std::size_t b = 0; b < m_changed[i].size(); ++b)
            if (blocks.empty() || blocks[b] != Fate::Removed)
                fillBlock(i, b);
        m_pending[i] = 0;
    });
}

Result Editor::finish()
{
    closePairs();
    const Transcript &t = m_in.transcript;
    Result r;
    r.fates = std::move(m_fates);
    r.slots.reserve(t.messages.size() + 4);
    // Formats whose requests need strictly alternating user / assistant turns get a one-line
    // filler where removals left two turns of the same role next to each other.
    const bool alternate = t.format == Format::Anthropic || t.format == Format::Gemini;
    Role lastRole = Role::Unknown;
    std::size_t fillers = 0;
    auto keepAlternating = [&](const Message &m) {
        if (!alternate || !m.isConversation() || m.sidechain || (m.role != Role::User && m.role != Role::Assistant))
            return;
        if (m.role == lastRole && r.changed) {
            Slot s;
            const bool user = m.role == Role::Assistant;
            s.message = std::make_shared<const Message>(makeTextMessage(user ? Role::User : Role::Assistant,
                                                                        user ? "[earlier messages removed; continue]" : "[earlier messages removed]"));
            s.fate = Fate::Inserted;
            s.reason = "keeps user and assistant turns alternating after a removal";
            r.slots.push_back(std::move(s));
            ++fillers;
        }
        lastRole = m.role;
    };
    auto emitInserted = [&](std::size_t at) {
        for (auto &[msg, why] : m_inserted[at]) {
            r.changed = true;
            keepAlternating(msg);
            Slot s;
            s.message = std::make_shared<const Message>(std::move(msg));
            s.fate = Fate::Inserted;
            s.reason = std::move(why);
            r.slots.push_back(std::move(s));
        }
    };
    estimateCopies(&r.fates);
    fillKept(r.fates);
    for (std::size_t i = 0; i < t.messages.size(); ++i) {
        emitInserted(i);
        MessageFate &f = r.fates[i];
        if (m_removed[i]) {
            f.slot = -1;
            if (f.fate == Fate::Kept)
                f.fate = Fate::Removed;
            r.changed = true;
            continue;
        }
        // Block edits keep a message's role and kind: the original tells them without completing
        // the copy's pending blocks (its removed ones are never copied, below).
        keepAlternating(m_freeform[i] ? current(i) : t.messages[i]);
        Slot s;
        s.origin = static_cast<std::int32_t>(i);
        s.fate = f.fate; // (its reason stays in f: Result::slotReason)
        if (m_edited[i]) {
            std::shared_ptr<Message> m = m_edited[i];
            // (Its estimate was made by estimateCopies() above, from the unchanged blocks' table,
            // and fillKept() wrote its kept blocks' text and input; a removed block is dropped here.)
            if (std::find(f.blocks.begin(), f.blocks.end(), Fate::Removed) != f.blocks.end()) {
                std::vector<Block> kept;
                kept.reserve(m->blocks.size());
                for (std::size_t b = 0; b < m->blocks.size(); ++b)
                    if (f.blocks[b] != Fate::Removed)
                        kept.push_back(std::move(m->blocks[b]));
                m->blocks = std::move(kept);
            }
            s.message = std::move(m);
            r.changed = true;
        }
        f.slot = static_cast<std::int32_t>(r.slots.size());
        r.slots.push_back(std::move(s));
    }
    emitInserted(t.messages.size());
    if (fillers)
        m_log.push_back(std::to_string(fillers) + " filler turn(s) inserted to keep roles alternating");
    r.log = std::move(m_log);
    r.note = std::move(m_note);
    r.extra = std::move(m_extra);
    return r;
}

} // namespace cl::strategy
