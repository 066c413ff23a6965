// SPDX-License-Identifier: MIT
#pragma once

// Where the compression store (config.json, summaries.json) of a transcript lives. By default under
// the application's data folder, one folder per transcript (its name and a hash of its absolute
// path), so that nothing is written into an agent's folders; a `.compression/` folder beside the
// transcript is used when it already exists or when the user chooses to keep stores there.

#include <QString>

namespace cl::gui {

QString operationsStoreFolder(const QString &transcriptPath, bool besideTranscript);
// The user's choice (settings "operations/besideTranscript", default false).
bool operationsStoreBeside();
void setOperationsStoreBeside(bool beside);

} // namespace cl::gui
