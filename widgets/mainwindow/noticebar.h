// SPDX-License-Identifier: MIT
#pragma once

#include <QFrame>

class QLabel;
class QPushButton;
class QTimer;

namespace cl::gui {

// A bar above the tabs that says what just happened ("Report written to ...", "Not saved: ..."),
// where the status bar's permanent summary would hide it. Information fades after a while, a
// failure stays until closed; a written file gets a "Show in Folder" button.
class NoticeBar : public QFrame
{
    Q_OBJECT
public:
    enum class Kind {
        Information,
        Failure
    };

    explicit NoticeBar(QWidget *parent = nullptr);

    // Shows `text`; `file`: a file just written (the button opens its folder). Information hides
    // after `timeoutMs` (0: stays).
    void tell(const QString &text, Kind kind = Kind::Information, const QString &file = {}, int timeoutMs = 10000);
    QString text() const;
    Kind kind() const { return m_kind; }
    QString file() const { return m_file; }

private:
    void revealFile();

    QLabel *m_text;
    QPushButton *m_reveal;
    QPushButton *m_close;
    QTimer *m_timer;
    Kind m_kind = Kind::Information;
    QString m_file;
};

} // namespace cl::gui
