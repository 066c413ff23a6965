// SPDX-License-Identifier: MIT
#include "core/util/allocator.h"
#include "widgets/mainwindow/commandline.h"
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/mainwindow/screenshot.h"
#include "widgets/style/theme.h"

#include "config-contextlens.h"

#include <QApplication>
#include <QIcon>
#include <QStyleFactory>
#include <QTextStream>

int main(int argc, char **argv)
{
    cl::tuneAllocator(); // before the first large allocation
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("ContextLens"));
    QApplication::setApplicationName(QStringLiteral("contextlens"));
    QApplication::setApplicationDisplayName(QStringLiteral("ContextLens"));
    QApplication::setApplicationVersion(QStringLiteral(CONTEXTLENS_VERSION));
    // The installed desktop entry (cmake/Install.cmake), so that the shell matches window and icon.
    QApplication::setDesktopFileName(QStringLiteral(CONTEXTLENS_APP_ID));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/contextlens/contextlens.svg")));
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));

    const cl::gui::CommandLine cmd = cl::gui::parseCommandLine(cl::gui::argumentsOf(argc, argv));
    if (!cmd.error.isEmpty()) {
        QTextStream(stderr) << "contextlens: " << cmd.error << Qt::endl;
        return 2;
    }
    cl::gui::theme::apply(cmd.theme.value_or(cl::gui::theme::saved()));
    if (!cmd.screenshot.isEmpty())
        return cl::gui::takeScreenshot(cmd);

    cl::gui::MainWindow window;
    if (cmd.theme)
        window.setTheme(*cmd.theme, false); // checks the menu entry without remembering it
    window.resize(1400, 860);
    window.restoreLayout(); // size, position and docks as last left (saved when the window closes)
    window.show();
    if (!cmd.file.isEmpty())
        window.openFile(cmd.file, cmd.format);
    return QApplication::exec();
}
