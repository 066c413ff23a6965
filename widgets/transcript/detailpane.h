// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/transcript.h"

#include <QWidget>

#include <memory>

class QCheckBox;
class QLabel;
class QPushButton;

namespace cl::gui {

class ContentHighlighter;
class LongLineTextView;

// Shows the selected row: text, tool input as JSON, tool output highlighted by the file type it came
// from, or the message's raw source records. Nothing the file holds may freeze the window: at most
// kShownBytes are shown at first (a bar under the text says how much more there is, with Show more,
// Copy All and Save As…), long lines are broken on screen only (LongLineTextView), and records too
// large to pretty-print quickly are shown as the file has them.
class DetailPane : public QWidget
{
    Q_OBJECT
public:
    explicit DetailPane(QWidget *parent = nullptr);

    void showRow(std::shared_ptr<const Transcript> transcript, int message, int block);
    void clear();

    static constexpr std::size_t kShownBytes = 1 << 20;     // shown at first
    static constexpr std::size_t kMaxShownBytes = 16 << 20; // Show more goes no further
    static constexpr std::size_t kMaxPrettyBytes = 4 << 20; // larger records: raw view as in the file

    QString text() const; // what is shown, as the item has it (no on-screen breaks)
    // The whole text of the item (what Copy All copies and Save As… writes), and how much of it, in
    // UTF-8 bytes, is not shown; moreText() is the bar's label, "" when everything is shown.
    QString fullText() const;
    unsigned long long hiddenBytes() const { return m_hiddenBytes; }
    QString moreText() const;
    void showMore();      // eight times as much, up to kMaxShownBytes
    void copyAll() const; // to the clipboard
    bool saveAs(const QString &path, QString *error = nullptr) const;
    LongLineTextView *view() const { return m_edit; }
    QString title() const;
    QString titleToolTip() const;
    bool rawMode() const;
    void setRawMode(bool raw);
    bool highlightsDark() const; // the highlighter's colours follow the palette

    // File name whose type names the highlighting of a tool result ("" when unknown).
    static QString fileHint(const Transcript &t, const Block &result);

protected:
    void changeEvent(QEvent *event) override;

private:
    void refresh();
    void render(const Message &m, const Block *b);
    void saveDialog();
    std::string itemUtf8(std::size_t limit, unsigned long long *total) const;
    void showText(const std::string &head, unsigned long long total);

    QLabel *m_title;
    QCheckBox *m_raw;
    LongLineTextView *m_edit;
    QWidget *m_moreBar;
    QLabel *m_more;
    QPushButton *m_showMore;
    ContentHighlighter *m_highlighter;
    std::shared_ptr<const Transcript> m_transcript;
    int m_message = -1;
    int m_block = -1;
    std::size_t m_limit = kShownBytes;
    unsigned long long m_hiddenBytes = 0;
};

} // namespace cl::gui
