// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/transcript/builtinhighlighter.h"

#include <QObject>
#include <QString>

class QTextDocument;
class QSyntaxHighlighter;

namespace cl::gui {

// Highlights the detail pane's document: KSyntaxHighlighting when the build has it (definition from
// the tool's file name, else from the content kind), otherwise the built-in highlighter.
class ContentHighlighter : public QObject
{
    Q_OBJECT
public:
    using Mode = BuiltinHighlighter::Mode;

    explicit ContentHighlighter(QTextDocument *document);
    ~ContentHighlighter() override;

    // fileName may be empty; mode is the content kind used when the file name tells nothing.
    void setContent(const QString &fileName, Mode mode);
    void setDark(bool dark);
    bool isDark() const { return m_dark; }
    // What the content is highlighted as, e.g. "JSON" or "C++", for the pane's header.
    QString description() const { return m_description; }
    static bool usesKSyntaxHighlighting();

private:
    QSyntaxHighlighter *m_highlighter = nullptr;
    bool m_dark = false;
    QString m_description;
};

} // namespace cl::gui
