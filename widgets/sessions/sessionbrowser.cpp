// SPDX-License-Identifier: MIT
#include "widgets/sessions/sessionbrowser.h"
#include "widgets/models/filenames.h"

#include "core/io/runningagent.h"

#include "widgets/models/roles.h"
#include "widgets/models/sessionmodel.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>

namespace cl::gui {

// Sessions whose title, project, path or model contain the text, of the chosen agent; a project
// row stays while one of its sessions does.
class SessionFilterModel : public QSortFilterProxyModel
{
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    void set(const QString &text, const QString &agent)
    {
        m_text = text;
        m_agent = agent;
        invalidateFilter();
    }

protected:
    bool filterAcceptsRow(int row, const QModelIndex &parent) const override
    {
        const QModelIndex i = sourceModel()->index(row, 0, parent);
        if (!parent.isValid()) // a project: when one of its sessions passes
            for (int r = 0; r < sourceModel()->rowCount(i); ++r)
                if (filterAcceptsRow(r, i))
                    return true;
        if (!parent.isValid())
            return false;
        auto *m = static_cast<const SessionModel *>(sourceModel());
        const sessions::Session *s = m->sessionAt(i);
        if (!s)
            return false;
        if (!m_agent.isEmpty() && QString::fromUtf8(sessions::agentName(s->agent).data()) != m_agent)
            return false;
        if (m_text.isEmpty())
            return true;
        for (const std::string *field : {&s->title, &s->firstRequest, &s->project, &s->path, &s->model, &s->sessionId})
            if (QString::fromStdString(*field).contains(m_text, Qt::CaseInsensitive))
                return true;
        return false;
    }

private:
    QString m_text, m_agent;
};

SessionBrowser::SessionBrowser(QWidget *parent)
    : QWidget(parent)
    , m_home(QDir::homePath())
    , m_cachePath(QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + QStringLiteral("/sessions.json"))
    , m_model(new SessionModel(this))
    , m_proxy(new SessionFilterModel(this))
    , m_view(new QTreeView(this))
    , m_filter(new QLineEdit(this))
    , m_agent(new QComboBox(this))
    , m_status(new QLabel(this))
    , m_watcher(new QFileSystemWatcher(this))
    , m_debounce(new QTimer(this))
{
    setObjectName(QStringLiteral("sessionBrowser"));
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(SortRole);
    m_proxy->setDynamicSortFilter(true);
    m_view->setModel(m_proxy);
    m_view->setObjectName(QStringLiteral("sessionTree"));
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(SessionModel::LastColumn, Qt::DescendingOrder);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->setAllColumnsShowFocus(true);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->header()->setSectionResizeMode(SessionModel::TitleColumn, QHeaderView::Interactive);
    m_view->header()->resizeSection(SessionModel::TitleColumn, 260);
    m_filter->setPlaceholderText(tr("Filter: project, title, path, model"));
    m_filter->setClearButtonEnabled(true);
    m_agent->addItem(tr("All agents"), QString());
    for (const char *a : {"claude-code", "codex", "gemini", "qwen-code", "copilot", "api"})
        m_agent->addItem(QString::fromLatin1(a), QString::fromLatin1(a));
    auto *refresh = new QPushButton(tr("Rescan"), this);
    refresh->setObjectName(QStringLiteral("rescanSessions"));
    auto *add = new QPushButton(tr("Add Folder…"), this);
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::PlainText); // warnings quote paths and names, never markup
    auto *bar = new QHBoxLayout;
    bar->addWidget(m_agent);
    bar->addStretch(1);
    bar->addWidget(refresh);
    bar->addWidget(add);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_filter);
    layout->addLayout(bar);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_status);
    setMinimumWidth(300); // title and agent readable; narrower than that, the window at 1024 px would not fit
    m_view->header()->resizeSection(SessionModel::AgentColumn, 90);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(800);

    connect(m_filter, &QLineEdit::textChanged, this, &SessionBrowser::applyFilter);
    connect(m_agent, &QComboBox::currentIndexChanged, this, &SessionBrowser::applyFilter);
    connect(refresh, &QPushButton::clicked, this, &SessionBrowser::rescan);
    connect(add, &QPushButton::clicked, this, &SessionBrowser::addFolder);
    connect(m_view, &QTreeView::activated, this, [this](const QModelIndex &index) {
        const QString path = index.data(SessionPathRole).toString();
        // The double-click that follows a click which already opened this session.
        const bool again = m_openOnClick && path == m_clickedPath && m_clicked.isValid()
                           && m_clicked.elapsed() < QApplication::doubleClickInterval();
        if (!path.isEmpty() && !again)
            Q_EMIT openRequested(path);
    });
    connect(m_view, &QTreeView::clicked, this, [this](const QModelIndex &index) {
        const QString path = index.data(SessionPathRole).toString();
        if (!m_openOnClick || path.isEmpty())
            return;
        m_clickedPath = path;
        m_clicked.start();
        Q_EMIT openRequested(path);
    });
    // An agent writing a session (or starting one) touches its folder: rescan, warm and cheap.
    connect(m_watcher, &QFileSystemWatcher::directoryChanged, m_debounce, qOverload<>(&QTimer::start));
    connect(m_watcher, &QFileSystemWatcher::fileChanged, m_debounce, qOverload<>(&QTimer::start));
    connect(m_debounce, &QTimer::timeout, this, [this] {
        m_stale = true;
        if (m_active)
            rescan();
    });
    m_folders = QSettings().value(QStringLiteral("sessions/folders")).toStringList();
    m_status->setText(tr("Scanned when shown."));
}

