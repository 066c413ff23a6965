// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/mainwindow/commandline.h"

namespace cl::gui {

// --screenshot: loads and analyses cmd.file synchronously in a MainWindow of cmd.size, selects the
// row at the chosen compaction boundary (else a representative row), shows cmd.view (preview:NAME,
// compare, simulate:NAME[@WINDOW] run synchronously), grabs the window to cmd.screenshot. Returns the process exit code
// (0 on success; 1 when loading or saving failed). Needs a QApplication.
int takeScreenshot(const CommandLine &cmd);

} // namespace cl::gui
