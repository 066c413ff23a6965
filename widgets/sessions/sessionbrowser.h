// SPDX-License-Identifier: MIT
#pragma once

// The session browser (View › Sessions): the Claude Code, Codex and Gemini CLI sessions under the
// home folder plus folders the user adds, grouped by project, sortable and filterable, scanned in
// the background with the on-disk cache (core/sessions/sessions.h) and rescanned when the agents'
// folders change; a double-click opens a session.

#include "core/sessions/sessions.h"
#include "widgets/jobs/backgroundjob.h"

#include <QElapsedTimer>
#include <QStringList>
#include <QWidget>

class QComboBox;
class QFileSystemWatcher;
class QLabel;
class QLineEdit;
class QTimer;
class QTreeView;

namespace cl::gui {

class SessionModel;
class SessionFilterModel;

class SessionBrowser : public QWidget
{
    Q_OBJECT
public:
    explicit SessionBrowser(QWidget *parent = nullptr);
    ~SessionBrowser() override;

    // The home folder whose agent layouts are scanned (default: the user's) and the cache file
    // (default: the app's cache location); for tests.
    void setHome(const QString &home);
    void setCachePath(const QString &path) { m_cachePath = path; }
    // Folders scanned besides the home folder (remembered in the settings).
    QStringList folders() const { return m_folders; }
    void setFolders(const QStringList &folders);
    // Off: nothing scanned; on: scans when out of date.
    void setActive(bool active);
    // Opens a session on a single click (the start page) instead of a double-click (the dock).
    void setOpenOnClick(bool on) { m_openOnClick = on; }
    void rescan();
    bool isScanning() const { return m_job.isRunning(); }
    const cl::sessions::ScanStats &lastStats() const { return m_stats; }

    SessionModel *model() const { return m_model; }
    QTreeView *view() const { return m_view; }
    QLineEdit *filterEdit() const { return m_filter; }
    QComboBox *agentCombo() const { return m_agent; }
    QLabel *status() const { return m_status; }

Q_SIGNALS:
    void openRequested(const QString &path);
    void scanned();

private:
    void addFolder();
    void watchFolders();
    void applyFilter();
    void showCount();

    QString m_home, m_cachePath;
    QStringList m_folders;
    bool m_active = false, m_stale = true, m_openOnClick = false;
    QString m_clickedPath; // the session a single click opened, and when
    QElapsedTimer m_clicked;
    cl::sessions::ScanStats m_stats;
    BackgroundJob<cl::sessions::ScanResult> m_job{this};
    SessionModel *m_model;
    SessionFilterModel *m_proxy;
    QTreeView *m_view;
    QLineEdit *m_filter;
    QComboBox *m_agent;
    QLabel *m_status;
    QString m_scanText; // what the last scan found; the filter's count goes before it
    QFileSystemWatcher *m_watcher;
    QTimer *m_debounce;
};

} // namespace cl::gui
