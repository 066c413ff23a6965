// SPDX-License-Identifier: MIT
#include "widgets/mainwindow/startpage.h"

#include "widgets/models/sessionmodel.h"
#include "widgets/sessions/sessionbrowser.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace cl::gui {

namespace {

QLabel *heading(const QString &text, QWidget *parent, qreal scale = 1.0)
{
    auto *label = new QLabel(text, parent);
    QFont f = label->font();
    f.setBold(true);
    if (scale != 1.0)
        f.setPointSizeF(f.pointSizeF() * scale);
    label->setFont(f);
    return label;
}

} // namespace

StartPage::StartPage(QWidget *parent)
    : QWidget(parent)
    , m_sessions(new SessionBrowser(this))
    , m_recent(new QListWidget(this))
    , m_demo(new QPushButton(tr("Open the Demo Session"), this))
{
    setObjectName(QStringLiteral("startPage"));
    auto *intro = new QLabel(tr("Open an agent session to see what its model sees: where the context goes, "
                                "what each compaction strategy would keep, and the saving before the agent runs it."),
                             this);
    intro->setWordWrap(true);
    auto *openFile = new QPushButton(tr("Open File…"), this);
    openFile->setObjectName(QStringLiteral("startOpenFile"));
    m_demo->setObjectName(QStringLiteral("startOpenDemo"));
    m_demo->hide();
    m_recent->setObjectName(QStringLiteral("recentFiles"));
    m_recent->setAlternatingRowColors(true);
    auto *drop = new QLabel(tr("Or drop a transcript anywhere on this window: Claude Code, Codex or Gemini CLI "
                               "sessions, and Anthropic, OpenAI or Gemini API histories."),
                            this);
    drop->setWordWrap(true);
    drop->setEnabled(false); // a hint, in the palette's quieter text

    auto *left = new QVBoxLayout;
    left->addWidget(heading(tr("ContextLens"), this, 1.6));
    left->addWidget(intro);
    left->addSpacing(8);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(openFile);
    buttons->addWidget(m_demo);
    buttons->addStretch(1);
    left->addLayout(buttons);
    left->addSpacing(8);
    left->addWidget(heading(tr("Recent files"), this));
    left->addWidget(m_recent, 1);
    left->addWidget(drop);

    auto *right = new QVBoxLayout;
    right->addWidget(heading(tr("Sessions on this machine"), this));
    auto *hint = new QLabel(tr("Most recent first, by project; click one to open it."), this);
    hint->setWordWrap(true);
    right->addWidget(hint);
    right->addWidget(m_sessions, 1);
    m_sessions->setOpenOnClick(true);
    // What tells sessions apart at a glance: name, agent, when, how full its context got, its cost.
    for (const int column : {SessionModel::StartColumn, SessionModel::MessagesColumn, SessionModel::CompactionsColumn,
                             SessionModel::SizeColumn, SessionModel::ModelColumn})
        m_sessions->view()->setColumnHidden(column, true);
    QHeaderView *header = m_sessions->view()->header();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(SessionModel::TitleColumn, QHeaderView::Stretch); // the rest of the width

    auto *row = new QHBoxLayout(this);
    row->setContentsMargins(16, 12, 16, 12);
    row->setSpacing(16);
    row->addLayout(left, 2);
    row->addLayout(right, 3);

    connect(openFile, &QPushButton::clicked, this, &StartPage::openFileRequested);
    connect(m_demo, &QPushButton::clicked, this, [this] { Q_EMIT openRequested(m_demoPath); });
    connect(m_sessions, &SessionBrowser::openRequested, this, &StartPage::openRequested);
    connect(m_recent, &QListWidget::itemActivated, this,
            [this](QListWidgetItem *item) { Q_EMIT openRequested(item->data(Qt::UserRole).toString()); });
    connect(m_recent, &QListWidget::itemClicked, this,
            [this](QListWidgetItem *item) { Q_EMIT openRequested(item->data(Qt::UserRole).toString()); });
}

void StartPage::setRecentFiles(const QStringList &files)
{
    m_recent->clear();
    for (const QString &path : files) {
        const QFileInfo info(path);
        auto *item = new QListWidgetItem(tr("%1 — %2").arg(info.fileName(), QDir::toNativeSeparators(info.path())), m_recent);
        item->setData(Qt::UserRole, path);
        item->setToolTip(QDir::toNativeSeparators(path));
        if (!info.exists()) {
            item->setFlags(item->flags() & ~Qt::ItemIsEnabled);
            item->setToolTip(tr("%1 (no longer there)").arg(QDir::toNativeSeparators(path)));
        }
    }
    if (files.isEmpty()) {
        auto *none = new QListWidgetItem(tr("None yet: files you open are listed here."), m_recent);
        none->setFlags(Qt::NoItemFlags);
    }
}

void StartPage::setDemoPath(const QString &path)
{
    m_demoPath = path;
    m_demo->setVisible(!path.isEmpty());
}

void StartPage::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    m_sessions->setActive(true);
}

void StartPage::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    m_sessions->setActive(false);
}

QString bundledDemoPath()
{
    const QDir app(QCoreApplication::applicationDirPath());
    for (const QString &path : {QDir::cleanPath(app.filePath(QStringLiteral("../share/contextlens/demo/demo-session.jsonl"))),
                                QStringLiteral(CL_SOURCE_DEMO)})
        if (QFileInfo(path).isFile())
            return path;
    return {};
}

} // namespace cl::gui
