// SPDX-License-Identifier: MIT
#include "widgets/models/sessionmodel.h"
#include "widgets/models/qtext.h"
#include "widgets/models/filenames.h"

#include "widgets/models/roles.h"

#include <QDateTime>
#include <QDir>
#include <QLocale>

#include <algorithm>
#include <map>

namespace cl::gui {

namespace {

// Internal id of a session row: its project's index + 1 (project rows have id 0).
constexpr quintptr kProjectRow = 0;

QString timeText(std::int64_t ms)
{
    if (ms == kNoTime || ms <= 0)
        return QString();
    return QLocale().toString(QDateTime::fromMSecsSinceEpoch(ms), QLocale::ShortFormat);
}

QString tokensText(std::int64_t n)
{
    return n > 0 ? QLocale().toString(qlonglong(n)) : QString();
}

// "$1.2345"; "+" when part of it is unpriced; "?" when none of it is priced; "" without usage.
QString costText(bool any, double dollars, bool complete)
{
    if (!any)
        return QString();
    if (dollars == 0 && !complete)
        return QStringLiteral("?");
    return QStringLiteral("$%1%2").arg(QLocale().toString(dollars, 'f', 4), complete ? QString() : QStringLiteral("+"));
}

} // namespace

SessionModel::SessionModel(QObject *parent)
    : QAbstractItemModel(parent)
{
}

void SessionModel::setRunning(QHash<QString, QString> running)
{
    m_running = std::move(running);
    for (int p = 0; p < rowCount(); ++p) {
        const QModelIndex project = index(p, 0);
        const int rows = rowCount(project);
        if (rows > 0)
            Q_EMIT dataChanged(index(0, 0, project), index(rows - 1, ColumnCount - 1, project));
    }
}

void SessionModel::setSessions(std::vector<sessions::Session> list)
{
    beginResetModel();
    m_sessions = std::move(list);
    m_projects.clear();
    std::map<std::string, std::size_t> byName;
    for (std::size_t k = 0; k < m_sessions.size(); ++k) {
        const sessions::Session &s = m_sessions[k];
        const std::string key = s.project.empty() ? std::string("(no project)") : s.project;
        auto [it, fresh] = byName.emplace(key, m_projects.size());
        if (fresh) {
            Project p;
            p.name = QDir::toNativeSeparators(qs(key));
            p.start = s.startMs;
            m_projects.push_back(std::move(p));
        }
        Project &p = m_projects[it->second];
        p.sessions.push_back(k);
        p.last = std::max(p.last, s.lastMs == kNoTime ? 0 : s.lastMs);
        if (s.startMs != kNoTime && (p.start == kNoTime || p.start == 0 || s.startMs < p.start))
            p.start = s.startMs;
        p.bytes += s.bytes + s.subagentBytes;
        p.messages += s.messages;
        p.compactions += s.compactions;
        p.peak = std::max(p.peak, s.peakContext);
        if (s.hasCost()) {
            p.anyCost = true;
            p.cost += s.cost;
            p.costComplete = p.costComplete && s.costComplete();
        }
    }
    endResetModel();
}

const sessions::Session *SessionModel::sessionAt(const QModelIndex &index) const
{
    if (!index.isValid() || index.internalId() == kProjectRow)
        return nullptr;
    const Project &p = m_projects[std::size_t(index.internalId() - 1)];
    return index.row() < int(p.sessions.size()) ? &m_sessions[p.sessions[std::size_t(index.row())]] : nullptr;
}

QModelIndex SessionModel::indexOfPath(const QString &path) const
{
    const std::string wanted = filenames::toBytes(path);
    for (std::size_t p = 0; p < m_projects.size(); ++p)
        for (std::size_t r = 0; r < m_projects[p].sessions.size(); ++r)
            if (m_sessions[m_projects[p].sessions[r]].path == wanted)
                return createIndex(int(r), 0, quintptr(p + 1));
    return {};
}

QModelIndex SessionModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (!parent.isValid())
        return row < int(m_projects.size()) ? createIndex(row, column, kProjectRow) : QModelIndex();
    if (parent.internalId() != kProjectRow || parent.row() >= int(m_projects.size()))
        return {};
    const Project &p = m_projects[std::size_t(parent.row())];
    return row < int(p.sessions.size()) ? createIndex(row, column, quintptr(parent.row() + 1)) : QModelIndex();
}

