// SPDX-License-Identifier: MIT
#pragma once

// The one definition of copying a Message field by field, in the two halves the strategy Editor
// needs for its lazy copies (docs/design/strategies.md, "Editor"): the skeleton (scalars and each
// block's type, size, error flag and pairing) when a message is first edited, the header (every
// string and structured field, and each block's id, name and media type) when the copy is used.
// A block's text and input are the Editor's (they may be edited). Not copied on purpose:
// Message::edited (the caller's) and Message::cache (recomputed for edited text).
//
// Every field of Message and Block belongs to one of these; messagecopy.cpp checks the structs'
// sizes so that a new field does not compile until it has been given its place here.

#include "core/model/transcript.h"

namespace cl {

void copyMessageSkeleton(Message &to, const Message &from);
void copyMessageHeader(Message &to, const Message &from);

} // namespace cl
