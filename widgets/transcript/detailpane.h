// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/transcript.h"

#include <QWidget>

#include <memory>

class QCheckBox;
class QLabel;
class QPlainTextEdit;

namespace cl::gui {

class ContentHighlighter;

// Shows the selected row in full: text, tool input as JSON, tool output highlighted by the file
// type it came from, or the message's raw source records.
class DetailPane : public QWidget
{
    Q_OBJECT
public:
    explicit DetailPane(QWidget *parent = nullptr);

    void showRow(std::shared_ptr<const Transcript> transcript, int message, int block);
    void clear();

    QString text() const;
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

    QLabel *m_title;
    QCheckBox *m_raw;
    QPlainTextEdit *m_edit;
    ContentHighlighter *m_highlighter;
    std::shared_ptr<const Transcript> m_transcript;
    int m_message = -1;
    int m_block = -1;
};

} // namespace cl::gui
