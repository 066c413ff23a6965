// SPDX-License-Identifier: MIT
#pragma once

// Edits the user makes by hand in the GUI: remove selected messages, or replace the tool results
// of selected messages by a note. Each is run like a strategy ("hand-edit", not in the registry):
// the result carries fates, stats, fact retention and validity like any strategy's, so the preview
// shows it and the document applies it as one undo step. Pairs stay intact (removing a call removes
// its result and the other way round: strategy::Editor closes them); pinned messages and exempt
// tools are refused like a strategy refuses them, and the note says so.

#include "core/strategy/strategy.h"

#include <string>
#include <vector>

namespace cl::handedit {

enum class Action : std::uint8_t {
    Remove,         // the messages (and their tool partners)
    ReplaceResults, // every tool result in the messages, and the results of their calls, by `note`
};

struct Edit {
    Action action = Action::Remove;
    std::vector<std::size_t> messages; // transcript indices
    std::string note;                  // ReplaceResults: what the results become (after a fixed prefix)
};

// The text a replaced result gets.
std::string replacedResultText(const std::string &note);

strategy::Result run(const strategy::Input &in, const Edit &edit);

} // namespace cl::handedit
