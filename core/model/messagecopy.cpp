// SPDX-License-Identifier: MIT
#include "core/model/messagecopy.h"

namespace cl {

#if defined(__x86_64__) && defined(__GLIBCXX__)
// A field added to Message or Block changes these sizes: copy it in one of the functions below
// (or say in messagecopy.h why it is not copied), then update the size.
static_assert(sizeof(Block) == 176, "a Block field was added or removed: update copyMessageSkeleton/Header");
static_assert(sizeof(Message) == 528, "a Message field was added or removed: update copyMessageSkeleton/Header");
#endif

void copyMessageSkeleton(Message &to, const Message &from)
{
    to.role = from.role;
    to.kind = from.kind;
    to.timeMs = from.timeMs;
    to.sidechain = from.sidechain;
    to.isMeta = from.isMeta;
    to.history = from.history;
    to.line = from.line;
    to.blocks.resize(from.blocks.size());
    for (std::size_t b = 0; b < from.blocks.size(); ++b) {
        const Block &f = from.blocks[b];
        Block &t = to.blocks[b];
        t.type = f.type;
        t.dataSize = f.dataSize;
        t.isError = f.isError;
        t.serverSide = f.serverSide;
        t.repeated = f.repeated;
        t.cleared = f.cleared;
        t.sentLimit = f.sentLimit;
        t.pairMessage = f.pairMessage;
        t.pairBlock = f.pairBlock;
    }
}

void copyMessageHeader(Message &to, const Message &from)
{
    to.type = from.type;
    to.id = from.id;
    to.parentId = from.parentId;
    to.apiMessageId = from.apiMessageId;
    to.model = from.model;
    to.agentId = from.agentId;
    to.timestamp = from.timestamp;
    to.usage = from.usage;
    to.meta = from.meta;
    to.records = from.records;
    for (std::size_t b = 0; b < from.blocks.size() && b < to.blocks.size(); ++b) {
        const Block &f = from.blocks[b];
        Block &t = to.blocks[b];
        t.toolId = f.toolId;
        t.toolName = f.toolName;
        t.mediaType = f.mediaType;
    }
}

} // namespace cl
