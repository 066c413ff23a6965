// SPDX-License-Identifier: MIT
#include "widgets/transcript/builtinhighlighter.h"

#include <QRegularExpression>

namespace cl::gui {

namespace {
// Claude Code's Read tool prefixes every line with "   12→"; dimming it keeps the content readable.
const QRegularExpression &lineNumberPrefix()
{
    static const QRegularExpression re(QStringLiteral("^\\s*\\d+\u2192"));
    return re;
}
} // namespace

BuiltinHighlighter::BuiltinHighlighter(QTextDocument *document)
    : QSyntaxHighlighter(document)
{
}

void BuiltinHighlighter::setMode(Mode mode)
{
    if (mode == m_mode)
        return;
    m_mode = mode;
    rehighlight();
}

void BuiltinHighlighter::setDark(bool dark)
{
    if (dark == m_dark)
        return;
    m_dark = dark;
    rehighlight();
}

BuiltinHighlighter::Mode BuiltinHighlighter::guessMode(const QString &text)
{
    const QString head = text.left(4096).trimmed();
    if (head.startsWith(u'{') || head.startsWith(u'['))
        return Mode::Json;
    static const QRegularExpression diff(QStringLiteral("^(diff --git |--- \\S|@@ -\\d)"),
                                         QRegularExpression::MultilineOption);
    if (diff.match(head).hasMatch())
        return Mode::Diff;
    return Mode::Shell;
}

QTextCharFormat BuiltinHighlighter::format(const QColor &light, const QColor &dark, bool bold) const
{
    QTextCharFormat f;
    f.setForeground(m_dark ? dark : light);
    if (bold)
        f.setFontWeight(QFont::Bold);
    return f;
}

void BuiltinHighlighter::highlightBlock(const QString &text)
{
    const auto prefix = lineNumberPrefix().match(text);
    if (prefix.hasMatch())
        setFormat(0, int(prefix.capturedLength()), format(QColor(150, 150, 150), QColor(110, 110, 110)));
    switch (m_mode) {
    case Mode::Json: highlightJson(text); break;
    case Mode::Diff: highlightDiff(text); break;
    case Mode::Shell: highlightShell(text); break;
    case Mode::Plain: break;
    }
}

void BuiltinHighlighter::highlightJson(const QString &text)
{
    static const QRegularExpression token(QStringLiteral(
        "(\"(?:[^\"\\\\]|\\\\.)*\")(\\s*:)?|(-?\\d+(?:\\.\\d+)?(?:[eE][+-]?\\d+)?)|\\b(true|false|null)\\b"));
    const QTextCharFormat key = format(QColor(0, 84, 147), QColor(120, 180, 255), true);
    const QTextCharFormat string = format(QColor(163, 21, 21), QColor(206, 145, 120));
    const QTextCharFormat number = format(QColor(9, 134, 88), QColor(181, 206, 168));
    const QTextCharFormat keyword = format(QColor(0, 0, 255), QColor(86, 156, 214), true);
    for (auto it = token.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        if (m.capturedLength(1))
            setFormat(int(m.capturedStart(1)), int(m.capturedLength(1)), m.capturedLength(2) ? key : string);
        else if (m.capturedLength(3))
            setFormat(int(m.capturedStart(3)), int(m.capturedLength(3)), number);
        else
            setFormat(int(m.capturedStart(4)), int(m.capturedLength(4)), keyword);
    }
}

void BuiltinHighlighter::highlightDiff(const QString &text)
{
    if (text.startsWith(QLatin1String("+++")) || text.startsWith(QLatin1String("---"))
        || text.startsWith(QLatin1String("diff ")) || text.startsWith(QLatin1String("index ")))
        setFormat(0, int(text.size()), format(QColor(60, 60, 60), QColor(230, 230, 230), true));
    else if (text.startsWith(u'+'))
        setFormat(0, int(text.size()), format(QColor(0, 128, 0), QColor(120, 200, 120)));
    else if (text.startsWith(u'-'))
        setFormat(0, int(text.size()), format(QColor(180, 0, 0), QColor(240, 110, 110)));
    else if (text.startsWith(QLatin1String("@@")))
        setFormat(0, int(text.size()), format(QColor(130, 0, 160), QColor(200, 140, 230)));
}

void BuiltinHighlighter::highlightShell(const QString &text)
{
    static const QRegularExpression prompt(QStringLiteral("^\\s*[$#>] "));
    static const QRegularExpression bad(QStringLiteral("\\b(error|errors|failed|failure|fatal|FAIL|FAILED)\\b"),
                                        QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression warn(QStringLiteral("\\b(warning|warnings|deprecated)\\b"),
                                         QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression good(QStringLiteral("\\b(ok|passed|PASS|success)\\b"));
    if (prompt.match(text).hasMatch())
        setFormat(0, int(text.size()), format(QColor(0, 84, 147), QColor(120, 180, 255), true));
    const auto paint = [&](const QRegularExpression &re, const QTextCharFormat &f) {
        for (auto it = re.globalMatch(text); it.hasNext();) {
            const auto m = it.next();
            setFormat(int(m.capturedStart()), int(m.capturedLength()), f);
        }
    };
    paint(bad, format(QColor(200, 0, 0), QColor(255, 110, 110), true));
    paint(warn, format(QColor(180, 110, 0), QColor(230, 180, 80), true));
    paint(good, format(QColor(0, 128, 0), QColor(120, 200, 120), true));
}

} // namespace cl::gui
