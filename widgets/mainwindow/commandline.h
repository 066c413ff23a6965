// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/format.h"
#include "widgets/style/theme.h"

#include <QSize>
#include <QString>
#include <QStringList>

#include <optional>

namespace cl::gui {

struct CommandLine {
    QString file;                 // transcript to open, "" for none
    std::optional<Format> format; // --format override
    std::optional<theme::Choice> theme;
    QString screenshot;    // --screenshot OUT.png
    QSize size{1400, 860}; // --size WxH (screenshot window size)
    // --view: what the screenshot shows: "transcript" (default, with the analysis), "preview:NAME"
    // (strategy NAME previewed side by side, forced when it has a trigger), "compare" or
    // "simulate:NAME[@WINDOW]" (the Simulate tab: NAME replayed turn by turn, in a WINDOW-token window).
    QString view = QStringLiteral("transcript");
    QString error; // non-empty when the arguments are wrong
};

// Parses the GUI's arguments (arguments.first() is the program name).
CommandLine parseCommandLine(const QStringList &arguments);
// The program's arguments (argv after QApplication took its own), a file name that is not UTF-8
// included without loss (widgets/models/filenames.h): QCoreApplication::arguments() would change it.
QStringList argumentsOf(int argc, char **argv);

} // namespace cl::gui