QModelIndex SessionModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == kProjectRow)
        return {};
    return createIndex(int(child.internalId() - 1), 0, kProjectRow);
}

int SessionModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return int(m_projects.size());
    if (parent.internalId() != kProjectRow || parent.column() != 0)
        return 0;
    return int(m_projects[std::size_t(parent.row())].sessions.size());
}

int SessionModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant SessionModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case TitleColumn: return tr("Project / session");
    case AgentColumn: return tr("Agent");
    case LastColumn: return tr("Last activity");
    case StartColumn: return tr("Started");
    case MessagesColumn: return tr("Messages");
    case PeakColumn: return tr("Peak context");
    case CompactionsColumn: return tr("Compactions");
    case SizeColumn: return tr("Size");
    case CostColumn: return tr("Cost");
    case ModelColumn: return tr("Model");
    default: return {};
    }
}

QVariant SessionModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    if (index.internalId() == kProjectRow)
        return projectData(m_projects[std::size_t(index.row())], index.column(), role);
    const sessions::Session *s = sessionAt(index);
    return s ? sessionData(*s, index.column(), role) : QVariant();
}

QVariant SessionModel::projectData(const Project &p, int column, int role) const
{
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case TitleColumn: return tr("%1 (%n session(s))", nullptr, int(p.sessions.size())).arg(p.name);
        case LastColumn: return timeText(p.last);
        case StartColumn: return timeText(p.start);
        case MessagesColumn: return QLocale().toString(qulonglong(p.messages));
        case PeakColumn: return tokensText(p.peak);
        case CompactionsColumn: return p.compactions ? QLocale().toString(qulonglong(p.compactions)) : QString();
        case SizeColumn: return QLocale().formattedDataSize(qint64(p.bytes));
        case CostColumn: return costText(p.anyCost, p.cost, p.costComplete);
        default: return {};
        }
    case SortRole:
        switch (column) {
        case TitleColumn: return p.name.toLower();
        case LastColumn: return double(p.last);
        case StartColumn: return double(p.start);
        case MessagesColumn: return double(p.messages);
        case PeakColumn: return double(p.peak);
        case CompactionsColumn: return double(p.compactions);
        case SizeColumn: return double(p.bytes);
        case CostColumn: return p.anyCost ? p.cost : -1.0;
        default: return QString();
        }
    case ProjectRole:
    case Qt::ToolTipRole:
        return p.name;
    case Qt::FontRole: {
        QFont f;
        f.setBold(true);
        return f;
    }
    default:
        return {};
    }
}

