// SPDX-License-Identifier: MIT
#pragma once

// Which rows of a message list fold into which: progress, hook and other event or metadata lines
// fold into the message before them (those before the first message into the first). The transcript
// tree (TranscriptFilterModel) and both sides of the preview (ResultModel) fold the same way.

#include <cstddef>
#include <vector>

namespace cl::gui {

struct EventFolds {
    std::vector<int> owner; // per row: the row it folds into, -1 for a message (or nothing to fold into)
    std::vector<int> count; // per row: the events folded into it
    void clear()
    {
        owner.clear();
        count.clear();
    }
};

// `isEvent(i)` for each of the `n` rows says whether row i folds (Message::isEvent(), and for the
// preview: unchanged).
template <class IsEvent>
EventFolds foldEvents(std::size_t n, IsEvent isEvent)
{
    EventFolds f;
    f.owner.assign(n, -1);
    f.count.assign(n, 0);
    int last = -1;
    std::size_t leading = 0; // events before the first message fold into it
    for (std::size_t i = 0; i < n; ++i) {
        if (!isEvent(i)) {
            if (last < 0) {
                for (std::size_t k = 0; k < leading; ++k)
                    f.owner[k] = int(i);
                f.count[i] = int(leading);
            }
            last = int(i);
        } else if (last >= 0) {
            f.owner[i] = last;
            ++f.count[std::size_t(last)];
        } else {
            ++leading;
        }
    }
    return f;
}

} // namespace cl::gui
