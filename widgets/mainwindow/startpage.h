// SPDX-License-Identifier: MIT
#pragma once

// What the window shows with no transcript open: the agents' sessions on this machine (most recent
// first, one click opens one), the recently opened files, Open File and the bundled demo, and a word that a transcript can be dropped anywhere on the window.

#include <QWidget>

class QListWidget;
class QPushButton;

namespace cl::gui {

class SessionBrowser;

class StartPage : public QWidget
{
    Q_OBJECT
public:
    explicit StartPage(QWidget *parent = nullptr);

    void setRecentFiles(const QStringList &files);
    // The demo transcript shipped with the app ("" hides its button).
    void setDemoPath(const QString &path);

    SessionBrowser *sessions() const { return m_sessions; }
    QListWidget *recentList() const { return m_recent; }

protected:
    // The sessions are scanned while the page is on screen.
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

Q_SIGNALS:
    void openRequested(const QString &path);
    void openFileRequested();

private:
    SessionBrowser *m_sessions;
    QListWidget *m_recent;
    QPushButton *m_demo;
    QString m_demoPath;
};

// The demo transcript beside the program (source tree) or in its installed share folder; "" if none.
QString bundledDemoPath();

} // namespace cl::gui
