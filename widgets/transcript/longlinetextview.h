// SPDX-License-Identifier: MIT
#pragma once

#include <QPlainTextEdit>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cl::gui {

// The head of a text too long to show whole, cut at a character boundary.
struct TextHead {
    std::string head;             // UTF-8, at most the limit
    unsigned long long total = 0; // bytes of the whole text
    std::size_t limit = 0;

    explicit TextHead(std::size_t maxBytes)
        : limit(maxBytes)
    {
    }
    void append(std::string_view utf8);
    unsigned long long hiddenBytes() const { return total - head.size(); }
};

// A read-only plain text view that stays responsive whatever the length of the text's lines.
// Qt lays out a paragraph in one piece, in time that grows with the square of an unbroken line's
// length (800 KB of hex took 96 s): lines longer than kMaxLineChars are shown as several rows, broken
// after a space near the limit or else at it. The breaks exist only on screen: text(), copying and
// dragging give the text as it is.
class LongLineTextView : public QPlainTextEdit
{
    Q_OBJECT
public:
    static constexpr qsizetype kMaxLineChars = 2000;

    explicit LongLineTextView(QWidget *parent = nullptr);

    void setText(const QString &text);
    QString text() const { return m_text; }
    // Rows added on screen to break long lines (0 when every line fits).
    qsizetype insertedBreaks() const { return m_insertedBreaks; }
    // The selection as the text has it, without the on-screen breaks.
    QString selectedText() const;
    // Position in text() of a position in the shown document.
    qsizetype textPosition(int documentPosition) const;

protected:
    QMimeData *createMimeDataFromSelection() const override;

private:
    QString m_text;
    // Where the shown document and the text stop advancing together: (document position, text
    // position) from which both advance one to one, ascending.
    std::vector<std::pair<qsizetype, qsizetype>> m_anchors;
    qsizetype m_insertedBreaks = 0;
};

} // namespace cl::gui
