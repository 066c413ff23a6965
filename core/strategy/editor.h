// SPDX-License-Identifier: MIT
#pragma once

// What strategy implementations build their results with. An Editor records removals, edits and
// insertions against the original transcript (indices are original transcript indices throughout)
// and turns them into a Result. It enforces the user's guards: a pinned message, or one holding a
// call or result of an exempt tool, is never removed or edited (the call returns false and the
// strategy moves on). finish() closes tool pairs: a call whose result was removed (or the other way
// round) goes too, unless it is protected, in which case its partner is restored; so a result never
// holds an orphan even when a guard vetoed part of a strategy's plan.

#include "core/util/parallel.h"
#include "core/strategy/strategy.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cl::strategy {

class Editor
{
public:
    explicit Editor(const Input &in);

    const Input &input() const { return m_in; }
    const Transcript &transcript() const { return m_in.transcript; }
    const analysis::Analysis &analysis() const { return m_in.analysis(); }
    // Conversation positions (the analysis' view): position -> transcript index.
    const std::vector<std::size_t> &conversation() const { return *m_view; }
    std::size_t size() const { return conversation().size(); }
    std::size_t at(std::size_t position) const { return conversation()[position]; }

    const Message &current(std::size_t index) const; // edited copy if any
    // Current text of block `block` of the original message (the replaced text, else the
    // original's), without completing the rest of an edited copy as current() does. An empty string
    // when an edit() copy no longer has that block.
    const std::string &currentText(std::size_t index, std::size_t block) const;
    // Byte size of currentText(), and a view of its first min(n, size) bytes, without writing out a
    // deferred splice (setBlockSplice) whose head holds them.
    std::size_t currentSize(std::size_t index, std::size_t block) const;
    std::string_view currentHead(std::size_t index, std::size_t block, std::size_t n) const;
    bool isRemoved(std::size_t index) const { return m_removed[index] != 0; }
    bool isEdited(std::size_t index) const { return m_edited[index] != nullptr; }
    bool isProtected(std::size_t index) const;    // pinned, or carries an exempt tool's block
    std::int64_t tokens(std::size_t index) const; // current estimate (0 when removed)
    // Fills what tokens() would compute for every edited copy, on two threads when there are many:
    // call before summing tokens() over the whole transcript after a large edit.
    void prepareTokens() const { estimateCopies(nullptr); }
    // Estimate of block `block` of the original message (tokens::estimateBlock, from the input's
    // per-transcript table: no text is scanned again).
    std::int64_t blockTokens(std::size_t index, std::size_t block) const;
    // utf8Length of block `block` of the original message (from the input's per-transcript table).
    std::size_t textLength(std::size_t index, std::size_t block) const;
    // Lines of block `block` of the original message (TextLengths::lines, from the input's
    // per-transcript table).
    std::size_t lineCount(std::size_t index, std::size_t block) const;
    // TextLengths::distinct of block `block` of the original message: its lines are all different.
    bool linesDistinct(std::size_t index, std::size_t block) const;
    // True when the block's text or input was replaced (current(index) differs from the original there).
    bool isBlockChanged(std::size_t index, std::size_t block) const
    {
        return m_edited[index] && block < m_changed[index].size() && replaced(m_changed[index][block].state);
    }

