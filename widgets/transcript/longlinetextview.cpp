// SPDX-License-Identifier: MIT
#include "widgets/transcript/longlinetextview.h"

#include <QMimeData>
#include <QTextCursor>

#include <algorithm>

namespace cl::gui {

void TextHead::append(std::string_view utf8)
{
    total += utf8.size();
    if (head.size() >= limit)
        return;
    std::size_t take = std::min(utf8.size(), limit - head.size());
    if (take < utf8.size())
        while (take > 0 && (static_cast<unsigned char>(utf8[take]) & 0xC0) == 0x80)
            --take; // never cut a character in two
    head.append(utf8.substr(0, take));
    if (take < utf8.size())
        limit = head.size(); // what follows a cut is never shown, even when short
}

LongLineTextView::LongLineTextView(QWidget *parent)
    : QPlainTextEdit(parent)
{
    setReadOnly(true);
    m_anchors.emplace_back(0, 0);
}

void LongLineTextView::setText(const QString &text)
{
    m_text = text;
    m_anchors.assign(1, {0, 0});
    m_insertedBreaks = 0;
    QString shown;
    shown.reserve(text.size() + text.size() / kMaxLineChars + 1);
    const qsizetype n = text.size();
    qsizetype lineStart = 0; // in text
    qsizetype i = 0;
    while (i < n) {
        const QChar c = text.at(i);
        if (c == u'\r' && i + 1 < n && text.at(i + 1) == u'\n') {
            // The document makes one paragraph break of CR LF: show LF, keep both in the text.
            shown += u'\n';
            i += 2;
            m_anchors.emplace_back(shown.size(), i);
            lineStart = i;
            continue;
        }
        if (c == u'\n' || c == u'\r' || c == QChar::ParagraphSeparator) {
            shown += c;
            lineStart = ++i;
            continue;
        }
        if (i - lineStart < kMaxLineChars) {
            shown += c;
            ++i;
            continue;
        }
        // The line is as long as a row may be: break after the last space of its last quarter, else here.
        qsizetype cut = i;
        for (qsizetype k = i - 1; k > i - kMaxLineChars / 4; --k)
            if (text.at(k).isSpace()) {
                cut = k + 1;
                break;
            }
        if (cut == i && text.at(i - 1).isHighSurrogate())
            --cut; // keep a surrogate pair together
        // Move the characters after the cut to the next row.
        const qsizetype moved = i - cut;
        shown.chop(moved);
        shown += u'\n';
        ++m_insertedBreaks;
        m_anchors.emplace_back(shown.size(), cut);
        lineStart = cut;
        i = cut;
    }
    setPlainText(shown);
}

qsizetype LongLineTextView::textPosition(int documentPosition) const
{
    const qsizetype p = documentPosition;
    auto it = std::upper_bound(m_anchors.begin(), m_anchors.end(), p,
                               [](qsizetype value, const std::pair<qsizetype, qsizetype> &a) { return value < a.first; });
    --it; // the first anchor is (0, 0)
    return std::min(it->second + (p - it->first), m_text.size());
}

QString LongLineTextView::selectedText() const
{
    const QTextCursor c = textCursor();
    const qsizetype from = textPosition(c.selectionStart());
    const qsizetype to = textPosition(c.selectionEnd());
    return m_text.mid(from, std::max<qsizetype>(0, to - from));
}

QMimeData *LongLineTextView::createMimeDataFromSelection() const
{
    auto *mime = new QMimeData;
    mime->setText(selectedText());
    return mime;
}

} // namespace cl::gui
