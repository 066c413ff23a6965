// SPDX-License-Identifier: MIT
#pragma once

#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace cl::gui {

// Small fallback highlighter for builds without KSyntaxHighlighting: JSON, unified diff and shell
// output. Colours come in a light and a dark set; the detail pane switches them on palette change.
class BuiltinHighlighter : public QSyntaxHighlighter
{
    Q_OBJECT
public:
    enum class Mode {
        Plain,
        Json,
        Diff,
        Shell
    };

    explicit BuiltinHighlighter(QTextDocument *document);

    void setMode(Mode mode);
    Mode mode() const { return m_mode; }
    void setDark(bool dark);
    bool isDark() const { return m_dark; }

    // Guesses a mode from content: JSON object/array, unified diff, else shell output.
    static Mode guessMode(const QString &text);

protected:
    void highlightBlock(const QString &text) override;

private:
    void highlightJson(const QString &text);
    void highlightDiff(const QString &text);
    void highlightShell(const QString &text);
    QTextCharFormat format(const QColor &light, const QColor &dark, bool bold = false) const;

    Mode m_mode = Mode::Plain;
    bool m_dark = false;
};

} // namespace cl::gui