    bool remove(std::size_t index, std::string reason, Fate fate = Fate::Removed);
    void restore(std::size_t index);
    // Replaces a block's text (tool result, text, thinking). Refused for protected messages and for
    // blocks of exempt tools. tokens >= 0: tokens::estimateBlock of the block with the new text,
    // when the caller made it already (on its threads, while the text was hot).
    bool setBlockText(std::size_t index, std::size_t block, std::string text, Fate fate, std::string reason,
                      std::int64_t tokens = -1);
    // Many setBlockText() calls at once: edits[k] applied as setBlockText would, the edits of one
    // message in their order; above a few hundred, messages are shared out over two threads (an
    // edited copy is made per message: clearing 50 000 results made them one after the other).
    // Returns, per edit, whether it was applied (refused ones as setBlockText refuses them).
    struct TextEdit {
        std::size_t index = 0, block = 0;
        std::string text;
        Fate fate = Fate::Cleared;
        std::string reason;
        std::int64_t tokens = -1; // as setBlockText's
    };
    std::vector<char> setBlockTexts(std::vector<TextEdit> &edits);
    // A replacement text made of pieces of the block's original text: its first headBytes bytes,
    // then `middle`, then its bytes from tailStart on (a snip). Refused like setBlockText; tokens is
    // required (the caller estimated the text, e.g. in a scratch buffer). The text is written out
    // only when it is read (currentText, current) or finish() keeps the block: the progressive
    // manager snips every long result and then summarizes or compacts most of them, and writing
    // those texts (~100 MB for 100 000 messages) took a fifth of its snip tier.
    struct Splice {
        std::size_t headBytes = 0, tailStart = 0;
        std::string middle;
        // Byte size of the text it makes of an original of textSize bytes, and that text (replacing
        // out's contents).
        std::size_t size(std::size_t textSize) const { return headBytes + middle.size() + (textSize - tailStart); }
        void write(std::string_view text, std::string &out) const;
    };
    bool setBlockSplice(std::size_t index, std::size_t block, Splice splice, Fate fate, std::string reason,
                        std::int64_t tokens);
    // f(thread, position, index) for every conversation position in [first, end) and its transcript
    // index; with many messages on two threads, each message on the one setBlockTexts() would give
    // it (runs of 64), so that f may read and edit that message (currentText, textLength,
    // blockTokens, setBlockText, isProtected) while its data is in cache: listing, cutting and
    // applying in one pass. f must not touch other messages; thread is 0 or 1 (for per-thread tallies).
    template <class F> void forEachMessage(std::size_t first, std::size_t end, F &&f);
    // Drops one block (e.g. a thinking block); refused like setBlockText. A message left without
    // blocks is removed.
    bool dropBlock(std::size_t index, std::size_t block, Fate fate, std::string reason);
    // Replaces a tool_use block's input (clear_tool_inputs).
    bool setToolInput(std::size_t index, std::size_t block, nlohmann::json input, std::string reason);
    // A mutable copy for edits not covered above; null when protected. Caller records the fate.
    Message *edit(std::size_t index, Fate fate, std::string reason);

    // Inserts m before original message `index` (== messages.size(): at the end), after earlier
    // insertions at the same place.
    void insertBefore(std::size_t index, Message m, std::string reason);

    void log(std::string line) { m_log.push_back(std::move(line)); }
    void setNote(std::string note) { m_note = std::move(note); }
    nlohmann::json &extra() { return m_extra; }

    // Builds the result (changed = anything recorded). Closes tool pairs first.
    Result finish();

private:
    void closePairs();
    // The edited copy of a message (made on first use). Its blocks' text and input are copied from
    // the original only when first needed (fillPending): a strategy replacing the results of a
    // message one block after the other never copies a text it then drops (tool results can be
    // megabytes, and copying them dominated the snip and clearing strategies).
    Message &mutableCopy(std::size_t index);
    // Completes an edited copy: the strings of its header and of its blocks' ids and names
    // (fillHeader), the not yet copied text and input of its blocks, and its deferred splices.
    void fillPending(std::size_t index) const;
    void fillHeader(std::size_t index) const;
    void fillBlock(std::size_t index, std::size_t block) const;
    // fillBlock() of every kept block of the messages finish() keeps, on two threads when many.
    void fillKept(const std::vector<MessageFate> &fates);
    const Input::TextLengths &lengths() const; // the input's table, fetched on first use
    void mark(std::size_t index, Fate fate, std::string reason);
    // Estimate of an edited copy: its changed blocks estimated, the others taken from the table
    // (the same sum tokens::estimateMessage makes). dropped (per block, may be null): leave out the
    // blocks whose fate is Removed, as finish() does.
    // estimateChanged()'s memory of the last short replacement text (one per thread).
    struct ShortEstimate {
        std::string text;
        BlockType type = BlockType::Text;
        std::int64_t value = -1;
    };
    std::int64_t estimateCopy(std::size_t index, const std::vector<Fate> *dropped, ShortEstimate &memo) const;
    std::int64_t estimateCopy(std::size_t index, const std::vector<Fate> *dropped) const
    {
        return estimateCopy(index, dropped, m_short);
    }
    // The estimates of all edited copies at once, on two threads when many (each copy on one); with fates
    // the blocks they mark Removed are left out, as finish() does.
    void estimateCopies(const std::vector<MessageFate> *fates) const;
    bool blockExempt(const Message &m, std::size_t block) const;
    static std::int64_t estimateChanged(const Block &b, ShortEstimate &memo); // estimateBlock, short texts remembered
    // The message's estimate once block `block` is replaced by a text of `tokens` (its current
    // estimate moved by the difference), or -1 when either is not known: setBlockText() keeps a
    // copy's estimate current, so that the tier manager's totals and finish() re-estimate nothing.
    std::int64_t estimateAfter(std::size_t index, std::size_t block, std::int64_t tokens) const;

