// SPDX-License-Identifier: MIT
#pragma once

// The session browser's rows (core/sessions/sessions.h): one row per project, its sessions under
// it. Columns carry a numeric SortRole (times, sizes, counts, dollars) so a proxy sorts them as
// numbers; the project rows hold the sums or the latest activity of their sessions.

#include "core/sessions/sessions.h"

#include <QAbstractItemModel>
#include <QHash>

#include <vector>

namespace cl::gui {

class SessionModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column {
        TitleColumn, // project, or the session's title / first request
        AgentColumn,
        LastColumn, // last activity
        StartColumn,
        MessagesColumn,
        PeakColumn, // peak measured context
        CompactionsColumn,
        SizeColumn,
        CostColumn, // from the measured usage, priced by the scan
        ModelColumn,
        ColumnCount
    };

    explicit SessionModel(QObject *parent = nullptr);

    void setSessions(std::vector<cl::sessions::Session> sessions);
    const std::vector<cl::sessions::Session> &sessions() const { return m_sessions; }
    int projectCount() const { return int(m_projects.size()); }
    // The session at a row of this model (null for a project row).
    const cl::sessions::Session *sessionAt(const QModelIndex &index) const;
    QModelIndex indexOfPath(const QString &path) const;
    // Sessions an agent is running now: path -> what runs it ("Codex (pid 1234) is running this
    // session (…)"); shown as a mark in the Agent column (sessionbrowser.cpp, core/io/runningagent.h).
    void setRunning(QHash<QString, QString> running);
    QString runningAt(const QString &path) const { return m_running.value(path); }

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Project {
        QString name;
        std::vector<std::size_t> sessions; // into m_sessions
        std::int64_t last = 0, start = 0;
        std::uint64_t bytes = 0;
        std::size_t messages = 0, compactions = 0;
        std::int64_t peak = 0;
        double cost = 0;
        bool anyCost = false, costComplete = true;
    };
    QVariant projectData(const Project &p, int column, int role) const;
    QVariant sessionData(const cl::sessions::Session &s, int column, int role) const;

    std::vector<cl::sessions::Session> m_sessions;
    std::vector<Project> m_projects;
    QHash<QString, QString> m_running;
};

} // namespace cl::gui