SessionBrowser::~SessionBrowser() = default;

void SessionBrowser::setHome(const QString &home)
{
    m_home = home;
    m_stale = true;
}

void SessionBrowser::setFolders(const QStringList &folders)
{
    m_folders = folders;
    QSettings().setValue(QStringLiteral("sessions/folders"), m_folders);
    m_stale = true;
    if (m_active)
        rescan();
}

void SessionBrowser::setActive(bool active)
{
    m_active = active;
    if (m_active && m_stale && !m_job.isRunning())
        rescan();
}

namespace {

// The sessions an agent is running now (one look at the processes for all of them).
QHash<QString, QString> runningSessions(const std::vector<sessions::Session> &list)
{
    QHash<QString, QString> out;
    const running::Snapshot snapshot = running::takeSnapshot();
    for (const sessions::Session &s : list) {
        running::SessionHint hint;
        hint.path = s.path;
        hint.sessionId = s.sessionId;
        hint.folder = s.project;
        hint.format = sessions::formatOf(s.agent);
        if (const auto a = running::find(hint, snapshot))
            out.insert(QString::fromStdString(s.path), QString::fromStdString(running::refusal(*a, "save it")));
    }
    return out;
}

// Marks the running sessions; while any is marked, looks again every 2 s (one chain per browser), so
// that the mark goes when the agent exits even if nothing else makes the browser scan.
void markRunning(SessionBrowser *browser)
{
    const QHash<QString, QString> marks = runningSessions(browser->model()->sessions());
    browser->model()->setRunning(marks);
    if (marks.isEmpty() || browser->property("runningPoll").toBool())
        return;
    browser->setProperty("runningPoll", true);
    QTimer::singleShot(2000, browser, [browser] {
        browser->setProperty("runningPoll", false);
        markRunning(browser);
    });
}

// Whatever goes wrong in the scan, it ends and says so: the browser never waits for ever.
sessions::ScanResult scanOrReport(const sessions::ScanOptions &o)
{
    try {
        return sessions::scan(o);
    } catch (const std::exception &e) {
        sessions::ScanResult failed;
        failed.warnings.push_back(std::string("the scan failed: ") + e.what());
        return failed;
    }
}

} // namespace