    // Builds the lookups forEachMessage()'s threads share (pinned set, per-transcript tables).
    void prepareShared() const;
    // The thread (0 or 1) that owns a message in setBlockTexts() and forEachMessage(): runs of 64, so
    // that every edit of one message, and the per-message flags it writes, stay with one thread.
    static std::size_t ownerThread(std::size_t index) { return (index / 64) % 2; }

    const Input &m_in;
    const std::vector<std::size_t> *m_view; // the analysis' conversation index
    std::vector<char> m_removed;
    std::vector<std::shared_ptr<Message>> m_edited;
    // Per edited copy and block: kChanged (text / input replaced), kSpliced (text replaced by a
    // splice not written out yet: splice holds it), kPending (text and input not copied from the
    // original yet) or 0 (a copy of the original's); for a replaced block, its estimate when
    // setBlockText() was given it (else -1).
    static constexpr char kChanged = 1, kPending = 2, kSpliced = 3;
    static bool replaced(char state) { return state == kChanged || state == kSpliced; }
    struct BlockEdit {
        char state = 0;
        std::int32_t tokens = -1;
        Splice splice;
    };
    mutable std::vector<std::vector<BlockEdit>> m_changed;
    mutable std::vector<char> m_pending; // per message: the copy is incomplete (fillPending)
    std::vector<char> m_freeform;        // edit() handed the copy out: any block may differ
    mutable std::shared_ptr<const Input::BlockTokens> m_blockTable;
    mutable std::shared_ptr<const Input::TextLengths> m_lengthTable;
    mutable ShortEstimate m_short;
    std::vector<MessageFate> m_fates;
    std::vector<std::vector<std::pair<Message, std::string>>> m_inserted; // by insertion point
    std::vector<std::string> m_log;
    std::string m_note;
    nlohmann::json m_extra = nlohmann::json::object();
};

template <class F> void Editor::forEachMessage(std::size_t first, std::size_t end, F &&f)
{
    constexpr std::size_t kMinParallel = 2048;
    end = std::min(end, size());
    if (end < first + kMinParallel) {
        for (std::size_t p = first; p < end; ++p)
            f(std::size_t(0), p, at(p));
        return;
    }
    prepareShared();
    onTwoThreads([&](std::size_t thread) {
        for (std::size_t p = first; p < end; ++p)
            if (const std::size_t i = at(p); ownerThread(i) == thread)
                f(thread, p, i);
    });
}

// ---- Helpers shared by strategies ------------------------------------------------------------------

// A conversation message with one text block.
Message makeTextMessage(Role role, std::string text, MessageKind kind = MessageKind::Conversation);

// UTF-8 safe head / tail of at most n bytes (never splits a code point).
std::string_view utf8Head(std::string_view s, std::size_t n);
std::string_view utf8Tail(std::string_view s, std::size_t n);
std::size_t utf8Length(std::string_view s); // code points

// Position p (0..n) is a safe cut when removing everything before it (or starting a kept tail at
// it) orphans no tool pair and the tail starts with a user request (or p == n): no tool_use before
// p is answered at or after p, and message p is a user message without tool results.
bool isSafeCut(const Editor &e, std::size_t position);
// Nearest safe cut at or after / at or before `position`; nullopt when there is none.
std::optional<std::size_t> safeCutAtOrAfter(const Editor &e, std::size_t position);
std::optional<std::size_t> safeCutAtOrBefore(const Editor &e, std::size_t position);

// Inserts a summary before original index `before` as a user message (kind CompactSummary) and,
// when the next kept message is also a user message, a short assistant acknowledgement so that
// roles keep alternating (Anthropic / Gemini rules).
void insertSummary(Editor &e, std::size_t before, std::string text, std::string reason,
                   std::string_view acknowledgement = "Understood. I have the summary and will continue from it.");

// The first system-role conversation messages (the system prompt), transcript indices.
std::vector<std::size_t> leadingSystem(const Editor &e);

} // namespace cl::strategy
