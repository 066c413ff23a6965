// SPDX-License-Identifier: MIT
#include "widgets/screenshot.h"

#include "widgets/mainwindow.h"

#include <QApplication>
#include <QPixmap>
#include <QTextStream>

namespace cl::gui {

int takeScreenshot(const CommandLine &cmd)
{
    QTextStream err(stderr);
    MainWindow window;
    window.setShowErrorDialogs(false); // no one is there to close them
    window.resize(cmd.size);
    window.show();
    const bool ok = window.openFileNow(cmd.file, cmd.format);
    if (!ok)
        err << "contextlens: cannot load " << cmd.file << ": " << window.lastError() << Qt::endl;
    // openFileNow ran the analysis on this thread, so map and panel are filled; the row at the chosen
    // boundary is the one whose explanation says the most.
    window.selectAnalysisRow();
    // Two rounds: layout requests posted by the first (header sizes, scroll) settle in the second.
    QApplication::processEvents();
    QApplication::processEvents();
    const QPixmap pixmap = window.grab();
    if (!pixmap.save(cmd.screenshot, "PNG")) {
        err << "contextlens: cannot write " << cmd.screenshot << Qt::endl;
        return 1;
    }
    return ok ? 0 : 1;
}

} // namespace cl::gui
