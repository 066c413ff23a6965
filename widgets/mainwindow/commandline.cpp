// SPDX-License-Identifier: MIT
#include "widgets/mainwindow/commandline.h"
#include "widgets/models/filenames.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QRegularExpression>

namespace cl::gui {

QStringList argumentsOf(int argc, char **argv)
{
    QStringList out;
    for (int i = 0; i < argc; ++i)
        out << filenames::fromBytes(argv[i]);
    return out;
}

CommandLine parseCommandLine(const QStringList &arguments)
{
    CommandLine cmd;
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("ContextLens: see where an agent's context goes"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption format(QStringLiteral("format"), QStringLiteral("Transcript format instead of auto-detection."), QStringLiteral("name"));
    const QCommandLineOption themeOpt(QStringLiteral("theme"), QStringLiteral("Colour theme: light, dark or system."), QStringLiteral("theme"));
    const QCommandLineOption shot(QStringLiteral("screenshot"), QStringLiteral("Load FILE, save a window screenshot to OUT.png and exit."), QStringLiteral("OUT.png"));
    const QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Screenshot window size (default 1400x860)."), QStringLiteral("WxH"));
    const QCommandLineOption view(QStringLiteral("view"),
                                  QStringLiteral("Screenshot view: start (the start page, no FILE), transcript, live (the last compaction), watch (waits for the file to grow), composition, audit, timeline, subagent, sessions (under $HOME), preview:STRATEGY, compare or "
                                                 "simulate:STRATEGY[@WINDOW]."),
                                  QStringLiteral("view"));
    parser.addOptions({format, themeOpt, shot, size, view});
    parser.addPositionalArgument(QStringLiteral("file"), QStringLiteral("Transcript to open."));
    if (!parser.parse(arguments)) {
        cmd.error = parser.errorText();
        return cmd;
    }
    if (parser.isSet(QStringLiteral("help")))
        parser.showHelp(); // exits
    if (parser.isSet(QStringLiteral("version")))
        parser.showVersion();
    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1)
        cmd.error = QStringLiteral("only one file can be opened");
    else if (!positional.isEmpty())
        cmd.file = positional.first();
    if (parser.isSet(format)) {
        const QByteArray name = parser.value(format).toUtf8();
        cmd.format = formatFromName(std::string_view(name.constData(), std::size_t(name.size())));
        if (!cmd.format)
            cmd.error = QStringLiteral("unknown format: %1").arg(parser.value(format));
    }
    if (parser.isSet(themeOpt)) {
        theme::Choice c;
        if (theme::fromName(parser.value(themeOpt), &c))
            cmd.theme = c;
        else
            cmd.error = QStringLiteral("unknown theme: %1").arg(parser.value(themeOpt));
    }
    cmd.screenshot = parser.value(shot);
    if (parser.isSet(size)) {
        static const QRegularExpression re(QStringLiteral("^(\\d{2,5})x(\\d{2,5})$"));
        const auto m = re.match(parser.value(size));
        if (m.hasMatch())
            cmd.size = QSize(m.captured(1).toInt(), m.captured(2).toInt());
        else
            cmd.error = QStringLiteral("--size wants WxH, e.g. 1400x860");
    }
    if (parser.isSet(view)) {
        cmd.view = parser.value(view);
        if (cmd.view != QLatin1String("transcript") && cmd.view != QLatin1String("compare") && cmd.view != QLatin1String("live")
            && cmd.view != QLatin1String("composition") && cmd.view != QLatin1String("audit")
            && cmd.view != QLatin1String("timeline") && cmd.view != QLatin1String("subagent")
            && cmd.view != QLatin1String("sessions") && cmd.view != QLatin1String("watch") && cmd.view != QLatin1String("start")
            && !cmd.view.startsWith(QLatin1String("preview:")) && !cmd.view.startsWith(QLatin1String("simulate:")))
            cmd.error = QStringLiteral("--view wants start, transcript, live, watch, composition, audit, timeline, subagent, sessions, preview:STRATEGY, compare or simulate:STRATEGY[@WINDOW]");
    }
    if (!cmd.screenshot.isEmpty() && cmd.file.isEmpty() && cmd.view != QLatin1String("start"))
        cmd.error = QStringLiteral("--screenshot needs a FILE to load");
    return cmd;
}

} // namespace cl::gui
