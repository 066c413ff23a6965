// SPDX-License-Identifier: MIT
#include "core/strategy/editor.h"

#include "core/model/messagecopy.h"
#include "core/util/parallel.h"
#include "core/tokens/estimator.h"

#include <algorithm>
#include <cstdint>
#include <thread>
#include <unordered_map>

namespace cl::strategy {

Editor::Editor(const Input &in)
    : m_in(in)
    , m_view(&in.analysis().view.index)
    , m_removed(in.transcript.messages.size(), 0)
    , m_edited(in.transcript.messages.size())
    , m_changed(in.transcript.messages.size())
    , m_pending(in.transcript.messages.size(), 0)
    , m_freeform(in.transcript.messages.size(), 0)
    , m_fates(in.transcript.messages.size())
    , m_inserted(in.transcript.messages.size() + 1)
{
}

void Editor::prepareShared() const
{
    (void)m_in.isPinned(0);
    (void)lengths();
    if (!m_blockTable)
        m_blockTable = m_in.blockTokens();
}

const Message &Editor::current(std::size_t index) const
{
    if (!m_edited[index])
        return m_in.transcript.messages[index];
    if (m_pending[index])
        fillPending(index);
    return *m_edited[index];
}

const std::string &Editor::currentText(std::size_t index, std::size_t block) const
{
    static const std::string none;
    const Message *copy = m_edited[index].get();
    if (copy && m_freeform[index]) // edit() handed the copy out: any block may differ
        return block < copy->blocks.size() ? copy->blocks[block].text : none;
    if (copy && m_changed[index][block].state == kSpliced)
        fillBlock(index, block);
    if (copy && m_changed[index][block].state == kChanged)
        return copy->blocks[block].text;
    return m_in.transcript.messages[index].blocks[block].text;
}

void Editor::Splice::write(std::string_view text, std::string &out) const
{
    out.clear();
    out.reserve(size(text.size()));
    out.append(text.substr(0, headBytes)).append(middle).append(text.substr(tailStart));
}

std::size_t Editor::currentSize(std::size_t index, std::size_t block) const
{
    if (m_edited[index] && !m_freeform[index] && m_changed[index][block].state == kSpliced) {
        return m_changed[index][block].splice.size(m_in.transcript.messages[index].blocks[block].text.size());
    }
    return currentText(index, block).size();
}

std::string_view Editor::currentHead(std::size_t index, std::size_t block, std::size_t n) const
{
    if (m_edited[index] && !m_freeform[index] && m_changed[index][block].state == kSpliced
        && m_changed[index][block].splice.headBytes >= n)
        return std::string_view(m_in.transcript.messages[index].blocks[block].text).substr(0, n);
    return std::string_view(currentText(index, block)).substr(0, n);
}

void Editor::fillBlock(std::size_t index, std::size_t block) const
{
    BlockEdit &x = m_changed[index][block];
    const Block &from = m_in.transcript.messages[index].blocks[block];
    Block &to = m_edited[index]->blocks[block];
    if (x.state == kSpliced) { // (its input was copied when the splice was set)
        x.splice.write(from.text, to.text);
        x.state = kChanged;
        std::string().swap(x.splice.middle);
        return;
    }
    if (x.state != kPending)
        return;
    to.text = from.text;
    to.input = from.input;
    x.state = 0;
}

void Editor::fillHeader(std::size_t index) const
{
    copyMessageHeader(*m_edited[index], m_in.transcript.messages[index]);
}

void Editor::fillPending(std::size_t index) const
{
    fillHeader(index);
    for (std::size_t b = 0; b < m_changed[index].size(); ++b)
        fillBlock(index, b);
    m_pending[index] = 0;
}

bool Editor::blockExempt(const Message &m, std::size_t block) const
{
    const Block &b = m.blocks[block];
    // A tool the provider ran itself (Anthropic's web search, ...): its call and result go back as
    // they were read, or not at all (with their message).
    if (b.serverSide && (b.type == BlockType::ToolResult || b.pairMessage >= 0))
        return true;
    return (b.type == BlockType::ToolUse || b.type == BlockType::ToolResult) && !b.toolName.empty()
           && m_in.isExemptTool(b.toolName);
}

bool Editor::isProtected(std::size_t index) const
{
    if (m_in.isPinned(index))
        return true;
    if (m_in.exemptTools.empty()) // the common case: no walk over the blocks of every removal
        return false;
    const Message &m = m_in.transcript.messages[index];
    for (std::size_t b = 0; b < m.blocks.size(); ++b)
        if (blockExempt(m, b))
            return true;
    return false;
}

std::int64_t Editor::tokens(std::size_t index) const
{
    if (m_removed[index])
        return 0;
    const std::shared_ptr<Message> &copy = m_edited[index];
    if (!copy)
        return tokens::estimateMessage(m_in.transcript.messages[index]);
    if (copy->cache.tokenEstimate >= 0) // not through current(): that would complete the copy's pending blocks
        return copy->cache.tokenEstimate;
    if (m_freeform[index])
        return tokens::estimateMessage(*copy); // edit() completed it
    const std::int64_t total = estimateCopy(index, nullptr);
    copy->cache.tokenEstimate = static_cast<std::int32_t>(std::min<std::int64_t>(total, INT32_MAX));
    return total;
}

std::int64_t Editor::blockTokens(std::size_t index, std::size_t block) const
{
    const Message &o = m_in.transcript.messages[index];
    if (o.blocks.size() == 1)
        return tokens::estimateMessage(o) - tokens::kRoleTokens - tokens::kStructureTokens;
    if (!m_blockTable)
        m_blockTable = m_in.blockTokens();
    return m_blockTable->values[m_blockTable->first[index] + block];
}

const Input::TextLengths &Editor::lengths() const
{
    if (!m_lengthTable)
        m_lengthTable = m_in.textLengths();
    return *m_lengthTable;
}

std::size_t Editor::textLength(std::size_t index, std::size_t block) const
{
    return lengths().values[lengths().first[index] + block];
}

bool Editor::linesDistinct(std::size_t index, std::size_t block) const
{
    return lengths().distinct[lengths().first[index] + block] != 0;
}

std::size_t Editor::lineCount(std::size_t index, std::size_t block) const
{
    return lengths().lines(m_in.transcript, index, block);
}

std::int64_t Editor::estimateCopy(std::size_t index, const std::vector<Fate> *dropped, ShortEstimate &memo) const
{
    const Message &copy = *m_edited[index];
    const std::vector<BlockEdit> &changed = m_changed[index];
    std::int64_t total = tokens::kRoleTokens + tokens::kStructureTokens;
    for (std::size_t b = 0; b < copy.blocks.size(); ++b) {
        if (dropped && b < dropped->size() && (*dropped)[b] == Fate::Removed)
            continue;
        if (!replaced(changed[b].state))
            total += blockTokens(index, b);
        else
            total += changed[b].tokens >= 0 ? changed[b].tokens : estimateChanged(copy.blocks[b], memo);
    }
    return total;
}

std::int64_t Editor::estimateChanged(const Block &b, ShortEstimate &memo)
{
    // Clearing strategies put the same short placeholder into thousands of blocks: its estimate is
    // remembered (estimateBlock of these types depends on the type and the text only).
    constexpr std::size_t kShort = 256;
    const bool byText = b.type == BlockType::ToolResult || b.type == BlockType::Text || b.type == BlockType::Thinking;
    if (!byText || b.text.size() > kShort)
        return tokens::estimateBlock(b);
    if (memo.value >= 0 && b.type == memo.type && b.text == memo.text)
        return memo.value;
    memo.value = tokens::estimateBlock(b);
    memo.type = b.type;
    memo.text = b.text;
    return memo.value;
}

void Editor::estimateCopies(const std::vector<MessageFate> *fates) const
{
    // Every copy's estimate, as the stats will ask for it. Snipping 100 000 messages leaves ~100 MB
    // of new text to estimate: above a few hundred copies they are shared out over two threads.
    // Each copy is one thread's; the original's tables are fetched first, so the threads only read
    // shared state.
    constexpr std::size_t kMinCopies = 256, kChunk = 32;
    std::vector<std::size_t> todo;
    for (std::size_t i = 0; i < m_edited.size(); ++i)
        if (m_edited[i] && !m_removed[i] && !m_freeform[i] && m_edited[i]->cache.tokenEstimate < 0)
            todo.push_back(i);
    // On two threads the table is fetched first (blockTokens() fills it lazily); on one, a few
    // copies fetch it only if one of them needs it.
    if (todo.size() >= kMinCopies && !m_blockTable)
        m_blockTable = m_in.blockTokens();
    // One short-text memory per thread: a chunk's items all run on the thread that took the chunk.
    ShortEstimate other;
    const std::thread::id caller = std::this_thread::get_id();
    parallelFor(todo.size(), kChunk, kMinCopies, [&](std::size_t j) {
        const std::size_t i = todo[j];
        ShortEstimate &memo = std::this_thread::get_id() == caller ? m_short : other;
        const std::int64_t total = estimateCopy(i, fates ? &(*fates)[i].blocks : nullptr, memo);
        m_edited[i]->cache.tokenEstimate = static_cast<std::int32_t>(std::min<std::int64_t>(total, INT32_MAX));
    });
}

void Editor::mark(std::size_t index, Fate fate, std::string reason)
{
    MessageFate &f = m_fates[index];
    // The strongest change wins: removed > summarized > microcompacted > cleared > snipped > kept.
    if (static_cast<int>(fate) >= static_cast<int>(f.fate) || f.fate == Fate::Kept) {
        f.fate = fate;
        f.reason = std::move(reason);
    }
}

bool Editor::remove(std::size_t index, std::string reason, Fate fate)
{
    if (m_removed[index])
        return true;
    if (isProtected(index))
        return false;
    m_removed[index] = 1;
    mark(index, fate, std::move(reason));
    return true;
}

void Editor::restore(std::size_t index)
{
    if (!m_removed[index])
        return;
    m_removed[index] = 0;
    MessageFate &f = m_fates[index];
    f.fate = m_edited[index] ? Fate::Snipped : Fate::Kept;
    if (!m_edited[index])
        f.reason.clear();
}

Message &Editor::mutableCopy(std::size_t index)
{
    if (!m_edited[index]) {
        // The skeleton only: the header's strings and the blocks' text and input stay pending until
        // needed (see fillPending), as most copies a long strategy run makes are removed later.
        const Message &o = m_in.transcript.messages[index];
        auto m = std::make_shared<Message>();
        copyMessageSkeleton(*m, o);
        m->edited = true;
        m_edited[index] = std::move(m);
        m_fates[index].blocks.assign(o.blocks.size(), Fate::Kept);
        m_changed[index].assign(o.blocks.size(), BlockEdit{kPending, -1, {}});
        m_pending[index] = 1;
    }
    m_edited[index]->cache.tokenEstimate = -1;
    return *m_edited[index];
}

std::int64_t Editor::estimateAfter(std::size_t index, std::size_t block, std::int64_t tokens) const
{
    // The message's estimate is a sum over its blocks (estimateCopy): replacing one block's
    // estimate by `tokens` moves it by the difference, when both are known.
    if (tokens < 0 || tokens > INT32_MAX)
        return -1;
    const Message *copy = m_edited[index].get();
    if (copy && m_freeform[index])
        return -1;
    const std::int64_t now = copy ? copy->cache.tokenEstimate : tokens::estimateMessage(m_in.transcript.messages[index]);
    std::int64_t old = -1;
    if (!copy || !replaced(m_changed[index][block].state))
        old = blockTokens(index, block);
    else
        old = m_changed[index][block].tokens;
    if (now < 0 || now >= INT32_MAX || old < 0)
        return -1;
    const std::int64_t after = now - old + tokens;
    return after >= 0 && after < INT32_MAX ? after : -1;
}

bool Editor::setBlockText(std::size_t index, std::size_t block, std::string text, Fate fate, std::string reason,
                          std::int64_t tokens)
{
    const Message &orig = m_in.transcript.messages[index];
    if (m_removed[index] || block >= orig.blocks.size() || m_in.isPinned(index) || blockExempt(orig, block))
        return false;
    const std::int64_t estimate = estimateAfter(index, block, tokens);
    Message &m = mutableCopy(index);
    if (m_changed[index][block].state == kPending)
        m.blocks[block].input = orig.blocks[block].input;
    m.blocks[block].text = std::move(text);
    m_changed[index][block] = {kChanged, tokens >= 0 && tokens <= INT32_MAX ? static_cast<std::int32_t>(tokens) : -1, {}};
    m.cache.tokenEstimate = static_cast<std::int32_t>(estimate);
    m_fates[index].blocks[block] = fate;
    mark(index, fate, std::move(reason));
    return true;
}

bool Editor::setBlockSplice(std::size_t index, std::size_t block, Splice splice, Fate fate, std::string reason,
                            std::int64_t tokens)
{
    const Message &orig = m_in.transcript.messages[index];
    if (m_removed[index] || block >= orig.blocks.size() || m_in.isPinned(index) || blockExempt(orig, block))
        return false;
    const std::size_t size = orig.blocks[block].text.size();
    const bool fits = splice.headBytes <= splice.tailStart && splice.tailStart <= size;
    if (!fits || tokens < 0 || tokens > INT32_MAX || (m_edited[index] && m_freeform[index])) { // written out now
        splice.headBytes = std::min(splice.headBytes, size);
        splice.tailStart = std::min(splice.tailStart, size);
        std::string text;
        splice.write(orig.blocks[block].text, text);
        return setBlockText(index, block, std::move(text), fate, std::move(reason), tokens);
    }
    const std::int64_t estimate = estimateAfter(index, block, tokens);
    Message &m = mutableCopy(index);
    if (m_changed[index][block].state == kPending)
        m.blocks[block].input = orig.blocks[block].input;
    std::string().swap(m.blocks[block].text); // a text set before is replaced
    m_changed[index][block] = {kSpliced, static_cast<std::int32_t>(tokens), std::move(splice)};
    m.cache.tokenEstimate = static_cast<std::int32_t>(estimate);
    m_pending[index] = 1;
    m_fates[index].blocks[block] = fate;
    mark(index, fate, std::move(reason));
    return true;
}

std::vector<char> Editor::setBlockTexts(std::vector<TextEdit> &edits)
{
    std::vector<char> applied(edits.size(), 0);
    auto apply = [&](std::size_t k) {
        TextEdit &x = edits[k];
        applied[k] = setBlockText(x.index, x.block, std::move(x.text), x.fate, std::move(x.reason), x.tokens) ? 1 : 0;
    };
    constexpr std::size_t kMinEdits = 512;
    if (edits.size() < kMinEdits) {
        for (std::size_t k = 0; k < edits.size(); ++k)
            apply(k);
        return applied;
    }
    // Each message's edits, in order, on its ownerThread(); the pinned lookup and the block
    // estimates (setBlockText keeps a copy's estimate from them) are fetched before.
    (void)m_in.isPinned(0);
    if (!m_blockTable)
        m_blockTable = m_in.blockTokens();
    onTwoThreads([&](std::size_t thread) {
        for (std::size_t k = 0; k < edits.size(); ++k)
            if (ownerThread(edits[k].index) == thread)
                apply(k);
    });
    return applied;
}

bool Editor::dropBlock(std::size_t index, std::size_t block, Fate fate, std::string reason)
{
    const Message &orig = m_in.transcript.messages[index];
    if (m_removed[index] || block >= orig.blocks.size() || m_in.isPinned(index) || blockExempt(orig, block))
        return false;
    mutableCopy(index);
    m_fates[index].blocks[block] = fate == Fate::Kept ? Fate::Removed : fate;
    std::size_t left = 0;
    for (const Fate f : m_fates[index].blocks)
        left += f != Fate::Removed ? 1 : 0;
    if (left == 0)
        return remove(index, reason, Fate::Removed);
    mark(index, fate == Fate::Removed ? Fate::Cleared : fate, std::move(reason));
    return true;
}

bool Editor::setToolInput(std::size_t index, std::size_t block, nlohmann::json input, std::string reason)
{
    const Message &orig = m_in.transcript.messages[index];
    if (m_removed[index] || block >= orig.blocks.size() || orig.blocks[block].type != BlockType::ToolUse
        || m_in.isPinned(index) || blockExempt(orig, block))
        return false;
    Message &m = mutableCopy(index);
    if (m_changed[index][block].state == kPending)
        m.blocks[block].text = orig.blocks[block].text;
    else if (m_changed[index][block].state == kSpliced)
        fillBlock(index, block); // its text stays what it was
    m.blocks[block].input = std::move(input);
    m_changed[index][block] = {kChanged, -1, {}};
    m_fates[index].blocks[block] = Fate::Cleared;
    mark(index, Fate::Cleared, std::move(reason));
    return true;
}

Message *Editor::edit(std::size_t index, Fate fate, std::string reason)
{
    if (m_removed[index] || isProtected(index))
        return nullptr;
    Message &m = mutableCopy(index);
    fillPending(index); // the caller may read or change any block
    m_freeform[index] = 1;
    mark(index, fate, std::move(reason));
    return &m;
}

void Editor::insertBefore(std::size_t index, Message m, std::string reason)
{
    m.edited = true;
    m.records.clear();
    m.cache.tokenEstimate = -1;
    m_inserted[std::min(index, m_inserted.size() - 1)].emplace_back(std::move(m), std::move(reason));
}

} // namespace cl::strategy
