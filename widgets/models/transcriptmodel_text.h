// SPDX-License-Identifier: MIT
#pragma once

// Display strings for transcript rows, kept apart from the model so the model file stays small.

#include "core/model/transcript.h"

#include <QString>

namespace cl::gui::text {

QString fromUtf8(std::string_view s);
QString roleLabel(const Message &m);      // "assistant", "compact_boundary", "meta", ...
QString messagePreview(const Message &m); // first text, else a summary of the blocks
QString blockPreview(const Block &b);     // text / "Bash: {input}" / "Read → result"
QString messageToolTip(const Message &m);
QString blockToolTip(const Block &b);
QString messageFilterText(const Message &m);
QString blockFilterText(const Block &b);
QString timeLabel(std::int64_t timeMs); // local "HH:mm:ss", "" without a time
bool isSecondary(const Message &m);     // sidechain, meta, event: greyed
bool isBoundary(const Message &m);

} // namespace cl::gui::text