void SessionBrowser::rescan()
{
    sessions::ScanOptions o;
    o.home = filenames::toBytes(m_home);
    for (const QString &f : m_folders)
        o.folders.push_back(filenames::toBytes(f));
    o.cachePath = filenames::toBytes(m_cachePath);
    m_stale = false;
    m_status->setText(tr("Scanning %1\u2026").arg(QDir::toNativeSeparators(m_home)));
    auto timer = std::make_shared<QElapsedTimer>();
    timer->start();
    m_job.start([o](JobControl &) { return scanOrReport(o); },
                [this, timer](sessions::ScanResult r) {
                    const QString keep = m_view->currentIndex().data(SessionPathRole).toString();
                    m_stats = r.stats;
                    m_model->setSessions(std::move(r.sessions));
                    markRunning(this);
                    m_view->expandAll();
                    if (!keep.isEmpty())
                        m_view->setCurrentIndex(m_proxy->mapFromSource(m_model->indexOfPath(keep)));
                    QString text = tr("%n session(s)", nullptr, int(m_model->sessions().size()))
                                   + tr(" in %n project(s)", nullptr, m_model->projectCount())
                                   + tr(" \u00b7 %1 read, %2 from the cache \u00b7 %3 ms")
                                         .arg(m_stats.parsed)
                                         .arg(m_stats.fromCache)
                                         .arg(timer->elapsed());
                    // Every warning (unreadable files, a session's unreadable subagent files, bad
                    // price entries) counts; the first is shown, all of them in the tooltip.
                    QStringList warnings;
                    for (const auto &w : r.warnings)
                        warnings << QString::fromStdString(w);
                    if (warnings.size() == 1)
                        text += QStringLiteral(" \u00b7 ") + warnings.front();
                    else if (!warnings.isEmpty())
                        text += QStringLiteral(" \u00b7 ") + tr("%n warning(s): ", nullptr, int(warnings.size())) + warnings.front();
                    m_scanText = text;
                    showCount();
                    m_status->setToolTip(warnings.join(QLatin1Char('\n')));
                    watchFolders();
                    Q_EMIT scanned();
                    if (m_stale && m_active) // changed while scanning
                        rescan();
                });
}

void SessionBrowser::applyFilter()
{
    m_proxy->set(m_filter->text().trimmed(), m_agent->currentData().toString());
    m_view->expandAll();
    showCount();
}

void SessionBrowser::showCount()
{
    const bool filtered = !m_filter->text().trimmed().isEmpty() || !m_agent->currentData().toString().isEmpty();
    if (!filtered || m_scanText.isEmpty()) {
        m_status->setText(m_scanText);
        return;
    }
    int shown = 0; // sessions are the rows under the project rows
    for (int p = 0; p < m_proxy->rowCount(); ++p)
        shown += m_proxy->rowCount(m_proxy->index(p, 0));
    m_status->setText(tr("%1 of %2 sessions shown").arg(shown).arg(m_model->sessions().size())
                      + QStringLiteral(" \u00b7 ") + m_scanText);
}

void SessionBrowser::addFolder()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Add a folder of transcripts"), m_home);
    if (dir.isEmpty() || m_folders.contains(dir))
        return;
    setFolders(m_folders + QStringList{dir});
}

void SessionBrowser::watchFolders()
{
    // The folders sessions appear in: the agents' roots and one level below (projects, days).
    QStringList dirs;
    const QStringList roots{m_home + QStringLiteral("/.claude/projects"), m_home + QStringLiteral("/.codex/sessions"),
                            m_home + QStringLiteral("/.gemini/tmp"), m_home + QStringLiteral("/.qwen/projects"),
                            m_home + QStringLiteral("/.copilot/session-state")};
    for (const QString &root : roots) {
        if (!QFileInfo(root).isDir())
            continue;
        dirs << root;
        QDirIterator it(root, QDir::Dirs | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
        while (it.hasNext() && dirs.size() < 2000)
            dirs << it.next();
    }
    dirs << m_folders;
    const QStringList watched = m_watcher->directories();
    QStringList add;
    for (const QString &d : dirs)
        if (!watched.contains(d))
            add << d;
    if (!add.isEmpty())
        m_watcher->addPaths(add);
}

} // namespace cl::gui