QVariant SessionModel::sessionData(const sessions::Session &s, int column, int role) const
{
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case TitleColumn: {
            QString title = qs(s.title.empty() ? s.firstRequest : s.title);
            if (title.isEmpty())
                title = QDir(qs(s.path)).dirName();
            return s.checkpoint ? tr("%1 [checkpoint]").arg(title) : title;
        }
        case AgentColumn: {
            const QString agent = qs(std::string(sessions::agentName(s.agent)));
            return m_running.contains(qs(s.path)) ? tr("%1 \u25cf running").arg(agent) : agent;
        }
        case LastColumn: return timeText(s.lastMs);
        case StartColumn: return timeText(s.startMs);
        case MessagesColumn: return QLocale().toString(qulonglong(s.messages));
        case PeakColumn: return tokensText(s.peakContext);
        case CompactionsColumn: return s.compactions ? QLocale().toString(qulonglong(s.compactions)) : QString();
        case SizeColumn: {
            QString text = QLocale().formattedDataSize(qint64(s.bytes));
            if (s.subagentFiles)
                text += tr(" + %n subagent(s)", nullptr, int(s.subagentFiles));
            return text;
        }
        case CostColumn: return costText(s.hasCost(), s.cost, s.costComplete());
        case ModelColumn: return qs(s.model);
        default: return {};
        }
    case SortRole:
        switch (column) {
        case TitleColumn: return qs(s.title.empty() ? s.firstRequest : s.title).toLower();
        case AgentColumn: return qs(std::string(sessions::agentName(s.agent)));
        case LastColumn: return double(s.lastMs == kNoTime ? 0 : s.lastMs);
        case StartColumn: return double(s.startMs == kNoTime ? 0 : s.startMs);
        case MessagesColumn: return double(s.messages);
        case PeakColumn: return double(s.peakContext);
        case CompactionsColumn: return double(s.compactions);
        case SizeColumn: return double(s.bytes + s.subagentBytes);
        case CostColumn: return s.hasCost() ? s.cost : -1.0; // sessions without usage sort below free ones
        case ModelColumn: return qs(s.model);
        default: return {};
        }
    case Qt::ToolTipRole: {
        QString tip = tr("%1\nfirst request: %2\nsession id: %3")
                          .arg(QDir::toNativeSeparators(qs(s.path)), qs(s.firstRequest), qs(s.sessionId));
        if (const QString running = m_running.value(qs(s.path)); !running.isEmpty())
            tip += tr("\n%1").arg(running);
        // The cost cell says how it was made: the models and their measured tokens.
        if (column == CostColumn && s.hasCost()) {
            tip = tr("Measured usage, each response counted once (as contextlens-cli cost):");
            for (const sessions::ModelUsage &u : s.usage)
                tip += tr("\n%1: %2, %3 tokens")
                           .arg(u.model.empty() ? tr("(no model name)") : qs(u.model),
                                u.responses == 1 ? tr("1 response") : tr("%1 responses").arg(u.responses),
                                QLocale().toString(qlonglong(u.tokens.total())));
            if (s.unpricedTokens > 0)
                tip += tr("\n%1 tokens of models without a price are not counted").arg(QLocale().toString(qlonglong(s.unpricedTokens)));
            // The split: the session's own responses, then each subagent's (the costliest first).
            std::vector<const sessions::SubagentUsage *> subs;
            double subsCost = 0;
            for (const sessions::SubagentUsage &sub : s.subagents)
                if (!sub.usage.empty()) {
                    subs.push_back(&sub);
                    subsCost += sub.cost;
                }
            if (!subs.empty()) {
                std::stable_sort(subs.begin(), subs.end(), [](auto *a, auto *b) { return a->cost > b->cost; });
                tip += tr("\nthe session itself: %1").arg(costText(true, s.cost - subsCost, true));
                constexpr std::size_t kShown = 10;
                for (std::size_t k = 0; k < std::min(subs.size(), kShown); ++k) {
                    const sessions::SubagentUsage &sub = *subs[k];
                    QString who = sub.description.empty() ? qs(sub.name) : tr("\"%1\" (%2)").arg(qs(sub.description), qs(sub.name));
                    if (!sub.startedBy.empty())
                        who += tr(", started by %1").arg(qs(sub.startedBy));
                    tip += tr("\nsubagent %1: %2").arg(who, costText(true, sub.cost, sub.unpricedTokens == 0));
                }
                if (subs.size() > kShown)
                    tip += tr("\n%1 more subagents").arg(subs.size() - kShown);
            }
            for (const std::string &why : s.unreadSubagents)
                tip += tr("\nnot counted, cannot be read: %1").arg(qs(why));
        }
        return tip;
    }
    case SessionPathRole:
        return filenames::fromBytes(s.path); // opened as it is, also when not UTF-8
    case ProjectRole:
        return qs(s.project);
    default:
        return {};
    }
}

} // namespace cl::gui
